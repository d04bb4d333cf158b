// Surveys in the sandbox, as the real API keeps them (posthog/api/survey.py, SurveySerializer for
// reads, SurveySerializerCreateUpdateOnly for writes, SurveyViewSet; posthog/models/surveys/):
//   - names are unique per project: POST "There is already a survey with this name.", PATCH
//     "There is already another survey with this name.";
//   - questions: a list of objects, each with its text (`Question text is required`); question
//     texts, descriptions, button texts and choices (and the appearance's thank-you texts) are
//     sanitised by the allow-list of html.ts; blank choices, a link other than https or mailto,
//     and a descriptionContentType other than text/html are refused; a question without `id`
//     gets a new UUID on every save (its earlier responses no longer match it);
//   - `linked_flag_id` must name a flag ("Feature Flag with this ID does not exist"); it reads
//     back as `linked_flag` (the minimal flag); the flag's record then lists the survey (`surveys`);
//   - `targeting_flag_filters` (write-only) makes a targeting flag, or merges into it
//     ({**existing, **new}); filters that roll out to everyone are refused; `remove_targeting_flag`
//     deletes it; the survey also has an internal targeting flag (who responded or dismissed).
//     Both are hidden from the flag list, and turned on while the survey runs;
//   - `conditions.actions.values` ([{id}]) are the project's actions (one with property filters
//     on a step is refused), read back as whole actions;
//   - a `response_sampling_start_date` before today (UTC) is refused, as is an interval <= 0;
//     external surveys refuse a linked flag and targeting;
//   - DELETE is hard, and deletes the targeting and internal flags; the activity scope is `Survey`.
// Seeded per project under `surveys` (the same bodies a POST takes, plus start_date/end_date).
import { createFlag, renderFlagMinimal, updateFlag } from '../feature_flag/sandbox.js';
import { validationError } from '../../sandbox/errors.js';
import { nowIso, uuidv7 } from '../../sandbox/ids.js';
import { clone, isObject, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf, type KindContext, type SandboxModel } from '../../sandbox/kind-model.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';
import type { FeatureFlagState, SandboxState } from '../../sandbox/state.js';
import { booleanRule, integerRule, stringRule, untypedRule, validatePartial, type Rule } from '../../sandbox/validation.js';
import { sanitizeAppearance, sanitizeQuestion } from './html.js';

