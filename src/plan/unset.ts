// Write-only secrets whose variable is unset (src/config/unset.ts): where the plan sends one (a
// create, --resend-secrets, a changed input that is not secret), an error at its line naming the
// variable; where nothing sends it (the stored secret stays), a note. A nightly drift job needs
// no production write secrets. Read from the requests the plan's changes would make.
import { unsetValues } from '../config/unset.js';
import { formatPosition, type ConfigProblem } from '../config/problems.js';
import { changeKey, type PlanResult } from './types.js';

/** Stand-ins for unset values found anywhere below a request body. */
function standIns(value: unknown, found: Set<string>): void {
  if (typeof value === 'string') {
    if (value.startsWith('\u0000unset ')) found.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) standIns(v, found);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) standIns(v, found);
  }
}

export function unsetSecrets(result: PlanResult): { errors: ConfigProblem[]; notes: string[] } {
  const all = unsetValues();
  if (all.size === 0) return { errors: [], notes: [] };
  const sent = new Map<string, string>();
  for (const change of result.plan.changes) {
    const execution = result.executions.get(changeKey(change));
    if (!execution || change.action === 'delete') continue;
    const { kind, scope, id, values } = execution;
    // Only a write-only field holds a stand-in.
    if (!kind.writeOnlyFields) continue;
    const call = change.action === 'create' || id === null ? kind.createCall(scope, execution.identity, values) : kind.updateCall(scope, id, values, execution.live);
    const found = new Set<string>();
    standIns(call.body, found);
    for (const s of found) if (!sent.has(s)) sent.set(s, change.address);
  }
  const errors: ConfigProblem[] = [];
  const notes: string[] = [];
  for (const [standIn, { names, positions }] of all) {
    const variables = names.join(', ');
    const address = sent.get(standIn);
    for (const position of positions) {
      if (address !== undefined) {
        errors.push({ position, message: `environment variable ${variables} is not set, and ${address} would send its value (${result.plan.changes.find((c) => c.address === address)?.action === 'create' ? 'a create sends every input' : 'an update sends it'}): set ${variables}` });
      } else {
        notes.push(`${formatPosition(position)}: environment variable ${variables} is not set: a write-only secret this run does not send (the stored value stays); a create or --resend-secrets will need it`);
      }
    }
  }
  return { errors, notes };
}
