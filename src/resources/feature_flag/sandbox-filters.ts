// Release conditions (`filters`) of a feature flag as the real API keeps them. Every write is
// validated and rewritten the way PostHog's FeatureFlagSerializer and its model do it, so that
// clients meet the rewriting here before they meet it in production:
//   - a PATCH whose `filters` lacks `groups` is ignored (validate_filters returns the stored value);
//     a POST needs at least one group;
//   - the top-level keys of `filters` are merged into what is stored (a key sent as null clears it);
//   - `aggregation_group_type_index` is set at the top (null unless groups are aggregated) and
//     copied into every group; `properties` and `groups` default to [];
//   - payload values are stored as JSON strings, written as Python's json.dumps writes them
//     (`{"a": 1}` becomes "{\"a\": 1}"); payload keys must be variant keys (or "true");
//   - the operators `min`/`max` become `gte`/`lte`; property keys are stored as strings;
//   - `holdout_groups` and `super_groups` are dropped;
//   - `flag` properties name the id of an active flag of the project; cycles are refused;
//   - `cohort` properties name a cohort of the project without behavioral criteria (the cohort
//     model's flagCohortProblem); `cohort_name` is added to them when a flag is rendered (never stored).
// Encrypted payloads (`has_encrypted_payloads`) are stored encrypted and rendered decrypted, as
// the real API answers personal API keys.
import { validationError } from '../../sandbox/errors.js';
import { clone, isObject, type Json, type JsonObject } from '../../sandbox/json.js';
import type { FeatureFlagState, SandboxState } from '../../sandbox/state.js';
import { cohortName, flagCohortProblem } from '../cohort/sandbox.js';

const MAX_GROUP_TYPE_INDEX = 4;
const ENCRYPTED_PREFIX = 'sandbox-encrypted:';

function fail(detail: string, code = 'invalid_input'): never {
  throw validationError('filters', detail, code);
}

