// A role's members: written as a list of emails inside the role, which is the role's whole
// membership (missing emails are added, others removed). The API adds a member by their user's
// uuid (POST role_memberships/ {user_uuid}) and removes a membership by its own id; there is no
// update. An email that is only invited waits for the invite to be accepted (a note); one that is
// neither a member nor declared under `members` is an error at its line.
import type { PrepareContext, PreparedCreate, ResourceKind, Scope } from '../kind.js';
import { emailOf, nearestEmail, openInvites, userUuidOf } from '../member/kind.js';

const organization = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/`;
const base = (s: Scope) => `${organization(s)}roles/${encodeURIComponent(String(s.parent?.id ?? ''))}/role_memberships/`;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function prepareCreate(key: string, { companions, declared, declaredKeys }: PrepareContext): PreparedCreate {
  const email = key.toLowerCase();
  const members = Array.isArray(companions.members) ? companions.members : [];
  const found = members.find((m) => isObject(m) && String(emailOf(m)).toLowerCase() === email);
  const uuid = isObject(found) ? userUuidOf(found) : undefined;
  if (typeof uuid === 'string') return { values: { user_uuid: uuid } };
  const invited = openInvites(members, companions.invites).some((i) => i.is_expired !== true && String(i.target_email).toLowerCase() === email);
  if (invited || declared('member', key)) return { wait: `waiting for ${key} to accept the invite (added to the role once they join)` };
  return { error: `${key} is not a member of the organization and no file declares it under members: ${nearestEmail(key, members, declaredKeys?.('member') ?? [])}add it under members (the plan invites it), or correct the email` };
}

export const roleMembership: ResourceKind = {
  name: 'role_membership',
  label: 'role membership',
  configKey: 'members',
  apiScope: 'organization',
  prunable: false,
  identityField: 'email',
  parent: 'role',
  identityList: true,
  wholeList: true,
  read: 'list',
  canCreate: true,
  fields: {},
  identityOf: (r) => (isObject(r.user) ? r.user.email : r.email),
  createStatuses: [200, 201],
  deleteStatuses: [204],
  displayKey: (raw) => String(raw).trim(),
  matchKey: (key) => key.toLowerCase(),
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  companions: (s) => [{ name: 'members', path: `${organization(s)}members/` }, { name: 'invites', path: `${organization(s)}invites/` }],
  liveId: (r) => r.id as string,
  isGone: () => false,
  prepareCreate,
  requires: (key) => ({ kind: 'member', key }),
  createCall: (s, _key, values) => ({ method: 'POST', path: base(s), body: { user_uuid: values.user_uuid } }),
  // Memberships have no field to change: nothing ever plans an update.
  updateCall: (s, id) => ({ method: 'PATCH', path: roleMembership.itemPath(s, id), body: {} }),
  deleteCall: (s, id) => ({ method: 'DELETE', path: roleMembership.itemPath(s, id) }),
  unlogged: 'the activity log does not record role memberships',
};
