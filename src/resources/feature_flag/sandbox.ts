// Feature flags of a project: validation (key pattern, per-project uniqueness among flags not
// deleted, release conditions rewritten as the real API rewrites them, see flag-filters.ts), soft
// delete, archiving, the refusals the real API makes (dependencies, experiments, early access
// features, archiving an active flag), optimistic concurrency by `version`, the 2000-flag limit,
// and the record shape of the real FeatureFlagSerializer. What owns a flag (seeded: experiments,
// early access features, surveys) is answered as that serializer answers it
// (products/feature_flags/backend/api/feature_flag.py): `experiment_set` the ids of its
// experiments, and on newer versions (api_version 2026) `experiment_set_metadata` with their
// names; `features` its early access features (MinimalEarlyAccessFeatureSerializer); `surveys`
// the surveys linked to it (SurveyAPISerializer). Deleting it is refused for an early access
// feature, and for experiments (older versions: any experiment not deleted; newer: a running
// one, named); surveys never refuse it (the API does not look).
import { ApiError, validationError } from '../../sandbox/errors.js';
import { nowIso } from '../../sandbox/ids.js';
import { clone, isObject, type Json, type JsonObject } from '../../sandbox/json.js';
import type { ChangeRequestState, FeatureFlagState, ProjectState, SandboxState } from '../../sandbox/state.js';
import type { SandboxModel } from '../../sandbox/kind-model.js';
import { notFound } from '../../sandbox/errors.js';
import { paginate } from '../../sandbox/pagination.js';
import type { Handler, Reply, RequestContext } from '../../sandbox/router.js';
import { projectOf } from '../../sandbox/routes/common.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';
import { blastRadius, evaluateFlag, toCondition, UnsupportedFilterError, type Person } from './sandbox-blast.js';
import { createUsageDashboard } from '../dashboard/sandbox.js';
import { gatedAction, holdForApproval, renderChangeRequest, seedApprovals } from './sandbox-approvals.js';
import { decryptPayloads, dependencyIds, encryptPayloads, renderFilters, rewriteFilters } from './sandbox-filters.js';
import {
  booleanRule, integerRule, objectRule, requireField, stringRule, tagsRule, untypedRule, validatePartial, type Rule,
} from '../../sandbox/validation.js';

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


