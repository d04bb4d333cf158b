// Feature flags of a project: identity = key. DELETE answers 405 on the real API, so a flag
// is deleted with PATCH {"deleted": true}; deleted flags still listed are ignored. A change
// of release conditions is previewed: the API tells how many users (or groups) the new
// conditions reach. Everything the real API does to flags that hogsync must meet is declared
// here (see README "Feature flags"):
//   - filters and tags compare as the API stores them (flag-rules.ts); the API merges the
//     top-level keys of filters (schema `x-merge`), so a key the file removes is sent as null;
//   - a flag with encrypted payloads holds secrets in its filters: sensitive everywhere;
//   - archived flags are left out of the default list: read (`?archived=true`) only for
//     projects where a create is planned, matched to declared keys, never unmanaged or pruned;
//     archiving sends `active: false` with it;
//   - updates carry the version they were planned against (optimistic concurrency);
//   - changes are ordered by the flags' dependencies, and a dependency cycle is refused;
//   - a project holds at most 2000 flags; a key the list did not show may still be taken;
//   - what validate checks offline beyond the schema (rules.ts); `groups: []` on a flag
//     the plan creates is refused at plan time (the API refuses such a create);
//   - flags that experiments, early access features, surveys or active flags hold are never
//     pruned (heldFlags, below);
//   - numeric comparisons are sent with the string value the API requires (requestFilters);
//   - an inactive flag reaches no one: its blast radius says so.
import { isHogsyncError } from '../../errors.js';
import { describeFlagFilters } from './describe.js';
import { dependencyCycle, flagOrder } from './order.js';
import { flagDependencies, hasFlagDependency, normalizeFilters, normalizeTags, requestFilters, validateFlagEntry } from './rules.js';
import type {
  BlastRadius, HeldBy, HoldView, KindPort, LiveRecord, PreviewInput, PreviewResult, ResourceKind, Scope, ScopeCheck, ScopeView,
} from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';

