// Projects: the record the real API answers (every field of the OpenAPI ProjectBackwardCompat
// schema and the writable fields newer API versions added, with realistic defaults), the rules
// for its writable fields, what the API does with a PATCH (names trimmed and unique without
// regard to case, empty entries of app_urls/recording_domains dropped, session_replay_config,
// survey_config, modifiers and conversations_settings merged into what is stored,
// access_control refused, slack_incoming_webhook dropped by API version 2026, admin-only
// settings), asynchronous deletion, and its actions.
// The OpenAPI types a few read-only fields as strings (drf-spectacular's default for method
// fields) although the real API sends JSON there; the sandbox sends strings so that every
// record validates against that schema.
import { conflict, notFound, permissionDenied, validationError } from '../../sandbox/errors.js';
import { activityPage, projectActivity } from '../../sandbox/activity.js';
import { canReachOrganization, canReachProject, levelOf } from '../../sandbox/auth.js';
import type { KindContext, SandboxModel } from '../../sandbox/kind-model.js';
import { paginate } from '../../sandbox/pagination.js';
import { NO_PERSONAL_KEYS, type Handler, type Reply, type RequestContext, type Route } from '../../sandbox/router.js';
import { FIRST_PROJECT_ID } from '../../sandbox/defaults.js';
import { hasFeature } from '../../sandbox/features.js';
import { intParam, organizationOf } from '../../sandbox/routes/common.js';
import { liveEventsToken, nextIntegerId, nowIso, takeIntegerId, projectApiToken, uuidv7 } from '../../sandbox/ids.js';
import { clone, isObject, pyTypeName, type Json, type JsonObject } from '../../sandbox/json.js';
import { LEVELS, type ProjectState, type SandboxState } from '../../sandbox/state.js';
import { seedApply } from '../../sandbox/seed-kit.js';
import {
  booleanRule, decimalRule, integerChoiceRule, integerRule, objectRule, stringListRule, stringRule, timeZoneRule,
  requireField, untypedRule, validatePartial, type Rule,
} from '../../sandbox/validation.js';

function choiceRule(values: readonly string[], nullable: boolean): Rule {
  return (value, attr) => {
    if (value === null && nullable) return null;
    if (typeof value !== 'string' || !values.includes(value)) {
      throw validationError(attr, `"${typeof value === 'string' ? value : JSON.stringify(value)}" is not a valid choice.`, 'invalid_choice');
    }
    return value;
  };
}

/** ISO 4217 codes (the real API's list holds 152 of them). */
function currencyRule(): Rule {
  return (value, attr) => {
    if (value === null) return null;
    if (typeof value !== 'string' || !/^[A-Z]{3}$/.test(value)) {
      throw validationError(attr, `"${typeof value === 'string' ? value : JSON.stringify(value)}" is not a valid choice.`, 'invalid_choice');
    }
    return value;
  };
}

/** A list of JSON objects, or null (the real API's ArrayField of JSONField). */
function objectListRule(): Rule {
  return (value, attr) => {
    if (value === null) return null;
    if (!Array.isArray(value)) throw validationError(attr, `Expected a list of items but got type "${pyTypeName(value)}".`, 'not_a_list');
    for (const item of value) if (item !== null && !isObject(item)) throw validationError(attr, 'Must provide a list of dictionaries.', 'invalid');
    return value;
  };
}

function dictRule(keys: readonly string[], check?: (value: JsonObject, attr: string) => void): Rule {
  return (value, attr) => {
    if (value === null) return null;
    if (!isObject(value)) throw validationError(attr, 'Must provide a dictionary or None.', 'invalid');
    if (!Object.keys(value).every((k) => keys.includes(k))) {
      throw validationError(attr, `Must provide a dictionary with only known keys: ${keys.join(', ')}.`, 'invalid');
    }
    check?.(value, attr);
    return value;
  };
}

const maskingConfigRule = dictRule(['maskAllInputs', 'maskTextSelector', 'blockSelector'], (v, attr) => {
  if (v.maskAllInputs !== undefined && typeof v.maskAllInputs !== 'boolean') throw validationError(attr, 'maskAllInputs must be a boolean.', 'invalid');
  for (const k of ['maskTextSelector', 'blockSelector']) {
    if (v[k] !== undefined && typeof v[k] !== 'string') throw validationError(attr, `${k} must be a string.`, 'invalid');
  }
});

