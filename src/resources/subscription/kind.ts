// Subscriptions of a dashboard or an insight: identity = title within it; deleted with PATCH
// {"deleted": true}. What the real API does to subscriptions that hogsync must meet
// (posthog/api/subscription.py, posthog/models/subscription.py, ee/tasks/subscriptions/):
//   - `target_value` is one comma-separated string of emails: the file writes a list, compared
//     as a set; a Slack target is `CHANNEL_ID|#name` with the project's Slack integration's
//     `integration_id`: the file writes the channel by name and `integration:` by name (./slack.ts),
//     compared by the channel's name; `start_date` and `until_date` are read back in another ISO form: compared as instants;
//   - `dashboard_export_insights` (1–6 insights of the dashboard, by id) is written `insights:` by name;
//   - the subject (`dashboard` or `insight`, the item it sits under) is fixed at create: a subscription
//     that moves is deleted and created (its address names the subject's kind: a new address);
//   - creating an enabled subscription, and a PATCH of its recipients, target, subject or exported
//     insights, or re-enabling it, sends a delivery at once: the plan says so beside the change
//     (`sends_delivery`), and an added recipient (one who unsubscribed) is invited again;
//   - a recipient's unsubscribe link removes their email (the last one deletes the subscription):
//     drift, attributed from the activity log (scope `Subscription`).
import type { ChangeAnnotations, DescribedLine, EntryProblem, LiveRecord, PreviewInput, ResourceKind, Scope, ScopeCheck, ScopeView } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { channelName, integrationId, integrationNamed, prepareSlack, prepareSlackExport, prepareSlackSends } from './slack.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/subscriptions/`;
const fields = lazy(() => fieldsFromSchema('subscription', ['title']));
/** The subject the subscription sits under, as the API's field names it: `dashboard` or `insight`. */
const subjectOf = (s: Scope): 'dashboard' | 'insight' => (s.parent?.kind === 'insight' ? 'insight' : 'dashboard');

/** Changes of these fields make the API deliver at once (SubscriptionSerializer.update → deliver_subscription_report). */
const DELIVERING = ['target_value', 'target_type', 'integration', 'insights'];

/** Recipients as the plan compares them: lower-cased emails, a set (the API's comma-separated string too). */
export function recipients(value: unknown): string[] | unknown {
  const list = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(list)) return value;
  return [...new Set(list.map((e) => String(e).trim().toLowerCase()).filter((e) => e !== ''))].sort();
}

/** A target as the plan compares it: emails as a set, a Slack channel (one string) by its name. */
function target(value: unknown): unknown {
  return typeof value === 'string' && value.includes('#') ? channelName(value) : recipients(value);
}

/** A date as an instant (the API answers `+00:00` where a file writes `Z`, and adds fractions). */
function instant(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const t = Date.parse(value);
  return Number.isNaN(t) ? value : new Date(t).toISOString();
}

