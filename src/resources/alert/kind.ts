// Alerts of an insight: identity = name within the insight; hard DELETE. What the real API does to
// alerts that hogsync must meet (posthog/api/alert.py, posthog/models/alert.py):
//   - writes take `insight` and `subscribed_users` as ids; reads answer both as objects and the
//     threshold with its own id: fields are compared as the API keeps them (users by email, the
//     threshold by its configuration only);
//   - `subscribed_users` are members' emails in the file, resolved through the organization's
//     members (read beside the alerts); an email that is not a member is a plan error at the alert;
//   - only changed fields are sent: a threshold or condition write resets the alert's state;
//   - the list filters by `insight`: one list per declared insight;
//   - the organization's plan without the alerts feature allows two alerts (checked at plan time),
//     and older versions served alerts to no personal key (403 for every scope: a plan error).
import type { Companions, PrepareContext, PreparedCreate, ResourceKind, Scope, ScopeCheck, ScopeView } from '../kind.js';
import { emailOf } from '../member/kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const organization = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/`;
const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/alerts/`;
const fields = lazy(() => fieldsFromSchema('alert', ['name']));

/** Without the organization's `alerts` feature, a project may hold this many (AlertConfiguration.ALERTS_ALLOWED_ON_FREE_TIER). */
export const ALERTS_WITHOUT_FEATURE = 2;
/** Where the API's ids of the organization's members travel with a change: never a field, never shown. */
const MEMBER_IDS = '\u0000member_ids';

/** Users as the plan compares them: lower-cased emails, as a set (objects as the API reads them back). */
function normalizeUsers(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return [...new Set(value.map((u) => String(isObj(u) ? u.email : u).toLowerCase()))].sort();
}

/** A threshold as the plan compares it: its configuration only (the API adds id, name, timestamps); none = {}. */
function normalizeThreshold(value: unknown): unknown {
  if (value === null || value === undefined) return {};
  if (!isObj(value)) return value;
  return isObj(value.configuration) ? { configuration: value.configuration } : {};
}

/** The organization's members, by lower-cased email → user id. */
function memberIds(companions: Companions): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of Array.isArray(companions.members) ? companions.members : []) {
    if (!isObj(m) || !isObj(m.user) || typeof m.user.id !== 'number') continue;
    const email = emailOf(m);
    if (typeof email === 'string') out[email.toLowerCase()] = m.user.id;
  }
  return out;
}

/** The request body: users by id, the insight by id, the ids' table left out. */
function body(values: Obj, ids: unknown): Obj {
  const { [MEMBER_IDS]: _ids, ...rest } = values;
  const table = isObj(ids) ? ids : {};
  if (Array.isArray(rest.subscribed_users)) rest.subscribed_users = rest.subscribed_users.map((e) => table[String(e).toLowerCase()] ?? e);
  return rest;
}

/** The organization's alert limit without its `alerts` feature, counted over the project before anything is sent. */
function limitError(view: ScopeView, companions: Companions): ScopeCheck | undefined {
  const org = companions.organization;
  if (!isObj(org) || !Array.isArray(org.available_product_features) || !Array.isArray(companions.project_alerts)) return undefined;
  if (org.available_product_features.some((f) => (isObj(f) ? f.key : f) === 'alerts')) return undefined;
  const creates = view.changes.filter((c) => c.action === 'create');
  const after = companions.project_alerts.length + creates.length - view.changes.filter((c) => c.action === 'delete').length;
  if (creates.length === 0 || after <= ALERTS_WITHOUT_FEATURE) return undefined;
  const item = view.items.find((i) => i.key === creates[0]?.identity);
  return {
    error: `${creates.map((c) => c.address).join(', ')}: project ${String(view.scope.project)} would hold ${after} alerts, and organization ${view.scope.organization} does not have the alerts feature (alerts), `
      + `which allows ${ALERTS_WITHOUT_FEATURE} per project; nothing was sent: remove alerts from the files, or upgrade the organization's plan`,
    ...(item?.position ? { errorAt: item.position } : {}),
  };
}