const FLAG_RULES: Readonly<Record<string, Rule>> = {
  name: stringRule({ allowBlank: true }),
  filters: objectRule(),
  active: booleanRule(),
  deleted: booleanRule(),
  archived: booleanRule(),
  tags: tagsRule(),
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
    filters: renderFilters(f, state),
    deleted: f.deleted,
    active: f.active,
    archived: f.archived ?? false,
    created_by: clone(state.user),
    created_at: f.created_at,
    updated_at: f.updated_at,
    version: f.version,
    last_modified_by: clone(state.user),
    is_simple_flag: simple,
    rollout_percentage: simple && typeof first === 'number' ? Math.round(first) : null,
    ensure_experience_continuity: f.ensure_experience_continuity,
    experiment_set: experimentsOf(f).map((e) => e.id),
    ...(newerApi(state) ? { experiment_set_metadata: experimentsOf(f).map((e) => ({ id: e.id, name: e.name, is_running: e.running })) } : {}),
    surveys: ((f.surveys as string[] | undefined) ?? []).map((name, i) => ({
      id: ownerUuid(f, 'survey', i), name, description: '', type: 'popover', linked_flag_id: f.id, archived: false, start_date: null, end_date: null,
    })),
    features: (f.early_access_features ?? []).map((name, i) => ({
      id: ownerUuid(f, 'feature', i), name, description: '', stage: 'beta', documentationUrl: '', flagKey: f.key,
    })),
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
export function renderFlagMinimal(f: FeatureFlagState, state: SandboxState): JsonObject {
  return {
    id: f.id,
    team_id: f.project,
    name: f.name,
    key: f.key,
    filters: renderFilters(f, state),
    deleted: f.deleted,
    active: f.active,
    ensure_experience_continuity: f.ensure_experience_continuity,
    has_encrypted_payloads: f.has_encrypted_payloads,
    version: f.version,
    evaluation_runtime: f.evaluation_runtime,
  };
}

/** A project holds at most this many flags (deleted ones aside). */
export const MAX_FLAGS_PER_PROJECT = 2000;

/** Seed-only facts about a flag: what hides it from the list, what uses it elsewhere. */
export interface FlagExtras {
  hidden?: FeatureFlagState['hidden'];
  experiments?: Array<{ id: number; name: string; running: boolean }>;
  early_access_features?: string[];
  surveys?: string[];
}

/** Newer API versions (the sandbox's api_version 2026). */
function newerApi(state: SandboxState): boolean {
  return (state.api_version ?? 2025) >= 2026;
}

/** A flag's experiments, also from state files that hold only their ids (then each is running). */
export function experimentsOf(f: FeatureFlagState): Array<{ id: number; name: string; running: boolean }> {
  return (f.experiments as FeatureFlagState['experiments'] | undefined) ?? (f.experiment_ids ?? []).map((id) => ({ id, name: `Experiment ${id}`, running: true }));
}

/** A stable UUID for a seeded early access feature or survey of a flag (the sandbox keeps no such items). */
function ownerUuid(f: FeatureFlagState, what: 'feature' | 'survey', index: number): string {
  return `0190d1c4-6a1e-7c3d-${what === 'feature' ? 'a' : 'b'}${String(index % 1000).padStart(3, '0')}-${String(f.id).padStart(12, '0')}`;
}

function refuse(detail: string): never {
  throw validationError(null, detail, 'invalid_input');
}

/** `archived: true` must travel with `active: false`. */
function checkArchive(archived: boolean, active: boolean): void {
  if (archived && active) refuse('Cannot archive an active feature flag. Disable it first (send "active": false with "archived": true).');
}

/**
 * POST: a new flag. `keyTaken` lets a bulk caller (the seed, with thousands of flags) answer the
 * uniqueness question from its own index instead of a scan of every flag per flag.
 */
export function createFlag(state: SandboxState, project: number, body: JsonObject, keyTaken?: (key: string) => boolean, extras: FlagExtras = {}): FeatureFlagState {
  const rawKey = requireField(body, 'key');
  const fields = validatePartial(FLAG_RULES, body);
  const deleted = fields.deleted === true;
  let key: string;
  let liveCount = 0;
  if (keyTaken) {
    key = checkKey(state, project, rawKey, null, true);
    if (!deleted && keyTaken(key)) throw validationError('key', 'There is already a feature flag with this key.', 'unique');
  } else {
    key = checkKey(state, project, rawKey, null, deleted);
    for (const f of state.feature_flags) if (f.project === project && !f.deleted) liveCount++;
  }
  if (!deleted && liveCount >= MAX_FLAGS_PER_PROJECT) {
    refuse(`This project already has ${MAX_FLAGS_PER_PROJECT} feature flags, the most a project can hold. Delete unused flags first.`);
  }
  const active = (fields.active as boolean | undefined) ?? true;
  const archived = (fields.archived as boolean | undefined) ?? false;
  checkArchive(archived, active && !deleted);
  const encrypted = (fields.has_encrypted_payloads as boolean | null | undefined) ?? false;
  const written = rewriteFilters(fields.filters, null, { state, project, self: null }) as JsonObject;
  const now = nowIso();
  const flag: FeatureFlagState = {
    id: state.next_ids.feature_flag,
    project,
    key,
    name: (fields.name as string | undefined) ?? '',
    filters: encrypted ? encryptPayloads(written) : written,
    active,
    deleted,
    archived,
    hidden: extras.hidden ?? null,
    experiment_ids: (extras.experiments ?? []).map((e) => e.id),
    early_access_features: extras.early_access_features ?? [],
    experiments: extras.experiments ?? [],
    surveys: extras.surveys ?? [],
    tags: (fields.tags as Json[] | undefined) ?? [],
    ensure_experience_continuity: (fields.ensure_experience_continuity as boolean | null | undefined) ?? false,
    rollback_conditions: fields.rollback_conditions ?? null,
    performed_rollback: (fields.performed_rollback as boolean | null | undefined) ?? false,
    analytics_dashboards: (fields.analytics_dashboards as Json[] | undefined) ?? [],
    has_enriched_analytics: (fields.has_enriched_analytics as boolean | null | undefined) ?? false,
    is_remote_configuration: (fields.is_remote_configuration as boolean | null | undefined) ?? false,
    has_encrypted_payloads: encrypted,
    evaluation_runtime: (fields.evaluation_runtime as string | null | undefined) ?? 'all',
    creation_context: (fields.creation_context as string | undefined) ?? 'feature_flags',
    usage_dashboard: null,
    version: 1,
    created_at: now,
    updated_at: now,
    created_by: state.user.id,
    last_modified_by: state.user.id,
  };
  // Counters move only once nothing can fail any more.
  state.next_ids.feature_flag++;
  state.next_ids.dashboard++;
  // The real API hard-deletes the deleted flags that held the key, so the key is free again.
  if (!deleted && !keyTaken) state.feature_flags = state.feature_flags.filter((f) => !(f.project === project && f.deleted && f.key === key));
  state.feature_flags.push(flag);
  return flag;
}

/** Active flags of the project (other than `flag`) whose conditions depend on `flag`. */
export function dependentFlags(state: SandboxState, flag: FeatureFlagState): FeatureFlagState[] {
  return state.feature_flags
    .filter((f) => f.project === flag.project && f.id !== flag.id && !f.deleted && f.active && dependencyIds(f.filters).includes(flag.id))
    .sort((a, b) => a.key.localeCompare(b.key));
}

function named(flags: FeatureFlagState[]): string {
  const names = flags.slice(0, 5).map((f) => `${f.key} (ID: ${f.id})`);
  if (flags.length > 5) names.push(`and ${flags.length - 5} more`);
  return names.join(', ');
}

/** The refusals the real API's FeatureFlagSerializer.update makes before it writes anything. */
function checkPreconditions(state: SandboxState, flag: FeatureFlagState, fields: JsonObject): void {
  if (fields.deleted === true && !flag.deleted) {
    if ((flag.early_access_features ?? []).length > 0) {
      refuse('Cannot delete a feature flag that is in use with early access features. Please delete the early access feature before deleting the flag.');
    }
    const experiments = experimentsOf(flag);
    if (newerApi(state)) {
      // Newer versions keep a draft, stopped or finished experiment's flag deletable (its results stay).
      const running = experiments.filter((e) => e.running);
      if (running.length > 0) {
        refuse(`Cannot delete a feature flag that is linked to running experiment(s): ${running.map((e) => `"${e.name}" (ID: ${e.id})`).join(', ')}. Please stop the experiment(s) before deleting the flag.`);
      }
    } else if (experiments.length > 0) {
      refuse(`Cannot delete a feature flag that is linked to active experiment(s) with ID(s): ${experiments.map((e) => e.id).join(', ')}. Please delete the experiment(s) before deleting the flag.`);
    }
    const dependents = dependentFlags(state, flag);
    if (dependents.length > 0) {
      refuse(`Cannot delete this feature flag because other flags depend on it: ${named(dependents)}. Please update or delete the dependent flags first.`);
    }
  }
  if (fields.active === false && flag.active) {
    const dependents = dependentFlags(state, flag);
    if (dependents.length > 0) {
      refuse(`Cannot disable this feature flag because other flags depend on it: ${named(dependents)}. Please update or disable the dependent flags first.`);
    }
  }
  if (fields.active === true && !flag.active) {
    const ids = dependencyIds(flag.filters);
    const disabled = state.feature_flags
      .filter((f) => f.project === flag.project && ids.includes(f.id) && !f.deleted && !f.active)
      .sort((a, b) => a.key.localeCompare(b.key));
    if (disabled.length > 0) {
      refuse(`Cannot enable this feature flag because it depends on disabled flags: ${named(disabled)}. Please enable the dependency flags first.`);
    }
  }
}

/** Stable JSON for comparing values whatever the order of their keys. */
function stable(value: Json | undefined): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stable(value[k])}`).join(',')}}`;
}