/** Every writable field of a project and its rule (bounds from the OpenAPI and the real API). */
export const PROJECT_RULES: Readonly<Record<string, Rule>> = {
  name: stringRule({ max: 200 }),
  product_description: stringRule({ max: 1000, nullable: true, allowBlank: true }),
  app_urls: stringListRule({ itemMax: 200, itemNullable: true }),
  slack_incoming_webhook: stringRule({ max: 500, nullable: true, allowBlank: true }),
  anonymize_ips: booleanRule(),
  completed_snippet_onboarding: booleanRule(),
  test_account_filters: untypedRule(),
  test_account_filters_default_checked: booleanRule({ nullable: true }),
  path_cleaning_filters: untypedRule(),
  is_demo: booleanRule(),
  timezone: timeZoneRule(),
  data_attributes: untypedRule(),
  person_display_name_properties: stringListRule({ itemMax: 400, nullable: true }),
  correlation_config: untypedRule(),
  autocapture_opt_out: booleanRule({ nullable: true }),
  autocapture_exceptions_opt_in: booleanRule({ nullable: true }),
  autocapture_web_vitals_opt_in: booleanRule({ nullable: true }),
  autocapture_web_vitals_allowed_metrics: untypedRule(),
  autocapture_exceptions_errors_to_ignore: untypedRule(),
  capture_console_log_opt_in: booleanRule({ nullable: true }),
  capture_performance_opt_in: booleanRule({ nullable: true }),
  session_recording_opt_in: booleanRule(),
  session_recording_sample_rate: decimalRule({ places: 2, min: 0, max: 1, nullable: true }),
  session_recording_minimum_duration_milliseconds: integerRule({ min: 0, max: 30000, nullable: true }),
  session_recording_linked_flag: untypedRule(),
  session_recording_network_payload_capture_config: untypedRule(),
  session_recording_masking_config: maskingConfigRule,
  session_replay_config: dictRule(['record_canvas', 'ai_config']),
  survey_config: objectRule({ nullable: true }),
  access_control: booleanRule(),
  // The OpenAPI enum has no null, so null is refused to keep every answer schema-valid.
  week_start_day: integerChoiceRule([0, 1]),
  primary_dashboard: integerRule({ nullable: true }),
  live_events_columns: stringListRule({ nullable: true }),
  recording_domains: stringListRule({ itemMax: 200, itemNullable: true, nullable: true }),
  inject_web_apps: booleanRule({ nullable: true }),
  extra_settings: untypedRule(),
  modifiers: objectRule({ nullable: true }),
  has_completed_onboarding_for: untypedRule(),
  surveys_opt_in: booleanRule({ nullable: true }),
  heatmaps_opt_in: booleanRule({ nullable: true }),
  flags_persistence_default: booleanRule({ nullable: true }),
  receive_org_level_activity_logs: booleanRule({ nullable: true }),
  // Added by newer API versions (bounds from the real API's model and serializer).
  capture_dead_clicks: booleanRule({ nullable: true }),
  cookieless_server_hash_mode: integerChoiceRule([0, 1, 2], { nullable: true }),
  human_friendly_comparison_periods: booleanRule({ nullable: true }),
  session_recording_url_trigger_config: objectListRule(),
  session_recording_url_blocklist_config: objectListRule(),
  session_recording_event_trigger_config: stringListRule({ nullable: true, itemNullable: true }),
  session_recording_trigger_match_type_config: choiceRule(['all', 'any'], true),
  session_recording_retention_period: choiceRule(['30d', '90d', '1y', '5y'], false),
  feature_flag_confirmation_enabled: booleanRule({ nullable: true }),
  feature_flag_confirmation_message: stringRule({ nullable: true, allowBlank: true }),
  default_evaluation_contexts_enabled: booleanRule({ nullable: true }),
  require_evaluation_contexts: booleanRule({ nullable: true }),
  default_data_theme: integerRule({ nullable: true }),
  base_currency: currencyRule(),
  business_model: choiceRule(['b2b', 'b2c', 'other'], true),
  web_analytics_pre_aggregated_tables_enabled: booleanRule({ nullable: true }),
  conversations_enabled: booleanRule({ nullable: true }),
  conversations_settings: objectRule({ nullable: true }),
  logs_settings: objectRule({ nullable: true }),
};