/** The most flags the real API lets a project hold. */
export const MAX_FLAGS_PER_PROJECT = 2000;

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/feature_flags/`;
const fields = lazy(() => fieldsFromSchema('feature_flag', ['key']));

export const featureFlag: ResourceKind = {
  name: 'feature_flag',
  configKey: 'feature_flags',
  prunable: true,
  identityField: 'key',
  parent: 'project',
  shared: true,
  read: 'list',
  canCreate: true,
  renamable: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  // A flag property names the flag it depends on by id (a string); a cohort property its cohort.
  references: [
    { field: 'filters', path: 'groups[].properties[]', when: { type: 'flag' }, key: 'key', kind: 'feature_flag', as: 'string' },
    { field: 'filters', path: 'groups[].properties[]', when: { type: 'cohort' }, key: 'value', kind: 'cohort' },
  ],
  // Inside `filters`: defaults the API fills in when a file leaves them out (ignored while
  // empty), and values it computes (always ignored).
  serverAddedKeys: { filters: ['payloads', 'multivariate', 'aggregation_group_type_index', 'groups[].variant', 'groups[].aggregation_group_type_index'] },
  // Also what other features own (an early access feature's enrollment, an experiment's holdout):
  // never compared, and never sent as removed.
  computedKeys: {
    filters: [
      'groups[].sort_key', 'groups[].users_affected', 'groups[].properties[].cohort_name', 'groups[].properties[].group_key_names',
      'feature_enrollment', 'holdout', 'super_groups', 'holdout_groups',
    ],
  },
  createStatuses: [200, 201],
  deleteStatuses: [200],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key,
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as number,
  isGone: (r) => r.deleted === true,
  // Without a usage dashboard: the API would otherwise make one (and two insights) with every flag, which no file declares.
  createCall: (s, key, values) => ({ method: 'POST', path: base(s), body: { ...request(values), key, _should_create_usage_dashboard: false } }),
  updateCall: (s, id, values, live) => ({ method: 'PATCH', path: featureFlag.itemPath(s, id), body: { ...request(values), ...concurrency(values, live) } }),
  deleteCall: (s, id) => ({ method: 'PATCH', path: featureFlag.itemPath(s, id), body: { deleted: true } }),
  preview: blastRadiusPreview,
  activity: { scopes: ['FeatureFlag'], log: 'parent' },
  // Release conditions as the web app shows them: condition sets, variants, payloads.
  describeField: (path, before, after, context) => (path === 'filters' && !context.sensitive
    ? describeFlagFilters(before, after, { redacted: context.redacted })
    : undefined),
  normalizers: { filters: normalizeFilters, tags: normalizeTags },
  // Export leaves out what the API gives a flag nobody set it for.
  unsetValues: { evaluation_runtime: 'all' },
  secretFields: (declared, live) => (declared?.has_encrypted_payloads === true || live?.has_encrypted_payloads === true ? ['filters'] : []),
  secretParts: (field, value) => {
    const payloads = field === 'filters' && value !== null && typeof value === 'object' ? (value as { payloads?: unknown }).payloads : undefined;
    if (payloads === null || typeof payloads !== 'object' || Array.isArray(payloads)) return [];
    return Object.keys(payloads).map((k) => ['payloads', k]);
  },
  heldBack: { query: 'archived=true', holds: (r) => r.archived === true, holdsAfter: (v) => v.archived === true },
  // The API refuses to archive an active flag: archiving disables it in the same request.
  completeValues: (values) => (values.archived === true && values.active === undefined ? { active: false } : {}),
  order: (changes) => flagOrder(changes.map((c) => ({ address: c.address, action: c.action, key: c.identity, live: c.live, values: c.values }))),
  check: checkProject,
  explainFailure,
  heldBy: heldFlags,
  validateEntry: validateFlagEntry,
};

/** A change's values as the request carries them (numeric comparisons as strings). */
function request(values: Record<string, unknown>): Record<string, unknown> {
  return 'filters' in values ? { ...values, filters: requestFilters(values.filters) } : values;
}

/**
 * Optimistic concurrency as the real API offers it (FeatureFlagSerializer.update): the version
 * the change was planned against, and the planned values of the fields it changes. The API
 * refuses (409) when someone else changed one of those fields since.
 */
function concurrency(values: Record<string, unknown>, live: LiveRecord | undefined): Record<string, unknown> {
  if (!live || typeof live.version !== 'number') return {};
  const original: Record<string, unknown> = {};
  for (const field of Object.keys(values)) {
    if (!(field in live)) continue;
    original[field] = field === 'filters' ? withoutComputed(live.filters) : live[field];
  }
  return { version: live.version, original_flag: original };
}

/** Filters as stored: without the cohort names the API adds to every answer. */
function withoutComputed(filters: unknown): unknown {
  if (filters === null || typeof filters !== 'object' || Array.isArray(filters)) return filters;
  const f = filters as Record<string, unknown>;
  if (!Array.isArray(f.groups)) return f;
  return {
    ...f,
    groups: f.groups.map((g) => {
      if (g === null || typeof g !== 'object' || !Array.isArray((g as Record<string, unknown>).properties)) return g;
      const group = g as Record<string, unknown>;
      return { ...group, properties: (group.properties as unknown[]).map((p) => {
        if (p === null || typeof p !== 'object') return p;
        const { cohort_name: _computed, ...rest } = p as Record<string, unknown>;
        return rest;
      }) };
    }),
  };
}

/** Plan-time checks of a project's flags: dependency cycles, the 2000-flag limit, deleted keys taken again. */
function checkProject(view: ScopeView): ScopeCheck {
  const warnings: string[] = [];
  // Built only when a flag depends on another: most projects have none.
  let keyOfId: Map<number, string> | undefined;
  const keyOf = (id: number) => (keyOfId ??= new Map(view.records.filter((r) => typeof r.id === 'number').map((r) => [r.id as number, String(r.key)]))).get(id);
  // The graph of flags that depend on others, drawn only where a declared flag names another
  // (most projects have none). Without one, the plan adds no edge to the live graph, which the
  // API keeps free of cycles (and a new flag's id is one no live flag can name yet).
  const depends = view.items.some((i) => hasFlagDependency(i.fields.filters));
  const declared = depends ? new Map(view.items.filter((i) => i.ensure === 'present').map((i) => [i.key, i])) : new Map<string, never>();
  const liveByKey = depends ? new Map(view.records.map((r) => [String(r.key), r])) : new Map<string, never>();
  const flags = depends ? [
    ...[...declared.values()].map((i) => ({ key: i.key, filters: 'filters' in i.fields ? i.fields.filters : liveByKey.get(i.key)?.filters })),
    ...view.records.filter((r) => !declared.has(String(r.key))).map((r) => ({ key: String(r.key), filters: r.filters })),
  ] : [];
  const cycle = dependencyCycle(flags, keyOf);
  if (cycle) {
    return { error: `feature flags of project ${String(view.scope.project)} depend on each other in a cycle: ${cycle.join(' → ')} (a flag property names the id of the flag it depends on; the API refuses cycles)` };
  }
  const creates = view.changes.filter((c) => c.action === 'create');
  const deletes = view.changes.filter((c) => c.action === 'delete').length;
  const after = view.records.length + creates.length - deletes;
  if (creates.length > 0 && after > MAX_FLAGS_PER_PROJECT) {
    warnings.push(`project ${String(view.scope.project)} would hold ${after} feature flags after this plan: a project holds at most ${MAX_FLAGS_PER_PROJECT}, so the API will refuse the creates beyond that`);
  }
  // The API refuses to create a flag without a condition set (validate_filters, POST).
  for (const c of creates) {
    const filters = c.values.filters;
    if (filters !== null && typeof filters === 'object' && Array.isArray((filters as { groups?: unknown }).groups) && (filters as { groups: unknown[] }).groups.length === 0) {
      return {
        error: `${c.address}: filters.groups is empty, and this plan creates the flag: the API refuses a new flag without a condition set ("Feature flags must have at least one condition set"); add one (groups: [ { rollout_percentage: 0 } ] releases it to no one)`,
        errorAt: view.items.find((i) => i.key === c.identity)?.position,
      };
    }
  }
  const goneKeys = new Set(view.gone.map((r) => String(r.key)));
  for (const c of creates) {
    if (goneKeys.has(c.identity)) warnings.push(`${c.address}: a deleted flag held this key; the create replaces it (the API frees a deleted flag's key)`);
  }
  return { warnings };
}