/**
 * Optimistic concurrency as the real API does it: a PATCH that names the `version` it was made
 * against and carries `original_flag` (the values it read) is refused with 409 when another
 * write changed a field that this one changes too, since that version.
 */
function checkConflict(state: SandboxState, flag: FeatureFlagState, body: JsonObject, fields: JsonObject): void {
  const version = body.version;
  if (typeof version !== 'number' || version === -1 || version === flag.version) return;
  const original = body.original_flag;
  if (!isObject(original) || Object.keys(original).length === 0) return;
  const current = renderFlag(state, flag);
  const conflicting = Object.keys(fields).filter((field) => field in original
    && stable(fields[field]) !== stable(original[field])
    && stable(original[field]) !== stable(current[field])
    && stable(fields[field]) !== stable(current[field]));
  if (conflicting.length > 0) {
    throw new ApiError(409, {
      type: 'client_error',
      code: 'conflict',
      detail: `The feature flag was updated by ${[state.user, ...(state.users ?? [])].find((u) => u.id === flag.last_modified_by)?.email ?? 'another user'} since you started editing it. Please refresh and try again.`,
      attr: null,
    });
  }
}

/** A PATCH validated and checked, ready to be written (nothing has changed yet). */
export interface PreparedUpdate {
  flag: FeatureFlagState;
  fields: JsonObject;
  key: string;
  filters: JsonObject | undefined;
}

