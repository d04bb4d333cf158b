// Cohorts in the sandbox, as the real API keeps them (posthog/api/cohort.py, CohortSerializer and
// CohortViewSet):
//   - listed per project, newest first, without deleted ones; paged by limit/offset; deleted by
//     PATCH {"deleted": true} (DELETE answers 405: ForbidDestroyModel);
//   - `filters` validated as the pydantic models CohortFilters / CohortFilterGroup / PersonFilter /
//     CohortFilter / BehavioralFilter validate them (extra keys forbidden, a person filter needs an
//     operator, and a value unless the operator is is_set / is_not_set) and stored as
//     `model_dump(exclude_none=True)`: nulls dropped, `negation: false` on every criterion that
//     left it out, integers from numeric strings; person and cohort criteria get the `bytecode`
//     and `conditionHash` newer versions compute (realtime cohorts); a static cohort's empty
//     filters are not validated;
//   - refused: deleting a cohort an active flag uses ("This cohort is used in N active feature
//     flag(s): …"), or that other cohorts use as criteria (newer versions); an update that makes
//     cohorts include each other in a loop ("Cohorts cannot reference other cohorts in a loop.") or
//     names a cohort that does not exist ("Invalid Cohort ID in filter"); behavioral criteria in a
//     cohort that active flags use; a change of a static cohort's criteria;
//   - computed: count, is_calculating, last_calculation, errors_calculating (and version,
//     pending_version, which the answer does not carry); the activity log's scope is `Cohort`.
// A flag that targets a cohort is checked here too (flagCohortProblem, called by the flag model):
// the cohort must exist in the project (cohort_does_not_exist) and have no behavioral criteria,
// itself or in the cohorts it includes, static ones aside (behavioral_cohort_found;
// products/feature_flags/backend/api/feature_flag.py validate_filters).
// Seeded per project under `cohorts` (an `id` may be given, to match files that name it).
import { createHash } from 'node:crypto';
import { ApiError, validationError } from '../../sandbox/errors.js';
import { nowIso } from '../../sandbox/ids.js';
import { clone, isObject, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf, type KindContext, type SandboxModel } from '../../sandbox/kind-model.js';
import { paginate } from '../../sandbox/pagination.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';
import type { SandboxState } from '../../sandbox/state.js';
import { booleanRule, stringRule, validatePartial } from '../../sandbox/validation.js';

const COLLECTION = 'cohorts';

const RULES = {
  name: stringRule({ max: 400, nullable: true }),
  description: stringRule({ max: 1000, allowBlank: true }),
  is_static: booleanRule(),
  deleted: booleanRule(),
};

const cohortsOf = (state: SandboxState): JsonObject[] => recordsOf(state, { collection: COLLECTION });

function cohortById(state: SandboxState, project: number, id: number): JsonObject | undefined {
  return cohortsOf(state).find((c) => c.project === project && c.id === id);
}

// ---- filters, as the pydantic models take them ----

const fail = (detail: string, code = 'invalid_input'): never => { throw validationError('filters', detail, code); };

/** Python's repr of a pydantic error list, as `str(exc.errors())` answers it (shortened). */
function pydanticError(type: string, loc: ReadonlyArray<string | number>, msg: string): never {
  const where = loc.map((l) => (typeof l === 'number' ? String(l) : `'${l}'`)).join(', ');
  return fail(`[{'type': '${type}', 'loc': (${where}${loc.length === 1 ? ',' : ''}), 'msg': '${msg}'}]`);
}

const COMPUTED = ['bytecode', 'bytecode_error', 'conditionHash'];
const LEAF_KEYS: Readonly<Record<string, readonly string[]>> = {
  person: ['type', 'key', 'operator', 'value', 'negation', ...COMPUTED],
  cohort: ['type', 'key', 'value', 'negation', ...COMPUTED],
  behavioral: [
    'type', 'key', 'value', 'event_type', 'time_value', 'time_interval', 'negation', 'operator', 'operator_value', 'seq_time_interval',
    'seq_time_value', 'seq_event', 'seq_event_type', 'total_periods', 'min_periods', 'event_filters', 'explicit_datetime', 'explicit_datetime_to', ...COMPUTED,
  ],
};
const INTEGER_KEYS = new Set(['time_value', 'operator_value', 'seq_time_value', 'total_periods', 'min_periods']);