/** A create refused for its key: the list does not show every flag that holds a key. */
function explainFailure(action: 'create' | 'update' | 'delete', message: string): string | undefined {
  if (action !== 'create' || !/already (exists|a feature flag with this key)/i.test(message)) return undefined;
  return `${message} — the key is held by a flag the list does not show: a survey's or product tour's internal flag, a flag your key may not see, or a deleted flag still tied to an experiment (not retried)`;
}

/** Reads both answer shapes: {affected, total} and the older {users_affected, total_users}. */
export function parseBlastRadius(body: unknown): BlastRadius | null {
  if (body === null || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const affected = b.affected ?? b.users_affected;
  const total = b.total ?? b.total_users;
  return typeof affected === 'number' && typeof total === 'number' && affected >= 0 && total >= 0 ? { affected, total } : null;
}

type Group = Record<string, unknown>;

function groupsOf(filters: unknown): Group[] {
  if (filters === null || typeof filters !== 'object') return [];
  const groups = (filters as { groups?: unknown }).groups;
  return Array.isArray(groups) ? groups.filter((g): g is Group => g !== null && typeof g === 'object') : [];
}

/** Whether the flag is on after the change: the change's values, else the live record's (a new flag is on). */
function activeAfter(input: PreviewInput): boolean {
  const active = input.values.active ?? input.live?.active;
  const archived = input.values.archived ?? input.live?.archived;
  return active !== false && archived !== true;
}

/**
 * Blast radius of a change that sets release conditions: one user_blast_radius per condition.
 * A flag that is off after the change reaches no one: its radius says so, with what its
 * conditions would reach once it is on.
 */
async function blastRadiusPreview(input: PreviewInput, port: KindPort): Promise<PreviewResult | undefined> {
  if (!input.changed.includes('filters') || input.scope.project === null) return undefined;
  const filters = requestFilters(input.values.filters);
  const groupTypeIndex = (filters as { aggregation_group_type_index?: unknown } | undefined)?.aggregation_group_type_index ?? null;
  const unit = typeof groupTypeIndex === 'number' ? `groups of group type ${groupTypeIndex}` : 'users';
  const path = `${base(input.scope)}user_blast_radius/`;
  try {
    let affected = 0;
    let total = 0;
    for (const condition of groupsOf(filters)) {
      const { body } = await port.request('POST', path, { body: { key: input.identity, condition, group_type_index: groupTypeIndex }, okStatuses: [200, 201], idempotent: true });
      const radius = parseBlastRadius(body);
      if (!radius) throw new Error('the API answered with an unexpected body');
      affected += radius.affected;
      total = Math.max(total, radius.total);
    }
    // Conditions may overlap: the sum is an upper bound, and never more than everyone.
    const reach = Math.min(affected, total);
    const radius: BlastRadius = activeAfter(input) ? { affected: reach, total } : { affected: 0, total, inactive: true, when_enabled: reach };
    if (unit !== 'users') radius.unit = unit;
    return { annotations: { blast_radius: radius } };
  } catch (err) {
    const why = isHogsyncError(err) ? err.format() : err instanceof Error ? err.message : String(err);
    return { warning: `blast radius of ${input.address} is unknown: ${why}` };
  }
}

// What holds a live feature flag, so that prune never deletes it: the other features the API
// ties it to, as its record names them (FeatureFlagSerializer in
// products/feature_flags/backend/api/feature_flag.py):
//   - `experiment_set`: ids of the flag's experiments (not deleted); newer versions add
//     `experiment_set_metadata` [{id, name, is_running}], older ones name none (nor does the
//     OpenAPI, which types it as a string: a JSON list of ids is read too);
//   - `features`: its early access features (MinimalEarlyAccessFeatureSerializer: id, name, …);
//   - `surveys`: surveys linked to it (SurveyAPISerializer: id, name, …);
// (lists, or mappings of them as older documents describe them), and the active flags that
// depend on it (a `flag` property naming its id; the API refuses to delete or disable a flag
// they depend on: `find_dependent_flags`). A dependent holds it only if it stays active after
// the plan: a flag the files delete, disable, archive or no longer make depend on it holds
// nothing, nor does an undeclared one that prune deletes because nothing holds it either.
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A list the API answers as a list, a JSON string of one, or a mapping of its items. */
function listOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') {
    try {
      const parsed = JSON.parse(value) as unknown;
      return Array.isArray(parsed) ? parsed : [];
    } catch {
      return [];
    }
  }
  return isObj(value) ? Object.values(value) : [];
}

