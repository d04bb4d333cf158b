// A project's access controls (advanced permissions): who may use the project, and per resource
// type what each may do with it. A file writes them as one mapping under the project (`default`,
// `roles`, `members`, and `resources` with the same per resource type); each rule is one item,
// addressed `access:ORG/PROJECT/SUBJECT` (`default`, `role/NAME`, `member/EMAIL`, and the same
// after `RESOURCE/`). The API keeps them in two unpaginated lists (the project's own rules, and
// its resource rules) and writes one rule per PUT, keyed by resource, role and organization
// membership (the membership's id, not the user's uuid); `access_level: null` removes a rule.
// Rules a file does not write are untouched unless `prune.access` owns them.
import type { Companions, PrepareContext, PreparedCreate, ResourceKind, Scope, ScopeCheck, ScopeView, WrittenEntry } from '../kind.js';
import { suggest } from '../../config/suggest.js';
import { emailOf, nearestEmail, openInvites } from '../member/kind.js';

const PROJECT = 'project';
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const organization = (s: Scope) => `/api/organizations/${encodeURIComponent(s.organization)}/`;
const projectRules = (s: Scope) => `/api/projects/${String(s.project)}/access_controls/`;
const resourceRules = (s: Scope) => `/api/projects/${String(s.project)}/resource_access_controls/`;

/** One rule's place: its resource type and its subject (none = the default for everyone). */
interface Subject { resource: string; type: 'default' | 'role' | 'member'; name: string }

/** `role/Engineers`, `feature_flag/default`, … as the rule it names; undefined for a malformed key. */
export function subjectOf(key: string): Subject | undefined {
  const parts = key.split('/');
  const resource = parts[0] === 'default' || parts[0] === 'role' || parts[0] === 'member' ? PROJECT : parts.shift() as string;
  const type = parts.shift();
  const name = parts.join('/');
  if (type === 'default' && name === '') return { resource, type, name: '' };
  if ((type === 'role' || type === 'member') && name !== '') return { resource, type, name };
  return undefined;
}

function keyOf(subject: Subject): string {
  const own = subject.type === 'default' ? 'default' : `${subject.type}/${subject.name}`;
  return subject.resource === PROJECT ? own : `${subject.resource}/${own}`;
}

/** The rules a file writes under `access:`, each at its own place; a rule written null is removed. */
function entriesOf(value: unknown): WrittenEntry[] {
  if (!isObject(value)) return [];
  const out: WrittenEntry[] = [];
  const rules = (resource: string, block: Record<string, unknown>, at: ReadonlyArray<string>) => {
    const add = (subject: Subject, level: unknown, path: ReadonlyArray<string>) => {
      out.push({ entry: { subject: keyOf(subject), ...(level === null ? { ensure: 'absent' } : { level }) }, path });
    };
    if ('default' in block) add({ resource, type: 'default', name: '' }, block.default, [...at, 'default']);
    for (const type of ['roles', 'members'] as const) {
      const grants = block[type];
      if (!isObject(grants)) continue;
      for (const [name, level] of Object.entries(grants)) add({ resource, type: type === 'roles' ? 'role' : 'member', name }, level, [...at, type, name]);
    }
  };
  rules(PROJECT, value, []);
  if (isObject(value.resources)) {
    for (const [resource, block] of Object.entries(value.resources)) if (isObject(block)) rules(resource, block, ['resources', resource]);
  }
  return out;
}

/** The mapping a file writes for these rules (the inverse of entriesOf), and where each one sits. */
function writeEntries(entries: ReadonlyArray<Record<string, unknown>>): { value: unknown; paths: Array<Array<string | number>> } {
  const value: Record<string, unknown> = {};
  const paths: Array<Array<string | number>> = [];
  for (const entry of entries) {
    const subject = subjectOf(String(entry.subject));
    if (!subject) {
      paths.push([]);
      continue;
    }
    const at: Array<string | number> = subject.resource === PROJECT ? [] : ['resources', subject.resource];
    const path = subject.type === 'default' ? [...at, 'default'] : [...at, subject.type === 'role' ? 'roles' : 'members', subject.name];
    let node = value;
    for (const step of path.slice(0, -1)) node = (node[step] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1] as string] = entry.level ?? null;
    paths.push(path);
  }
  return { value: inFileOrder(value), paths };
}