/** Validates a PATCH body against a flag; throws the API's 400 (or 409 conflict) without changing anything. */
export function prepareUpdate(state: SandboxState, flag: FeatureFlagState, body: JsonObject): PreparedUpdate {
  const fields = validatePartial(FLAG_RULES, body);
  delete fields.creation_context; // write-once, as on the real API
  const deleted = (fields.deleted as boolean | undefined) ?? flag.deleted;
  // A key is taken only by flags that are not deleted, so undeleting or renaming re-checks it.
  const key = body.key !== undefined || (flag.deleted && !deleted)
    ? checkKey(state, flag.project, body.key ?? flag.key, flag.id, deleted)
    : flag.key;
  const stored = flag.has_encrypted_payloads ? decryptPayloads(flag.filters) : flag.filters;
  const filters = rewriteFilters(fields.filters, stored, { state, project: flag.project, self: { ...flag, key } });
  delete fields.filters;
  const active = (fields.active as boolean | undefined) ?? flag.active;
  const archived = (fields.archived as boolean | undefined) ?? flag.archived ?? false;
  if (fields.archived === true || (archived && fields.active === true)) checkArchive(archived, active && !deleted);
  return { flag, fields, key, filters };
}

/** Checks the API's preconditions and the version, then writes a prepared PATCH. */
export function commitUpdate(state: SandboxState, prepared: PreparedUpdate, body: JsonObject): void {
  const { flag, fields, key, filters } = prepared;
  checkPreconditions(state, flag, fields);
  checkConflict(state, flag, body, filters === undefined ? fields : { ...fields, filters });
  const encrypted = (fields.has_encrypted_payloads as boolean | null | undefined) ?? flag.has_encrypted_payloads;
  const plain = filters ?? (flag.has_encrypted_payloads ? decryptPayloads(flag.filters) : flag.filters);
  Object.assign(flag, fields);
  flag.filters = encrypted ? encryptPayloads(plain) : plain;
  // A flag deleted while experiments keep it gives its key back: the API renames it (`tombstoned_key`).
  flag.key = fields.deleted === true && experimentsOf(flag).length > 0 ? `${key}:deleted:${flag.id}` : key;
  if (fields.active === true) flag.performed_rollback = false;
  flag.version++;
  flag.updated_at = nowIso();
  flag.last_modified_by = state.user.id;
}

/** PATCH, including `{"deleted": true}` (the only way to delete a flag) and undeleting. */
export function updateFlag(state: SandboxState, flag: FeatureFlagState, body: JsonObject): void {
  commitUpdate(state, prepareUpdate(state, flag, body), body);
}

