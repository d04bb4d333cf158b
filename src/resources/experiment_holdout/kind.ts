// Experiment holdouts of a project: a share of users kept out of every experiment that uses the
// holdout. Identity = name; plain CRUD with a hard DELETE. What the real API does that hogsync
// must meet (ee/clickhouse/views/experiment_holdouts.py, ExperimentHoldoutSerializer):
//   - every filter group needs a rollout_percentage between 0 and 100 (400 otherwise), and a
//     create needs at least one group;
//   - the API writes `variant: holdout-ID` into each group after the create and on each write:
//     never compared, never exported;
//   - a write of `filters` rewrites `holdout_groups` in the flag of every experiment using the
//     holdout (the plan says which: `preview`); a DELETE clears them;
//   - its activity is logged under the `Experiment` scope.
import type { ResourceKind, Scope } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { restCollection } from '../rest-collection.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/experiment_holdouts/`;
const experiments = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/experiments/`;
const fields = lazy(() => fieldsFromSchema('experiment_holdout', ['name']));

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Filter groups as compared: without the `variant` the API writes, no properties ([]) as none. */
export function normalizeHoldoutFilters(value: unknown): unknown {
  if (!Array.isArray(value)) return value ?? null;
  return value.map((g) => {
    if (!isObj(g)) return g;
    const { variant: _variant, ...rest } = g;
    if (Array.isArray(rest.properties) && rest.properties.length === 0) delete rest.properties;
    return rest;
  });
}

/** The experiments (live, archived ones too) whose flags a write of this holdout rewrites. */
async function usersOf(scope: Scope, id: unknown, port: Parameters<NonNullable<ResourceKind['preview']>>[1]): Promise<string[]> {
  const names: string[] = [];
  for (const query of ['', '?archived=true']) {
    for (const e of await port.listAll<Obj>(`${experiments(scope)}${query}`)) {
      const holdout = isObj(e.holdout) ? e.holdout.id : e.holdout_id;
      if (holdout === id && e.deleted !== true) names.push(String(e.name));
    }
  }
  return [...new Set(names)];
}

export const experimentHoldout: ResourceKind = {
  name: 'experiment_holdout',
  label: 'experiment holdout',
  configKey: 'experiment_holdouts',
  prunable: true,
  identityField: 'name',
  parent: 'project',
  shared: true,
  read: 'list',
  canCreate: true,
  renamable: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  unsetValues: { description: null },
  computedKeys: { filters: ['[].variant'] },
  normalizers: { filters: normalizeHoldoutFilters },
  ...restCollection({ base, deletes: 'hard', identityField: 'name' }),
  unavailable: 'experiment holdouts are not available here: the API answers experiments, holdouts and saved metrics only where the organization has its enterprise features',
  activity: { scopes: ['Experiment'], log: 'parent', type: 'holdout' },
  /** A change of a used holdout's groups rewrites its experiments' flags: say which, before anything is sent. */
  previewFields: ['filters'],
  previewAlways: true,
  previewName: 'flags rewritten with it',
  async preview(input, port) {
    if (input.action !== 'update' || !input.changed.some((p) => p === 'filters' || p.startsWith('filters.') || p.startsWith('filters['))) return undefined;
    let names: string[];
    try {
      names = await usersOf(input.scope, input.live?.id, port);
    } catch {
      return { warning: `${input.address}: could not read which experiments use this holdout; their flags' holdout groups change with it` };
    }
    if (names.length === 0) return undefined;
    return { warning: `${input.address}: rewrites the holdout groups in the flags of ${names.length === 1 ? 'experiment' : 'experiments'} ${names.map((n) => JSON.stringify(n)).join(', ')}` };
  },
};