/** A rules mapping with its keys in the schema's order (default, roles, members, resources). */
function inFileOrder(block: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['default', 'roles', 'members']) if (key in block) out[key] = block[key];
  if (isObject(block.resources)) out.resources = Object.fromEntries(Object.entries(block.resources).map(([k, v]) => [k, isObject(v) ? inFileOrder(v) : v]));
  return out;
}

/** Id of a rule in the plan: resource, role and membership, which together say which rule a PUT writes. */
const ruleId = (resource: string, role: unknown, member: unknown) => `${resource}|${typeof role === 'string' ? role : ''}|${typeof member === 'string' ? member : ''}`;

/** The project's rules and its resource rules, each named by its role's name or its member's email. */
function combine(own: unknown[], companions: Companions): unknown[] {
  const roles = new Map<string, string>();
  for (const r of Array.isArray(companions.roles) ? companions.roles : []) if (isObject(r) && typeof r.id === 'string' && typeof r.name === 'string') roles.set(r.id, r.name);
  const members = new Map<string, string>();
  for (const m of Array.isArray(companions.members) ? companions.members : []) if (isObject(m) && typeof m.id === 'string' && typeof emailOf(m) === 'string') members.set(m.id, String(emailOf(m)));
  const resourceList = isObject(companions.resources) && Array.isArray(companions.resources.access_controls) ? companions.resources.access_controls : [];
  const named = (rule: unknown, resource: string | undefined): unknown => {
    // Anything malformed is passed on as it is, for the records' check to name.
    if (!isObject(rule) || typeof (resource ?? rule.resource) !== 'string') return rule;
    const res = resource ?? String(rule.resource);
    const subject: Subject = typeof rule.role === 'string' ? { resource: res, type: 'role', name: roles.get(rule.role) ?? `#${rule.role}` }
      : typeof rule.organization_member === 'string' ? { resource: res, type: 'member', name: members.get(rule.organization_member) ?? `#${rule.organization_member}` }
      : { resource: res, type: 'default', name: '' };
    return { ...rule, id: ruleId(res, rule.role, rule.organization_member), subject: keyOf(subject), level: rule.access_level };
  };
  return [
    ...own.map((rule) => named(rule, PROJECT)),
    // Object-level rules (one flag, one dashboard) are not managed here.
    ...resourceList.filter((rule) => !isObject(rule) || rule.resource_id === null || rule.resource_id === undefined).map((rule) => named(rule, undefined)),
  ];
}

/** The role or membership id a new rule is written for, or why it waits or cannot be written. */
function prepareCreate(key: string, { companions, declared, createdId, declaredKeys }: PrepareContext): PreparedCreate {
  const subject = subjectOf(key);
  if (!subject) return { error: `access rule "${key}" is not one hogsync can write` };
  if (subject.type === 'default') return { values: {} };
  const wanted = subject.name.toLowerCase();
  if (subject.type === 'role') {
    const role = (Array.isArray(companions.roles) ? companions.roles : []).find((r) => isObject(r) && typeof r.name === 'string' && r.name.toLowerCase() === wanted);
    if (isObject(role) && typeof role.id === 'string') return { values: { role: role.id } };
    const later = createdId('role', subject.name);
    if (later !== undefined) return { values: { role: later } };
    const roleNames = [
      ...(Array.isArray(companions.roles) ? companions.roles : []).flatMap((r) => (isObject(r) && typeof r.name === 'string' ? [r.name] : [])),
      ...(declaredKeys?.('role') ?? []),
    ];
    const near = suggest(subject.name, roleNames);
    return { error: `access rule "${key}" grants to role ${subject.name}, which does not exist and no file declares: ${near === undefined ? '' : `did you mean "${near}"? `}declare it under roles, or correct the name` };
  }
  const members = Array.isArray(companions.members) ? companions.members : [];
  const found = members.find((m) => isObject(m) && String(emailOf(m)).toLowerCase() === wanted);
  if (isObject(found) && typeof found.id === 'string') return { values: { organization_member: found.id } };
  const invited = openInvites(members, companions.invites).some((i) => i.is_expired !== true && String(i.target_email).toLowerCase() === wanted);
  if (invited || declared('member', subject.name)) return { wait: `waiting for ${subject.name} to accept the invite (the grant is made once they join)` };
  return { error: `access rule "${key}" grants to ${subject.name}, who is not a member of the organization and no file declares under members: ${nearestEmail(subject.name, members, declaredKeys?.('member') ?? [])}add them under members (the plan invites them), or correct the email` };
}

