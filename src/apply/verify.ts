// Verification after apply: every applied change is looked up in the state re-read from the
// API (src/state/reread.ts). A field that holds another value than was sent was not taken (for
// example a setting the workspace's plan does not include, or a field an older API version
// ignores); an item created or updated but not found, or deleted but still there, is named too.
// The result is a report beside the apply report; withVerification makes the report that shows it.
import { identityOf, labelOf, type LiveRecord, type ResourceKind } from '../resources/kind.js';
import type { LiveState } from '../plan/live.js';
import { sameField } from '../plan/normalize.js';
import { changeKey, type Execution, type PlanResult } from '../plan/types.js';
import { summarize, type ApplyReport, type ChangeOutcome } from './execute.js';

export interface VerificationReport {
  /** Per change key (changeKey): fields that, re-read, hold other values than were sent. */
  notTaken: ReadonlyMap<string, readonly string[]>;
  warnings: string[];
  /** Why the changes could not be re-read, when they could not: the apply is unverified. */
  unverified?: string;
}

export function unappliedFields(kind: ResourceKind, sent: Record<string, unknown>, stored: LiveRecord): string[] {
  const notTaken: string[] = [];
  for (const [field, value] of Object.entries(sent)) {
    // Sent on create only, never read back (a hog function's template_id): nothing to compare.
    if (!kind.fields[field] || kind.fields[field]?.createOnly) continue;
    // Write-only secrets read back as a marker: what was sent cannot be seen again.
    if (kind.secretFields?.(undefined, stored).includes(field)) continue;
    if (!sameField(kind, field, value, stored[field], { record: stored })) notTaken.push(field);
  }
  return notTaken;
}

/** The live record (gone ones aside) the re-read holds for an execution's item; null when the re-read did not cover its collection. */
function reread(after: LiveState, execution: Execution): LiveRecord | undefined | null {
  const { kind, scope, identity } = execution;
  const records = after.find(kind, scope);
  if (!records) return null;
  // By id where the item had one (identities may repeat, or change with the update), else by identity.
  if (execution.id !== null) return records.find((r) => !kind.isGone(r) && String(kind.liveId(r)) === String(execution.id));
  const match = kind.matchKey(kind.displayKey(identity));
  return records.find((r) => !kind.isGone(r) && kind.matchKey(kind.displayKey(identityOf(kind, r))) === match);
}

/** What the re-read state says about each applied change of the report. */
export function verifyApplied(result: PlanResult, outcomes: readonly ChangeOutcome[], after: LiveState, sent?: ReadonlyMap<string, Record<string, unknown>>): VerificationReport {
  const warnings: string[] = [];
  const notTaken = new Map<string, string[]>();
  for (const outcome of outcomes) {
    const execution = result.executions.get(changeKey(outcome));
    if (outcome.status !== 'applied' || !execution) continue;
    const { kind } = execution;
    const values = sent?.get(changeKey(outcome)) ?? execution.values;
    const record = reread(after, execution);
    if (record === null) continue;
    if (outcome.action === 'delete') {
      if (record) warnings.push(`${outcome.address}: still there when re-read after the delete`);
      continue;
    }
    if (!record) {
      warnings.push(`${outcome.address}: not found when re-read after the ${outcome.action}`);
      continue;
    }
    const fields = unappliedFields(kind, values, record);
    if (fields.length > 0) {
      notTaken.set(changeKey(outcome), fields);
      for (const field of fields) {
        // A field the record does not carry at all: this API version has no such field (not a value it refused).
        warnings.push(field in record
          ? `${outcome.address}: the API did not take ${field} (re-read, it holds another value; unless someone else changed it meanwhile)`
          : `${outcome.address}: the API did not take ${field}: its ${labelOf(kind)} records have no such field (this API version does not keep it), so plans will not manage it; remove it from the files`);
      }
    }
  }
  return { notTaken, warnings };
}

/**
 * The report with each uncertain delete (see ApplyReport) that the re-read no longer finds
 * counted as applied, saying why; the others stay failed.
 */
export function confirmDeletes(result: PlanResult, report: ApplyReport, after: LiveState): ApplyReport {
  const uncertain = new Set(report.uncertainDeletes ?? []);
  if (uncertain.size === 0) return report;
  const notes = new Map(report.notes);
  const outcomes = report.outcomes.map((o): ChangeOutcome => {
    const execution = result.executions.get(o.address);
    if (!uncertain.has(o.address) || o.status !== 'failed' || !execution) return o;
    if (reread(after, execution) !== undefined) return o;
    notes.set(o.address, [...(notes.get(o.address) ?? []), `deleted: the delete failed (${o.error ?? 'no answer'}), but re-read, the ${labelOf(execution.kind)} is gone`]);
    return { address: o.address, action: o.action, status: 'applied' };
  });
  return { ...report, outcomes, summary: summarize(outcomes), notes };
}

/** A new apply report that shows a verification (or a failure to verify, as warnings). */
export function withVerification(report: ApplyReport, verification: VerificationReport): ApplyReport {
  const outcomes = report.outcomes.map((o) => {
    const fields = verification.notTaken.get(changeKey(o));
    return fields ? { ...o, not_taken: [...fields] } : o;
  });
  return { ...report, outcomes, warnings: [...report.warnings, ...verification.warnings], ...(verification.unverified === undefined ? {} : { unverified: verification.unverified }) };
}
