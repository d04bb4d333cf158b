// Event definitions: the data dictionary of a project (`description`, `tags`, `verified`,
// `hidden` of each event). A definition exists once an event of that name has arrived, so
// hogsync only updates them: a declared name with no live definition is a plan error, undeclared
// definitions are neither listed nor pruned, and `ensure: absent` is refused by validate. A busy
// project holds thousands, so each declared one is read by its name (the list's `search`),
// never by listing them all. The fields need the organization's data-management feature: a field
// the API does not return is warned about once, as any field the API does not keep.
import type { ResourceKind, Scope } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { normalizeTags } from '../tags.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/event_definitions/`;
const fields = lazy(() => fieldsFromSchema('event_definition', ['name']));

export const eventDefinition: ResourceKind = {
  name: 'event_definition',
  configKey: 'event_definitions',
  apiScope: 'event_definition',
  prunable: false,
  identityField: 'name',
  parent: 'project',
  shared: true,
  read: 'search',
  searchQuery: (name) => `search=${encodeURIComponent(name)}`,
  canCreate: false,
  notCreated: 'an event definition exists once an event of that name has arrived; hogsync only updates definitions',
  canDelete: false,
  listsUnmanaged: false,
  exportedByDefault: false,
  unsetValues: { description: null, tags: [], verified: false, hidden: false },
  // Only definitions that say something: the rest hold no configuration.
  exportable: (r) => (typeof r.description === 'string' && r.description !== '') || (Array.isArray(r.tags) && r.tags.length > 0) || r.verified === true || r.hidden === true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  normalizers: { tags: normalizeTags },
  createStatuses: [201],
  deleteStatuses: [204],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key,
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as string,
  isGone: () => false,
  createCall: () => { throw new Error('event definitions are never created by hogsync'); },
  updateCall: (s, id, values) => ({ method: 'PATCH', path: eventDefinition.itemPath(s, id), body: values }),
  deleteCall: () => { throw new Error('event definitions are never deleted by hogsync'); },
  activity: { scopes: ['EventDefinition'], log: 'parent' },
};