/** An int as pydantic's lax mode takes it (an integer, or a string of one). */
function laxInt(value: Json, loc: ReadonlyArray<string | number>): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number(value);
  return pydanticError('int_parsing', loc, 'Input should be a valid integer, unable to parse string as an integer');
}

/** Deterministic stand-in for the bytecode newer versions compile into a criterion, and its hash. */
function withBytecode(leaf: JsonObject): JsonObject {
  const bytecode: Json[] = ['_H', 1, 32, String(leaf.key), 32, JSON.stringify(leaf.value ?? null), 11];
  const conditionHash = createHash('sha256').update(JSON.stringify(bytecode)).digest('hex').slice(0, 16);
  return { ...leaf, bytecode, conditionHash };
}

function criterion(raw: Json, loc: Array<string | number>): JsonObject {
  if (!isObject(raw)) return pydanticError('model_attributes_type', loc, 'Input should be a valid dictionary or object to extract fields from');
  const type = raw.type;
  if (type === 'AND' || type === 'OR') return group(raw, loc);
  if (typeof type !== 'string' || !(type in LEAF_KEYS)) {
    return pydanticError('union_tag_invalid', [...loc], `Input tag '${String(type)}' found using 'type' does not match any of the expected tags: 'behavioral', 'cohort', 'person', 'AND', 'OR'`);
  }
  const allowed = LEAF_KEYS[type] as readonly string[];
  for (const key of Object.keys(raw)) if (!allowed.includes(key)) pydanticError('extra_forbidden', [...loc, type, key], 'Extra inputs are not permitted');
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(raw)) if (v !== null && !COMPUTED.includes(k)) out[k] = clone(v);
  out.negation = out.negation ?? false;
  if (typeof out.negation !== 'boolean') pydanticError('bool_parsing', [...loc, type, 'negation'], 'Input should be a valid boolean');
  if (type === 'person') {
    const missing: string[] = [];
    if (out.value === undefined && out.operator !== 'is_set' && out.operator !== 'is_not_set') missing.push('value');
    if (out.operator === undefined) missing.push('operator');
    if (missing.length > 0) fail(`Missing required keys for person filter: ${missing.join(', ')}`);
    if (typeof out.key !== 'string') pydanticError('string_type', [...loc, type, 'key'], 'Input should be a valid string');
    return withBytecode(out);
  }
  if (type === 'cohort') {
    if (out.key === undefined) fail('Missing required keys for cohort filter: key');
    if (out.value === undefined) fail('Missing required keys for cohort filter: value');
    if (out.key !== 'id') pydanticError('literal_error', [...loc, type, 'key'], "Input should be 'id'");
    out.value = laxInt(out.value as Json, [...loc, type, 'value']);
    return withBytecode(out);
  }
  for (const required of ['key', 'value', 'event_type']) if (out[required] === undefined) fail(`Missing required keys for behavioral filter: ${required}`);
  if (typeof out.value !== 'string') pydanticError('string_type', [...loc, type, 'value'], 'Input should be a valid string');
  for (const k of Object.keys(out)) if (INTEGER_KEYS.has(k)) out[k] = laxInt(out[k] as Json, [...loc, type, k]);
  return out;
}

function group(raw: JsonObject, loc: Array<string | number>): JsonObject {
  for (const key of Object.keys(raw)) if (key !== 'type' && key !== 'values') pydanticError('extra_forbidden', [...loc, key], 'Extra inputs are not permitted');
  if (raw.type !== 'AND' && raw.type !== 'OR') pydanticError('literal_error', [...loc, 'type'], "Input should be 'AND' or 'OR'");
  if (!Array.isArray(raw.values)) return pydanticError(raw.values === undefined ? 'missing' : 'list_type', [...loc, 'values'], raw.values === undefined ? 'Field required' : 'Input should be a valid list');
  return { type: raw.type, values: raw.values.map((v, i) => criterion(v, [...loc, 'values', i])) };
}

/** Whether filters hold any criterion (the newer API's cohort_filters_have_values). */
function hasCriteria(filters: Json | undefined): boolean {
  return isObject(filters) && isObject(filters.properties) && Array.isArray(filters.properties.values) && filters.properties.values.length > 0;
}

