// Feature flags of a project: validation (key pattern, per-project uniqueness among flags not
// deleted, release conditions), soft delete, and the record shape of the OpenAPI FeatureFlag.
import { validationError } from '../errors.js';
import { nowIso } from '../ids.js';
import { clone, isObject, type Json, type JsonObject } from '../json.js';
import type { FeatureFlagState, SandboxState } from '../state.js';
import {
  booleanRule, integerRule, objectRule, requireField, stringListRule, stringRule, untypedRule, validatePartial, type Rule,
} from '../validation.js';

export const FLAG_KEY_RE = /^[a-zA-Z0-9_-]+$/;
const CREATION_CONTEXTS = ['feature_flags', 'experiments', 'surveys', 'early_access_features', 'web_experiments'];
const RUNTIMES = ['server', 'client', 'all', ''];

function enumRule(values: readonly string[], nullable: boolean): Rule {
  return (value, attr) => {
    if (value === null && nullable) return null;
    if (typeof value !== 'string' || !values.includes(value)) {
      throw validationError(attr, `"${typeof value === 'string' ? value : JSON.stringify(value)}" is not a valid choice.`, 'invalid_choice');
    }
    return value;
  };
}

function integerListRule(): Rule {
  return (value, attr) => {
    if (!Array.isArray(value)) throw validationError(attr, 'Expected a list of items.', 'not_a_list');
    const item = integerRule();
    return value.map((v) => item(v, attr));
  };
}

function fail(detail: string): never {
  throw validationError('filters', detail, 'invalid_input');
}

function checkRollout(value: Json | undefined, where: string): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || value < 0 || value > 100) fail(`${where}: rollout_percentage must be a number between 0 and 100.`);
}

/** Release conditions: checked for shape, kept as sent, plus the keys the real API always adds. */
function filtersRule(): Rule {
  const asObject = objectRule();
  return (value, attr) => {
    const filters = asObject(value, attr) as JsonObject;
    const groups = filters.groups ?? [];
    if (!Array.isArray(groups)) fail('groups must be a list of release conditions.');
    for (const [i, g] of groups.entries()) {
      if (!isObject(g)) fail(`groups[${i}] must be an object.`);
      const props = g.properties ?? [];
      if (!Array.isArray(props) || !props.every((p) => isObject(p) && typeof p.key === 'string')) {
        fail(`groups[${i}].properties must be a list of property filters, each with a "key".`);
      }
      checkRollout(g.rollout_percentage, `groups[${i}]`);
    }
    const mv = filters.multivariate;
    if (mv !== undefined && mv !== null) {
      if (!isObject(mv) || !Array.isArray(mv.variants)) fail('multivariate must be an object with a list of variants.');
      const list = mv.variants;
      let sum = 0;
      for (const v of list) {
        if (!isObject(v) || typeof v.key !== 'string' || typeof v.rollout_percentage !== 'number') fail('each variant needs a "key" and a numeric "rollout_percentage".');
        sum += v.rollout_percentage;
      }
      if (list.length > 0 && Math.abs(sum - 100) > 1e-9) fail('Invalid variant definitions: Variant rollout percentages must sum to 100.');
    }
    if (filters.payloads !== undefined && !isObject(filters.payloads)) fail('payloads must be an object.');
    const out: JsonObject = clone(filters);
    if (!('payloads' in out)) out.payloads = {};
    if (!('multivariate' in out)) out.multivariate = null;
    return out;
  };
}

const FLAG_RULES: Readonly<Record<string, Rule>> = {
  name: stringRule({ allowBlank: true }),
  filters: filtersRule(),
  active: booleanRule(),
  deleted: booleanRule(),
  tags: stringListRule(),
  ensure_experience_continuity: booleanRule({ nullable: true }),
  rollback_conditions: untypedRule(),
  performed_rollback: booleanRule({ nullable: true }),
  analytics_dashboards: integerListRule(),
  has_enriched_analytics: booleanRule({ nullable: true }),
  creation_context: enumRule(CREATION_CONTEXTS, false),
  is_remote_configuration: booleanRule({ nullable: true }),
  has_encrypted_payloads: booleanRule({ nullable: true }),
  evaluation_runtime: enumRule(RUNTIMES, true),
};

/** A valid key; unique among the project's flags that are not deleted, unless this one is (being) deleted. */
function checkKey(state: SandboxState, project: number, value: Json, selfId: number | null, deleted: boolean): string {
  const key = stringRule({ max: 400 })(value, 'key') as string;
  if (!FLAG_KEY_RE.test(key)) throw validationError('key', 'Only letters, numbers, hyphens ("-") & underscores ("_") are allowed.', 'invalid_key');
  const clash = !deleted && state.feature_flags.some((f) => f.project === project && f.id !== selfId && !f.deleted && f.key === key);
  if (clash) throw validationError('key', 'There is already a feature flag with this key.', 'unique');
  return key;
}

/** A flag is "simple" when it has one condition without property filters and no variants. */
function isSimple(filters: JsonObject): boolean {
  const groups = Array.isArray(filters.groups) ? filters.groups : [];
  const noProps = groups.every((g) => !isObject(g) || !Array.isArray(g.properties) || g.properties.length === 0);
  return groups.length === 1 && noProps && !isObject(filters.multivariate) && (filters.aggregation_group_type_index ?? null) === null;
}