/** Emails that are not members of the organization, and the organization's alert limit, before anything is sent. */
function check(view: ScopeView): ScopeCheck {
  const companions = (view.meta?.companions ?? {}) as Companions;
  const limit = limitError(view, companions);
  if (limit) return limit;
  if (Array.isArray(companions.members)) {
    const ids = memberIds(companions);
    for (const item of view.items) {
      if (item.ensure !== 'present' || !Array.isArray(item.fields.subscribed_users)) continue;
      const stranger = item.fields.subscribed_users.find((e) => ids[String(e).toLowerCase()] === undefined);
      if (stranger !== undefined) {
        return { error: `alert "${item.key}": subscribed_users: ${String(stranger)} is not a member of the organization: alerts tell members only (invite them under members first, or correct the email)`, ...(item.position ? { errorAt: item.position } : {}) };
      }
    }
  }
  return {};
}

function prepareCreate(_key: string, { companions }: PrepareContext): PreparedCreate {
  return { values: { [MEMBER_IDS]: memberIds(companions) } };
}

export const alert: ResourceKind = {
  name: 'alert',
  configKey: 'alerts',
  prunable: false,
  identityField: 'name',
  parent: 'insight',
  read: 'list',
  // Written with their insight: only when --kind names insights.
  exportedByDefault: false,
  canCreate: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  normalizers: { subscribed_users: normalizeUsers, threshold: normalizeThreshold },
  // A live record's users as the file writes them (emails); its insight and threshold id are the API's.
  exported: (_record, data) => ({
    ...data,
    ...(Array.isArray(data.subscribed_users) ? { subscribed_users: normalizeUsers(data.subscribed_users) } : {}),
    ...('threshold' in data ? { threshold: normalizeThreshold(data.threshold) } : {}),
  }),
  unsetValues: { skip_weekend: false },
  createStatuses: [201],
  deleteStatuses: [204],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key,
  // The list filters by insight; a plan reads the project's one list (its limit counts them all), split by insight.
  collectionPath: (s) => (s.parent ? `${base(s)}?insight=${encodeURIComponent(String(s.parent.id ?? ''))}` : base(s)),
  listedPerProject: (r) => {
    const insight = isObj(r.insight) ? r.insight.id : r.insight;
    return typeof insight === 'number' || typeof insight === 'string' ? { kind: 'insight', id: insight } : undefined;
  },
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  companions: (s) => [
    { name: 'members', path: `${organization(s)}members/` },
    // The limit without the alerts feature counts every alert of the project.
    { name: 'organization', path: organization(s), one: true },
    { name: 'project_alerts', path: base(s), optional: true },
  ],
  // A key that only lacks the scope is told so by the API's own words (the generic advice names the scope).
  refusedRead: (status, message) => (status === 403 && !/scope/i.test(message)
    ? 'the API refuses alerts to this personal API key (403): older PostHog versions served alerts to no personal API key, whatever its scopes (newer ones take the alert:read and alert:write scopes). '
      + 'Upgrade the instance, or take the alerts out of the files and manage them in the web app'
    : undefined),
  // Each record carries the organization's ids of members: an update sends users by id.
  combine: (records, companions) => {
    const ids = memberIds(companions);
    return records.map((r) => (isObj(r) ? Object.defineProperty({ ...r }, MEMBER_IDS, { value: ids, enumerable: false }) : r));
  },
  liveId: (r) => r.id as string,
  isGone: () => false,
  prepareCreate,
  createCall: (s, name, values) => ({
    method: 'POST', path: base(s),
    body: { subscribed_users: [], ...body(values, values[MEMBER_IDS]), name, insight: s.parent?.id },
  }),
  updateCall: (s, id, values, live) => ({ method: 'PATCH', path: alert.itemPath(s, id), body: body(values, live?.[MEMBER_IDS]) }),
  deleteCall: (s, id) => ({ method: 'DELETE', path: alert.itemPath(s, id) }),
  check,
  activity: { scopes: ['AlertConfiguration'], log: 'parent' },
};