/** The filters to store, as validate_filters returns them; a static cohort's empty ones as sent. */
function validateFilters(raw: Json, isStatic: boolean): Json {
  if (isStatic && !hasCriteria(raw)) return raw;
  if (!isObject(raw) || !('properties' in raw)) fail("Must contain a 'properties' key with type and values");
  const filters = raw as JsonObject;
  for (const key of Object.keys(filters)) if (key !== 'properties') pydanticError('extra_forbidden', [key], 'Extra inputs are not permitted');
  if (!isObject(filters.properties)) pydanticError('model_attributes_type', ['properties'], 'Input should be a valid dictionary or object to extract fields from');
  return { properties: group(filters.properties as JsonObject, ['properties']) };
}

/** Every criterion of stored filters, groups walked. */
function leaves(filters: Json | undefined): JsonObject[] {
  const out: JsonObject[] = [];
  const walk = (node: Json | undefined): void => {
    if (!isObject(node)) return;
    if (node.type === 'AND' || node.type === 'OR') {
      if (Array.isArray(node.values)) node.values.forEach(walk);
      return;
    }
    out.push(node);
  };
  if (isObject(filters)) walk(filters.properties);
  return out;
}

const includedIds = (filters: Json | undefined): number[] => leaves(filters).flatMap((l) => (l.type === 'cohort' && typeof l.value === 'number' ? [l.value] : []));
const isBehavioral = (cohort: JsonObject): boolean => leaves(cohort.filters).some((l) => l.type === 'behavioral');

/** The cohorts a cohort includes, all the way down (get_all_cohort_dependencies), stopping at static ones when asked. */
function dependencies(state: SandboxState, cohort: JsonObject, stopAtStatic: boolean): JsonObject[] {
  const seen = new Set<number>([cohort.id as number]);
  const out: JsonObject[] = [];
  const queue = [...includedIds(cohort.filters)];
  while (queue.length > 0) {
    const id = queue.shift() as number;
    if (seen.has(id)) continue;
    seen.add(id);
    const found = cohortById(state, cohort.project as number, id);
    if (!found) continue;
    out.push(found);
    if (!(stopAtStatic && found.is_static === true)) queue.push(...includedIds(found.filters));
  }
  return out;
}

/** The ids of the cohorts a flag's conditions use, those they include with them (FeatureFlag.get_cohort_ids). */
function flagCohortIds(state: SandboxState, project: number, filters: Json | undefined): Set<number> {
  const ids = new Set<number>();
  const groups = isObject(filters) && Array.isArray(filters.groups) ? filters.groups : [];
  for (const g of groups) {
    if (!isObject(g) || !Array.isArray(g.properties)) continue;
    for (const p of g.properties) {
      if (!isObject(p) || p.type !== 'cohort' || !/^\d+$/.test(String(p.value))) continue;
      const id = Number(p.value);
      ids.add(id);
      const cohort = cohortById(state, project, id);
      if (cohort && cohort.is_static !== true) for (const d of dependencies(state, cohort, true)) ids.add(d.id as number);
    }
  }
  return ids;
}

/** Active flags (not deleted) of the project that use the cohort. */
function activeFlagsUsing(state: SandboxState, cohort: JsonObject): Array<{ key: string; name: string }> {
  return state.feature_flags
    .filter((f) => f.project === cohort.project && !f.deleted && f.active && flagCohortIds(state, f.project, f.filters).has(cohort.id as number))
    .map((f) => ({ key: f.key, name: f.name }));
}

/**
 * Why a flag may not target the cohort `value` names, as the real flag serializer refuses it, or
 * undefined: it must exist in the project, and neither it nor a cohort it includes may have
 * behavioral criteria (static cohorts aside).
 */
export function flagCohortProblem(state: SandboxState, project: number, value: Json | undefined): ApiError | undefined {
  const id = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
  const cohort = id === undefined ? undefined : cohortById(state, project, id);
  if (!cohort) return validationError('filters', `Cohort with id ${String(value)} does not exist`, 'cohort_does_not_exist');
  for (const c of [cohort, ...dependencies(state, cohort, true)]) {
    if (c.is_static === true || !isBehavioral(c)) continue;
    return validationError('filters', `Cohort '${String(c.name)}' has an event-based condition and cannot be used in feature flags.`, 'behavioral_cohort_found');
  }
  return undefined;
}

