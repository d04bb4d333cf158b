// The order in which apply runs a plan's changes, as waves: every change of a wave may run in
// parallel; a change starts only after the changes it must follow. What it must follow:
//   - within one kind and scope, a create follows the deletes and updates, and an update the
//     deletes (a key or a limited slot is freed before it is taken again);
//   - what the kinds' `order` hooks ask (flags: a dependent is disabled before what it depends
//     on, a dependency enabled before its dependents); such a pair overrides the rule above.
// A cycle cannot come from the kinds (they refuse cycles at plan time); should one arise, its
// closing pair is ignored rather than leaving changes unstarted.
import type { Action } from '../plan/types.js';

export interface Orderable {
  address: string;
  action: Action;
  /** Changes of the same group (kind and scope) are ordered by action. */
  group: string;
}

const RANK: Readonly<Record<Action, number>> = { delete: 0, update: 1, create: 2 };

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Waves of addresses; `pairs` are [before, after] from the kinds. */
export function orderWaves(changes: readonly Orderable[], pairs: ReadonlyArray<readonly [string, string]> = []): string[][] {
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const prereqs = new Map<string, string[]>();
  const successors = new Map<string, string[]>();
  for (const [before, after] of pairs) {
    const b = byAddress.get(before);
    const a = byAddress.get(after);
    if (!b || !a || b === a) continue;
    push(prereqs, after, before);
    push(successors, before, after);
  }
  /** Everything a kind asked to run after this change, directly or not: never waited for by it. */
  const reversed = new Map<string, Set<string>>();
  for (const start of successors.keys()) {
    const seen = new Set<string>();
    const stack = [...(successors.get(start) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop() as string;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(successors.get(next) ?? []));
    }
    reversed.set(start, seen);
  }
  const byGroup = new Map<string, Orderable[]>();
  for (const c of changes) push(byGroup, c.group, c);

  const level = new Map<string, number>();
  const visiting = new Set<string>();
  /** Highest level among the changes of a group below an action rank (cached: groups can be large). */
  const below = new Map<string, number>();
  const levelOf = (c: Orderable): number => {
    const done = level.get(c.address);
    if (done !== undefined) return done;
    visiting.add(c.address);
    let l = 0;
    for (const p of prereqs.get(c.address) ?? []) {
      if (!visiting.has(p)) l = Math.max(l, levelOf(byAddress.get(p) as Orderable) + 1);
    }
    const skip = reversed.get(c.address);
    if (RANK[c.action] > 0) {
      const cacheKey = `${c.group}\n${c.action}`;
      let m = skip ? undefined : below.get(cacheKey);
      if (m === undefined) {
        m = -1;
        for (const e of byGroup.get(c.group) ?? []) {
          if (RANK[e.action] >= RANK[c.action] || skip?.has(e.address) || visiting.has(e.address)) continue;
          m = Math.max(m, levelOf(e));
        }
        if (!skip) below.set(cacheKey, m);
      }
      l = Math.max(l, m + 1);
    }
    visiting.delete(c.address);
    level.set(c.address, l);
    return l;
  };
  const waves: string[][] = [];
  for (const c of changes) {
    const l = levelOf(c);
    while (waves.length <= l) waves.push([]);
    waves[l]?.push(c.address);
  }
  return waves.filter((w) => w.length > 0);
}
