// Surveys of a project: identity = name, unique per project in the API too. Deleted with a hard
// DELETE, which also deletes the survey's internal flags. What the real API does to surveys that
// hogsync must meet (posthog/api/survey.py: SurveySerializer, SurveySerializerCreateUpdateOnly,
// SurveyViewSet; posthog/models/surveys/survey.py), and how this kind meets it:
//   - `linked_flag_id` (write) reads back as the flag object `linked_flag`: the file's
//     `linked_flag` is a flag by key ({ feature_flag: KEY }, declared or live), sent as
//     `linked_flag_id` and read back as the flag's id (readAs);
//   - `linked_insight_id` likewise: the file's `linked_insight` ({ insight: NAME }, or an id);
//   - `targeting_flag_filters` is write-only and reads back inside `targeting_flag`: the file's
//     `targeting` (the targeting flag's filters) compares with what the flag stores, rewritten as
//     flags' filters are; conditions that roll out to everyone are refused by validate as the API
//     refuses them; null sends `remove_targeting_flag`;
//   - the lifecycle is two dates: `status` draft (no start_date), running (start_date), stopped
//     (end_date); a change of status sends only the date it moves (a stop: `end_date` alone; a
//     resume: `end_date: null`); running → draft is impossible (a plan error);
//   - `conditions.actions.values`, written as `[{id}]`, reads back as whole actions: compared by id;
//   - every question has a server-made `id` that its responses are stored under: a question the
//     file declares without one takes the live question's id at the same position (the plan says
//     so), so an update never detaches earlier responses;
//   - question texts, descriptions, button texts, choices and the thank-you texts are sanitised
//     as HTML (an allow-list, html.ts): both sides compare after the same sanitising, and
//     validate warns where the API would rewrite a text;
//   - a `response_sampling_start_date` in the past is refused: once passed, it is never sent
//     again (compared as the live value);
//   - the flags the API makes for a survey are hidden from the flag list (never unmanaged or pruned).
import type { EntryProblem, HeldBy, LiveRecord, ResourceKind, Scope, ScopeCheck, ScopeView } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { normalizeFilters, validateFlagEntry } from '../feature_flag/rules.js';
import { APPEARANCE_TEXTS, QUESTION_TEXTS, isHtml, sanitizeAppearance, sanitizeHtml, sanitizeQuestion } from './html.js';
import { restCollection } from '../rest-collection.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/surveys/`;
const fields = lazy(() => fieldsFromSchema('survey', ['name']));

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export type SurveyStatus = 'draft' | 'running' | 'stopped';

/** The lifecycle the API keeps as two dates. */
export function statusOf(record: Obj): SurveyStatus {
  if (record.start_date === null || record.start_date === undefined) return 'draft';
  return record.end_date === null || record.end_date === undefined ? 'running' : 'stopped';
}

/** What a change of status sends: only the date it moves. */
function lifecycle(status: unknown, live: Obj | undefined): Obj {
  const now = new Date().toISOString();
  const from = live ? statusOf(live) : 'draft';
  if (status === from) return {};
  if (status === 'running') return from === 'stopped' ? { end_date: null } : { start_date: now };
  if (status === 'stopped') return from === 'draft' ? { start_date: now, end_date: now } : { end_date: now };
  return {};
}

/** Start of today in UTC: the API refuses a sampling start date before it. */
function today(): number {
  const d = new Date();
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

const isPast = (value: unknown): boolean => typeof value === 'string' && !Number.isNaN(Date.parse(value)) && Date.parse(value) < today();

/** An ISO date-time in one spelling (the API answers `+00:00` where a file writes `Z`). */
function normalizeDate(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : new Date(t).toISOString();
}

const withoutNulls = (value: Obj): Obj => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));

/** Questions as the API stores them: texts sanitised, null and absent keys the same. */
function normalizeQuestions(value: unknown): unknown {
  if (!Array.isArray(value)) return value ?? null;
  return value.map((q) => (isObj(q) ? withoutNulls(sanitizeQuestion(q) as Obj) : q));
}

/** Conditions as compared: actions by id only (the API answers whole actions), null keys left out. */
function normalizeConditions(value: unknown): unknown {
  if (!isObj(value)) return value ?? null;
  const out = withoutNulls(value);
  const actions = out.actions;
  if (isObj(actions) && Array.isArray(actions.values)) {
    out.actions = { ...actions, values: actions.values.map((a) => (isObj(a) ? { id: a.id } : a)) };
  }
  return Object.keys(out).length === 0 ? null : out;
}

function normalizeObject(value: unknown): unknown {
  if (!isObj(value)) return value ?? null;
  const out = withoutNulls(value);
  return Object.keys(out).length === 0 ? null : out;
}

/** The live questions' ids, by position. */
function liveQuestionIds(live: unknown): Array<string | undefined> {
  return Array.isArray(live) ? live.map((q) => (isObj(q) && typeof q.id === 'string' ? q.id : undefined)) : [];
}