/** The name flags show beside a cohort property (cohort_name): null for a cohort the project does not hold. */
export function cohortName(state: SandboxState, project: number, value: Json | undefined): string | null {
  const id = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
  const cohort = id === undefined ? undefined : cohortById(state, project, id);
  return cohort ? String(cohort.name) : null;
}

// ---- the kind's records ----

function render(record: JsonObject, ctx: KindContext): JsonObject {
  return {
    id: record.id ?? null,
    name: record.name ?? null,
    description: record.description ?? '',
    groups: clone(record.groups ?? []),
    deleted: record.deleted ?? false,
    filters: clone(record.filters ?? null),
    query: null,
    is_calculating: record.is_calculating ?? false,
    created_by: clone(ctx.state.user),
    created_at: record.created_at ?? null,
    last_calculation: record.last_calculation ?? null,
    errors_calculating: record.errors_calculating ?? 0,
    count: record.count ?? null,
    is_static: record.is_static ?? false,
    cohort_type: record.is_static === true ? 'static' : null,
    experiment_set: [],
  };
}

/** A new cohort: calculated at once (the sandbox has no queue), its persons counted as none. */
export function createCohort(state: SandboxState, project: number, body: JsonObject, id?: number): JsonObject {
  const fields = validatePartial(RULES, body);
  if (fields.name === undefined || fields.name === null) throw validationError('name', 'This field is required.', 'required');
  const isStatic = fields.is_static === true;
  const filters = body.filters === undefined || body.filters === null ? null : validateFilters(body.filters, isStatic);
  const now = nowIso();
  const ids = state.next_ids as unknown as Record<string, number>;
  const next = ids.cohort ?? 1;
  if (id !== undefined && cohortsOf(state).some((c) => c.id === id)) throw validationError('id', `a cohort with id ${id} exists already`, 'unique');
  const record: JsonObject = {
    id: id ?? next, project, name: fields.name, description: fields.description ?? '', is_static: isStatic, deleted: fields.deleted === true,
    filters: filters ?? { properties: {} }, groups: [], created_at: now, created_by: state.user.id, is_calculating: false,
    last_calculation: isStatic ? null : now, errors_calculating: 0, count: isStatic ? null : 0, version: isStatic ? null : 1, pending_version: isStatic ? null : 1,
  };
  ids.cohort = Math.max(next, (record.id as number) + 1);
  cohortsOf(state).push(record);
  return record;
}

