// Projects: the record the real API answers (every field of the OpenAPI ProjectBackwardCompat
// schema, with realistic defaults), the rules for its writable fields, and its actions.
// The OpenAPI types a few read-only fields as strings (drf-spectacular's default for method
// fields) although the real API sends JSON there; the sandbox sends strings so that every
// record validates against that schema.
import { validationError } from '../errors.js';
import { liveEventsToken, nowIso, projectApiToken, uuidv7 } from '../ids.js';
import { clone, isObject, type Json, type JsonObject } from '../json.js';
import type { ProjectState, SandboxState } from '../state.js';
import {
  booleanRule, decimalRule, integerChoiceRule, integerRule, stringListRule, stringRule, timeZoneRule,
  untypedRule, validatePartial, type Rule,
} from '../validation.js';

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
  session_recording_masking_config: untypedRule(),
  session_replay_config: untypedRule(),
  survey_config: untypedRule(),
  access_control: booleanRule(),
  // The OpenAPI enum has no null, so null is refused to keep every answer schema-valid.
  week_start_day: integerChoiceRule([0, 1]),
  primary_dashboard: integerRule({ nullable: true }),
  live_events_columns: stringListRule({ nullable: true }),
  recording_domains: stringListRule({ itemMax: 200, itemNullable: true, nullable: true }),
  inject_web_apps: booleanRule({ nullable: true }),
  extra_settings: untypedRule(),
  modifiers: untypedRule(),
  has_completed_onboarding_for: untypedRule(),
  surveys_opt_in: booleanRule({ nullable: true }),
  heatmaps_opt_in: booleanRule({ nullable: true }),
  flags_persistence_default: booleanRule({ nullable: true }),
  receive_org_level_activity_logs: booleanRule({ nullable: true }),
};

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
  };
}

/** The full record (GET one, PATCH, actions): a copy, so callers cannot alias the state. */
export function renderProject(p: ProjectState): JsonObject {
  return clone(p);
}

const BASIC_FIELDS = ['id', 'uuid', 'organization', 'api_token', 'name', 'completed_snippet_onboarding',
  'has_completed_onboarding_for', 'ingested_event', 'is_demo', 'timezone', 'access_control'] as const;

/** The list shape (ProjectBackwardCompatBasic). */
export function renderProjectBasic(p: ProjectState): JsonObject {
  const out: JsonObject = {};
  for (const f of BASIC_FIELDS) out[f] = clone(p[f] ?? null);
  return out;
}

/** Validates a partial update; the result holds only the writable fields sent, canonicalized. */
export function validateProjectPatch(body: JsonObject): JsonObject {
  return validatePartial(PROJECT_RULES, body);
}

export function applyProjectPatch(p: ProjectState, changes: JsonObject): void {
  Object.assign(p, changes);
  p.updated_at = nowIso();
}

export function findProject(state: SandboxState, organization: string, id: number): ProjectState | undefined {
  return state.projects.find((p) => p.id === id && p.organization === organization);
}

export function deleteProject(state: SandboxState, id: number): void {
  state.projects = state.projects.filter((p) => p.id !== id);
  state.feature_flags = state.feature_flags.filter((f) => f.project !== id);
  state.persons = state.persons.filter((x) => x.project !== id);
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
