// Projects: adopted by id, read one GET each (their list carries only basic fields), updated by
// PATCH, never created; deleting one needs the command line to name it. They hold feature flags.
import type { ResourceKind, Scope } from './kind.js';
import { fieldsFromSchema, lazy } from './schema.js';

const base = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/projects/`;
const fields = lazy(() => fieldsFromSchema('project', ['id']));

export const project: ResourceKind = {
  name: 'project',
  configKey: 'projects',
  prunable: false,
  identityField: 'id',
  parent: 'organization',
  read: 'get',
  canCreate: false,
  notCreated: 'projects are adopted by id, never created',
  deleteNeedsAllow: true,
  get fields() { return fields(); },
  createStatuses: [201],
  deleteStatuses: [204],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key,
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as number,
  // Project deletion is asynchronous: a project pending deletion is gone for hogsync.
  isGone: (r) => r.is_pending_deletion === true,
  createCall: () => { throw new Error('projects are adopted by id and never created'); },
  updateCall: (s, id, values) => ({ method: 'PATCH', path: project.itemPath(s, id), body: values }),
  deleteCall: (s, id) => ({ method: 'DELETE', path: project.itemPath(s, id) }),
  // Its settings are logged under Team, its own fields (name, product_description) under Project.
  activity: { scopes: ['Team', 'Project'], log: 'self' },
};
