// Verification after apply: every applied change is looked up in the state re-read from the
// API (src/api/reread.ts). A field that holds another value than was sent was not taken (for
// example a setting the workspace's plan does not include, or a field an older API version
// ignores); an item created or updated but not found, or deleted but still there, is named too.
import type { LiveState } from '../api/live-state.js';
import type { LiveRecord, ResourceKind } from '../resources/kind.js';
import { sameValue, serverKeysOf } from '../plan/normalize.js';
import type { PlanResult } from '../plan/types.js';
import type { ApplyReport } from './execute.js';

export function unappliedFields(kind: ResourceKind, sent: Record<string, unknown>, stored: LiveRecord): string[] {
  const notTaken: string[] = [];
  for (const [field, value] of Object.entries(sent)) {
    const spec = kind.fields[field];
    if (!spec) continue;
    if (!sameValue(spec.compare, value, stored[field], serverKeysOf(kind, field))) notTaken.push(field);
  }
  return notTaken;
}

/** Marks fields not taken on the report's outcomes and returns the warnings to show. */
export function verifyApplied(result: PlanResult, report: ApplyReport, after: LiveState): string[] {
  const warnings: string[] = [];
  for (const outcome of report.outcomes) {
    const execution = result.executions.get(outcome.address);
    if (outcome.status !== 'applied' || !execution) continue;
    const { kind, scope, identity, values } = execution;
    const records = after.find(kind, scope);
    if (!records) continue;
    const match = kind.matchKey(kind.displayKey(identity));
    const record = records.find((r) => !kind.isGone(r) && kind.matchKey(kind.displayKey(r[kind.identityField])) === match);
    if (outcome.action === 'delete') {
      if (record) warnings.push(`${outcome.address}: still there when re-read after the delete`);
      continue;
    }
    if (!record) {
      warnings.push(`${outcome.address}: not found when re-read after the ${outcome.action}`);
      continue;
    }
    const notTaken = unappliedFields(kind, values, record);
    if (notTaken.length > 0) {
      outcome.not_taken = notTaken;
      for (const field of notTaken) warnings.push(`${outcome.address}: the API did not take ${field} (re-read, it holds another value; unless someone else changed it meanwhile)`);
    }
  }
  return warnings;
}