/**
 * Fields merged into what is stored instead of replaced (the real serializer's update):
 * top-level keys, and for session_replay_config the keys of nested objects too.
 */
export const MERGED_FIELDS: Readonly<Record<string, 'shallow' | 'two-level'>> = {
  session_replay_config: 'two-level',
  survey_config: 'shallow',
  modifiers: 'shallow',
  conversations_settings: 'shallow',
};

/** Fields a project member may change; every other writable field needs a project admin (as on the real API). */
export const MEMBER_FIELDS: ReadonlySet<string> = new Set([
  'completed_snippet_onboarding', 'has_completed_onboarding_for', 'session_recording_opt_in', 'autocapture_exceptions_opt_in',
  'autocapture_web_vitals_opt_in', 'autocapture_web_vitals_allowed_metrics', 'surveys_opt_in', 'primary_dashboard',
]);

/** Fields API version 2026 no longer stores: absent from the record, silently dropped from a PATCH. */
export const DROPPED_IN_2026: readonly string[] = ['slack_incoming_webhook'];

export const ACCESS_CONTROL_DEPRECATED = "The 'access_control' field has been deprecated and is no longer supported. "
  + 'Please use the new access control system instead. For more information, visit: https://posthog.com/docs/settings/access-control';

/** A new project with the real API's defaults, in the OpenAPI's field order. */
export function newProject(id: number, organization: string, name: string): ProjectState {
  const now = nowIso();
  return {
    id,
    organization,
    name,
    product_description: null,
    created_at: now,
    effective_membership_level: 15,
    has_group_types: false,
    group_types: [],
    live_events_token: liveEventsToken(),
    updated_at: now,
    uuid: uuidv7(),
    api_token: projectApiToken(),
    app_urls: [],
    slack_incoming_webhook: null,
    anonymize_ips: false,
    completed_snippet_onboarding: false,
    ingested_event: false,
    test_account_filters: [],
    test_account_filters_default_checked: null,
    path_cleaning_filters: [],
    is_demo: false,
    timezone: 'UTC',
    data_attributes: ['data-attr'],
    person_display_name_properties: null,
    correlation_config: {},
    autocapture_opt_out: false,
    autocapture_exceptions_opt_in: null,
    autocapture_web_vitals_opt_in: null,
    autocapture_web_vitals_allowed_metrics: null,
    autocapture_exceptions_errors_to_ignore: null,
    capture_console_log_opt_in: true,
    capture_performance_opt_in: true,
    session_recording_opt_in: false,
    session_recording_sample_rate: null,
    session_recording_minimum_duration_milliseconds: null,
    session_recording_linked_flag: null,
    session_recording_network_payload_capture_config: null,
    session_recording_masking_config: null,
    session_replay_config: null,
    survey_config: null,
    access_control: false,
    // Sunday: what the real API's unset (null) value means, as a schema-valid integer.
    week_start_day: 0,
    primary_dashboard: null,
    live_events_columns: null,
    recording_domains: [],
    person_on_events_querying_enabled: 'true',
    inject_web_apps: false,
    extra_settings: null,
    modifiers: null,
    default_modifiers: JSON.stringify({ personsOnEventsMode: 'person_id_override_properties_on_events' }),
    has_completed_onboarding_for: null,
    surveys_opt_in: null,
    heatmaps_opt_in: null,
    product_intents: '[]',
    flags_persistence_default: false,
    secret_api_token: null,
    secret_api_token_backup: null,
    receive_org_level_activity_logs: false,
    is_pending_deletion: false,
    capture_dead_clicks: false,
    cookieless_server_hash_mode: 0,
    human_friendly_comparison_periods: false,
    session_recording_url_trigger_config: [],
    session_recording_url_blocklist_config: [],
    session_recording_event_trigger_config: [],
    session_recording_trigger_match_type_config: null,
    session_recording_retention_period: '30d',
    feature_flag_confirmation_enabled: false,
    feature_flag_confirmation_message: null,
    default_evaluation_contexts_enabled: false,
    require_evaluation_contexts: false,
    default_data_theme: null,
    base_currency: 'USD',
    business_model: null,
    web_analytics_pre_aggregated_tables_enabled: false,
    conversations_enabled: null,
    conversations_settings: null,
    logs_settings: null,
  };
}