const idOf = (v: unknown): string | number | undefined => (typeof v === 'number' || (typeof v === 'string' && v !== '') ? v : undefined);
const nameOf = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The features that own a flag, from its own record. */
export function flagOwners(record: LiveRecord): HeldBy[] {
  const out: HeldBy[] = [];
  const names = new Map<string, string | null>();
  for (const e of listOf(record.experiment_set_metadata)) if (isObj(e) && idOf(e.id) !== undefined) names.set(String(e.id), nameOf(e.name));
  for (const e of listOf(record.experiment_set)) {
    const id = idOf(isObj(e) ? e.id : e);
    if (id !== undefined) out.push({ kind: 'experiment', id, name: (isObj(e) ? nameOf(e.name) : null) ?? names.get(String(id)) ?? null });
  }
  for (const f of listOf(record.features)) {
    if (isObj(f) && idOf(f.id) !== undefined) out.push({ kind: 'early_access_feature', id: idOf(f.id) as string | number, name: nameOf(f.name) });
  }
  for (const s of listOf(record.surveys)) {
    if (isObj(s) && idOf(s.id) !== undefined) out.push({ kind: 'survey', id: idOf(s.id) as string | number, name: nameOf(s.name) });
  }
  return out;
}

/** Every live flag of a scope that something holds, with what holds it. */
export function heldFlags(view: HoldView): Map<LiveRecord, HeldBy[]> {
  const declared = new Map(view.items.map((i) => [i.key, i]));
  const owners = new Map<LiveRecord, HeldBy[]>();
  for (const r of view.records) {
    const own = flagOwners(r);
    if (own.length > 0) owners.set(r, own);
  }
  const byId = new Map<number, LiveRecord>();
  for (const r of view.records) if (typeof r.id === 'number') byId.set(r.id, r);
  /** A flag's state after the plan, for flags the files declare: undefined when deleted. */
  const after = (r: LiveRecord): { active: boolean; filters: unknown } | undefined => {
    const item = declared.get(String(r.key));
    if (!item) return { active: r.active !== false && r.archived !== true, filters: r.filters };
    if (item.ensure === 'absent') return undefined;
    const f = item.fields;
    const active = (f.active ?? r.active) !== false && (f.archived ?? r.archived) !== true;
    return { active, filters: 'filters' in f ? f.filters : r.filters };
  };
  // Flags that stay (and so may hold others): declared present ones, undeclared ones unless
  // prune deletes them. Under prune an undeclared flag stays only if held: found by growing
  // the set from the flags that certainly stay (a least fixed point).
  const holders = new Map<LiveRecord, HeldBy[]>();
  const stays = new Set<LiveRecord>();
  const queue: LiveRecord[] = [];
  const stay = (r: LiveRecord): void => {
    if (stays.has(r)) return;
    stays.add(r);
    queue.push(r);
  };
  for (const r of view.records) {
    const undeclared = !declared.has(String(r.key));
    if (!undeclared || !view.prune || owners.has(r)) stay(r);
  }
  while (queue.length > 0) {
    const holder = queue.shift() as LiveRecord;
    const state = after(holder);
    if (!state?.active) continue;
    for (const id of flagDependencies(state.filters)) {
      const held = byId.get(id);
      if (!held || held === holder) continue;
      const list = holders.get(held) ?? [];
      if (!list.some((h) => h.id === holder.id)) list.push({ kind: 'feature_flag', id: holder.id as number, name: String(holder.key) });
      holders.set(held, list);
      stay(held);
    }
  }
  const out = new Map<LiveRecord, HeldBy[]>();
  for (const r of view.records) {
    const all = [...(owners.get(r) ?? []), ...(holders.get(r) ?? [])];
    if (all.length > 0) out.set(r, all);
  }
  return out;
}