export function findFlag(state: SandboxState, project: number, id: number): FeatureFlagState | undefined {
  return state.feature_flags.find((f) => f.project === project && f.id === id);
}

/**
 * Each project's flags, indexed once per version of the flag array: flags are only appended to
 * it (or it is replaced), and a flag never moves to another project. A list of one project's
 * flags then costs that project's flags, not every flag of the workspace.
 */
const flagsByProject = new WeakMap<FeatureFlagState[], { length: number; byProject: Map<number, FeatureFlagState[]> }>();

function projectFlags(state: SandboxState, project: number): FeatureFlagState[] {
  const all = state.feature_flags;
  let index = flagsByProject.get(all);
  if (!index || index.length !== all.length) {
    index = { length: all.length, byProject: new Map() };
    for (const f of all) {
      const list = index.byProject.get(f.project);
      if (list) list.push(f);
      else index.byProject.set(f.project, [f]);
    }
    flagsByProject.set(all, index);
  }
  return index.byProject.get(project) ?? [];
}

/** Flags the project's list shows by default: not deleted, not archived, not hidden. */
export function liveFlags(state: SandboxState, project: number): FeatureFlagState[] {
  return projectFlags(state, project).filter((f) => !f.deleted && !f.archived && !f.hidden);
}

/** Flags that evaluate (local_evaluation, my_flags, evaluation_reasons): archived ones aside. */
export function evaluatedFlags(state: SandboxState, project: number): FeatureFlagState[] {
  return state.feature_flags.filter((f) => f.project === project && !f.deleted && !f.archived);
}

const HIDDEN_KINDS = ['survey', 'product_tour', 'restricted'] as const;

/** Names given as strings or as `{name}` mappings (the seed's forms for surveys and early access features). */
function seedNames(value: Json | undefined, attr: string, what: string): string[] {
  if (value === undefined) return [];
  const names = Array.isArray(value) ? value.map((v) => (isObject(v) ? v.name : v)) : null;
  if (!names || !names.every((n): n is string => typeof n === 'string' && n.trim() !== '')) throw validationError(attr, `must be a list of ${what} names`, 'invalid');
  return names;
}

/** Experiments given as ids (running, named after the id) or as `{id, name, running}` mappings. */
function seedExperiments(value: Json | undefined): Array<{ id: number; name: string; running: boolean }> {
  if (value === undefined) return [];
  const fail = (): never => { throw validationError('experiments', 'must be a list of experiment ids or of {id, name, running} mappings', 'invalid'); };
  if (!Array.isArray(value)) return fail();
  return value.map((e) => {
    if (typeof e === 'number' && Number.isInteger(e) && e > 0) return { id: e, name: `Experiment ${e}`, running: true };
    if (!isObject(e) || typeof e.id !== 'number' || !Number.isInteger(e.id) || e.id < 1) return fail();
    if (e.name !== undefined && typeof e.name !== 'string') return fail();
    if (e.running !== undefined && typeof e.running !== 'boolean') return fail();
    return { id: e.id, name: (e.name as string | undefined) ?? `Experiment ${e.id}`, running: (e.running as boolean | undefined) ?? true };
  });
}

/**
 * A flag of a seed document: any field the API takes, plus facts only a seed can set:
 * `internal` (survey | product_tour | restricted: held but never listed), `experiments` (ids, or
 * `{id, name, running}`; running by default), `early_access_features` and `surveys` (names):
 * what owns the flag, as its record then says.
 */
export function seedFlag(state: SandboxState, project: number, raw: JsonObject, keyTaken: (key: string) => boolean): FeatureFlagState {
  const { internal, experiments, early_access_features: features, surveys, ...body } = raw;
  if (internal !== undefined && !(HIDDEN_KINDS as readonly Json[]).includes(internal)) {
    throw validationError('internal', `must be one of ${HIDDEN_KINDS.join(', ')}`, 'invalid_choice');
  }
  const eaf = seedNames(features, 'early_access_features', 'early access feature');
  const flag = createFlag(state, project, body, keyTaken, {
    hidden: (internal as FeatureFlagState['hidden'] | undefined) ?? null,
    experiments: seedExperiments(experiments),
    early_access_features: eaf,
    surveys: seedNames(surveys, 'surveys', 'survey'),
  });
  // Newer versions mark an early access feature's flag in its filters (server-owned).
  if (eaf.length > 0 && newerApi(state)) flag.filters = { ...flag.filters, feature_enrollment: true };
  return flag;
}