/** The PUT that writes one rule (`level` null removes it). */
function put(scope: Scope, id: string, level: unknown) {
  const [resource = PROJECT, role = '', member = ''] = id.split('|');
  const body: Record<string, unknown> = { access_level: level, ...(resource === PROJECT ? {} : { resource }) };
  if (role !== '') body.role = role;
  if (member !== '') body.organization_member = member;
  return { method: 'PUT' as const, path: resource === PROJECT ? projectRules(scope) : resourceRules(scope), body };
}

/** Features the organization's plan lacks, checked before anything is sent. */
function check(view: ScopeView): ScopeCheck {
  const granting = view.changes.filter((c) => c.action !== 'delete');
  const org = (view.meta?.companions as Companions | undefined)?.organization;
  if (granting.length === 0 || !isObject(org) || !Array.isArray(org.available_product_features)) return {};
  const features = new Set(org.available_product_features.map((f) => (isObject(f) ? f.key : f)));
  const roleGrants = granting.filter((c) => subjectOf(c.identity)?.type === 'role');
  if (roleGrants.length > 0 && !features.has('role_based_access')) {
    const item = view.items.find((i) => i.key === roleGrants[0]?.identity);
    return {
      error: `${roleGrants.map((c) => c.address).join(', ')}: organization ${view.scope.organization} does not have the role-based access feature (role_based_access), `
        + 'so the API refuses grants to roles (403); nothing was sent: grant to members instead, or upgrade the organization\'s plan',
      ...(item?.position ? { errorAt: item.position } : {}),
    };
  }
  if (!features.has('advanced_permissions')) {
    return { warnings: [`access of project ${String(view.scope.project)}: organization ${view.scope.organization} does not have the advanced permissions feature (advanced_permissions): the API may accept these rules and not enforce them`] };
  }
  return {};
}

export const access: ResourceKind = {
  name: 'access',
  label: 'access rule',
  configKey: 'access',
  apiScope: 'access_control',
  prunable: true,
  identityField: 'subject',
  parent: 'project',
  read: 'list',
  listField: 'access_controls',
  canCreate: true,
  fields: { level: { compare: 'plain', sensitive: false } },
  // A rule names its role and its membership by id: removed before either goes, or the API refuses its PUT.
  refersTo: [{ field: 'role', kind: 'role' }, { field: 'organization_member', kind: 'member', by: 'id' }],
  entriesOf,
  writeEntries,
  createStatuses: [200],
  deleteStatuses: [204],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key.toLowerCase(),
  collectionPath: projectRules,
  itemPath: projectRules,
  companions: (s) => [
    // A project the plan creates has no rules yet (and no id to ask with).
    ...(s.project === null ? [] : [{ name: 'resources', path: resourceRules(s), one: true }]),
    { name: 'roles', path: `${organization(s)}roles/` },
    { name: 'members', path: `${organization(s)}members/` },
    { name: 'invites', path: `${organization(s)}invites/` },
    { name: 'organization', path: organization(s), one: true },
  ],
  combine,
  liveId: (r) => r.id as string,
  isGone: () => false,
  prepareCreate,
  requires: (key) => {
    const subject = subjectOf(key);
    return subject && subject.type !== 'default' ? { kind: subject.type, key: subject.name } : undefined;
  },
  check,
  createdInPlace: true,
  createCall: (s, key, values) => {
    const subject = subjectOf(key) as Subject;
    const call = put(s, ruleId(subject.resource, undefined, undefined), values.level);
    if (values.role !== undefined) call.body.role = values.role;
    if (values.organization_member !== undefined) call.body.organization_member = values.organization_member;
    return call;
  },
  updateCall: (s, id, values) => put(s, String(id), values.level),
  deleteCall: (s, id) => put(s, String(id), null),
  unlogged: 'the activity log does not record access control changes',
};

