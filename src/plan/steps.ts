// One item's change split into ordered changes (a kind's `laterSteps`: an experiment ended,
// then archived, is two API calls the plan shows and apply reports one by one). Each step
// keeps the item's address and says which it is (`step`); apply keys the later ones apart
// (changeKey), runs each only once the step before was applied, and the next plan, made from
// what the API then holds, has only the steps left.
import { changeKey, type Change, type Execution, type FieldChange } from './types.js';

interface Planned { change: Change; execution: Execution; after: string[] }

/** The top-level field a field change's path is under (`variants[0].key` → `variants`). */
const topField = (path: string): string => path.split(/[.[]/, 1)[0] ?? path;

/** The ordered changes one planned change is made of: itself when its kind makes it in one step. */
export function splitSteps(planned: Planned): Planned[] {
  const { change, execution } = planned;
  const { kind } = execution;
  if (!kind.laterSteps || change.action === 'delete') return [planned];
  const later = kind.laterSteps({
    address: change.address, action: change.action, identity: execution.identity, scope: execution.scope, values: execution.values,
    ...(execution.live ? { live: execution.live } : {}),
  });
  const claimed = new Set(later.flat());
  const groups = [(f: string) => !claimed.has(f), ...later.map((g) => (f: string) => g.includes(f))];
  const parts = groups
    .map((inGroup) => ({
      fields: change.fields.filter((f: FieldChange) => inGroup(topField(f.path))),
      values: Object.fromEntries(Object.entries(execution.values).filter(([k]) => inGroup(k))),
    }))
    .filter((p) => p.fields.length > 0);
  if (parts.length < 2) return [planned];
  const out: Planned[] = [];
  for (const [i, part] of parts.entries()) {
    const step = { number: i + 1, of: parts.length };
    const previous = out[i - 1];
    // After the first, a create's steps are updates of the item it made (its id filled in by apply).
    const action = i > 0 && change.action === 'create' ? 'update' : change.action;
    out.push({
      change: { ...change, action, fields: part.fields, step },
      execution: { ...execution, values: part.values, ...(previous ? { follows: changeKey(previous.change) } : {}) },
      after: i === 0 ? planned.after : [],
    });
  }
  return out;
}

/** One change per item: the steps of an item's change as one (the first step's action, every step's fields), for what reports per item. */
export function changesByItem<C extends { address: string; fields: readonly unknown[] }>(changes: readonly C[]): C[] {
  const byAddress = new Map<string, C>();
  for (const c of changes) {
    const first = byAddress.get(c.address);
    byAddress.set(c.address, first ? { ...first, fields: [...first.fields, ...c.fields] } : c);
  }
  return [...byAddress.values()];
}