// ---------------------------------------------------------------------------------------------
// The feature flag kind in the sandbox: CRUD (DELETE answers 405: flags are deleted with
// PATCH {"deleted": true}; the list leaves archived flags out unless it names `archived`, and
// never shows hidden ones), approval-gated PATCHes and the change requests that hold them, and
// the evaluation endpoints, computed from the stored flags and the seed's persons:
// evaluation_reasons, local_evaluation, my_flags, user_blast_radius.
// ---------------------------------------------------------------------------------------------


function personsOf(state: SandboxState, project: number): Person[] {
  return state.persons.filter((p) => p.project === project);
}

function personFor(state: SandboxState, project: number, distinctId: string): Person {
  return personsOf(state, project).find((p) => p.distinct_id === distinctId) ?? { distinct_id: distinctId, properties: {} };
}
function changeRequestIn(ctx: RequestContext, state: SandboxState): ChangeRequestState {
  const project = projectOf(ctx, state);
  const cr = (state.change_requests ?? []).find((c) => c.project === project.id && c.id === ctx.params.id);
  if (!cr) throw notFound();
  return cr;
}

const listChangeRequests: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const wanted = ctx.url.searchParams.get('state')?.split(',');
  const crs = (state.change_requests ?? []).filter((c) => c.project === project.id && (!wanted || wanted.includes(c.state)));
  return { status: 200, body: paginate([...crs].reverse(), renderChangeRequest, ctx.url) };
});

const readChangeRequest: Handler = (ctx) => ctx.store.read((state) => ({ status: 200, body: renderChangeRequest(changeRequestIn(ctx, state)) }));

/** Approving applies the held PATCH as sent, unless the flag changed since (version) or the API now refuses it. */
const approveChangeRequest: Handler = (ctx) => ctx.store.write((state): Reply => {
  const cr = changeRequestIn(ctx, state);
  if (cr.state !== 'pending') return { status: 400, body: { error: 'This change request can no longer be approved.' } };
  const intent = cr.intent as { flag_id: number; full_request_data: JsonObject; preconditions: { version: number } };
  const flag = findFlag(state, cr.project, intent.flag_id);
  let error: string | null = null;
  if (!flag || flag.deleted) error = 'The feature flag no longer exists.';
  else if (flag.version !== intent.preconditions.version) error = `Flag version mismatch: expected ${intent.preconditions.version}, got ${flag.version}`;
  else {
    try {
      updateFlag(state, flag, intent.full_request_data);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      error = err.body.detail;
    }
  }
  cr.state = error === null ? 'applied' : 'failed';
  cr.apply_error = error;
  cr.applied_at = error === null ? new Date().toISOString() : null;
  const message = error === null ? 'Change request approved and applied.' : `Change request approved but could not be applied: ${error}`;
  return { status: 200, body: { status: cr.state, message, change_request: renderChangeRequest(cr) } };
});

const rejectChangeRequest: Handler = (ctx) => ctx.store.write((state): Reply => {
  const cr = changeRequestIn(ctx, state);
  if (cr.state !== 'pending') return { status: 400, body: { error: 'This change request can no longer be rejected.' } };
  cr.state = 'rejected';
  return { status: 200, body: { status: 'rejected', message: 'Change request rejected.', change_request: renderChangeRequest(cr) } };
});

const evaluationReasons: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const distinctId = ctx.url.searchParams.get('distinct_id');
  if (!distinctId) throw validationError('distinct_id', 'distinct_id is required.', 'required');
  const person = personFor(state, project.id, distinctId);
  const body: JsonObject = {};
  for (const flag of evaluatedFlags(state, project.id)) {
    const { value, reason, condition_index } = evaluateFlag(flag, person);
    body[flag.key] = { value, evaluation: { reason, condition_index } };
  }
  return { status: 200, body };
});