const COLLECTION = 'surveys';
const TYPES = ['popover', 'widget', 'external_survey', 'api'];
const SAMPLING_TYPES = ['day', 'week', 'month', ''];
const EMAIL_LINK = /^mailto:[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$/;

function choiceRule(values: readonly string[], nullable: boolean): Rule {
  return (value, attr) => {
    if (value === null && nullable) return null;
    if (typeof value !== 'string' || !values.includes(value)) throw validationError(attr, `"${String(value)}" is not a valid choice.`, 'invalid_choice');
    return value;
  };
}

function dateRule(): Rule {
  return (value, attr) => {
    if (value === null) return null;
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
      throw validationError(attr, 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', 'invalid');
    }
    return new Date(Date.parse(value)).toISOString().replace('.000Z', 'Z');
  };
}

const RULES: Readonly<Record<string, Rule>> = {
  name: stringRule({ max: 400 }),
  description: stringRule({ allowBlank: true }),
  type: choiceRule(TYPES, false),
  schedule: (value, attr) => {
    if (value === null) return null;
    if (value !== 'once' && value !== 'recurring' && value !== 'always') throw validationError(null, 'Schedule must be one of: once, recurring, always', 'invalid_input');
    return stringRule()(value, attr);
  },
  linked_flag_id: integerRule({ nullable: true }),
  linked_insight_id: integerRule({ nullable: true }),
  targeting_flag_filters: untypedRule(),
  remove_targeting_flag: booleanRule({ nullable: true }),
  start_date: dateRule(),
  end_date: dateRule(),
  archived: booleanRule(),
  responses_limit: integerRule({ nullable: true, min: 0 }),
  iteration_count: integerRule({ nullable: true, min: 0, max: 500 }),
  iteration_frequency_days: integerRule({ nullable: true, min: 0 }),
  response_sampling_start_date: dateRule(),
  response_sampling_interval_type: choiceRule(SAMPLING_TYPES, true),
  response_sampling_interval: integerRule({ nullable: true, min: 0 }),
  response_sampling_limit: integerRule({ nullable: true, min: 0 }),
  enable_partial_responses: booleanRule({ nullable: true }),
  translations: untypedRule(),
};

const refuse = (detail: string): never => { throw validationError(null, detail, 'invalid_input'); };

const surveysOf = (state: SandboxState): JsonObject[] => recordsOf(state, { collection: COLLECTION });
const actionsOf = (state: SandboxState): JsonObject[] => recordsOf(state, { collection: 'actions' });

/** validate_questions: a list of objects with their texts; HTML sanitised; choices and links checked. */
function questions(value: Json): Json {
  if (value === null) return null;
  if (!Array.isArray(value)) return refuse('Questions must be a list of objects');
  return value.map((raw) => {
    if (!isObject(raw)) return refuse('Questions must be a list of objects');
    if (!raw.question) refuse('Question text is required');
    const type = raw.descriptionContentType;
    if (type && type !== 'text' && type !== 'html') refuse("Question descriptionContentType must be one of ['text', 'html']");
    const choices = raw.choices;
    if (choices) {
      if (!Array.isArray(choices) || !choices.every((c) => typeof c === 'string')) refuse('Question choices must be a list of strings');
      if ((choices as string[]).some((c) => c.trim() === '')) refuse('Question choices cannot be empty');
    }
    const link = raw.link;
    if (typeof link === 'string' && link !== '') {
      const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(link)?.[1]?.toLowerCase();
      if (scheme !== 'https' && scheme !== 'mailto') refuse('Link must be a URL with one of these schemes: [https, mailto]');
      if (scheme === 'mailto' && !EMAIL_LINK.test(link)) refuse('Invalid mailto link. Please enter a valid mailto link (e.g., mailto:example@domain.com).');
      if (scheme === 'https' && !/^https:\/\/[^/\s]+/.test(link)) refuse('Invalid HTTPS URL. Please enter a valid HTTPS link.');
    }
    const cleaned = sanitizeQuestion(clone(raw)) as JsonObject;
    // ensure_question_ids: every save gives a question without an id a new one.
    if (!cleaned.id) cleaned.id = uuidv7();
    return cleaned;
  });
}

function appearance(value: Json): Json {
  if (value === null) return null;
  if (!isObject(value)) return refuse('Appearance must be an object');
  const type = value.thankYouMessageDescriptionContentType;
  if (type && type !== 'text' && type !== 'html') refuse("thankYouMessageDescriptionContentType must be one of ['text', 'html']");
  const delay = value.surveyPopupDelaySeconds;
  if (typeof delay === 'number' && delay < 0) refuse('Survey popup delay seconds must be a positive integer');
  if (value.whiteLabel !== undefined && typeof value.whiteLabel !== 'boolean') refuse('whiteLabel must be a boolean');
  return sanitizeAppearance(clone(value)) as Json;
}

/** validate_conditions: actions of the project, none with property filters on a step; their ids. */
function conditions(state: SandboxState, project: number, value: Json): { conditions: Json; actionIds: number[] } {
  if (value === null) return { conditions: null, actionIds: [] };
  if (!isObject(value)) return refuse('Conditions must be an object');
  const values = isObject(value.actions) && Array.isArray(value.actions.values) ? value.actions.values : [];
  const wanted = values.filter(isObject).map((v) => v.id).filter((id): id is number => typeof id === 'number');
  const found = actionsOf(state).filter((a) => a.project === project && a.deleted !== true && wanted.includes(a.id as number));
  for (const a of found) {
    if (Array.isArray(a.steps) && a.steps.some((s) => isObject(s) && Array.isArray(s.properties) && s.properties.length > 0)) {
      refuse('Survey cannot be activated by an Action with property filters defined on it.');
    }
  }
  return { conditions: clone(value), actionIds: found.map((a) => a.id as number) };
}

function fullRollout(filters: Json): boolean {
  const groups = isObject(filters) && Array.isArray(filters.groups) ? filters.groups : [];
  return groups.some((g) => isObject(g) && (g.rollout_percentage === undefined || g.rollout_percentage === null || g.rollout_percentage === 100)
    && (!Array.isArray(g.properties) || g.properties.length === 0));
}

const flagById = (state: SandboxState, id: Json | undefined): FeatureFlagState | undefined => (typeof id === 'number' ? state.feature_flags.find((f) => f.id === id && !f.deleted) : undefined);

/** A flag the API makes for a survey: hidden from the flag list, keyed `survey-targeting-…`. */
function surveyFlag(state: SandboxState, project: number, name: string, filters: Json, active: boolean, suffix: string): FeatureFlagState {
  const random = uuidv7().replace(/-/g, '').slice(-10);
  return createFlag(state, project, { key: `survey-targeting-${random}${suffix}`, name: `Targeting flag for survey ${name}`, filters, active, creation_context: 'surveys' }, undefined, { hidden: 'survey' });
}

const hardDeleteFlag = (state: SandboxState, id: Json | undefined): void => {
  if (typeof id === 'number') state.feature_flags = state.feature_flags.filter((f) => f.id !== id);
};

const running = (record: JsonObject) => record.start_date !== null && record.start_date !== undefined && (record.end_date === null || record.end_date === undefined);

/** The checks of SurveySerializerCreateUpdateOnly.validate, on the fields after their rules. */
function checkSurvey(state: SandboxState, project: number, fields: JsonObject, body: JsonObject, self: JsonObject | undefined): void {
  if (body.linked_flag_id !== undefined && body.linked_flag_id !== null && !flagById(state, fields.linked_flag_id)) {
    refuse('Feature Flag with this ID does not exist');
  }
  const name = fields.name;
  if (name !== undefined && surveysOf(state).some((s) => s.project === project && s !== self && s.name === name)) {
    refuse(self ? 'There is already another survey with this name.' : 'There is already a survey with this name.');
  }
  if (fields.targeting_flag_filters && fullRollout(fields.targeting_flag_filters)) {
    refuse('Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting');
  }
  const sampling = fields.response_sampling_start_date;
  if (typeof sampling === 'string') {
    const now = new Date();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    if (Date.parse(sampling) < today) {
      throw validationError('response_sampling_start_date', `Response sampling start date must be today or a future date in UTC. Got ${sampling} when current time is ${new Date(today).toISOString()}`, 'invalid_input');
    }
  }
  if (typeof fields.response_sampling_interval === 'number' && fields.response_sampling_interval <= 0) {
    throw validationError('response_sampling_interval', 'Response sampling interval must be greater than 0.', 'invalid_input');
  }
  if (fields.type === 'external_survey') {
    for (const field of ['linked_flag_id', 'targeting_flag_filters']) {
      if (fields[field] !== undefined && fields[field] !== null) throw validationError(field, `${field} is not allowed for external surveys`, 'invalid_input');
    }
  }
}

/** The fields of a body, checked as a write checks them (questions, appearance, conditions too). */
function fieldsOf(state: SandboxState, project: number, body: JsonObject, self: JsonObject | undefined): JsonObject {
  const fields = validatePartial(RULES, body);
  if (body.questions !== undefined) fields.questions = questions(body.questions);
  if (body.appearance !== undefined) fields.appearance = appearance(body.appearance);
  if (body.conditions !== undefined) {
    const c = conditions(state, project, body.conditions);
    fields.conditions = c.conditions;
    fields.action_ids = c.actionIds;
  }
  checkSurvey(state, project, fields, body, self);
  return fields;
}

/** Turns the survey's flags on while it runs (the targeting flag: until it ends). */
function syncFlags(state: SandboxState, record: JsonObject): void {
  const targeting = flagById(state, record.targeting_flag_id);
  if (targeting) targeting.active = record.end_date === null || record.end_date === undefined;
  const internal = flagById(state, record.internal_targeting_flag_id);
  if (internal) internal.active = running(record);
}

export function createSurvey(state: SandboxState, project: number, body: JsonObject): JsonObject {
  if (body.name === undefined) throw validationError('name', 'This field is required.', 'required');
  if (body.type === undefined) throw validationError('type', 'This field is required.', 'required');
  const fields = fieldsOf(state, project, body, undefined);
  const { targeting_flag_filters: targeting, remove_targeting_flag: _remove, ...stored } = fields;
  const record: JsonObject = {
    id: uuidv7(), project, description: '', schedule: 'once', questions: [], conditions: null, appearance: null, linked_flag_id: null, linked_insight_id: null,
    start_date: null, end_date: null, archived: false, responses_limit: null, iteration_count: null, iteration_frequency_days: null,
    response_sampling_start_date: null, response_sampling_interval_type: null, response_sampling_interval: null,
    response_sampling_limit: null, enable_partial_responses: false, translations: null, action_ids: [],
    ...stored, created_at: nowIso(), created_by: state.user.id,
  };
  const name = String(record.name);
  if (targeting) record.targeting_flag_id = surveyFlag(state, project, name, targeting, false, '').id;
  const interacted = { groups: [{ variant: '', rollout_percentage: 100, properties: [] }] };
  record.internal_targeting_flag_id = surveyFlag(state, project, name, interacted, running(record), '-custom').id;
  syncFlags(state, record);
  surveysOf(state).push(record);
  return record;
}

function updateSurvey(state: SandboxState, record: JsonObject, body: JsonObject): void {
  const project = record.project as number;
  const fields = fieldsOf(state, project, body, record);
  const { targeting_flag_filters: targeting, remove_targeting_flag: remove, ...stored } = fields;
  if (remove === true && record.targeting_flag_id !== null && record.targeting_flag_id !== undefined) {
    hardDeleteFlag(state, record.targeting_flag_id);
    record.targeting_flag_id = null;
  }
  if (targeting) {
    const existing = flagById(state, record.targeting_flag_id);
    if (existing && isObject(targeting)) updateFlag(state, existing, { filters: { ...clone(existing.filters), ...clone(targeting) } });
    else record.targeting_flag_id = surveyFlag(state, project, String(stored.name ?? record.name), targeting, false, '').id;
  }
  Object.assign(record, stored);
  syncFlags(state, record);
}

/** The minimal flag (MinimalFeatureFlagSerializer) a survey embeds. */
function minimalFlag(state: SandboxState, id: Json | undefined): Json {
  const flag = typeof id === 'number' ? state.feature_flags.find((f) => f.id === id) : undefined;
  return flag ? { ...renderFlagMinimal(flag, state), evaluation_tags: [] } : null;
}

function render(record: JsonObject, ctx: KindContext): JsonObject {
  const state = ctx.state;
  const flagKey = (id: Json | undefined) => (typeof id === 'number' ? state.feature_flags.find((f) => f.id === id)?.key ?? null : null);
  let conditionsOut: Json = clone(record.conditions ?? null);
  const ids = (record.action_ids as number[] | undefined) ?? [];
  if (ids.length > 0 && isObject(conditionsOut)) {
    // get_conditions: the actions read back whole, from what the project holds now.
    const actions = actionsOf(state).filter((a) => ids.includes(a.id as number)).map((a) => {
      const { project: _p, ...rest } = a;
      return { ...clone(rest), is_action: true } as Json;
    });
    conditionsOut = { ...conditionsOut, actions: { values: actions } };
  }
  return {
    id: record.id ?? null,
    name: record.name ?? null,
    description: record.description ?? '',
    type: record.type ?? null,
    schedule: record.schedule ?? null,
    linked_flag: minimalFlag(state, record.linked_flag_id),
    linked_flag_id: record.linked_flag_id ?? null,
    linked_insight_id: record.linked_insight_id ?? null,
    targeting_flag: minimalFlag(state, record.targeting_flag_id),
    internal_targeting_flag: minimalFlag(state, record.internal_targeting_flag_id),
    questions: clone(record.questions ?? []),
    conditions: conditionsOut,
    appearance: clone(record.appearance ?? null),
    created_at: record.created_at ?? null,
    created_by: clone(state.user),
    start_date: record.start_date ?? null,
    end_date: record.end_date ?? null,
    archived: record.archived ?? false,
    responses_limit: record.responses_limit ?? null,
    feature_flag_keys: [
      { key: 'linked_flag_key', value: flagKey(record.linked_flag_id) },
      { key: 'targeting_flag_key', value: flagKey(record.targeting_flag_id) },
      { key: 'internal_targeting_flag_key', value: flagKey(record.internal_targeting_flag_id) },
      { key: 'internal_response_sampling_flag_key', value: null },
    ],
    iteration_count: record.iteration_count ?? null,
    iteration_frequency_days: record.iteration_frequency_days ?? null,
    iteration_start_dates: [],
    current_iteration: null,
    current_iteration_start_date: null,
    response_sampling_start_date: record.response_sampling_start_date ?? null,
    response_sampling_interval_type: record.response_sampling_interval_type ?? null,
    response_sampling_interval: record.response_sampling_interval ?? null,
    response_sampling_limit: record.response_sampling_limit ?? null,
    response_sampling_daily_limits: null,
    enable_partial_responses: record.enable_partial_responses ?? false,
    translations: clone(record.translations ?? null),
    user_access_level: 'editor',
  };
}

export const model: SandboxModel = {
  kind: 'survey',
  collection: COLLECTION,
  path: '/api/projects/:project/surveys/',
  parent: 'project',
  scopes: { read: 'survey:read', write: 'survey:write' },
  pagination: 'limit-offset',
  id: 'uuid',
  create: { status: 201 },
  update: true,
  delete: 'hard',
  fields: {},
  activity: { scope: 'Survey', name: (r) => String(r.name), ignored: ['project', 'action_ids', 'created_by'] },
  hooks: {
    createReply: (ctx) => ({ status: 201, body: render(createSurvey(ctx.state, ctx.project?.id as number, ctx.request.body), ctx) }),
    updateReply: (record, ctx) => {
      updateSurvey(ctx.state, record, ctx.request.body);
      return { status: 200, body: render(record, ctx) };
    },
    remove: (record, ctx) => {
      hardDeleteFlag(ctx.state, record.targeting_flag_id);
      hardDeleteFlag(ctx.state, record.internal_targeting_flag_id);
    },
    render,
  },
  seeds: [{
    key: 'surveys',
    at: 'project',
    apply: (state, { project }, value, where, fail) => {
      for (const [i, entry] of seedList(value, where, fail).entries()) {
        seedApply(`${where}[${i}]`, fail, () => createSurvey(state, project?.id as number, entry));
      }
    },
  }],
  contract: {
    item: { name: 'Contract survey', type: 'popover', questions: [{ id: 'q-contract', type: 'open', question: 'How is it going?' }], status: 'draft' },
    update: { description: 'Asked in the app' },
    drift: { description: 'Changed in the web app' },
  },
};
