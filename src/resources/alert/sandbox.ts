// Alerts in the sandbox, as the real API keeps them (posthog/api/alert.py AlertSerializer and
// AlertViewSet, posthog/models/alert.py):
//   - writes take `insight` and `subscribed_users` as ids (users required on create, may be
//     empty); reads answer both as objects, and `threshold` with its own id; `?insight=` filters
//     the list; DELETE is hard;
//   - refused (400): an insight that is not a trends query, a series_index past its series, a
//     relative condition on a non-time-series display, absolute_value without an absolute
//     threshold, lower above upper (rules.ts, shared with validate), a subscribed user outside
//     the organization, and a third alert of a project whose organization lacks the `alerts`
//     feature;
//   - a threshold or condition write resets `state` (the alert is checked again);
//   - an insight soft-deleted, or whose query changes to a kind that cannot carry an alert,
//     hard-deletes its alerts (dropAlertsOf, called by the insight's model);
//   - older versions served alerts to no personal key: an organization seeded with
//     `alerts_for_personal_keys: false` answers 403 to every alert request of a key.
// POST /_sandbox/check-alerts/ is the API's scheduled check: every enabled alert fires.
import { permissionDenied, validationError } from '../../sandbox/errors.js';
import { hasFeature } from '../../sandbox/features.js';
import { nowIso, uuidv7 } from '../../sandbox/ids.js';
import { clone, isObject, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf, type KindContext, type SandboxModel } from '../../sandbox/kind-model.js';
import { organizationMembers } from '../../sandbox/members.js';
import { paginate } from '../../sandbox/pagination.js';
import type { SandboxState } from '../../sandbox/state.js';
import { booleanRule, objectRule, stringRule, validatePartial } from '../../sandbox/validation.js';
import { ALERTS_WITHOUT_FEATURE } from './kind.js';
import { alertProblems, carriesAlerts, NOT_SUPPORTED } from './rules.js';

export const ALERTS = 'alerts';
const INSIGHTS = 'insights';
const INTERVALS = ['hourly', 'daily', 'weekly', 'monthly', 'real_time', 'every_15_minutes'];

const RULES = {
  name: stringRule({ max: 255 }),
  enabled: booleanRule(),
  skip_weekend: booleanRule({ nullable: true }),
  condition: objectRule(),
  threshold: objectRule({ nullable: true }),
  config: objectRule({ nullable: true }),
  calculation_interval: stringRule(),
};

const alertsOf = (state: SandboxState) => recordsOf(state, { collection: ALERTS });

/** Hard-deletes the alerts of an insight (its soft delete, or a query that can no longer carry one). */
export function dropAlertsOf(state: SandboxState, insight: number): void {
  state[ALERTS] = alertsOf(state).filter((a) => a.insight !== insight);
}

/** Called by the insight's model when its query changes: alerts die with a query that cannot carry them. */
export function queryChanged(state: SandboxState, insight: number, query: Json): void {
  if (!carriesAlerts(query)) dropAlertsOf(state, insight);
}

function deny(ctx: KindContext): void {
  // A web UI session (web-edit) is a user, not a personal key.
  if (ctx.organization.alerts_for_personal_keys === false && ctx.request.key.key !== '') throw permissionDenied('You do not have permission to perform this action.');
}

function insightOf(ctx: KindContext, id: Json): JsonObject {
  const found = recordsOf(ctx.state, { collection: INSIGHTS }).find((i) => i.id === id && i.project === ctx.project?.id && i.deleted !== true);
  if (!found) throw validationError('insight', `Invalid pk "${String(id)}" - object does not exist.`, 'does_not_exist');
  return found;
}

function userIds(ctx: KindContext, value: Json): number[] {
  if (!Array.isArray(value)) throw validationError('subscribed_users', `Expected a list of items but got type "${typeof value}".`, 'not_a_list');
  const members = new Set(organizationMembers(ctx.state, ctx.organization.id).map((m) => m.user_id));
  return value.map((v) => {
    if (typeof v !== 'number' || ![ctx.state.user, ...ctx.state.users].some((u) => u.id === v)) throw validationError('subscribed_users', `Invalid pk "${String(v)}" - object does not exist.`, 'does_not_exist');
    if (!members.has(v)) throw validationError('subscribed_users', `User ${v} does not belong to this organization.`, 'invalid_input');
    return v;
  });
}

function checkRules(fields: JsonObject, insight: JsonObject): void {
  if (!carriesAlerts(insight.query)) throw validationError('insight', NOT_SUPPORTED, 'invalid_input');
  const problem = alertProblems(fields, insight.query)[0];
  if (problem) throw validationError(problem.path.length > 0 ? problem.path.join('.') : null, problem.message, 'invalid_input');
}

function interval(value: Json | undefined): void {
  if (value !== undefined && !INTERVALS.includes(String(value))) throw validationError('calculation_interval', `"${String(value)}" is not a valid choice.`, 'invalid_choice');
}

function threshold(value: Json | undefined, previous: Json | undefined): Json {
  if (value === undefined || value === null || (isObject(value) && Object.keys(value).length === 0)) return null;
  const id = isObject(previous) && typeof previous.id === 'string' ? previous.id : uuidv7();
  return { id, name: '', created_at: nowIso(), configuration: clone((value as JsonObject).configuration ?? {}) };
}