const localEvaluation: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  return { status: 200, body: { flags: evaluatedFlags(state, project.id).map((f) => renderFlagMinimal(f, state)), group_type_mapping: {}, cohorts: {} } };
});

/** The caller's own flags: evaluated for the sandbox user (a seed person with the same distinct_id, if any). */
const myFlags: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const found = personFor(state, project.id, state.user.distinct_id);
  const person: Person = Object.keys(found.properties).length > 0 ? found : { distinct_id: found.distinct_id, properties: { email: state.user.email } };
  const body = evaluatedFlags(state, project.id).map((f) => ({ feature_flag: renderFlagMinimal(f, state), value: evaluateFlag(f, person).value }));
  return { status: 200, body };
});

const userBlastRadius: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const raw = ctx.body.condition;
  if (raw === undefined) throw validationError('condition', 'This field is required.', 'required');
  if (!isObject(raw)) throw validationError('condition', 'condition must be an object.', 'invalid');
  if (raw.properties !== undefined && (!Array.isArray(raw.properties) || !raw.properties.every((p) => isObject(p) && typeof p.key === 'string'))) {
    throw validationError('condition', 'condition.properties must be a list of property filters, each with a "key".', 'invalid');
  }
  const rollout = raw.rollout_percentage;
  if (rollout !== undefined && rollout !== null && (typeof rollout !== 'number' || rollout < 0 || rollout > 100)) {
    throw validationError('condition', 'condition.rollout_percentage must be a number between 0 and 100.', 'invalid');
  }
  const groupType = ctx.body.group_type_index;
  // The sandbox has persons only, no groups: a group-based condition reaches nobody.
  if (groupType !== undefined && groupType !== null) return { status: 200, body: { affected: 0, total: 0 } };
  const key = typeof ctx.body.key === 'string' ? ctx.body.key : '';
  try {
    return { status: 200, body: blastRadius(key, toCondition(raw), personsOf(state, project.id)) };
  } catch (err) {
    if (err instanceof UnsupportedFilterError) throw validationError('condition', err.message, 'invalid');
    throw err;
  }
});

const flagOf = (r: JsonObject) => r as FeatureFlagState;
const base = '/api/projects/:project/feature_flags/';
const changeRequests = '/api/projects/:project/change_requests/';
/** Encrypted payloads are masked in the activity log: the log never holds them. */
const MASK = '********';