/** A new project as the state's API version stores it (2026: without the fields it dropped). */
export function newProjectFor(state: SandboxState, id: number, organization: string, name: string): ProjectState {
  const p = newProject(id, organization, name);
  takeIntegerId(state.next_ids as unknown as Record<string, number>, 'project', id);
  if (projectsDropSlack(state)) for (const f of DROPPED_IN_2026) delete p[f];
  return p;
}

export function projectsDropSlack(state: SandboxState): boolean {
  return (state.api_version ?? 2025) >= 2026;
}

/** The full record (GET one, PATCH, actions): a copy, so callers cannot alias the state. */
export function renderProject(p: ProjectState): JsonObject {
  const { deleting_until: _until, ...rest } = p;
  return clone(rest);
}

const BASIC_FIELDS = ['id', 'uuid', 'organization', 'api_token', 'name', 'completed_snippet_onboarding',
  'has_completed_onboarding_for', 'ingested_event', 'is_demo', 'timezone', 'access_control'] as const;

/** The list shape (ProjectBackwardCompatBasic). */
export function renderProjectBasic(p: ProjectState): JsonObject {
  const out: JsonObject = {};
  for (const f of BASIC_FIELDS) out[f] = clone(p[f] ?? null);
  return out;
}

/**
 * Validates a partial update; the result holds only the writable fields sent, canonicalized
 * (names trimmed, empty entries of app_urls and recording_domains dropped). access_control is
 * refused whatever its value (null aside), as the real API refuses it.
 */
export function validateProjectPatch(body: JsonObject): JsonObject {
  if (body.access_control !== undefined && body.access_control !== null) {
    throw validationError('access_control', ACCESS_CONTROL_DEPRECATED, 'invalid_input');
  }
  const { access_control: _ac, ...rest } = body;
  const out = validatePartial(PROJECT_RULES, rest);
  for (const f of ['app_urls', 'recording_domains']) {
    const v = out[f];
    if (Array.isArray(v)) out[f] = v.filter((x) => typeof x === 'string' && x !== '');
  }
  return out;
}

/**
 * The checks of a PATCH that depend on who sends it and on the other projects, in the real
 * API's order: receive_org_level_activity_logs needs an organization admin, any field but the
 * member-safe ones a project admin, and a new name must be unused in the organization (compared
 * trimmed and without regard to case; projects being deleted do not count): 409 otherwise.
 */
export function checkProjectPatch(state: SandboxState, p: ProjectState, changes: JsonObject, userLevel: number): void {
  const admin = userLevel >= LEVELS.admin;
  if (changes.receive_org_level_activity_logs !== undefined && changes.receive_org_level_activity_logs !== null && !admin) {
    throw permissionDenied('Only organization owners and admins can modify the receive_org_level_activity_logs setting.');
  }
  const adminFields = Object.keys(changes).filter((f) => !MEMBER_FIELDS.has(f)).sort();
  if (adminFields.length > 0 && !admin) {
    throw permissionDenied(`Only project admins can modify these settings: ${adminFields.join(', ')}`);
  }
  const name = changes.name;
  if (typeof name === 'string' && name !== p.name) {
    const lower = name.trim().toLowerCase();
    const taken = state.projects.some((o) => o.organization === p.organization && o.id !== p.id && o.is_pending_deletion !== true
      && o.name.trim().toLowerCase() === lower);
    if (taken) throw conflict(`There is already a project called "${name}" in this organization. Choose a different name.`);
  }
}

function mergeInto(stored: Json | undefined, sent: Json, mode: 'shallow' | 'two-level'): Json {
  if (!isObject(sent) || !isObject(stored)) return sent;
  const out: JsonObject = { ...stored };
  for (const [k, v] of Object.entries(sent)) {
    const before = stored[k];
    out[k] = mode === 'two-level' && isObject(before) && isObject(v) ? { ...before, ...v } : v;
  }
  return out;
}

