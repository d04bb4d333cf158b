// How values appear in human-readable plans: short values inline, long strings and objects
// as a line diff, sensitive values never.
import { createRequire } from 'node:module';
import type { diffLines as DiffLines } from 'diff';
import { attributionText, attributionTime } from '../plan/attribution.js';
import { findingsOf, SENSITIVE, type Change, type FieldChange, type Plan } from '../plan/types.js';
import type { DescribedLine } from '../resources/kind.js';
import { KINDS } from '../resources/registry.js';
import { printable } from '../util/printable.js';

export { printable };
export { findingsOf };

const INLINE_LIMIT = 60;

export function inline(value: unknown): string {
  if (value === SENSITIVE) return SENSITIVE;
  if (value === null || value === undefined) return 'null';
  return printable(JSON.stringify(value));
}

/** One side of a field change on one line; a write-only secret says it is one. */
export function inlineField(field: FieldChange, side: 'before' | 'after'): string {
  const value = field[side];
  return field.write_only && value === SENSITIVE ? `${SENSITIVE.slice(0, -1)}, write-only)` : inline(value);
}

/** Whether a field change reads better as a multi-line diff than as `before → after`. */
export function needsLineDiff(field: FieldChange): boolean {
  if (field.sensitive) return false;
  const isBig = (v: unknown) => (v !== null && typeof v === 'object') || (typeof v === 'string' && (v.length > INLINE_LIMIT || v.includes('\n')));
  return (isBig(field.before) || isBig(field.after)) && inline(field.before).length + inline(field.after).length > INLINE_LIMIT;
}

function multiline(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.endsWith('\n') ? value : `${value}\n`;
  return `${JSON.stringify(value, null, 2)}\n`;
}

export interface DiffLine { sign: ' ' | '+' | '-'; text: string }

/** Unchanged lines kept around each change; longer unchanged runs are folded into one line. */
export const DIFF_CONTEXT = 3;

// The line diff, loaded the first time a long value is shown: diff's index loads every kind
// of diff it has (about 10 ms of CPU), and every command loads this module, most never showing one.
let lineDiffer: typeof DiffLines | undefined;
function diffLines(before: string, after: string): ReturnType<typeof DiffLines> {
  lineDiffer ??= (createRequire(import.meta.url)('diff/lib/diff/line.js') as { diffLines: typeof DiffLines }).diffLines;
  return lineDiffer(before, after);
}

export function lineDiff(before: unknown, after: unknown): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const part of diffLines(multiline(before), multiline(after))) {
    const sign = part.added ? '+' : part.removed ? '-' : ' ';
    for (const text of part.value.replace(/\n$/, '').split('\n')) lines.push({ sign, text: printable(text) });
  }
  return foldUnchanged(lines);
}

function foldUnchanged(lines: DiffLine[]): DiffLine[] {
  const near = lines.map(() => false);
  lines.forEach((line, i) => {
    if (line.sign === ' ') return;
    for (let j = Math.max(0, i - DIFF_CONTEXT); j <= Math.min(lines.length - 1, i + DIFF_CONTEXT); j++) near[j] = true;
  });
  const out: DiffLine[] = [];
  for (let i = 0; i < lines.length; ) {
    if (near[i]) {
      out.push(lines[i] as DiffLine);
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && !near[j]) j++;
    // Folding a single line saves nothing.
    if (j - i === 1) out.push(lines[i] as DiffLine);
    else out.push({ sign: ' ', text: `… ${j - i} unchanged lines` });
    i = j;
  }
  return out;
}

export const SYMBOL: Record<Change['action'], '+' | '~' | '-'> = { create: '+', update: '~', delete: '-' };

/** ` (step 1 of 2)` after the address of a change split in ordered steps (an experiment ended, then archived); '' otherwise. */
export function stepText(step: Change['step']): string {
  return step ? ` (step ${step.number} of ${step.of})` : '';
}

export function closingLine(plan: Plan): string {
  const { create, update } = plan.summary;
  const del = plan.summary.delete;
  if (plan.kind === 'drift') {
    const since = plan.since === undefined ? undefined : attributionTime(plan.since);
    if (findingsOf(plan) === 0) return since ? `No drift since ${since}: what the activity logs name matches the configuration.` : 'No drift: live state matches the configuration.';
    const unmanaged = plan.fail_on_unmanaged ? `, ${plan.unmanaged.length} unmanaged (live, in no file; --fail-on-unmanaged)` : '';
    return `Drift${since ? ` since ${since}` : ''}: ${create} missing, ${update} changed, ${del} to delete${unmanaged}.`;
  }
  return create + update + del === 0 ? 'No changes. Live state matches the configuration.' : `Plan: ${create} to create, ${update} to update, ${del} to delete.`;
}

/** What the kinds' annotations say beside a change, one line each (blast radius, a delivery sent, what the API deletes with it). */
export function annotationLines(change: Change): string[] {
  const out: string[] = [];
  const blast = blastRadiusLine(change);
  if (blast) out.push(blast);
  if (change.sends_delivery) out.push('sends a delivery now: the API delivers it to its recipients as soon as this change is made');
  for (const address of change.also_deletes ?? []) out.push(`the API also deletes ${address.split(':')[0]?.replace(/_/g, ' ')} ${address} with this change`);
  out.push(...(change.notes ?? []));
  return out;
}

export function blastRadiusLine(change: Change): string | undefined {
  const b = change.blast_radius;
  if (!b) return undefined;
  const share = (n: number) => (b.total > 0 ? ` (${((n / b.total) * 100).toFixed(1)}%)` : '');
  if (b.inactive) {
    return `blast radius: none, the flag is off (once on, the new release conditions would reach ${b.when_enabled ?? 0} of ${b.total} ${b.unit ?? 'users'}${share(b.when_enabled ?? 0)})`;
  }
  return `blast radius: the new release conditions reach ${b.affected} of ${b.total} ${b.unit ?? 'users'}${share(b.affected)}`;
}