function update(record: JsonObject, body: JsonObject, ctx: KindContext): JsonObject {
  const { state } = ctx;
  const changes = validatePartial(RULES, body);
  const isStatic = (changes.is_static ?? record.is_static) === true;
  if ('filters' in body) {
    const filters = validateFilters(body.filters ?? null, isStatic);
    const changed = JSON.stringify(filters) !== JSON.stringify(record.filters);
    if (record.is_static === true && changed && (hasCriteria(record.filters) || hasCriteria(filters))) {
      throw validationError(null, 'Editing the criteria of a static cohort is not supported yet. Create a new static cohort instead.');
    }
    // Behavioral criteria may not reach a cohort active flags use (_validate_feature_flag_constraints).
    if (!isStatic && activeFlagsUsing(state, record).length > 0) {
      for (const leaf of leaves(filters)) {
        if (leaf.type === 'behavioral') throw validationError('filters', 'Behavioral filters cannot be added to cohorts used in feature flags.', 'behavioral_cohort_found');
        if (leaf.type !== 'cohort') continue;
        const nested = cohortById(state, record.project as number, leaf.value as number);
        for (const c of nested ? [nested, ...dependencies(state, nested, true)] : []) {
          if (c.is_static !== true && isBehavioral(c)) {
            throw validationError('filters', `A cohort dependency (${String(c.name)}) has filters based on events. These cohorts can't be used in feature flags.`, 'behavioral_cohort_found');
          }
        }
      }
    }
    changes.filters = filters;
  }
  const deleting = changes.deleted === true && record.deleted !== true;
  if (deleting) {
    const flags = activeFlagsUsing(state, record);
    if (flags.length > 0) {
      throw validationError(null, `This cohort is used in ${flags.length} active feature flag(s): ${flags.map((f) => f.name || f.key).join(', ')}. Please remove the cohort from these feature flags before deleting it.`);
    }
    const users = cohortsOf(state).filter((c) => c.project === record.project && c.id !== record.id && c.deleted !== true && includedIds(c.filters).includes(record.id as number));
    if (users.length > 0) {
      const names = users.slice(0, 5).map((c) => String(c.name || 'Unnamed'));
      if (users.length > 5) names.push(`and ${users.length - 5} more`);
      throw validationError(null, `This cohort is used as criteria in ${users.length} other cohort(s): ${names.join(', ')}. Please remove this cohort from those cohort definitions before deleting it.`);
    }
  }
  // will_create_loops: a path from the cohort back to itself, through the cohorts it includes.
  const after = { ...record, ...changes };
  const onPath = new Set<number>();
  const seen = new Set<number>();
  const loops = (c: JsonObject): boolean => {
    seen.add(c.id as number);
    onPath.add(c.id as number);
    for (const id of includedIds(c.filters)) {
      if (onPath.has(id)) return true;
      if (seen.has(id)) continue;
      const nested = id === record.id ? after : cohortById(state, record.project as number, id);
      if (!nested) throw validationError(null, 'Invalid Cohort ID in filter');
      if (loops(nested)) return true;
    }
    onPath.delete(c.id as number);
    return false;
  };
  if (loops(after)) throw validationError(null, 'Cohorts cannot reference other cohorts in a loop.');
  if ('filters' in changes && !isStatic) {
    changes.version = ((record.version as number | null) ?? 0) + 1;
    changes.pending_version = changes.version;
    changes.last_calculation = nowIso();
  }
  return changes;
}

export const model: SandboxModel = {
  kind: 'cohort',
  collection: COLLECTION,
  path: '/api/projects/:project/cohorts/',
  parent: 'project',
  scopes: { read: 'cohort:read', write: 'cohort:write' },
  pagination: 'limit-offset',
  id: 'integer',
  create: { status: 201 },
  update: true,
  delete: 'soft',
  softDelete: 'deleted',
  fields: {},
  activity: {
    scope: 'Cohort',
    name: (r) => String(r.name),
    // posthog/models/activity_logging/activity_log.py field_exclusions["Cohort"].
    ignored: ['project', 'version', 'pending_version', 'count', 'is_calculating', 'last_calculation', 'errors_calculating', 'groups'],
  },
  hooks: {
    listReply: (ctx) => {
      const records = ctx.records().filter((r) => r.deleted !== true)
        .sort((a, b) => (String(a.created_at) < String(b.created_at) ? 1 : String(a.created_at) > String(b.created_at) ? -1 : (b.id as number) - (a.id as number)));
      return { status: 200, body: paginate(records, (r) => render(r, ctx), ctx.request.url) };
    },
    createReply: (ctx) => ({ status: 201, body: render(createCohort(ctx.state, ctx.project?.id as number, ctx.request.body), ctx) }),
    updateReply: (record, ctx) => {
      Object.assign(record, update(record, ctx.request.body, ctx));
      return { status: 200, body: render(record, ctx) };
    },
    render,
  },
  seeds: [{
    key: 'cohorts',
    at: 'project',
    apply: (state, { project }, value, where, fail) => {
      for (const [i, entry] of seedList(value, where, fail).entries()) {
        const { id, ...body } = entry;
        if (id !== undefined && (typeof id !== 'number' || !Number.isInteger(id) || id < 1)) fail(`${where}[${i}].id`, 'must be a positive integer');
        seedApply(`${where}[${i}]`, fail, () => createCohort(state, project?.id as number, body, id as number | undefined));
      }
    },
  }],
  contract: {
    item: {
      name: 'Contract cohort',
      description: 'People of example.com',
      filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ type: 'person', key: 'email', operator: 'icontains', value: '@example.com' }] }] } },
    },
    update: { description: 'People of example.com, by email' },
    drift: { description: 'Changed in the web app' },
  },
};
