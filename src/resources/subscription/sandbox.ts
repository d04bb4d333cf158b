// Subscriptions in the sandbox, as the real API keeps them (posthog/api/subscription.py
// SubscriptionSerializer and SubscriptionViewSet, posthog/models/subscription.py):
//   - the list hides deleted ones and filters by `dashboard` or `insight`; DELETE answers 405:
//     PATCH {"deleted": true};
//   - exactly one of `dashboard` and `insight`, fixed at create; `dashboard_export_insights` 1–6
//     insights on that dashboard; `start_date` required, read back as `+00:00`; `invite_message`
//     write-only; a schedule already ended (`until_date` past) is refused;
//   - a Slack target (`target_type: slack`, target_value `CHANNEL_ID|#name`) needs the project's
//     Slack integration by `integration_id` (SubscriptionSerializer.validate): none, one of another
//     project (or none of that id), or one of another kind is refused; the integrations list and
//     its channels are in ./sandbox-integrations.ts;
//   - creating an enabled subscription, and a PATCH of target_value, target_type, integration_id,
//     the subject or the exported insights, or re-enabling, sends a delivery at once: the sandbox
//     counts them (POST /_sandbox/deliveries/ answers the counts by subscription id);
//   - POST /_sandbox/unsubscribe/?subscription=ID&email=E is the email's unsubscribe link: the
//     email leaves target_value (the last one deletes the subscription), logged under
//     `Subscription` as that user's change where a sandbox user has the email.
import { loggedWrite } from '../../sandbox/activity.js';
import { notFound, validationError } from '../../sandbox/errors.js';
import { nowIso } from '../../sandbox/ids.js';
import { clone, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf, type KindContext, type SandboxModel } from '../../sandbox/kind-model.js';
import { paginate } from '../../sandbox/pagination.js';
import type { SandboxState } from '../../sandbox/state.js';
import { booleanRule, integerRule, stringRule, validatePartial } from '../../sandbox/validation.js';
import { DASHBOARDS, INSIGHTS, tilesOf } from '../dashboard/tiles-store.js';
import { integrationIn, integrationRoutes, integrationSeed } from './sandbox-integrations.js';

export const SUBSCRIPTIONS = 'subscriptions';
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const DELIVERING = ['target_value', 'target_type', 'integration_id', 'dashboard_export_insights', 'dashboard', 'insight'];

const RULES = {
  title: stringRule({ max: 100, nullable: true, allowBlank: true }),
  target_type: stringRule(),
  target_value: stringRule(),
  frequency: stringRule(),
  interval: integerRule({ min: 1 }),
  bysetpos: integerRule({ nullable: true }),
  count: integerRule({ nullable: true, min: 1 }),
  start_date: stringRule(),
  until_date: stringRule({ nullable: true }),
  enabled: booleanRule(),
  deleted: booleanRule(),
  invite_message: stringRule({ nullable: true, allowBlank: true }),
};

const subscriptionsOf = (state: SandboxState) => recordsOf(state, { collection: SUBSCRIPTIONS });

function choice(attr: string, value: Json | undefined, choices: readonly string[]): void {
  if (value !== undefined && !choices.includes(String(value))) throw validationError(attr, `"${String(value)}" is not a valid choice.`, 'invalid_choice');
}

