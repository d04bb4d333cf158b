// Subscriptions of a dashboard or an insight: identity = title within it; deleted with PATCH
// {"deleted": true}. What the real API does to subscriptions that hogsync must meet
// (posthog/api/subscription.py, posthog/models/subscription.py, ee/tasks/subscriptions/):
//   - `target_value` is one comma-separated string of emails: the file writes a list, compared
//     as a set; `start_date` and `until_date` are read back in another ISO form: compared as instants;
//   - `dashboard_export_insights` (1–6 insights of the dashboard, by id) is written `insights:` by name;
//   - the subject (`dashboard` or `insight`, the item it sits under) is fixed at create: a subscription
//     that moves is deleted and created (its address names the subject's kind: a new address);
//   - creating an enabled subscription, and a PATCH of its recipients, target, subject or exported
//     insights, or re-enabling it, sends a delivery at once: the plan says so beside the change
//     (`sends_delivery`), and an added recipient (one who unsubscribed) is invited again;
//   - a recipient's unsubscribe link removes their email (the last one deletes the subscription):
//     drift, attributed from the activity log (scope `Subscription`).
import type { ChangeAnnotations, DescribedLine, PreviewInput, ResourceKind, Scope, ScopeCheck, ScopeView } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/subscriptions/`;
const fields = lazy(() => fieldsFromSchema('subscription', ['title']));
/** The subject the subscription sits under, as the API's field names it: `dashboard` or `insight`. */
const subjectOf = (s: Scope): 'dashboard' | 'insight' => (s.parent?.kind === 'insight' ? 'insight' : 'dashboard');

/** Changes of these fields make the API deliver at once (SubscriptionSerializer.update → deliver_subscription_report). */
const DELIVERING = ['target_value', 'target_type', 'insights'];

/** Recipients as the plan compares them: lower-cased emails, a set (the API's comma-separated string too). */
export function recipients(value: unknown): string[] | unknown {
  const list = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(list)) return value;
  return [...new Set(list.map((e) => String(e).trim().toLowerCase()).filter((e) => e !== ''))].sort();
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

/** The request body: recipients comma-separated, exported insights by id. */
function body(values: Obj): Obj {
  const { insights, ...rest } = values;
  if (Array.isArray(rest.target_value)) rest.target_value = rest.target_value.join(',');
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
  if (input.action === 'update' && input.changed.includes('target_value')) {
    const before = new Set(recipients(input.live?.target_value) as string[]);
    const added = (recipients(input.values.target_value) as string[]).filter((e) => !before.has(e));
    if (added.length > 0) out.notes = [`adds ${added.join(', ')} to the recipients: the API sends each of them the subscription, which invites again anyone who unsubscribed`];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The exported insights and the recipients as a reviewer reads them: names added and removed. */
function describeField(path: string, before: unknown, after: unknown): DescribedLine[] | undefined {
  if (path !== 'insights' && path !== 'target_value') return undefined;
  const names = (v: unknown): string[] => (path === 'target_value' ? (recipients(v) as string[] | undefined) ?? []
    : Array.isArray(v) ? v.map((i) => String(isObj(i) ? (isObj(i.insight) ? i.insight.insight ?? i.insight.id : i.insight) : i)) : []);
  const [was, now] = [names(before), names(after)];
  const what = path === 'insights' ? 'insight' : 'recipient';
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
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  references: [{ field: 'insights', path: '[]', key: 'insight', kind: 'insight' }],
  // `insights: [NAME]` is a list of references by name to the dashboard's insights.
  expand: (entry) => (Array.isArray(entry.insights)
    ? { ...entry, insights: entry.insights.map((n) => (typeof n === 'string' ? { insight: { insight: n } } : n)) } : entry),
  normalizers: { target_value: recipients, start_date: instant, until_date: instant, insights: insightSet },
  unsetValues: { interval: 1, byweekday: null, bysetpos: null, count: null, until_date: null, enabled: true },
  // Live records as the file reads them: recipients as a list, exported insights as references.
  combine: (records) => records.map((r) => (isObj(r)
    ? { ...r, target_value: recipients(r.target_value), ...(Array.isArray(r.dashboard_export_insights) && r.dashboard_export_insights.length > 0 ? { insights: r.dashboard_export_insights.map((id) => ({ insight: id })) } : {}) }
    : r)),
  companions: () => [],
  exported: (_record, data) => (Array.isArray(data.insights)
    ? { ...data, insights: data.insights.map((i) => (isObj(i) && isObj(i.insight) ? i.insight.insight : isObj(i) ? i.insight : i)) } : data),
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
  createCall: (s, title, values) => ({ method: 'POST', path: base(s), body: { ...body(values), title, [subjectOf(s)]: s.parent?.id } }),
  updateCall: (s, id, values) => ({ method: 'PATCH', path: subscription.itemPath(s, id), body: body(values) }),
  deleteCall: (s, id) => ({ method: 'PATCH', path: subscription.itemPath(s, id), body: { deleted: true } }),
  annotate,
  check,
  describeField,
  activity: { scopes: ['Subscription'], log: 'parent' },
};
