// Early access features of a project: identity = the key of the feature's flag (`PROJECT/KEY`).
// Deleted with a hard DELETE (the flag stays). What the real API does to them that hogsync must
// meet (products/early_access_features/backend/api.py: EarlyAccessFeatureSerializer,
// EarlyAccessFeatureSerializerCreateOnly, EarlyAccessFeatureViewSet), and how this kind meets it:
//   - the path is singular (`/early_access_feature/`), ids are UUIDs;
//   - `feature_flag_id` is taken on create only; without it the API makes a flag of its own, keyed
//     by the slug of the name. hogsync always names the flag: the identity is its key, declared or
//     live in the same project (impliedFields: `feature_flag_id` as `{ feature_flag: KEY }`, a
//     reference resolved as any other, so the flag is created first when the files declare it);
//   - the flag must be boolean, not group-based, and back no other feature (400): the first two are
//     refused offline where the files declare the flag (the flag kind's refusesReference), the
//     third is the API's (the identity makes two declared features on one flag a duplicate);
//   - the stage writes enrollment keys into the flag's filters (`feature_enrollment`, older
//     `super_groups`): server-owned, ignored by the flag kind, never drift there;
//   - a concept feature may get a waitlist survey, its id in `payload.survey_id`: never compared,
//     kept when the payload is written, and the survey is never pruned (the survey kind's heldBy);
//   - the flag's `features` lists the feature: the flag is held, never pruned;
//   - `assignee` is `{type: user, id: USER_ID}` or `{type: role, id: ROLE_UUID}` (null: no one), checked
//     to be of the organization: the file names a member by email or a role by name, translated with
//     the organization's members and roles (companions); the API assigns a new feature to its creator.
import type { Companions, LiveRecord, ResourceKind, Scope, ScopeCheck, ScopeView } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { restCollection } from '../rest-collection.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/early_access_feature/`;
const schemaFields = lazy(() => ({
  ...fieldsFromSchema('early_access_feature', ['feature_flag']),
  // Named by the identity, sent on create only (the API ignores it later).
  feature_flag_id: { compare: 'plain' as const, sensitive: false, createOnly: true },
}));

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The flag's key: the identity, on a live record inside its `feature_flag` object. A live feature
 * whose flag is gone (the API answers null) is named by its id, so one such record never stops a
 * plan: no file can declare it, so it is unmanaged.
 */
function flagKeyOf(entry: Readonly<Obj>): unknown {
  const flag = entry.feature_flag;
  if (isObj(flag)) return flag.key;
  if ((flag === null || flag === undefined) && typeof entry.id === 'string' && 'stage' in entry) return `no-flag-${entry.id}`;
  return flag;
}

/** The payload as the request carries it: the API's waitlist survey kept (it replaces the payload whole). */
function request(values: Obj, live: LiveRecord | undefined): Obj {
  const body: Obj = { ...values };
  const surveyId = isObj(live?.payload) ? (live.payload as Obj).survey_id : undefined;
  if (isObj(body.payload) && surveyId !== undefined && !('survey_id' in body.payload)) body.payload = { ...body.payload, survey_id: surveyId };
  return body;
}

interface Directory { emailOf: Map<number, string>; userOf: Map<string, number>; roleName: Map<string, string>; roleId: Map<string, string> }

/** Members (by user id and email) and roles (by id and name), from the companions' answers. */
function directory(companions: Companions): Directory {
  const dir: Directory = { emailOf: new Map(), userOf: new Map(), roleName: new Map(), roleId: new Map() };
  for (const m of Array.isArray(companions.members) ? companions.members : []) {
    const user = isObj(m) && isObj(m.user) ? m.user : undefined;
    if (user && typeof user.id === 'number' && typeof user.email === 'string') {
      dir.emailOf.set(user.id, user.email);
      dir.userOf.set(user.email.toLowerCase(), user.id);
    }
  }
  for (const r of Array.isArray(companions.roles) ? companions.roles : []) {
    if (isObj(r) && typeof r.id === 'string' && typeof r.name === 'string') {
      dir.roleName.set(r.id, r.name);
      dir.roleId.set(r.name.toLowerCase(), r.id);
    }
  }
  return dir;
}

/** The API's `{type, id}` as a file writes it: a member's email, `{ role: NAME }` (left as answered where unknown). */
function assigneeAsWritten(value: unknown, dir: Directory): unknown {
  if (!isObj(value)) return value ?? null;
  if (value.type === 'user' && typeof value.id === 'number') return dir.emailOf.get(value.id) ?? value;
  if (value.type === 'role' && typeof value.id === 'string') {
    const name = dir.roleName.get(value.id);
    return name === undefined ? value : { role: name };
  }
  return value;
}