function date(attr: string, value: Json | undefined): string | null | undefined {
  if (value === undefined || value === null) return value as null | undefined;
  const t = Date.parse(String(value));
  if (Number.isNaN(t)) throw validationError(attr, 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', 'invalid');
  // Read back as Django writes it: microseconds, and +00:00 for UTC.
  return new Date(t).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

function exported(ctx: KindContext, dashboard: Json, value: Json): number[] {
  if (!Array.isArray(value)) throw validationError('dashboard_export_insights', 'Expected a list of items.', 'not_a_list');
  if (value.length > 6) throw validationError('dashboard_export_insights', 'Cannot select more than 6 insights.', 'invalid_input');
  if (value.length === 0) throw validationError('dashboard_export_insights', 'Must select at least one insight.', 'invalid_input');
  const on = new Set(tilesOf(ctx.state).filter((t) => t.dashboard === dashboard && t.deleted !== true).map((t) => t.insight));
  return value.map((id) => {
    if (!on.has(id)) throw validationError('dashboard_export_insights', `Insight ${String(id)} is not on the subscription's dashboard.`, 'invalid_input');
    return id as number;
  });
}

function subject(ctx: KindContext, body: JsonObject): { dashboard: number | null; insight: number | null } {
  const dashboard = body.dashboard ?? null;
  const insight = body.insight ?? null;
  if ((dashboard === null) === (insight === null)) throw validationError(null, 'Exactly one of dashboard or insight is required.', 'invalid_input');
  const [collection, id] = dashboard !== null ? [DASHBOARDS, dashboard] : [INSIGHTS, insight];
  const found = recordsOf(ctx.state, { collection }).find((r) => r.id === id && r.project === ctx.project?.id && r.deleted !== true);
  if (!found) throw validationError(dashboard !== null ? 'dashboard' : 'insight', `Invalid pk "${String(id)}" - object does not exist.`, 'does_not_exist');
  return { dashboard: dashboard as number | null, insight: insight as number | null };
}

function checkSchedule(ctx: KindContext, record: JsonObject): void {
  choice('target_type', record.target_type, ['email', 'slack', 'teams']);
  choice('frequency', record.frequency, ['daily', 'weekly', 'monthly', 'yearly']);
  if (record.byweekday !== null && record.byweekday !== undefined) {
    if (!Array.isArray(record.byweekday)) throw validationError('byweekday', 'Expected a list of items.', 'not_a_list');
    for (const d of record.byweekday) choice('byweekday', d, WEEKDAYS);
  }
  if (typeof record.until_date === 'string' && Date.parse(record.until_date) < ctx.now()) {
    throw validationError('until_date', 'The schedule has already ended: until_date is in the past.', 'invalid_input');
  }
}

/** A Slack target needs the project's Slack integration (the serializer's words, by attr). */
function checkTarget(ctx: KindContext, record: JsonObject): void {
  if (record.target_type !== 'slack') return;
  const id = record.integration_id;
  if (id === null || id === undefined || id === 0) throw validationError('integration_id', 'A Slack integration is required for Slack subscriptions.', 'invalid_input');
  const found = integrationIn(ctx.state, ctx.project?.id, id);
  if (!found) throw validationError('integration_id', 'This integration does not exist or does not belong to your team.', 'invalid_input');
  if (found.kind !== 'slack') throw validationError('integration_id', 'Slack subscriptions require a Slack integration.', 'invalid_input');
}

function deliver(record: JsonObject): void {
  record.deliveries = ((record.deliveries as number | undefined) ?? 0) + 1;
}

function render(record: JsonObject): JsonObject {
  const { project: _p, deliveries: _d, invite_message: _m, ...rest } = record;
  return { ...clone(rest), summary: `sent ${String(record.frequency)}`, next_delivery_date: null };
}

function create(ctx: KindContext): JsonObject {
  const body = ctx.request.body;
  for (const f of ['target_type', 'target_value', 'frequency', 'start_date']) if (body[f] === undefined) throw validationError(f, 'This field is required.', 'required');
  const fields = validatePartial(RULES, body);
  const { dashboard, insight } = subject(ctx, body);
  const ids = state(ctx).next_ids as unknown as Record<string, number>;
  const record: JsonObject = {
    id: ids.subscription ?? 1, project: ctx.project?.id ?? null, dashboard, insight, title: fields.title ?? null,
    target_type: fields.target_type ?? 'email', target_value: fields.target_value ?? '', frequency: fields.frequency ?? 'weekly', interval: fields.interval ?? 1,
    byweekday: clone(body.byweekday ?? null), bysetpos: fields.bysetpos ?? null, count: fields.count ?? null,
    start_date: date('start_date', fields.start_date) ?? null, until_date: date('until_date', fields.until_date) ?? null, enabled: fields.enabled ?? true,
    dashboard_export_insights: body.dashboard_export_insights === undefined || dashboard === null ? [] : exported(ctx, dashboard, body.dashboard_export_insights),
    integration_id: clone(body.integration_id ?? null), deleted: false, created_at: nowIso(), created_by: clone(ctx.state.user),
  };
  checkSchedule(ctx, record);
  checkTarget(ctx, record);
  ids.subscription = (record.id as number) + 1;
  if (record.enabled === true) deliver(record);
  subscriptionsOf(ctx.state).push(record);
  return record;
}

const state = (ctx: KindContext) => ctx.state;

function update(record: JsonObject, ctx: KindContext): void {
  const body = ctx.request.body;
  const fields = validatePartial(RULES, body);
  for (const s of ['dashboard', 'insight'] as const) {
    if (body[s] !== undefined && body[s] !== record[s]) throw validationError(s, `A subscription's ${s} cannot be changed: delete it and create another.`, 'invalid_input');
  }
  const next: JsonObject = { ...record, ...fields };
  if ('byweekday' in body) next.byweekday = clone(body.byweekday ?? null);
  if ('start_date' in fields) next.start_date = date('start_date', fields.start_date) ?? null;
  if ('until_date' in fields) next.until_date = date('until_date', fields.until_date) ?? null;
  if (body.dashboard_export_insights !== undefined) next.dashboard_export_insights = exported(ctx, record.dashboard as Json, body.dashboard_export_insights);
  if (body.integration_id !== undefined) next.integration_id = clone(body.integration_id);
  checkSchedule(ctx, next);
  checkTarget(ctx, next);
  const reEnabled = record.enabled === false && next.enabled === true;
  const changed = DELIVERING.some((f) => f in body && JSON.stringify(body[f]) !== JSON.stringify(record[f]));
  Object.assign(record, next);
  if (record.deleted !== true && record.enabled === true && (reEnabled || changed)) deliver(record);
}

function listReply(ctx: KindContext) {
  const url = ctx.request.url;
  const records = ctx.records().filter((r) => r.deleted !== true
    && (url.searchParams.get('dashboard') === null || String(r.dashboard) === url.searchParams.get('dashboard'))
    && (url.searchParams.get('insight') === null || String(r.insight) === url.searchParams.get('insight')));
  return { status: 200, body: paginate(records, render, url) };
}

/** The unsubscribe link of one recipient's email. */
function unsubscribe(state: SandboxState, params: URLSearchParams): Json {
  const record = subscriptionsOf(state).find((s) => String(s.id) === params.get('subscription'));
  const email = params.get('email') ?? '';
  // The real link answers {"success": false} for a token it cannot use.
  if (!record) return { success: false };
  const user = [state.user, ...state.users].find((u) => u.email.toLowerCase() === email.toLowerCase());
  return loggedWrite(state, { user: user?.id ?? null, at: nowIso() }, { id: String(record.id), project: String(record.project) }, () => {
    const emails = String(record.target_value).split(',').filter((e) => e !== '' && e !== email);
    record.target_value = emails.join(',');
    if (emails.length === 0) record.deleted = true;
    return { success: true, target_value: record.target_value as string, deleted: record.deleted as boolean };
  });
}

export const model: SandboxModel = {
  kind: 'subscription',
  collection: SUBSCRIPTIONS,
  path: '/api/projects/:project/subscriptions/',
  aliases: ['/api/environments/:project/subscriptions/'],
  parent: 'project',
  scopes: { read: 'subscription:read', write: 'subscription:write' },
  pagination: 'limit-offset',
  id: 'integer',
  create: { status: 201 },
  update: true,
  delete: 'soft',
  softDelete: 'deleted',
  fields: {},
  routes: integrationRoutes,
  seeds: [integrationSeed],
  activity: {
    scope: 'Subscription',
    name: (r) => String(r.title ?? ''),
    ignored: ['project', 'deliveries', 'created_by', 'invite_message'],
  },
  hooks: {
    listReply,
    readReply: (record) => {
      if (record.deleted === true) throw notFound();
      return { status: 200, body: render(record) };
    },
    createReply: (ctx) => ({ status: 201, body: render(create(ctx)) }),
    updateReply: (record, ctx) => {
      update(record, ctx);
      return { status: 200, body: render(record) };
    },
  },
  internal: {
    unsubscribe,
    deliveries: (state) => Object.fromEntries(subscriptionsOf(state).map((s) => [String(s.id), (s.deliveries as number | undefined) ?? 0])),
  },
};