/** Declared questions, each without an id given the live question's id at its position. */
export function withLiveIds(declared: unknown, live: unknown): unknown {
  if (!Array.isArray(declared)) return declared;
  const ids = liveQuestionIds(live);
  return declared.map((q, i) => (isObj(q) && (q.id === undefined || q.id === null) && ids[i] !== undefined ? { id: ids[i], ...q } : q));
}

/** A change's values as the request carries them: the API's names and the lifecycle's dates. */
function request(values: Obj, live: Obj | undefined): Obj {
  const body: Obj = {};
  for (const [k, v] of Object.entries(values)) {
    if (k === 'linked_flag') body.linked_flag_id = v ?? null;
    else if (k === 'linked_insight') body.linked_insight_id = v ?? null;
    else if (k === 'targeting') {
      if (v !== null && v !== undefined) body.targeting_flag_filters = v;
      else if (live) body.remove_targeting_flag = true;
    } else if (k === 'status') Object.assign(body, lifecycle(v, live));
    else if (k === 'questions') body.questions = withLiveIds(v, live?.questions);
    else body[k] = v;
  }
  return body;
}

/** A live survey as the files see it: the linked flag's id, the targeting flag's filters, the status, actions by id. */
function readAs(record: LiveRecord): LiveRecord {
  const out: LiveRecord = { ...record };
  out.linked_flag = isObj(record.linked_flag) ? (record.linked_flag.id ?? null) : (record.linked_flag ?? null);
  out.linked_insight = record.linked_insight_id ?? (isObj(record.linked_insight) ? (record.linked_insight.id ?? null) : (record.linked_insight ?? null));
  out.targeting = isObj(record.targeting_flag) ? (record.targeting_flag.filters ?? null) : (record.targeting ?? null);
  out.status = statusOf(record);
  const conditions = record.conditions;
  if (isObj(conditions) && isObj(conditions.actions) && Array.isArray(conditions.actions.values)) {
    out.conditions = { ...conditions, actions: { ...conditions.actions, values: conditions.actions.values.map((a) => (isObj(a) ? { id: a.id } : a)) } };
  }
  return out;
}

/** The keys of the flags the API made for a survey (deleted with it). */
function internalFlags(record: LiveRecord | undefined): string[] {
  if (!record) return [];
  const keys: string[] = [];
  for (const f of [record.targeting_flag, record.internal_targeting_flag]) if (isObj(f) && typeof f.key === 'string') keys.push(f.key);
  if (Array.isArray(record.feature_flag_keys)) {
    for (const e of record.feature_flag_keys) {
      if (isObj(e) && e.key !== 'linked_flag_key' && typeof e.value === 'string' && !keys.includes(e.value)) keys.push(e.value);
    }
  }
  return keys;
}

/** The targeting's condition sets that reach everyone (no properties, 100 % or no rollout). */
function fullRollouts(targeting: unknown): number[] {
  if (!isObj(targeting) || !Array.isArray(targeting.groups)) return [];
  const out: number[] = [];
  targeting.groups.forEach((g, i) => {
    if (!isObj(g)) return;
    const props = g.properties;
    const rollout = g.rollout_percentage;
    if ((rollout === undefined || rollout === null || rollout === 100) && (!Array.isArray(props) || props.length === 0)) out.push(i);
  });
  return out;
}

const sanitised = (text: unknown): string | undefined => (typeof text === 'string' && isHtml(text) && sanitizeHtml(text) !== text ? sanitizeHtml(text) : undefined);

/** What validate checks of a survey beyond its schema. */
export function validateSurveyEntry(entry: Obj): EntryProblem[] {
  const problems: EntryProblem[] = [];
  if (entry.targeting !== undefined && entry.targeting !== null) {
    for (const p of validateFlagEntry({ filters: entry.targeting })) problems.push({ ...p, path: ['targeting', ...p.path.slice(1)] });
    for (const i of fullRollouts(entry.targeting)) {
      problems.push({ path: ['targeting', 'groups', i], message: 'rolls out to everyone: the API refuses it ("User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting"); leave targeting out to show the survey to everyone' });
    }
  }
  if (entry.type === 'external_survey') {
    for (const field of ['linked_flag', 'targeting']) {
      if (entry[field] !== undefined && entry[field] !== null) problems.push({ path: [field], at: 'key', message: 'is not allowed for external surveys: the API refuses it' });
    }
  }
  const warn = (path: Array<string | number>, text: string) => problems.push({
    path, warning: 'always',
    message: `the API sanitises this HTML and stores ${JSON.stringify(text)}: write it that way (hogsync compares after the same sanitising, so it is not drift)`,
  });
  if (Array.isArray(entry.questions)) {
    entry.questions.forEach((q, i) => {
      if (!isObj(q)) return;
      for (const key of QUESTION_TEXTS) {
        const s = sanitised(q[key]);
        if (s !== undefined) warn(['questions', i, key], s);
      }
      if (Array.isArray(q.choices)) q.choices.forEach((c, j) => { const s = sanitised(c); if (s !== undefined) warn(['questions', i, 'choices', j], s); });
    });
  }
  if (isObj(entry.appearance)) {
    for (const key of APPEARANCE_TEXTS) {
      const s = sanitised(entry.appearance[key]);
      if (s !== undefined) warn(['appearance', key], s);
    }
  }
  if (isPast(entry.response_sampling_start_date)) {
    problems.push({ path: ['response_sampling_start_date'], warning: 'always', message: 'is in the past: the API refuses a past date, so hogsync never sends it again (it compares as the live value)' });
  }
  return problems;
}

