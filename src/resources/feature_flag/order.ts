// Flags that depend on each other (a `type: flag` property in a flag's release conditions names
// the id of the flag it depends on): the real API refuses to delete or disable a flag that
// active flags depend on, and to enable a flag whose dependencies are disabled
// (posthog/api/feature_flag.py, FeatureFlagSerializer.update). So apply orders flag changes:
// deletes and disables of dependents before the flags they depend on, enables of dependencies
// before their dependents. A cycle among the declared flags is refused at plan time.
import { flagDependencies } from './rules.js';
import { findCycle } from '../../util/find-cycle.js';

type Obj = Record<string, unknown>;

/** A planned flag change as ordering sees it. */
export interface FlagChangeView {
  address: string;
  action: 'create' | 'update' | 'delete';
  key: string;
  /** The live flag (absent for a create). */
  live?: Obj;
  /** The declared values the change sends. */
  values: Obj;
}

function isOn(live: Obj | undefined, values: Obj, action: FlagChangeView['action']): boolean {
  if (action === 'delete') return false;
  if (values.archived === true) return false;
  if (typeof values.active === 'boolean') return values.active;
  return live ? live.active !== false : true;
}

/** The ids a flag depends on after its change (none once it is deleted or off: it then holds nothing up). */
function depsAfter(change: FlagChangeView): number[] {
  if (!isOn(change.live, change.values, change.action)) return [];
  return flagDependencies('filters' in change.values ? change.values.filters : change.live?.filters);
}

/** The ids an active live flag depends on now. */
function depsBefore(change: FlagChangeView): number[] {
  if (!change.live || change.live.active === false) return [];
  return flagDependencies(change.live.filters);
}

/**
 * Pairs [before, after] of addresses: `before` must be applied before `after` starts.
 * `changes` are the flag changes of one project.
 */
export function flagOrder(changes: readonly FlagChangeView[]): Array<[string, string]> {
  const edges: Array<[string, string]> = [];
  const byId = new Map<number, FlagChangeView>();
  for (const c of changes) if (c.live && typeof c.live.id === 'number') byId.set(c.live.id, c);
  for (const x of changes) {
    const before = new Set(depsBefore(x));
    const after = new Set(depsAfter(x));
    // X stops depending on Y (deleted, disabled, or its conditions drop Y): X goes first when Y goes down.
    for (const id of before) {
      const y = byId.get(id);
      if (!y || y === x || after.has(id)) continue;
      if (!isOn(y.live, y.values, y.action)) edges.push([x.address, y.address]);
    }
    // X starts depending on Y (enabled, or its conditions add Y): Y goes first when Y comes up.
    for (const id of after) {
      const y = byId.get(id);
      if (!y || y === x || before.has(id)) continue;
      if (y.live?.active === false && isOn(y.live, y.values, y.action)) edges.push([y.address, x.address]);
    }
  }
  return edges;
}

/** A declared flag for the cycle check: its key, and its release conditions (declared, else live). */
export interface DeclaredFlag { key: string; filters: unknown }

/**
 * The first dependency cycle among the declared flags of a project, as keys (`a → b → a`), or
 * null. `keyOfId` maps live flag ids to keys (dependencies name ids).
 */
export function dependencyCycle(flags: readonly DeclaredFlag[], keyOfId: (id: number) => string | undefined): string[] | null {
  // Only flags that depend on others can be part of a cycle: most depend on none.
  const deps = new Map<string, string[]>();
  for (const f of flags) {
    const ids = flagDependencies(f.filters);
    if (ids.length > 0) deps.set(f.key, ids.map(keyOfId).filter((k): k is string => k !== undefined));
  }
  return deps.size === 0 ? null : findCycle(deps) ?? null;
}