export const model: SandboxModel = {
  kind: 'feature_flag',
  collection: 'feature_flags',
  path: base,
  parent: 'project',
  scopes: { read: 'feature_flag:read', write: 'feature_flag:write' },
  pagination: 'limit-offset',
  id: 'integer',
  create: { status: 201 },
  update: true,
  delete: 'soft',
  softDelete: 'deleted',
  fields: {},
  activity: {
    scope: 'FeatureFlag',
    name: (f) => String(f.key),
    ignored: ['project', 'usage_dashboard'],
    logged: (f, field, value) => {
      if (field !== 'filters' || f.has_encrypted_payloads !== true || !isObject(value)) return value;
      const payloads = value.payloads;
      if (!isObject(payloads)) return value;
      return { ...value, payloads: Object.fromEntries(Object.keys(payloads).map((k) => [k, MASK])) };
    },
  },
  hooks: {
    // The real list leaves deleted flags out, and archived ones unless the request names the
    // `archived` parameter (`?archived=true` lists the archived ones). Survey and product-tour
    // internal flags, and flags the caller may not see, are never listed.
    listReply: (ctx) => {
      const project = ctx.project as ProjectState;
      const archived = ctx.request.url.searchParams.get('archived');
      const flags = archived === 'true'
        ? projectFlags(ctx.state, project.id).filter((f) => !f.deleted && f.archived && !f.hidden)
        : liveFlags(ctx.state, project.id);
      return { status: 200, body: paginate(flags, (f) => renderFlag(ctx.state, f), ctx.request.url) };
    },
    createReply: (ctx) => {
      const project = (ctx.project as ProjectState).id;
      const flag = createFlag(ctx.state, project, ctx.request.body);
      // The API makes a usage dashboard with every flag unless told not to (API version 2026 makes none).
      if (ctx.request.body._should_create_usage_dashboard !== false && (ctx.state.api_version ?? 2025) < 2026) {
        flag.usage_dashboard = createUsageDashboard(ctx.state, project, flag.key).id as number;
      }
      return { status: 201, body: renderFlag(ctx.state, flag) };
    },
    // PATCH: validated first; a change the project's approval policy gates is held (409), not applied.
    updateReply: (record, ctx) => {
      const flag = flagOf(record);
      const prepared = prepareUpdate(ctx.state, flag, ctx.request.body);
      const action = gatedAction(ctx.state, flag, ctx.request.body);
      if (action) return { status: 409, body: holdForApproval(ctx.state, flag, action, ctx.request.body) };
      commitUpdate(ctx.state, prepared, ctx.request.body);
      return { status: 200, body: renderFlag(ctx.state, flag) };
    },
    render: (record, ctx) => renderFlag(ctx.state, flagOf(record)),
  },
  routes: [
    { pattern: `${base}evaluation_reasons/`, methods: { GET: { scope: 'feature_flag:read', handler: evaluationReasons } } },
    { pattern: `${base}local_evaluation/`, methods: { GET: { scope: 'feature_flag:read', handler: localEvaluation } } },
    { pattern: `${base}my_flags/`, methods: { GET: { scope: 'feature_flag:read', handler: myFlags } } },
    { pattern: `${base}user_blast_radius/`, methods: { POST: { scope: 'feature_flag:write', handler: userBlastRadius } } },
    { pattern: changeRequests, methods: { GET: { scope: 'feature_flag:read', handler: listChangeRequests } } },
    { pattern: `${changeRequests}:id/approve/`, methods: { POST: { scope: 'feature_flag:write', handler: approveChangeRequest } } },
    { pattern: `${changeRequests}:id/reject/`, methods: { POST: { scope: 'feature_flag:write', handler: rejectChangeRequest } } },
    { pattern: `${changeRequests}:id/`, methods: { GET: { scope: 'feature_flag:read', handler: readChangeRequest } } },
  ],
  seeds: [
    {
      key: 'flag_approvals',
      at: 'project',
      apply: (state, { project }, value, where, fail) => {
        const error = seedApprovals(state, (project as ProjectState).id, value);
        if (error) fail(where, error);
      },
    },
    {
      key: 'feature_flags',
      at: 'project',
      apply: (state, { project }, value, where, fail) => {
        const keys = new Set<string>();
        for (const [fi, flag] of seedList(value, where, fail).entries()) {
          const created = seedApply(`${where}[${fi}]`, fail, () => seedFlag(state, (project as ProjectState).id, flag, (k) => keys.has(k)));
          if (!created.deleted) keys.add(created.key);
        }
      },
    },
    {
      key: 'persons',
      at: 'project',
      apply: (state, { project }, value, where, fail) => {
        const seen = new Set<string>();
        for (const [xi, person] of seedList(value, where, fail).entries()) {
          const xat = `${where}[${xi}]`;
          if (typeof person.distinct_id !== 'string' || person.distinct_id === '') fail(`${xat}.distinct_id`, 'must be a non-empty string');
          const distinctId = person.distinct_id as string;
          if (seen.has(distinctId)) fail(`${xat}.distinct_id`, `duplicate person ${distinctId}`);
          seen.add(distinctId);
          if (person.properties !== undefined && !isObject(person.properties)) fail(`${xat}.properties`, 'must be a mapping');
          state.persons.push({ project: (project as ProjectState).id, distinct_id: distinctId, properties: (person.properties as JsonObject | undefined) ?? {} });
        }
      },
    },
  ],
  contract: {
    item: { key: 'contract-flag', name: 'Contract', active: true, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } },
    update: { active: false },
    drift: { active: true },
  },
};
