// Projects: adopted by id, or declared by name (the live project of that name, else one the plan
// creates: POST /api/organizations/{org}/projects/, which makes it the key owner's current
// project); read one GET each (their list carries only basic fields), updated by PATCH; deleting
// one needs the command line to name it. They hold feature flags and the other project kinds.
// The API keeps project names unique within an organization, trimmed and without regard to case
// (409 on a duplicate): apply renames a project that frees a name before the one that takes it;
// a cycle of renames (two projects swapping names), a rename onto a name another project keeps,
// and two renames to one name are refused at plan time.
import type { ChangeView, LiveRecord, ResourceKind, Scope, ScopeCheck, ScopeView } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';

const base = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/projects/`;
const fields = lazy(() => fieldsFromSchema('project', ['id']));

export const project: ResourceKind = {
  name: 'project',
  configKey: 'projects',
  apiScope: 'project',
  prunable: false,
  identityField: 'id',
  parent: 'organization',
  projectKind: true,
  read: 'get',
  canCreate: true,
  creatable: (key) => !isId(key),
  nameField: 'name',
  identityOf: (entry) => entry.id ?? entry.name,
  createRefusal,
  notCreated: 'a project declared by id is adopted, never created (declare it by `name`, without `id`, to create it)',
  deleteNeedsAllow: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  createStatuses: [201],
  deleteStatuses: [204],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key.toLowerCase(),
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as number,
  // Project deletion is asynchronous: a project pending deletion is gone for hogsync.
  isGone: (r) => r.is_pending_deletion === true,
  // Another run (or the web app) started deleting it since the plan read it: it goes by itself.
  waitFor: (action, message, status) => (action === 'delete' && status === 400 && /already being deleted/i.test(message)
    ? 'the project is already being deleted: once the API has finished, it is gone and a plan shows nothing to do' : undefined),
  createCall: (s, key, values) => ({ method: 'POST', path: base(s), body: { ...values, name: values.name ?? key } }),
  created: (record, name) => ({
    fields: {},
    notes: [`project "${name}" created with id ${String(record.id)} (the API made it the key owner's current project); declare \`id: ${String(record.id)}\` to pin it`],
  }),
  updateCall: (s, id, values) => ({ method: 'PATCH', path: project.itemPath(s, id), body: values }),
  deleteCall: (s, id) => ({ method: 'DELETE', path: project.itemPath(s, id) }),
  // Its settings are logged under Team, its own fields (name, product_description) under Project.
  activity: { scopes: ['Team', 'Project'], log: 'self' },
  order: (changes) => renameOrder(changes).map(([taker, freer]) => [freer.address, taker.address]),
  check: checkRenames,
};

/** Whether a project's key is its id (declared by id), not a name (declared by name, maybe to create). */
const isId = (key: string) => /^\d+$/.test(key);

/** The API's refusal of a second project where the organization's plan allows one (PremiumMultiProjectPermission). */
function createRefusal(organization: LiveRecord, live: readonly LiveRecord[]): string | undefined {
  const features = Array.isArray(organization.available_product_features) ? organization.available_product_features : undefined;
  if (!features || live.length === 0) return undefined;
  const keys = new Set(features.map((f) => (f !== null && typeof f === 'object' ? (f as Record<string, unknown>).key : f)));
  return keys.has('organizations_projects') ? undefined
    : 'You have reached the maximum limit of allowed projects for your current plan. Upgrade your plan to be able to create and manage more projects.';
}

/** A name as the API compares it for uniqueness: trimmed, without regard to case. */
const nameKey = (name: unknown): string | undefined => (typeof name === 'string' ? name.trim().toLowerCase() : undefined);

/** The name a change frees: its live name, when it is deleted or renamed to another name. */
function freed(c: ChangeView): string | undefined {
  const before = nameKey(c.live?.name);
  if (before === undefined) return undefined;
  if (c.action === 'delete') return before;
  const after = nameKey(c.values.name);
  return after !== undefined && after !== before ? before : undefined;
}

/** The name a change takes from another project (a rename to a different name). */
function taken(c: ChangeView): string | undefined {
  if (c.action === 'delete') return undefined;
  const after = nameKey(c.values.name);
  return after !== undefined && after !== nameKey(c.live?.name) ? after : undefined;
}

/** Pairs [taker, freer]: the change that takes a name and the change that frees it first. */
function renameOrder(changes: readonly ChangeView[]): Array<[ChangeView, ChangeView]> {
  const freers = new Map<string, ChangeView>();
  for (const c of changes) {
    const name = freed(c);
    if (name !== undefined) freers.set(name, c);
  }
  const pairs: Array<[ChangeView, ChangeView]> = [];
  for (const c of changes) {
    const name = taken(c);
    const freer = name === undefined ? undefined : freers.get(name);
    if (freer && freer !== c) pairs.push([c, freer]);
  }
  return pairs;
}

/** Refuses a cycle of renames: each would take a name another still holds, so none could go first. */
function checkRenames(view: ScopeView): ScopeCheck {
  const next = new Map(renameOrder(view.changes));
  for (const start of next.keys()) {
    const path: ChangeView[] = [];
    let c: ChangeView | undefined = start;
    while (c && !path.includes(c)) {
      path.push(c);
      c = next.get(c);
    }
    if (c !== start) continue;
    const renames = path.map((p) => `${p.identity} "${String(p.live?.name).trim()}" → "${String(p.values.name).trim()}"`).join(', ');
    return { error: `projects ${path.map((p) => p.identity).join(' and ')} of organization ${view.scope.organization} swap names in a cycle (${renames}): the API keeps project names unique in an organization (trimmed, any case), so no rename of the cycle could go first; rename one to a free name in a separate apply first` };
  }
  const clash = nameClash(view);
  if (clash) return clash;
  // The API makes a project it creates the key owner's current one (the web app opens it next).
  const creates = view.changes.filter((c) => c.action === 'create');
  return creates.length === 0 ? {} : { warnings: creates.map((c) => `${c.address}: the API makes a project it creates the key owner's current project`) };
}

/**
 * A rename onto a name that stays taken: by a live project the plan does not rename away
 * (declared or not: the organization's list names them all), or by another rename of the plan.
 */
function nameClash(view: ScopeView): ScopeCheck | undefined {
  const unique = ' (the API keeps project names unique in an organization, trimmed and without regard to case)';
  const freedNames = new Set(view.changes.map(freed).filter((n) => n !== undefined));
  const takers = new Map<string, ChangeView>();
  for (const c of view.changes) {
    const name = taken(c);
    if (name === undefined) continue;
    const other = takers.get(name);
    if (other) return { error: `projects ${other.identity} and ${c.identity} of organization ${view.scope.organization} are both renamed to "${String(c.values.name).trim()}"${unique}` };
    takers.set(name, c);
    // A project created by name is one no live project has (else it would be that one): a holder
    // listed is one being deleted (the list does not say so), which may still hold the name or
    // not; the API's refusal, if any, is shown.
    if (freedNames.has(name) || c.action === 'create') continue;
    const holder = view.records.find((r) => r.id !== c.live?.id && nameKey(r.name) === name);
    if (holder) return { error: `project ${c.identity} of organization ${view.scope.organization} is renamed to "${String(c.values.name).trim()}", which project ${String(holder.id)} keeps${unique}: rename project ${String(holder.id)} in the same files, or choose another name` };
  }
  return undefined;
}