/** Exported insights as the plan compares them: a set of references. */
function insightSet(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return [...value].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** The request body: recipients comma-separated, exported insights by id, the Slack integration by id. */
function body(values: Obj, scope: Scope): Obj {
  const { insights, integration, ...rest } = values;
  if (Array.isArray(rest.target_value)) rest.target_value = rest.target_value.join(',');
  if (integration !== undefined) rest.integration_id = integrationId(scope.project, integration) ?? null;
  if (Array.isArray(insights)) rest.dashboard_export_insights = insights.map((i) => (isObj(i) ? i.insight : i));
  return rest;
}

/** What a planned change sends (a delivery), and whom it invites again. */
function annotate(input: PreviewInput): ChangeAnnotations | undefined {
  if (input.action === 'delete') return undefined;
  const out: ChangeAnnotations = {};
  const enabledAfter = 'enabled' in input.values ? input.values.enabled !== false : input.live?.enabled !== false;
  const reEnabled = input.action === 'update' && input.values.enabled === true && input.live?.enabled === false;
  if (enabledAfter && (input.action === 'create' || reEnabled || input.changed.some((f) => DELIVERING.includes(f)))) out.sends_delivery = true;
  if (input.action === 'update' && input.changed.includes('target_value') && Array.isArray(input.values.target_value)) {
    const before = new Set(recipients(input.live?.target_value) as string[]);
    const added = (recipients(input.values.target_value) as string[]).filter((e) => !before.has(e));
    if (added.length > 0) out.notes = [`adds ${added.join(', ')} to the recipients: the API sends each of them the subscription, which invites again anyone who unsubscribed`];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The exported insights and the recipients as a reviewer reads them: names added and removed. */
function describeField(path: string, before: unknown, after: unknown): DescribedLine[] | undefined {
  if (path !== 'insights' && path !== 'target_value') return undefined;
  const targets = (v: unknown): string[] => { const t = target(v); return Array.isArray(t) ? t.map(String) : typeof t === 'string' ? [t] : []; };
  const names = (v: unknown): string[] => (path === 'target_value' ? targets(v)
    : Array.isArray(v) ? v.map((i) => String(isObj(i) ? (isObj(i.insight) ? i.insight.insight ?? i.insight.id : i.insight) : i)) : []);
  const [was, now] = [names(before), names(after)];
  const what = path === 'insights' ? 'insight' : typeof after === 'string' || typeof before === 'string' ? 'channel' : 'recipient';
  return [
    ...was.filter((n) => !now.includes(n)).map((n): DescribedLine => ({ kind: 'text', sign: '-', text: `${what} ${n}` })),
    ...now.filter((n) => !was.includes(n)).map((n): DescribedLine => ({ kind: 'text', sign: '+', text: `${what} ${n}` })),
  ];
}

/** A schedule already ended: the API refuses it (a plan error before anything is sent). */
function check(view: ScopeView): ScopeCheck {
  for (const change of view.changes) {
    const until = change.values.until_date;
    if (change.action === 'delete' || typeof until !== 'string' || !(Date.parse(until) < Date.now())) continue;
    const item = view.items.find((i) => i.key === change.identity);
    return { error: `subscription "${change.identity}": until_date ${until} has passed: the API refuses a schedule that has already ended (move until_date on, or remove the subscription)`, ...(item?.position ? { errorAt: item.position } : {}) };
  }
  return {};
}

/** What validate can tell offline of a target: a Slack one is one channel with its integration, an email one a list without. */
function validateEntry(entry: Obj): EntryProblem[] {
  const slack = entry.target_type === 'slack';
  const problems: EntryProblem[] = [];
  if (slack && Array.isArray(entry.target_value)) {
    problems.push({ path: ['target_value'], message: 'a Slack subscription delivers to one channel: write target_value as the channel, by name (#growth)' });
  }
  if (slack && entry.integration === undefined && entry.ensure !== 'absent') {
    problems.push({ path: ['target_type'], message: 'a Slack subscription needs `integration`: the project\'s Slack integration, by name (the API refuses a Slack target without one)' });
  }
  if (!slack && (entry.target_type === undefined || entry.target_type === 'email') && typeof entry.target_value === 'string') {
    problems.push({ path: ['target_value'], message: 'an email subscription\'s target_value is a list of emails, not a Slack channel (for a channel, write target_type: slack and its integration)' });
  }
  if (!slack && entry.integration !== undefined) {
    problems.push({ path: ['integration'], at: 'key', message: '`integration` names the Slack integration of a Slack subscription (target_type: slack); this one is not' });
  }
  return problems;
}

/** A live record as the files write it: recipients as a list, a Slack channel by name with its integration by name (where read). */
function asWritten(r: Obj): Obj {
  if (r.target_type !== 'slack') return { ...r, target_value: recipients(r.target_value) };
  const name = integrationNamed(r.integration_id);
  return { ...r, target_value: channelName(r.target_value), ...(name === undefined ? {} : { integration: name }) };
}

export const subscription: ResourceKind = {
  name: 'subscription',
  configKey: 'subscriptions',
  prunable: false,
  identityField: 'title',
  parent: 'dashboard',
  alsoUnder: ['insight'],
  tagsParent: true,
  read: 'list',
  // Written with their dashboard or insight: only when --kind names them.
  exportedByDefault: false,
  canCreate: true,
  // A Slack target names the project's integration: its list is read.
  readScopesOf: (fields) => (fields.target_type === 'slack' ? ['integration:read'] : []),
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  references: [{ field: 'insights', path: '[]', key: 'insight', kind: 'insight' }],
  // `insights: [NAME]` is a list of references by name to the dashboard's insights.
  expand: (entry) => (Array.isArray(entry.insights)
    ? { ...entry, insights: entry.insights.map((n) => (typeof n === 'string' ? { insight: { insight: n } } : n)) } : entry),
  normalizers: { target_value: target, start_date: instant, until_date: instant, insights: insightSet },
  unsetValues: { interval: 1, byweekday: null, bysetpos: null, count: null, until_date: null, enabled: true },
  // Live records as the file reads them: the target as written, exported insights as references.
  combine: (records) => records.map((r) => (isObj(r)
    ? { ...asWritten(r), ...(Array.isArray(r.dashboard_export_insights) && r.dashboard_export_insights.length > 0 ? { insights: r.dashboard_export_insights.map((id) => ({ insight: id })) } : {}) }
    : r)),
  companions: () => [],
  exported: (record: LiveRecord, data) => {
    // Export reads the integrations after the records (prepareExport): a Slack one is named here.
    const integration = record.target_type === 'slack' ? asWritten(record).integration : undefined;
    const named = integration === undefined ? data : { ...data, integration };
    return Array.isArray(named.insights)
      ? { ...named, insights: named.insights.map((i) => (isObj(i) && isObj(i.insight) ? i.insight.insight : isObj(i) ? i.insight : i)) } : named;
  },
  createStatuses: [201],
  deleteStatuses: [200],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key,
  // Under one dashboard or insight; in a plan, the project's one list (every subject), split by subject.
  collectionPath: (s) => (s.parent ? `${base(s)}?${subjectOf(s)}=${encodeURIComponent(String(s.parent.id ?? ''))}` : base(s)),
  listedPerProject: (r) => (r.dashboard !== null && r.dashboard !== undefined ? { kind: 'dashboard', id: r.dashboard as number }
    : r.insight !== null && r.insight !== undefined ? { kind: 'insight', id: r.insight as number } : undefined),
  parentFixed: 'the API fixes a subscription\'s dashboard or insight at create',
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as number,
  isGone: (r) => r.deleted === true,
  createCall: (s, title, values) => ({ method: 'POST', path: base(s), body: { ...body(values, s), title, [subjectOf(s)]: s.parent?.id } }),
  updateCall: (s, id, values) => ({ method: 'PATCH', path: subscription.itemPath(s, id), body: body(values, s) }),
  validateEntry,
  prepare: (items, port) => prepareSlack(items, port),
  prepareExport: prepareSlackExport,
  prepareSends: prepareSlackSends,
  deleteCall: (s, id) => ({ method: 'PATCH', path: subscription.itemPath(s, id), body: { deleted: true } }),
  annotate,
  check,
  describeField,
  activity: { scopes: ['Subscription'], log: 'parent' },
};
