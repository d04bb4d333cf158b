// Cohorts of a project: identity = name, which the API does not keep unique (an `id:` in the file
// pins one live cohort); deleted with PATCH {"deleted": true}, as the API forbids DELETE. What the
// real API does to cohorts that hogsync must meet is declared here (posthog/api/cohort.py):
//   - filters compare as the API stores them (rules.ts): nulls dropped, `negation: false` added,
//     integers from numeric strings; `bytecode`, `bytecode_error` and `conditionHash` computed;
//     `count`, `is_calculating`, `last_calculation`, `errors_calculating`, `version` and
//     `pending_version` are computed too, and never managed (they are no field of the file);
//   - references by name: `{ cohort: NAME }` for cohorts a cohort includes, `{ action: NAME }`
//     for the actions of behavioral criteria (event_type / seq_event_type actions);
//   - what validate checks offline beyond the schema (rules.ts validateCohortEntry), and that a
//     flag targets no cohort with behavioral criteria (refusesReference; validate where the
//     cohort is declared, the plan where it is live);
//   - cohorts that include each other in a loop are a plan error (the API refuses the update);
//   - a cohort that an active flag or another cohort uses is never pruned (heldCohorts), and
//     `ensure: absent` on it is a plan error naming what uses it: the API refuses to delete it.
import type { HeldBy, HoldView, LiveRecord, ResourceKind, Scope, ScopeCheck, ScopeView } from '../kind.js';
import { namedReference, siteHits, siteId } from '../references.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { findCycle } from '../../util/find-cycle.js';
import { featureFlag, heldFlags } from '../feature_flag/kind.js';
import { flagTargetProblem, includedCohorts, normalizeCohortFilters, validateCohortEntry } from './rules.js';
import { restCollection } from '../rest-collection.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/cohorts/`;
const fields = lazy(() => fieldsFromSchema('cohort', ['name']));

export const cohort: ResourceKind = {
  name: 'cohort',
  configKey: 'cohorts',
  apiScope: 'cohort',
  prunable: true,
  identityField: 'name',
  parent: 'project',
  shared: true,
  read: 'list',
  canCreate: true,
  renamable: true,
  idPin: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  // Anywhere in the nested groups: a cohort criterion names a cohort, a behavioral one an action.
  references: [
    { field: 'filters', path: '**', when: { type: 'cohort' }, key: 'value', kind: 'cohort' },
    { field: 'filters', path: '**', when: { type: 'behavioral', event_type: 'actions' }, key: 'key', kind: 'action' },
    { field: 'filters', path: '**', when: { type: 'behavioral', seq_event_type: 'actions' }, key: 'seq_event', kind: 'action' },
  ],
  computedKeys: { filters: ['**.bytecode', '**.bytecode_error', '**.conditionHash'] },
  // What the API answers for a cohort nobody gave these (a cohort without criteria answers an empty group).
  unsetValues: { description: '', is_static: false, filters: { properties: {} } },
  normalizers: { filters: normalizeCohortFilters },
  ...restCollection({ base, deletes: 'soft', identityField: 'name' }),
  activity: { scopes: ['Cohort'], log: 'parent' },
  heldByKinds: ['feature_flag'],
  heldBy: heldCohorts,
  check: checkLoops,
  validateEntry: validateCohortEntry,
  refusesReference: (from, target, find) => (from === 'feature_flag' ? flagTargetProblem(target, find) : undefined),
};

/** The cohorts of one scope, by id and by name, to find what a site value (an id or `{ cohort: NAME }`) means. */
class CohortIndex {
  readonly byId = new Map<string, LiveRecord>();
  private readonly byName = new Map<string, LiveRecord[]>();
  /** Declared names pinned to a live id (`id:`). */
  private readonly pins = new Map<string, string>();

  constructor(records: readonly LiveRecord[], items: ScopeView['items']) {
    for (const r of records) {
      this.byId.set(String(r.id), r);
      const name = String(r.name);
      this.byName.set(name, [...(this.byName.get(name) ?? []), r]);
    }
    for (const i of items) if (i.pin !== undefined) this.pins.set(i.key, String(i.pin));
  }

  /** The live cohort a site value means: an id, or a name (pinned, else the one live cohort of that name). */
  find(value: unknown): LiveRecord | undefined {
    const ref = namedReference(value);
    if (ref) {
      const pinned = this.pins.get(ref.name);
      if (pinned !== undefined) return this.byId.get(pinned);
      const named = this.byName.get(ref.name) ?? [];
      return named.length === 1 ? named[0] : undefined;
    }
    const id = siteId(value);
    return id === undefined ? undefined : this.byId.get(String(id));
  }
}

/** The cohorts a flag's filters target (cohort properties of its condition sets), as written. */
function flagTargets(filters: unknown): unknown[] {
  return siteHits(featureFlag, 'filters', filters).filter((h) => h.site.kind === 'cohort').map((h) => h.value);
}

/**
 * Every live cohort of a scope that something holds, so that prune never deletes it (the API
 * refuses: "This cohort is used in N active feature flag(s)", and on newer versions "This cohort
 * is used as criteria in N other cohort(s)"). What holds a cohort is what targets or includes it
 * after the plan: an active flag that stays (an undeclared one unless prune deletes it, a
 * declared one that stays active and still targets it) and a cohort that stays and includes it.
 */