function render(record: JsonObject, ctx: KindContext): JsonObject {
  const users = [ctx.state.user, ...ctx.state.users];
  const insight = recordsOf(ctx.state, { collection: INSIGHTS }).find((i) => i.id === record.insight);
  return {
    id: record.id ?? null, created_by: clone(ctx.state.user), created_at: record.created_at ?? null,
    insight: insight ? { id: insight.id ?? null, short_id: insight.short_id ?? null, name: insight.name ?? null, derived_name: insight.derived_name ?? null } : null,
    name: record.name ?? null,
    subscribed_users: (record.subscribed_users as number[]).map((id) => clone(users.find((u) => u.id === id) ?? null)),
    threshold: clone(record.threshold ?? null), condition: clone(record.condition ?? {}), state: record.state ?? 'Not firing', enabled: record.enabled ?? true,
    last_notified_at: null, last_checked_at: record.last_checked_at ?? null, next_check_at: null, calculation_interval: record.calculation_interval ?? 'daily',
    config: clone(record.config ?? null), checks: [], skip_weekend: record.skip_weekend ?? false, snoozed_until: null, last_value: null,
  };
}

function create(ctx: KindContext): JsonObject {
  const body = ctx.request.body;
  if (body.insight === undefined) throw validationError('insight', 'This field is required.', 'required');
  if (body.subscribed_users === undefined) throw validationError('subscribed_users', 'This field is required.', 'required');
  const fields = validatePartial(RULES, body);
  if (fields.name === undefined) throw validationError('name', 'This field is required.', 'required');
  interval(fields.calculation_interval);
  const insight = insightOf(ctx, body.insight);
  const users = userIds(ctx, body.subscribed_users);
  checkRules(fields, insight);
  const inProject = alertsOf(ctx.state).filter((a) => a.project === ctx.project?.id).length;
  if (!hasFeature(ctx.organization, 'alerts') && inProject >= ALERTS_WITHOUT_FEATURE) {
    throw validationError(null, `Your team has reached the limit of ${ALERTS_WITHOUT_FEATURE} alerts on the free tier.`, 'invalid_input');
  }
  const record: JsonObject = {
    id: uuidv7(), project: ctx.project?.id ?? null, insight: insight.id ?? null, name: fields.name, subscribed_users: users,
    threshold: threshold(fields.threshold, undefined), condition: fields.condition ?? { type: 'absolute_value' }, config: fields.config ?? null,
    calculation_interval: fields.calculation_interval ?? 'daily', enabled: fields.enabled ?? true, skip_weekend: fields.skip_weekend ?? false,
    state: 'Not firing', last_checked_at: null, created_at: nowIso(),
  };
  alertsOf(ctx.state).push(record);
  return record;
}

function update(record: JsonObject, ctx: KindContext): void {
  const body = ctx.request.body;
  const fields = validatePartial(RULES, body);
  interval(fields.calculation_interval);
  const changes: JsonObject = { ...fields };
  if (body.subscribed_users !== undefined) changes.subscribed_users = userIds(ctx, body.subscribed_users);
  if ('threshold' in fields) changes.threshold = threshold(fields.threshold, record.threshold);
  const insight = insightOf(ctx, body.insight ?? record.insight as Json);
  const next = { ...record, ...changes, threshold: 'threshold' in changes ? changes.threshold : record.threshold };
  checkRules(next, insight);
  // A threshold or condition write resets the state: the alert is checked again.
  if ('threshold' in body || 'condition' in body) {
    changes.state = 'Not firing';
    changes.last_checked_at = null;
  }
  Object.assign(record, changes);
}

function listReply(ctx: KindContext) {
  deny(ctx);
  const insight = ctx.request.url.searchParams.get('insight');
  const records = ctx.records().filter((r) => insight === null || String(r.insight) === insight);
  return { status: 200, body: paginate(records, (r) => render(r, ctx), ctx.request.url) };
}

/** The API's scheduled check: every enabled alert is checked, and fires. */
function checkAlerts(state: SandboxState): Json {
  let fired = 0;
  for (const a of alertsOf(state)) {
    if (a.enabled === false) continue;
    a.state = 'Firing';
    a.last_checked_at = nowIso();
    fired++;
  }
  return { fired };
}

export const model: SandboxModel = {
  kind: 'alert',
  collection: ALERTS,
  path: '/api/projects/:project/alerts/',
  aliases: ['/api/environments/:project/alerts/'],
  parent: 'project',
  scopes: { read: 'alert:read', write: 'alert:write' },
  pagination: 'limit-offset',
  id: 'uuid',
  create: { status: 201 },
  update: true,
  delete: 'hard',
  fields: {},
  activity: {
    scope: 'AlertConfiguration',
    name: (r) => String(r.name ?? ''),
    ignored: ['project', 'state', 'last_checked_at'],
  },
  hooks: {
    authorize: (ctx) => deny(ctx),
    listReply,
    readReply: (record, ctx) => {
      deny(ctx);
      return { status: 200, body: render(record, ctx) };
    },
    createReply: (ctx) => ({ status: 201, body: render(create(ctx), ctx) }),
    updateReply: (record, ctx) => {
      update(record, ctx);
      return { status: 200, body: render(record, ctx) };
    },
  },
  internal: { 'check-alerts': checkAlerts },
  seeds: [{
    key: 'alerts_for_personal_keys',
    at: 'organization',
    apply: (_state, { organization }, value, where, fail) => {
      if (typeof value !== 'boolean') fail(where, 'must be true or false');
      organization.alerts_for_personal_keys = value as boolean;
    },
  }],
};


