// Feature flags of a project: identity = key. DELETE answers 405 on the real API, so a flag
// is deleted with PATCH {"deleted": true}; deleted flags still listed are ignored.
import type { ResourceKind, Scope } from './kind.js';
import { fieldsFromSchema } from './schema-fields.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/feature_flags/`;

export const featureFlag: ResourceKind = {
  name: 'feature_flag',
  configKey: 'feature_flags',
  pruneKey: 'feature_flags',
  identityField: 'key',
  parent: 'project',
  read: 'list',
  canCreate: true,
  fields: fieldsFromSchema('feature_flag', ['key']),
  // Inside `filters`: defaults the API fills in when a file leaves them out (ignored while
  // empty), and values it computes (always ignored).
  serverAddedKeys: { filters: ['payloads', 'multivariate', 'aggregation_group_type_index', 'groups[].variant', 'groups[].aggregation_group_type_index'] },
  computedKeys: { filters: ['groups[].sort_key', 'groups[].users_affected'] },
  createStatuses: [200, 201],
  deleteStatuses: [200],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key,
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as number,
  isGone: (r) => r.deleted === true,
  createCall: (s, key, fields) => ({ method: 'POST', path: base(s), body: { ...fields, key } }),
  updateCall: (s, id, fields) => ({ method: 'PATCH', path: featureFlag.itemPath(s, id), body: fields }),
  deleteCall: (s, id) => ({ method: 'PATCH', path: featureFlag.itemPath(s, id), body: { deleted: true } }),
};