/** JSON text exactly as Python's json.dumps writes it (", " and ": " separators, ASCII only). */
export function pythonJsonDumps(value: Json): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'NaN';
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  return `{${Object.entries(value).map(([k, v]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(v)}`).join(', ')}}`;
}

/** The ids of the flags a flag's conditions depend on (`type: flag` properties name them). */
export function dependencyIds(filters: JsonObject): number[] {
  const ids: number[] = [];
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  for (const g of groups) {
    if (!isObject(g) || !Array.isArray(g.properties)) continue;
    for (const p of g.properties) {
      if (isObject(p) && p.type === 'flag' && /^\d+$/.test(String(p.key))) ids.push(Number(p.key));
    }
  }
  return ids;
}

function flagById(state: SandboxState, project: number, id: number): FeatureFlagState | undefined {
  return state.feature_flags.find((f) => f.project === project && f.id === id && !f.deleted);
}

export interface FiltersContext {
  state: SandboxState;
  project: number;
  /** The flag being written (null on create). */
  self: FeatureFlagState | null;
}

function checkDependencies(filters: JsonObject, ctx: FiltersContext): void {
  const { state, project, self } = ctx;
  for (const g of filters.groups as JsonObject[]) {
    for (const p of g.properties as JsonObject[]) {
      if (p.type === 'flag' && !/^\d+$/.test(String(p.key))) {
        fail(`Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: '${String(p.key)}'`);
      }
      // A cohort must exist in the project and have no behavioral criteria (the cohort model says why not).
      if (p.type === 'cohort') {
        const problem = flagCohortProblem(state, project, p.value);
        if (problem) throw problem;
      }
    }
  }
  for (const id of dependencyIds(filters)) {
    const dep = flagById(state, project, id);
    if (!dep) fail(`Flag dependency references non-existent flag with ID ${id}`);
    if (!dep.active) fail(`Cannot create dependency on disabled flag '${dep.key}' (ID: ${id}). Flag dependencies must reference active flags only.`);
  }
  if (!self) return;
  const seen = new Set<number>();
  const walk = (id: number, path: string[]): void => {
    if (id === self.id) fail(`Circular dependency detected: ${[...path, self.key].join(' → ')}`);
    if (seen.has(id)) return;
    seen.add(id);
    const flag = flagById(state, project, id);
    if (!flag) return;
    for (const next of dependencyIds(flag.filters)) walk(next, [...path, flag.key]);
  };
  const direct = dependencyIds(filters);
  if (direct.includes(self.id)) fail(`Feature flag '${self.key}' cannot depend on itself`);
  for (const id of direct) walk(id, [self.key]);
}

function rewriteProperty(raw: Json, where: string, aggregation: number | null): JsonObject {
  if (!isObject(raw) || raw.key === undefined || raw.key === null) fail(`${where} must be a property filter with a "key".`);
  const prop: JsonObject = clone(raw);
  prop.key = typeof raw.key === 'string' ? raw.key : JSON.stringify(raw.key);
  if (prop.operator === 'min') prop.operator = 'gte';
  if (prop.operator === 'max') prop.operator = 'lte';
  delete prop.cohort_name; // computed on every answer, never stored
  // The real API's Property() defaults `type` to "event", which no flag accepts.
  const type = typeof prop.type === 'string' ? prop.type : 'event';
  if (aggregation === null) {
    if (!['person', 'cohort', 'flag'].includes(type)) fail('Filters are not valid (can only use person, cohort, and flag properties)');
    if (type === 'flag' && prop.operator !== 'flag_evaluates_to') fail("Flag properties must use the 'flag_evaluates_to' operator");
  } else if (type !== 'group' || prop.group_type_index !== aggregation) {
    fail('Filters are not valid (can only use group properties)');
  }
  if (['regex', 'icontains', 'not_regex', 'not_icontains', 'gte', 'lte', 'gt', 'lt'].includes(String(prop.operator)) && typeof prop.value !== 'string') {
    fail(`Invalid value for operator ${String(prop.operator)}: ${pythonJsonDumps(prop.value ?? null)}`, 'invalid_value');
  }
  return prop;
}

function rewritePayloads(raw: Json | undefined, variantKeys: Set<string> | null): JsonObject {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) fail('Payloads must be passed as a dictionary');
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === 'string') {
      try {
        JSON.parse(value);
      } catch {
        fail('Payload value is not valid JSON');
      }
      out[key] = value;
    } else {
      out[key] = pythonJsonDumps(value);
    }
  }
  const keys = Object.keys(out);
  if (variantKeys) {
    if (!keys.every((k) => variantKeys.has(k))) fail('Payload keys must match a variant key for multivariate flags');
  } else if (keys.length > 1 || keys.some((k) => k !== 'true')) {
    fail("Payload keys must be 'true' for boolean flags");
  }
  return out;
}

/**
 * The filters to store for a write: `sent` is the request's `filters` (undefined when the request
 * has none), `stored` what the flag holds (null on create). Throws the API's 400 for invalid
 * filters; never mutates its inputs.
 */
export function rewriteFilters(sent: Json | undefined, stored: JsonObject | null, ctx: FiltersContext): JsonObject | undefined {
  if (sent === undefined) return stored === null ? rewriteFilters({ groups: [{ properties: [], rollout_percentage: null }] }, null, ctx) : undefined;
  if (sent === null || !isObject(sent)) fail(`Expected a dictionary of items but got type "${sent === null ? 'NoneType' : Array.isArray(sent) ? 'list' : typeof sent === 'string' ? 'str' : 'int'}".`, 'not_a_dict');
  if (stored !== null && !('groups' in sent)) return undefined; // the API ignores such an update
  if (stored === null && (!Array.isArray(sent.groups) || sent.groups.length === 0)) fail('Feature flags must have at least one condition set (group).');

  const merged: JsonObject = { ...(stored ?? {}), ...clone(sent) };
  delete merged.holdout_groups;
  delete merged.super_groups;

  const agg = merged.aggregation_group_type_index ?? null;
  if (agg !== null && (typeof agg !== 'number' || !Number.isInteger(agg) || agg < 0 || agg > MAX_GROUP_TYPE_INDEX)) {
    fail(`aggregation_group_type_index is required to be greater than 0 and less than ${MAX_GROUP_TYPE_INDEX + 1}`);
  }
  const aggregation = agg as number | null;

  const mv = merged.multivariate ?? null;
  let variantKeys: Set<string> | null = null;
  if (mv !== null) {
    if (!isObject(mv) || !Array.isArray(mv.variants)) fail('multivariate must be an object with a list of variants.');
    let sum = 0;
    for (const v of mv.variants) {
      if (!isObject(v) || typeof v.key !== 'string' || typeof v.rollout_percentage !== 'number') fail('each variant needs a "key" and a numeric "rollout_percentage".');
      sum += v.rollout_percentage;
    }
    if (mv.variants.length > 0 && Math.abs(sum - 100) > 1e-9) fail('Invalid variant definitions: Variant rollout percentages must sum to 100.');
    variantKeys = new Set(mv.variants.map((v) => String((v as JsonObject).key)));
    if (mv.variants.length === 0) variantKeys = null;
  }

  const rawGroups = merged.groups ?? [];
  if (!Array.isArray(rawGroups)) fail('groups must be a list of release conditions.');
  const groups = rawGroups.map((g, i): JsonObject => {
    if (!isObject(g)) fail(`groups[${i}] must be an object.`);
    const group: JsonObject = clone(g);
    const props = g.properties ?? [];
    if (!Array.isArray(props)) fail(`groups[${i}].properties must be a list of property filters.`);
    group.properties = props.map((p, j) => rewriteProperty(p, `groups[${i}].properties[${j}]`, aggregation));
    const rollout = g.rollout_percentage;
    if (rollout !== undefined && rollout !== null && (typeof rollout !== 'number' || rollout < 0 || rollout > 100)) {
      fail(`groups[${i}]: rollout_percentage must be a number between 0 and 100.`);
    }
    if (typeof g.variant === 'string' && g.variant !== '' && !(variantKeys?.has(g.variant) ?? false)) fail('Filters are not valid (variant override does not exist)');
    group.aggregation_group_type_index = aggregation;
    return group;
  });

  const out: JsonObject = { ...merged, groups, multivariate: mv, aggregation_group_type_index: aggregation, payloads: rewritePayloads(merged.payloads, variantKeys) };
  if (aggregation === null) checkDependencies(out, ctx);
  return out;
}

/** Stored form of encrypted payloads: not the plain secret (the real API encrypts them at rest). */
export function encryptPayloads(filters: JsonObject): JsonObject {
  if (!isObject(filters.payloads)) return filters;
  const payloads: JsonObject = {};
  for (const [k, v] of Object.entries(filters.payloads)) {
    payloads[k] = typeof v === 'string' && !v.startsWith(ENCRYPTED_PREFIX) ? ENCRYPTED_PREFIX + Buffer.from(v, 'utf8').toString('base64') : v;
  }
  return { ...filters, payloads };
}

export function decryptPayloads(filters: JsonObject): JsonObject {
  if (!isObject(filters.payloads)) return filters;
  const payloads: JsonObject = {};
  for (const [k, v] of Object.entries(filters.payloads)) {
    payloads[k] = typeof v === 'string' && v.startsWith(ENCRYPTED_PREFIX) ? Buffer.from(v.slice(ENCRYPTED_PREFIX.length), 'base64').toString('utf8') : v;
  }
  return { ...filters, payloads };
}

/** The filters as an answer shows them: payloads decrypted, `cohort_name` on cohort properties (null for a cohort the project does not hold). */
export function renderFilters(flag: FeatureFlagState, state: SandboxState): JsonObject {
  const filters = clone(flag.has_encrypted_payloads ? decryptPayloads(flag.filters) : flag.filters);
  for (const g of Array.isArray(filters.groups) ? filters.groups : []) {
    if (!isObject(g) || !Array.isArray(g.properties)) continue;
    for (const p of g.properties) {
      if (isObject(p) && p.type === 'cohort') p.cohort_name = cohortName(state, flag.project, p.value);
    }
  }
  return filters;
}

/** Rollout percentages by where they sit: what the approval policy for "feature_flag.update" watches. */
export function rolloutPercentages(filters: Json | undefined): Map<string, Json> {
  const out = new Map<string, Json>();
  if (!isObject(filters)) return out;
  for (const name of ['groups', 'super_groups', 'holdout_groups']) {
    const list = filters[name];
    if (!Array.isArray(list)) continue;
    list.forEach((g, i) => {
      if (isObject(g) && 'rollout_percentage' in g) out.set(`${name}[${i}]`, g.rollout_percentage ?? null);
    });
  }
  const mv = filters.multivariate;
  if (isObject(mv) && Array.isArray(mv.variants)) {
    mv.variants.forEach((v, i) => {
      if (isObject(v) && 'rollout_percentage' in v) out.set(`variants[${i}]`, v.rollout_percentage ?? null);
    });
  }
  return out;
}