/** A declared assignee as the API takes it, or undefined where the directory does not know it. */
function assigneeAsSent(value: unknown, dir: Directory): unknown {
  if (value === null) return null;
  if (typeof value === 'string') {
    const id = dir.userOf.get(value.toLowerCase());
    return id === undefined ? undefined : { type: 'user', id };
  }
  if (isObj(value) && typeof value.role === 'string') {
    const id = dir.roleId.get(value.role.toLowerCase());
    return id === undefined ? undefined : { type: 'role', id };
  }
  return undefined;
}

/** Plan-time: the API refuses a feature without a name or a stage, and an assignee it does not know. */
function check(view: ScopeView): ScopeCheck {
  const companions = view.meta?.companions as Companions | undefined;
  const declaresAssignee = view.items.some((i) => i.ensure === 'present' && i.fields.assignee !== undefined && i.fields.assignee !== null);
  if (declaresAssignee && companions) {
    const dir = directory(companions);
    for (const item of view.items) {
      const assignee = item.fields.assignee;
      if (item.ensure !== 'present' || assignee === undefined || assignee === null || assigneeAsSent(assignee, dir) !== undefined) continue;
      const what = typeof assignee === 'string' ? `no member of the organization has the email ${assignee}` : `the organization has no role named "${String((assignee as Obj).role)}"`;
      return { error: `early access feature "${item.key}": assignee: ${what} (the API refuses an assignee outside the organization)`, errorAt: item.position };
    }
  }
  for (const c of view.changes) {
    if (c.action !== 'create') continue;
    const missing = ['name', 'stage'].filter((f) => c.values[f] === undefined);
    if (missing.length > 0) {
      return {
        error: `${c.address}: the plan creates this early access feature, and the API requires its ${missing.join(' and ')}: declare ${missing.length > 1 ? 'them' : 'it'}`,
        errorAt: view.items.find((i) => i.key === c.identity)?.position,
      };
    }
  }
  return {};
}

export const earlyAccessFeature: ResourceKind = {
  name: 'early_access_feature',
  configKey: 'early_access_features',
  prunable: true,
  identityField: 'feature_flag',
  parent: 'project',
  shared: true,
  read: 'list',
  canCreate: true,
  get fields() { return schemaFields(); },
  sandbox: () => import('./sandbox.js'),
  identityOf: flagKeyOf,
  impliedFields: (key) => ({ feature_flag_id: { feature_flag: key } }),
  references: [{ field: 'feature_flag_id', path: '', key: '', kind: 'feature_flag' }],
  // The waitlist survey the API makes for a concept feature is its own.
  computedKeys: { payload: ['survey_id'] },
  unsetValues: { description: '', documentation_url: '', payload: {}, assignee: null },
  // Emails compare without regard to case (the API keeps them as the member signed up).
  normalizers: { assignee: (v) => (typeof v === 'string' ? v.toLowerCase() : v ?? null) },
  check,
  // The assignee is a member (by email) or a role (by name): the organization's lists name them.
  companions: (s) => [
    { name: 'members', path: `/api/organizations/${encodeURIComponent(s.organization)}/members/`, optional: true },
    { name: 'roles', path: `/api/organizations/${encodeURIComponent(s.organization)}/roles/`, optional: true },
  ],
  combine: (records, companions) => {
    const dir = directory(companions);
    return records.map((r) => (isObj(r) && isObj(r.assignee) ? { ...r, assignee: assigneeAsWritten(r.assignee, dir) } : r));
  },
  requestValues: (values, companions) => {
    if (!('assignee' in values)) return values;
    const sent = assigneeAsSent(values.assignee, directory(companions));
    return { ...values, assignee: sent === undefined ? values.assignee : sent };
  },
  ...restCollection({ base, deletes: 'hard', body: request }),
  deleteNote: () => 'deleting an early access feature keeps its flag (the API removes the enrollment keys from its filters) and forgets who opted in',
  activity: { scopes: ['EarlyAccessFeature'], log: 'parent' },
  explainFailure: (op, message) => (op === 'create' && /already has a feature attached/i.test(message)
    ? `${message} — another early access feature uses the flag (one this key may not see, or one the files do not declare in this project): a flag backs one feature (not retried)`
    : undefined),
};