/** Plan-time: a started survey cannot go back to draft; questions that take their live ids are said. */
function check(view: ScopeView): ScopeCheck {
  const warnings: string[] = [];
  for (const c of view.changes) {
    if (c.action !== 'update' || !c.live) continue;
    if (c.values.status === 'draft' && statusOf(c.live) !== 'draft') {
      return {
        error: `${c.address}: status draft, but the survey has started (${statusOf(c.live)}): the API cannot take a survey back to draft; write running or stopped`,
        errorAt: view.items.find((i) => i.key === c.identity)?.position,
      };
    }
    if (Array.isArray(c.values.questions)) {
      const ids = liveQuestionIds(c.live.questions);
      c.values.questions.forEach((q, i) => {
        if (isObj(q) && (q.id === undefined || q.id === null) && ids[i] !== undefined) {
          warnings.push(`${c.address}: questions[${i}] is declared without an id and takes the live question's id ${ids[i] as string} at the same position, so its earlier responses stay attached`);
        }
      });
    }
  }
  return { warnings };
}

export const survey: ResourceKind = {
  name: 'survey',
  configKey: 'surveys',
  prunable: true,
  identityField: 'name',
  parent: 'project',
  shared: true,
  read: 'list',
  canCreate: true,
  renamable: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  references: [
    { field: 'linked_flag', path: '', key: '', kind: 'feature_flag' },
    // Resolved once an `insight` kind is registered; until then an id works and a name is a plan error.
    { field: 'linked_insight', path: '', key: '', kind: 'insight' },
    { field: 'conditions', path: 'actions.values[]', key: 'id', kind: 'action' },
  ],
  unsetValues: {
    description: '', conditions: null, appearance: null, linked_flag: null, linked_insight: null, targeting: null, archived: false, schedule: null,
    responses_limit: null, iteration_count: null, iteration_frequency_days: null, response_sampling_start_date: null,
    response_sampling_interval_type: null, response_sampling_interval: null, response_sampling_limit: null,
    enable_partial_responses: null, translations: null,
  },
  normalizers: {
    questions: normalizeQuestions,
    conditions: normalizeConditions,
    appearance: (v) => normalizeObject(sanitizeAppearance(v)),
    translations: normalizeObject,
    targeting: (v) => (v === null || v === undefined ? null : normalizeFilters(v)),
    linked_flag: (v) => v ?? null,
    linked_insight: (v) => v ?? null,
    response_sampling_start_date: normalizeDate,
  },
  comparedTogether: {
    questions: (declared, live) => [withLiveIds(declared, live), live],
    // Once passed, the API refuses the date: the file's value is never sent again.
    response_sampling_start_date: (declared, live) => (isPast(declared) ? [live, live] : [declared, live]),
  },
  readAs,
  // A past sampling start date would only be refused on the next write.
  exported: (record, data) => {
    const out: Obj = { ...data };
    if (isPast(out.response_sampling_start_date)) delete out.response_sampling_start_date;
    return out;
  },
  validateEntry: validateSurveyEntry,
  check,
  ...restCollection({ base, deletes: 'hard', identityField: 'name', body: request }),
  deleteNote: (record) => {
    const keys = internalFlags(record);
    return `deleting a survey also deletes its internal flags${keys.length > 0 ? ` (${keys.join(', ')})` : ''} and detaches its responses from it`;
  },
  activity: { scopes: ['Survey'], log: 'parent' },
  // An early access feature's waitlist survey (its id in the feature's payload) is the API's: never pruned.
  heldByKinds: ['early_access_feature'],
  heldBy: (view) => {
    const held = new Map<LiveRecord, HeldBy[]>();
    const features = view.holders?.get('early_access_feature')?.records ?? [];
    if (features.length === 0) return held;
    const byId = new Map(view.records.map((r) => [String(r.id), r]));
    for (const f of features) {
      const id = isObj(f.payload) ? f.payload.survey_id : undefined;
      const waitlist = typeof id === 'string' ? byId.get(id) : undefined;
      if (waitlist) held.set(waitlist, [...(held.get(waitlist) ?? []), { kind: 'early_access_feature', id: f.id as string, name: typeof f.name === 'string' ? f.name : null }]);
    }
    return held;
  },
  explainFailure: (op, message) => (op === 'create' && /already a survey with this name/i.test(message)
    ? `${message} — a survey the list does not show holds the name (a product tour's survey); rename one of them (not retried)`
    : undefined),
};