/**
 * Stores a validated update: merged fields merge into what is stored (a key is only removed by
 * sending it as null, and even then it stays, with the value null); fields the API version no
 * longer stores are dropped without a word.
 */
export function applyProjectPatch(state: SandboxState, p: ProjectState, changes: JsonObject): void {
  for (const [field, value] of Object.entries(changes)) {
    if (projectsDropSlack(state) && DROPPED_IN_2026.includes(field)) continue;
    const mode = MERGED_FIELDS[field];
    p[field] = mode ? mergeInto(p[field], value, mode) : value;
  }
  p.updated_at = nowIso();
}

export function isProjectPresent(p: ProjectState, now: number): boolean {
  return p.deleting_until === undefined || Date.parse(p.deleting_until) > now;
}

export function findProject(state: SandboxState, organization: string, id: number, now = Date.now()): ProjectState | undefined {
  return state.projects.find((p) => p.id === id && p.organization === organization && isProjectPresent(p, now));
}

function removeProject(state: SandboxState, id: number): void {
  state.projects = state.projects.filter((p) => p.id !== id);
  state.feature_flags = state.feature_flags.filter((f) => f.project !== id);
  state.persons = state.persons.filter((x) => x.project !== id);
}

/**
 * DELETE is asynchronous on the real API: the project is marked `is_pending_deletion` and stays
 * readable until the deletion finishes (`delayMs` later; at once when 0). A second DELETE
 * meanwhile answers 400 "This project is already being deleted.".
 */
export function deleteProject(state: SandboxState, p: ProjectState, now: number, delayMs: number): void {
  if (p.is_pending_deletion === true) throw validationError(null, 'This project is already being deleted.', 'invalid_input');
  if (delayMs <= 0) {
    removeProject(state, p.id);
    return;
  }
  p.is_pending_deletion = true;
  p.deleting_until = new Date(now + delayMs).toISOString();
}

/** Removes projects whose deletion has finished (with their flags and persons). */
export function purgeProjects(state: SandboxState, now: number): void {
  for (const p of state.projects.filter((x) => !isProjectPresent(x, now))) removeProject(state, p.id);
}

/** reset_token: a new project API token (the old one stops working on the real API). */
export function resetToken(p: ProjectState): void {
  p.api_token = projectApiToken();
  p.updated_at = nowIso();
}

function productIntents(p: ProjectState): JsonObject[] {
  try {
    const parsed: unknown = JSON.parse(typeof p.product_intents === 'string' ? p.product_intents : '[]');
    return Array.isArray(parsed) ? parsed.filter(isObject) : [];
  } catch {
    return [];
  }
}

function productType(body: JsonObject, field: string): string | undefined {
  const value: Json | undefined = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw validationError(field, 'Not a valid string.', 'invalid');
  return value;
}

/** add_product_intent `{product_type}`: records the intent (kept in product_intents). */
export function addProductIntent(p: ProjectState, body: JsonObject): void {
  const type = productType(body, 'product_type');
  if (type === undefined) return;
  const intents = productIntents(p);
  const now = nowIso();
  const existing = intents.find((i) => i.product_type === type);
  if (existing) existing.updated_at = now;
  else intents.push({ product_type: type, created_at: now, onboarding_completed_at: null, updated_at: now });
  p.product_intents = JSON.stringify(intents);
  p.updated_at = now;
}

/** complete_product_onboarding `{type}`: marks that product's onboarding done. */
export function completeProductOnboarding(p: ProjectState, body: JsonObject): void {
  const type = productType(body, 'type');
  if (type === undefined) return;
  const done = isObject(p.has_completed_onboarding_for) ? p.has_completed_onboarding_for : {};
  p.has_completed_onboarding_for = { ...done, [type]: true };
  const intents = productIntents(p);
  const now = nowIso();
  for (const i of intents) if (i.product_type === type && i.onboarding_completed_at === null) i.onboarding_completed_at = now;
  p.product_intents = JSON.stringify(intents);
  p.updated_at = now;
}

/** A project's own fields; its other fields are its (environment's) settings, logged under Team. */
const PROJECT_FIELDS = new Set(['name', 'product_description', 'is_pending_deletion']);

