// Roles: identity = name, unique case-insensitively, so a role whose name differs only in
// case is the same role (its name is updated).
import type { LiveRecord, ResourceKind, Scope } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';

const base = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/roles/`;
// `name` is managed too: it is how a change of case reaches the API.
const fields = lazy(() => ({ name: { compare: 'plain' as const, sensitive: false }, ...fieldsFromSchema('role', ['name']) }));

/** How many members a live role has: the list embeds them (the OpenAPI types it as a JSON string). */
function membersOf(record: LiveRecord | undefined): number | undefined {
  let members = record?.members;
  if (typeof members === 'string') {
    try {
      members = JSON.parse(members) as unknown;
    } catch {
      return undefined;
    }
  }
  return Array.isArray(members) ? members.length : undefined;
}

export const role: ResourceKind = {
  name: 'role',
  configKey: 'roles',
  apiScope: 'organization',
  prunable: true,
  identityField: 'name',
  parent: 'organization',
  read: 'list',
  canCreate: true,
  renamable: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  createStatuses: [200, 201],
  deleteStatuses: [200, 204],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key.toLowerCase(),
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as string,
  isGone: () => false,
  deleteNote: (r) => {
    const count = membersOf(r);
    const members = count === undefined ? 'its members from it' : `its ${count} membership${count === 1 ? '' : 's'}`;
    return `deleting a role also removes ${members} and every access grant made through it`;
  },
  createCall: (s, key, values) => ({ method: 'POST', path: base(s), body: { ...values, name: key } }),
  updateCall: (s, id, values) => ({ method: 'PATCH', path: role.itemPath(s, id), body: values }),
  deleteCall: (s, id) => ({ method: 'DELETE', path: role.itemPath(s, id) }),
  // An organization's entries: they show in every project's log of the organization.
  activity: { scopes: ['Role'], log: 'organization' },
  // Attribution reads a role's entries, but the log is no change feed of roles: organization
  // entries reach a project's log only where it receives organization-level activity, and
  // membership changes are never logged as the role's.
  unlogged: 'the activity log does not record every change of a role (its members, its access grants)',
};