export function renderFlag(state: SandboxState, f: FeatureFlagState): JsonObject {
  const simple = isSimple(f.filters);
  const first = Array.isArray(f.filters.groups) && isObject(f.filters.groups[0]) ? f.filters.groups[0].rollout_percentage : null;
  return {
    id: f.id,
    name: f.name,
    key: f.key,
    filters: clone(f.filters),
    deleted: f.deleted,
    active: f.active,
    created_by: clone(state.user),
    created_at: f.created_at,
    updated_at: f.updated_at,
    version: f.version,
    last_modified_by: clone(state.user),
    is_simple_flag: simple,
    rollout_percentage: simple && typeof first === 'number' ? Math.round(first) : null,
    ensure_experience_continuity: f.ensure_experience_continuity,
    experiment_set: '[]',
    surveys: {},
    features: {},
    rollback_conditions: clone(f.rollback_conditions),
    performed_rollback: f.performed_rollback,
    can_edit: true,
    tags: clone(f.tags),
    usage_dashboard: f.usage_dashboard,
    analytics_dashboards: clone(f.analytics_dashboards),
    has_enriched_analytics: f.has_enriched_analytics,
    user_access_level: 'editor',
    is_remote_configuration: f.is_remote_configuration,
    has_encrypted_payloads: f.has_encrypted_payloads,
    status: f.deleted ? 'deleted' : 'active',
    evaluation_runtime: f.evaluation_runtime,
    last_called_at: null,
  };
}

/** The short form local_evaluation and my_flags answer with. */
export function renderFlagMinimal(f: FeatureFlagState): JsonObject {
  return {
    id: f.id,
    team_id: f.project,
    name: f.name,
    key: f.key,
    filters: clone(f.filters),
    deleted: f.deleted,
    active: f.active,
    ensure_experience_continuity: f.ensure_experience_continuity,
    has_encrypted_payloads: f.has_encrypted_payloads,
    version: f.version,
    evaluation_runtime: f.evaluation_runtime,
  };
}

/**
 * POST: a new flag. `keyTaken` lets a bulk caller (the seed, with thousands of flags) answer the
 * uniqueness question from its own index instead of a scan of every flag per flag.
 */
export function createFlag(state: SandboxState, project: number, body: JsonObject, keyTaken?: (key: string) => boolean): FeatureFlagState {
  const rawKey = requireField(body, 'key');
  const fields = validatePartial(FLAG_RULES, body);
  const deleted = fields.deleted === true;
  let key: string;
  if (keyTaken) {
    key = checkKey(state, project, rawKey, null, true);
    if (!deleted && keyTaken(key)) throw validationError('key', 'There is already a feature flag with this key.', 'unique');
  } else {
    key = checkKey(state, project, rawKey, null, deleted);
  }
  const now = nowIso();
  const flag: FeatureFlagState = {
    id: state.next_ids.feature_flag,
    project,
    key,
    name: (fields.name as string | undefined) ?? '',
    filters: (fields.filters as JsonObject | undefined) ?? { groups: [], payloads: {}, multivariate: null },
    active: (fields.active as boolean | undefined) ?? true,
    deleted: (fields.deleted as boolean | undefined) ?? false,
    tags: (fields.tags as Json[] | undefined) ?? [],
    ensure_experience_continuity: (fields.ensure_experience_continuity as boolean | null | undefined) ?? false,
    rollback_conditions: fields.rollback_conditions ?? null,
    performed_rollback: (fields.performed_rollback as boolean | null | undefined) ?? false,
    analytics_dashboards: (fields.analytics_dashboards as Json[] | undefined) ?? [],
    has_enriched_analytics: (fields.has_enriched_analytics as boolean | null | undefined) ?? false,
    is_remote_configuration: (fields.is_remote_configuration as boolean | null | undefined) ?? false,
    has_encrypted_payloads: (fields.has_encrypted_payloads as boolean | null | undefined) ?? false,
    evaluation_runtime: (fields.evaluation_runtime as string | null | undefined) ?? 'all',
    creation_context: (fields.creation_context as string | undefined) ?? 'feature_flags',
    usage_dashboard: state.next_ids.dashboard,
    version: 1,
    created_at: now,
    updated_at: now,
    created_by: state.user.id,
    last_modified_by: state.user.id,
  };
  // Counters move only once nothing can fail any more.
  state.next_ids.feature_flag++;
  state.next_ids.dashboard++;
  state.feature_flags.push(flag);
  return flag;
}

/** PATCH, including `{"deleted": true}` (the only way to delete a flag) and undeleting. */
export function updateFlag(state: SandboxState, flag: FeatureFlagState, body: JsonObject): void {
  const fields = validatePartial(FLAG_RULES, body);
  delete fields.creation_context; // write-once, as on the real API
  const deleted = (fields.deleted as boolean | undefined) ?? flag.deleted;
  // A key is taken only by flags that are not deleted, so undeleting or renaming re-checks it.
  const key = body.key !== undefined || (flag.deleted && !deleted)
    ? checkKey(state, flag.project, body.key ?? flag.key, flag.id, deleted)
    : flag.key;
  Object.assign(flag, fields);
  flag.key = key;
  flag.version++;
  flag.updated_at = nowIso();
  flag.last_modified_by = state.user.id;
}

export function findFlag(state: SandboxState, project: number, id: number): FeatureFlagState | undefined {
  return state.feature_flags.find((f) => f.project === project && f.id === id);
}

export function liveFlags(state: SandboxState, project: number): FeatureFlagState[] {
  return state.feature_flags.filter((f) => f.project === project && !f.deleted);
}
