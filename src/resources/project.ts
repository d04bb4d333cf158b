// Projects: adopted by id, read one GET each, updated by PATCH, never created.
import type { ResourceKind, Scope } from './kind.js';
import { fieldsFromSchema } from './schema-fields.js';

const base = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/projects/`;

export const project: ResourceKind = {
  name: 'project',
  configKey: 'projects',
  identityField: 'id',
  parent: 'organization',
  read: 'get',
  canCreate: false,
  fields: fieldsFromSchema('project', ['id', 'feature_flags']),
  createStatuses: [201],
  deleteStatuses: [204],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key,
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as number,
  isGone: () => false,
  createCall: () => { throw new Error('projects are adopted by id and never created'); },
  updateCall: (s, id, fields) => ({ method: 'PATCH', path: project.itemPath(s, id), body: fields }),
  deleteCall: (s, id) => ({ method: 'DELETE', path: project.itemPath(s, id) }),
};
