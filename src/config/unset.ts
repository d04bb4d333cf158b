// Write-only secrets whose variable is not set, where a run may go on without them (plan, drift
// and apply read live state; only what they send needs the value): the loader leaves a stand-in
// (interpolate.ts unsetValue) and records here where each was written; src/plan/unset.ts then
// makes each one a note where nothing will send it, and an error naming the variable where
// something would (a create, --resend-secrets, a change of a non-secret input).
import type { FilePosition } from '../errors.js';

const written = new Map<string, { names: readonly string[]; positions: FilePosition[] }>();

export function recordUnset(standIn: string, names: readonly string[], position: FilePosition): void {
  const at = written.get(standIn);
  if (at) at.positions.push(position);
  else written.set(standIn, { names, positions: [position] });
}

/** Every stand-in of this run, with its variables and where it was written. */
export function unsetValues(): ReadonlyMap<string, { names: readonly string[]; positions: readonly FilePosition[] }> {
  return written;
}

/** For tests that run in one process. */
export function forgetUnset(): void {
  written.clear();
}