// ---------------------------------------------------------------------------------------------
// The project kind in the sandbox: list (basic fields), read, update, delete, the read-only views
// and the update actions of /api/organizations/:org/projects/:id/, and GET /api/projects/ across
// organizations. A PATCH is checked against the key's user (admin-only settings, organization-
// admin-only ones) and the other projects (unique names, 409); DELETE needs a project admin and
// is asynchronous.
// ---------------------------------------------------------------------------------------------

const projectOfRecord = (r: JsonObject) => r as ProjectState;

export const PROJECT_LIMIT_REACHED = 'You have reached the maximum limit of allowed projects for your current plan. '
  + 'Upgrade your plan to be able to create and manage more projects.';

/**
 * POST /api/organizations/:org/projects/ (posthog/api/project.py): organization admins only; an
 * organization without the multi-project feature holds one project (and any organization one
 * demo project: PremiumMultiProjectPermission, 403); a name is required and unique as a rename's
 * is; the other writable fields are taken as a PATCH takes them. Answered 201 with the record.
 */
function createProject(ctx: KindContext): Reply {
  const { state, organization } = ctx;
  const body = ctx.request.body;
  if (levelOf(state, ctx.request.key, organization.id) < LEVELS.admin) throw permissionDenied('Your organization access level is insufficient.');
  const present = state.projects.filter((p) => p.organization === organization.id && isProjectPresent(p, ctx.now()));
  if ((body.is_demo === true && present.some((p) => p.is_demo === true))
    || (!hasFeature(organization, 'organizations_projects') && present.some((p) => p.is_demo !== true))) throw permissionDenied(PROJECT_LIMIT_REACHED);
  requireField(body, 'name');
  const changes = validateProjectPatch(body);
  const id = nextIntegerId(state.next_ids as unknown as Record<string, number>, 'project', FIRST_PROJECT_ID, state.projects.map((p) => p.id));
  const project = newProjectFor(state, id, organization.id, '');
  checkProjectPatch(state, project, changes, LEVELS.owner);
  applyProjectPatch(state, project, changes);
  state.projects.push(project);
  return { status: 201, body: answer(ctx, project) };
}

/** The record as this key's user sees it (effective_membership_level is the user's level). */
function answer(ctx: KindContext, project: ProjectState): JsonObject {
  return { ...renderProject(project), effective_membership_level: levelOf(ctx.state, ctx.request.key, project.organization) };
}

/** A project of /api/organizations/:org/projects/:id/…, for the views and actions beside the item. */
function projectIn(ctx: RequestContext, state: SandboxState): ProjectState {
  const id = intParam(ctx.params.id);
  const org = organizationOf(ctx, state, id);
  const project = findProject(state, org.id, id, ctx.store.clock.now());
  if (!project) throw notFound();
  return project;
}

const listAll: Handler = (ctx) => ctx.store.read((state) => {
  const now = ctx.store.clock.now();
  const items = state.projects.filter((p) => canReachOrganization(ctx.key, p.organization) && canReachProject(ctx.key, p.id) && isProjectPresent(p, now));
  return { status: 200, body: paginate(items, renderProjectBasic, ctx.url) };
});

const view: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectIn(ctx, state);
  return { status: 200, body: { ...renderProject(project), effective_membership_level: levelOf(state, ctx.key, project.organization) } };
});

/** The project's own activity action: its settings' log (scope Team). Personal keys are refused (the real action declares no scope). */
const activity: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectIn(ctx, state);
  return { status: 200, body: activityPage(state, projectActivity(state, project, { scope: 'Team', itemId: String(project.id) }), ctx.url, 'limit') };
});

/** An update action: finds the project, applies `act`, answers the record. */
function action(act: (project: ProjectState, ctx: RequestContext) => void): Handler {
  return (ctx) => ctx.store.write((state) => {
    const project = projectIn(ctx, state);
    act(project, ctx);
    return { status: 200, body: { ...renderProject(project), effective_membership_level: levelOf(state, ctx.key, project.organization) } };
  });
}

const item = '/api/organizations/:org/projects/:id/';
const viewRoute = (name: string): Route => ({ pattern: `${item}${name}/`, methods: { GET: { scope: 'project:read', handler: view } } });
const actionRoute = (name: string, handler: Handler): Route => ({ pattern: `${item}${name}/`, methods: { PATCH: { scope: 'project:write', handler } } });