export function heldCohorts(view: HoldView): Map<LiveRecord, HeldBy[]> {
  const index = new CohortIndex(view.records, view.items);
  const holders = new Map<LiveRecord, HeldBy[]>();
  const hold = (held: LiveRecord | undefined, by: HeldBy): void => {
    if (!held) return;
    const list = holders.get(held) ?? [];
    if (!list.some((h) => h.kind === by.kind && h.id === by.id)) list.push(by);
    holders.set(held, list);
  };

  // 1. Active flags that stay after the plan.
  const flags = view.holders?.get('feature_flag');
  if (flags) {
    const declared = new Map(flags.items.map((i) => [i.key, i]));
    const flagsHeld = flags.prune ? heldFlags(flags) : new Map<LiveRecord, HeldBy[]>();
    for (const r of flags.records) {
      const key = String(r.key);
      const item = declared.get(key);
      if (item?.ensure === 'absent') continue;
      if (!item && flags.prune && !flagsHeld.has(r)) continue;
      const f = item?.fields ?? {};
      const active = (f.active ?? r.active) !== false && (f.archived ?? r.archived) !== true;
      if (!active) continue;
      for (const target of flagTargets('filters' in f ? f.filters : r.filters)) hold(index.find(target), { kind: 'feature_flag', id: r.id as number, name: key });
      declared.delete(key);
    }
    // Declared flags the plan creates: named by key until they have an id.
    for (const item of declared.values()) {
      if (item.ensure === 'absent' || item.fields.active === false || item.fields.archived === true) continue;
      for (const target of flagTargets(item.fields.filters)) hold(index.find(target), { kind: 'feature_flag', id: item.key, name: item.key });
    }
  }

  // 2. Cohorts that stay and include others: a least fixed point from those that certainly stay.
  const declared = new Map(view.items.map((i) => [i.key, i]));
  const pinned = new Map(view.items.filter((i) => i.pin !== undefined).map((i) => [String(i.pin), i]));
  const itemOf = (r: LiveRecord) => pinned.get(String(r.id)) ?? declared.get(String(r.name));
  const stays = new Set<LiveRecord>();
  const queue: LiveRecord[] = [];
  const stay = (r: LiveRecord): void => {
    if (stays.has(r)) return;
    stays.add(r);
    queue.push(r);
  };
  for (const r of view.records) {
    const item = itemOf(r);
    if (item ? item.ensure === 'present' : !view.prune || holders.has(r)) stay(r);
  }
  while (queue.length > 0) {
    const r = queue.shift() as LiveRecord;
    const item = itemOf(r);
    const filters = item && 'filters' in item.fields ? item.fields.filters : r.filters;
    for (const value of includedCohorts(filters)) {
      const held = index.find(value);
      if (!held || held === r) continue;
      hold(held, { kind: 'cohort', id: r.id as number, name: String(r.name) });
      stay(held);
    }
  }
  // Declared cohorts the plan creates include others too.
  for (const item of view.items) {
    if (item.ensure !== 'present' || view.records.some((r) => itemOf(r) === item)) continue;
    for (const value of includedCohorts(item.fields.filters)) hold(index.find(value), { kind: 'cohort', id: item.key, name: item.key });
  }
  return holders;
}

/**
 * Cohorts that include each other in a loop after the plan: the API refuses the update that
 * closes it ("Cohorts cannot reference other cohorts in a loop."). Each cohort's criteria after the
 * plan are its declared filters (names or ids), else its live ones; deleted ones include nothing.
 */
function checkLoops(view: ScopeView): ScopeCheck {
  const index = new CohortIndex(view.records, view.items);
  const declared = new Map(view.items.map((i) => [i.key, i]));
  // A node per cohort: a declared one by name, an undeclared live one by id.
  const nodeOfRecord = (r: LiveRecord): string => (declared.has(String(r.name)) ? `n:${String(r.name)}` : `i:${String(r.id)}`);
  const nodeOf = (value: unknown): string | undefined => {
    const ref = namedReference(value);
    if (ref && declared.has(ref.name)) return `n:${ref.name}`;
    const r = index.find(value);
    return r ? nodeOfRecord(r) : undefined;
  };
  const names = new Map<string, string>();
  const edges = new Map<string, string[]>();
  const positions = new Map<string, unknown>();
  // Declared cohorts first: a loop is said from the first one the files declare.
  for (const item of declared.values()) {
    const node = `n:${item.key}`;
    names.set(node, item.key);
    positions.set(node, item.position);
    if (item.ensure === 'absent') {
      edges.set(node, []);
      continue;
    }
    const live = view.records.find((r) => String(r.name) === item.key);
    const filters = 'filters' in item.fields ? item.fields.filters : live?.filters;
    edges.set(node, includedCohorts(filters).flatMap((v) => nodeOf(v) ?? []));
  }
  for (const r of view.records) {
    const node = nodeOfRecord(r);
    if (!names.has(node)) names.set(node, String(r.name));
    if (!declared.has(String(r.name))) edges.set(node, includedCohorts(r.filters).flatMap((v) => nodeOf(v) ?? []));
  }
  const cycle = findCycle(edges);
  if (!cycle) return {};
  const shown = cycle.map((n) => `"${names.get(n) ?? n}"`).join(' → ');
  const at = cycle.find((n) => positions.has(n));
  return {
    error: `cohorts of project ${String(view.scope.project)} include each other in a loop: ${shown}; the API refuses it ("Cohorts cannot reference other cohorts in a loop."): remove one of the cohort criteria`,
    ...(at ? { errorAt: positions.get(at) } : {}),
  };
}