/**
 * A field change in its kind's words (a flag's release conditions as the web app shows them),
 * or undefined for the generic diff. A plan reads live → files (what apply will do); a drift
 * report reads files → live (how live state left the files).
 */
export function describedField(plan: Plan, change: Change, field: FieldChange): DescribedLine[] | undefined {
  // An update; or a create in a plan (what it will set: every line added). A drift report's
  // missing item stays as the files declare it.
  const creates = change.action === 'create' && plan.kind === 'plan';
  if (field.sensitive || (change.action !== 'update' && !creates)) return undefined;
  const kind = KINDS.find((k) => k.name === change.kind);
  if (!kind?.describeField) return undefined;
  const [from, to] = creates ? [null, field.after] : plan.kind === 'drift' ? [field.after, field.before] : [field.before, field.after];
  const lines = kind.describeField(field.path, from, to, { sensitive: field.sensitive, redacted: SENSITIVE });
  // Nothing it reads changed: the generic diff shows what did (never silence).
  return lines && lines.length > 0 ? lines : undefined;
}

/**
 * The heading of a field shown on lines of its own: its name, who changed it (drift
 * attribution) and, in a drift report described in its kind's words, that its lines read from
 * the files to live state.
 */
export function fieldHeading(plan: Plan, field: FieldChange, described: boolean): string {
  const by = fieldAttribution(field);
  return `${field.path}${by ? `, ${by}` : ''}${described && plan.kind === 'drift' ? ' (files → live)' : ''}:`;
}

/** The attribution of a drifted field, in words ("changed by … at …"), if the log named one. */
export function fieldAttribution(field: FieldChange): string | undefined {
  return field.attribution ? printable(attributionText(field.attribution)) : undefined;
}

/** The attribution of an item as a whole (an item to delete, or one deleted live), if the log named one. */
export function itemAttribution(change: Change): string | undefined {
  if (!change.attribution || change.fields.some((f) => f.attribution)) return undefined;
  return printable(attributionText(change.attribution, true));
}

/** The heading of the unmanaged list: with --fail-on-unmanaged, they are findings of the report. */
export function unmanagedHeading(plan: Plan): string {
  return plan.fail_on_unmanaged ? 'live, in no file: drift with --fail-on-unmanaged' : 'live, in no file, left alone';
}

/** Where a change's declaration is (`declared at flags.yaml:8:5, flags.yaml:17:9`), and a rename. */
export function declaredLine(change: Change): string | undefined {
  const parts: string[] = [];
  if (change.declared_at && change.declared_at.length > 0) parts.push(`declared at ${change.declared_at.join(', ')}`);
  if (change.renamed_from !== undefined) parts.push(`renamed in place from ${JSON.stringify(change.renamed_from)}`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** Addresses named in a line: the first ten, then how many more. */
function named(addresses: readonly string[]): string {
  return addresses.slice(0, 10).join(', ') + (addresses.length > 10 ? ` and ${addresses.length - 10} more` : '');
}

/**
 * What a since report covers: from when, from which activity logs, what their entries named and
 * what was read in full because no log records it; undefined for any other report.
 */
export function sinceLine(plan: Plan): string | undefined {
  const t = plan.targets?.since;
  if (plan.since === undefined || !t) return undefined;
  const logs = t.logs.length === 0 ? 'no activity log (the files declare only kinds no log records)'
    : t.logs.every((l) => l.log === 'organization') ? `the organization-wide activity log${t.logs.length > 1 ? 's' : ''}`
    : t.logs.every((l) => l.log === 'projects') ? "each declared project's activity log" : 'the activity logs';
  // Patterns (`role:ORG/*`) are what was read in full; plain addresses are what the entries named.
  const items = t.derived.filter((d) => !d.address.includes('*')).map((d) => d.address);
  const whole = t.derived.filter((d) => d.address.includes('*')).map((d) => d.address);
  const parts = [`Since report: what changed since ${attributionTime(plan.since)}, from ${logs} (${t.entries} entr${t.entries === 1 ? 'y' : 'ies'})`];
  parts.push(items.length === 0 ? 'they name no declared or live item' : `they name ${named(items)}`);
  if (whole.length > 0) parts.push(`read in full: ${named(whole)}`);
  const left = plan.targets && plan.targets.addresses.length === 0 && plan.targets.left_out > 0 ? ` ${plan.targets.left_out} declared item${plan.targets.left_out === 1 ? '' : 's'} not read.` : '';
  return `${parts.join('; ')}.${left} Changes the API does not log show only in a full drift (without --since).`;
}

/** What a targeted plan covers, and how much it left out; undefined for a whole plan (and a since report without --target: sinceLine says it). */
export function targetsLine(plan: Plan): string | undefined {
  const t = plan.targets;
  if (!t || (t.since && t.addresses.length === 0 && !t.changed_since)) return undefined;
  const limits: string[] = [];
  if (t.changed_since) {
    const n = t.changed_since.derived.length;
    // A change to a default or a shared flag may reach thousands of items: name the first few.
    limits.push(`what changed since ${t.changed_since.revision} (${t.changed_since.commit.slice(0, 12)}): ${n === 0 ? 'nothing' : named(t.changed_since.derived.map((d) => d.address))}`);
  }
  if (t.addresses.length > 0) limits.push(`items matching ${t.addresses.join(', ')}`);
  const left = `${t.left_out} declared item${t.left_out === 1 ? '' : 's'} left out`;
  return `Targeted ${plan.kind === 'drift' ? 'report' : 'plan'}: only ${limits.join(', and ')}; ${left}.`;
}
