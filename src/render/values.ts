// How values appear in human-readable plans: short values inline, long strings and objects
// as a line diff, sensitive values never.
import { diffLines } from 'diff';
import { SENSITIVE, type Change, type FieldChange, type Plan } from '../plan/types.js';

const INLINE_LIMIT = 60;

export function inline(value: unknown): string {
  if (value === SENSITIVE) return SENSITIVE;
  if (value === null || value === undefined) return 'null';
  return JSON.stringify(value);
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

export function lineDiff(before: unknown, after: unknown): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const part of diffLines(multiline(before), multiline(after))) {
    const sign = part.added ? '+' : part.removed ? '-' : ' ';
    for (const text of part.value.replace(/\n$/, '').split('\n')) lines.push({ sign, text });
  }
  return lines;
}

export const SYMBOL: Record<Change['action'], '+' | '~' | '-'> = { create: '+', update: '~', delete: '-' };

export function closingLine(plan: Plan): string {
  const { create, update } = plan.summary;
  const del = plan.summary.delete;
  if (plan.kind === 'drift') {
    return create + update + del === 0 ? 'No drift: live state matches the configuration.' : `Drift: ${create} missing, ${update} changed, ${del} to delete.`;
  }
  return create + update + del === 0 ? 'No changes. Live state matches the configuration.' : `Plan: ${create} to create, ${update} to update, ${del} to delete.`;
}

export function blastRadiusLine(change: Change): string | undefined {
  const b = change.blast_radius;
  if (!b) return undefined;
  const pct = b.total > 0 ? ` (${((b.affected / b.total) * 100).toFixed(1)}%)` : '';
  return `blast radius: the new release conditions reach ${b.affected} of ${b.total} users${pct}`;
}