/** A seed project's own fields: a PATCH's checks, and access_control, which the API no longer lets anyone write but a seed may hold. */
function seedFields(state: SandboxState, project: ProjectState, fields: JsonObject, where: string, fail: (where: string, message: string) => never): void {
  for (const k of Object.keys(fields)) if (!(k in PROJECT_RULES)) fail(`${where}.${k}`, 'not a writable project field');
  const { access_control: accessControl, ...writable } = fields;
  if (accessControl !== undefined) {
    if (typeof accessControl !== 'boolean') fail(`${where}.access_control`, 'must be true or false');
    project.access_control = accessControl as boolean;
  }
  applyProjectPatch(state, project, seedApply(where, fail, () => validateProjectPatch(writable)));
}

export const model: SandboxModel = {
  kind: 'project',
  projects: { make: newProjectFor, seedFields },
  collection: 'projects',
  path: '/api/organizations/:org/projects/',
  parent: 'organization',
  reachById: true,
  scopes: { read: 'project:read', write: 'project:write' },
  pagination: 'limit-offset',
  id: 'integer',
  create: { status: 201 },
  update: true,
  delete: 'hard',
  fields: {},
  activity: {
    scope: 'Project',
    // A project's own fields; its other fields are its (environment's) settings, logged under Team.
    scopeOf: (field) => (PROJECT_FIELDS.has(field) ? 'Project' : 'Team'),
    name: (p) => String(p.name),
    ignored: ['organization', 'uuid', 'api_token', 'live_events_token', 'secret_api_token', 'secret_api_token_backup', 'effective_membership_level',
      'has_group_types', 'group_types', 'product_intents', 'deleting_until'],
    deletedFlag: 'is_pending_deletion',
    self: true,
    touchParams: ['id', 'project'],
  },
  hooks: {
    exists: (r, now) => isProjectPresent(projectOfRecord(r), now),
    listReply: (ctx) => ({ status: 200, body: paginate(ctx.records().map(projectOfRecord), renderProjectBasic, ctx.request.url) }),
    readReply: (record, ctx) => ({ status: 200, body: answer(ctx, projectOfRecord(record)) }),
    createReply: createProject,
    updateReply: (record, ctx) => {
      const project = projectOfRecord(record);
      const changes = validateProjectPatch(ctx.request.body);
      checkProjectPatch(ctx.state, project, changes, levelOf(ctx.state, ctx.request.key, project.organization));
      applyProjectPatch(ctx.state, project, changes);
      return { status: 200, body: answer(ctx, project) };
    },
    // Deleting needs a project admin (the real API's TeamMemberLightManagementPermission).
    deleteReply: (record, ctx) => {
      if (levelOf(ctx.state, ctx.request.key, ctx.organization.id) < LEVELS.admin) throw permissionDenied("You don't have sufficient permissions in the project.");
      deleteProject(ctx.state, projectOfRecord(record), ctx.now(), ctx.request.store.deletionDelayMs);
      return { status: 204 };
    },
    render: (record, ctx) => answer(ctx, projectOfRecord(record)),
  },
  routes: [
    { pattern: '/api/projects/', methods: { GET: { scope: 'project:read', handler: listAll } } },
    viewRoute('access_controls'),
    { pattern: `${item}activity/`, methods: { GET: { scope: NO_PERSONAL_KEYS, handler: activity } } },
    viewRoute('global_access_controls'),
    viewRoute('is_generating_demo_data'),
    actionRoute('add_product_intent', action((p, ctx) => addProductIntent(p, ctx.body))),
    actionRoute('complete_product_onboarding', action((p, ctx) => completeProductOnboarding(p, ctx.body))),
    actionRoute('reset_token', action((p) => resetToken(p))),
  ],
  maintain: purgeProjects,
  contract: {
    item: { id: 12345, timezone: 'Europe/Berlin' },
    update: { timezone: 'Asia/Tokyo' },
    drift: { timezone: 'UTC' },
    // Deleting the project would end the scenario's other kinds: its delete has tests of its own.
    remove: false,
  },
};
