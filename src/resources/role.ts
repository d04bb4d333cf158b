// Roles: identity = name, unique case-insensitively, so a role whose name differs only in
// case is the same role (its name is updated).
import type { ResourceKind, Scope } from './kind.js';
import { fieldsFromSchema } from './schema-fields.js';

const base = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/roles/`;

export const role: ResourceKind = {
  name: 'role',
  configKey: 'roles',
  pruneKey: 'roles',
  identityField: 'name',
  parent: 'organization',
  read: 'list',
  canCreate: true,
  // `name` is managed too: it is how a change of case reaches the API.
  fields: { name: { compare: 'plain', sensitive: false }, ...fieldsFromSchema('role', ['name']) },
  createStatuses: [200, 201],
  deleteStatuses: [200, 204],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key.toLowerCase(),
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as string,
  isGone: () => false,
  createCall: (s, key, fields) => ({ method: 'POST', path: base(s), body: { ...fields, name: key } }),
  updateCall: (s, id, fields) => ({ method: 'PATCH', path: role.itemPath(s, id), body: fields }),
  deleteCall: (s, id) => ({ method: 'DELETE', path: role.itemPath(s, id) }),
};
