// Which collections a desired state covers: a kind is planned (read, compared, its undeclared
// items listed or pruned) only where the files declare it or `prune` owns it, so a kind no file
// names costs nothing. Collections that only resolve references by name are read too, and
// planned not (their items are neither listed nor pruned). The reads (src/state/targets.ts),
// the planner and the kinds' checks all ask here, so they always agree.
import { identityScope as scopeId } from '../config/merge.js';
import type { DesiredItem, DesiredOrganization } from '../config/model.js';
import type { FilePosition } from '../errors.js';
import { parentNames, type ResourceKind, type Scope } from '../resources/kind.js';
import type { Kinds } from '../resources/registry.js';

interface OrgIndex {
  /** Kind → its declared items, and those of each scope (by scopeId), in declaration order. */
  byKind: Map<string, { items: DesiredItem[]; byScope: Map<number | string, DesiredItem[]> }>;
  /** Kinds with at least one declared item. */
  declared: Set<string>;
  /**
   * plannedScopes and lookupScopes, worked out once for each set of kinds: the reads, the
   * planner's units and its assembly all ask, and each answer is a pass over every item.
   */
  planned: WeakMap<Kinds, Map<ResourceKind, Scope[]>>;
  lookups: WeakMap<Kinds, Array<{ kind: ResourceKind; scope: Scope }>>;
}

const indexes = new WeakMap<readonly DesiredItem[], { count: number; index: OrgIndex }>();

/** The same as a string, as `wholeLists` and the lookups key it. */
function scopeKey(scope: Scope): string {
  return String(scopeId(scope));
}

function indexOf(org: DesiredOrganization): OrgIndex {
  const cached = indexes.get(org.items);
  // Items may be added after a first look (shared definitions expand late, tests build states).
  if (cached && cached.count === org.items.length) return cached.index;
  const byKind: OrgIndex['byKind'] = new Map();
  for (const item of org.items) {
    let ofKind = byKind.get(item.kind);
    if (!ofKind) byKind.set(item.kind, (ofKind = { items: [], byScope: new Map() }));
    ofKind.items.push(item);
    const id = scopeId(item);
    const list = ofKind.byScope.get(id);
    if (list) list.push(item);
    else ofKind.byScope.set(id, [item]);
  }
  const index: OrgIndex = { byKind, declared: new Set(byKind.keys()), planned: new WeakMap(), lookups: new WeakMap() };
  indexes.set(org.items, { count: org.items.length, index });
  return index;
}

/** The declared items of a kind in a scope. */
export function itemsIn(org: DesiredOrganization, kind: ResourceKind, scope: Scope): DesiredItem[] {
  return indexOf(org).byKind.get(kind.name)?.byScope.get(scopeId(scope)) ?? [];
}

/** The scope an item lives in (a parent that is not a project has no id until it is read). */
export function scopeOfItem(item: Pick<DesiredItem, 'organization' | 'project' | 'parent'>): Scope {
  return { organization: item.organization, project: item.project, ...(item.parent ? { parent: { ...item.parent, id: null } } : {}) };
}

/** Whether `prune` owns the kind in this organization. */
export function pruned(kind: ResourceKind, org: DesiredOrganization): boolean {
  return kind.prunable && org.prune[kind.configKey] === true;
}

/** The scopes of a kind's parents that the files declare present (every declared project, every declared role, …). */
function parentScopes(kind: ResourceKind, org: DesiredOrganization, kinds: Kinds): Scope[] {
  return parentNames(kind).flatMap((name) => {
    const parent = kinds.find((k) => k.name === name);
    return parent ? scopesUnder(kind, parent, org) : [];
  });
}

/** The scopes of one parent kind's declared items (a subscription's: its dashboards', then its insights'). */
function scopesUnder(kind: ResourceKind, parent: ResourceKind, org: DesiredOrganization): Scope[] {
  // A project declared by name is named in its items' addresses by its alias, where it has one.
  const aliasOf = (key: string) => (parent.projectKind ? Object.entries(org.aliases ?? {}).find(([, k]) => k === key)?.[0] : undefined);
  return (indexOf(org).byKind.get(parent.name)?.items ?? [])
    .filter((i) => i.ensure === 'present')
    .map((i): Scope => {
      if (parent.projectKind && parent.creatable?.(i.key) !== true) return { organization: org.id, project: Number(i.key) };
      const alias = aliasOf(i.key);
      return {
        organization: org.id, project: i.project,
        parent: {
          kind: parent.name, key: alias ?? i.key, id: null, ...(alias !== undefined ? { item: i.key } : {}), ...(kind.tagsParent ? { tagged: true as const } : {}),
          ...(i.renamedFrom !== undefined ? { formerKey: i.renamedFrom } : {}), ...(parent.projectKind ? { project: true as const } : {}),
        },
      };
    });
}

/** The collections of a kind that a plan covers: where the files declare the kind, or `prune` owns it. */
export function plannedScopes(kind: ResourceKind, org: DesiredOrganization, kinds: Kinds): readonly Scope[] {
  const index = indexOf(org);
  let known = index.planned.get(kinds);
  if (!known) index.planned.set(kinds, (known = new Map()));
  let scopes = known.get(kind);
  if (!scopes) known.set(kind, (scopes = scopesOf(kind, org, kinds, index)));
  return scopes;
}

function scopesOf(kind: ResourceKind, org: DesiredOrganization, kinds: Kinds, index: OrgIndex): Scope[] {
  const owned = pruned(kind, org);
  const whole = kind.wholeList ? org.wholeLists : undefined;
  if (!owned && !index.declared.has(kind.name) && !whole) return [];
  if (kind.parent === 'organization') return [{ organization: org.id, project: null }];
  const scopes = parentScopes(kind, org, kinds);
  const declared = index.byKind.get(kind.name)?.byScope;
  // An item that may have moved from another parent item is looked for under each one the project declares.
  const projects = kind.parentFixed ? new Set(index.byKind.get(kind.name)?.items.map((i) => i.project)) : undefined;
  return owned ? scopes : scopes.filter((s) => declared?.has(scopeId(s)) === true || wholeListAt(kind, org, s) !== undefined || projects?.has(s.project) === true);
}

/** Where the files declare the kind's whole list in this scope (a role's `members`), if they do. */
export function wholeListAt(kind: ResourceKind, org: DesiredOrganization, scope: Scope): FilePosition | undefined {
  return kind.wholeList ? org.wholeLists?.[`${kind.name}|${scopeKey(scope)}`] : undefined;
}

/**
 * Collections read only to look items up, where the plan plans none of the kind: kinds the files
 * refer to by name, and the kinds that may hold a kind's items (`heldByKinds`) where that kind is
 * pruned or declares items absent (what holds an item decides whether it may go).
 */
export function lookupScopes(org: DesiredOrganization, kinds: Kinds): ReadonlyArray<{ kind: ResourceKind; scope: Scope }> {
  const index = indexOf(org);
  let lookups = index.lookups.get(kinds);
  if (!lookups) index.lookups.set(kinds, (lookups = lookupsOf(org, kinds)));
  return lookups;
}

function lookupsOf(org: DesiredOrganization, kinds: Kinds): Array<{ kind: ResourceKind; scope: Scope }> {
  const planned = new Set<string>();
  for (const kind of kinds) for (const s of plannedScopes(kind, org, kinds)) planned.add(`${kind.name}|${scopeKey(s)}`);
  const out = new Map<string, { kind: ResourceKind; scope: Scope }>();
  for (const kind of kinds) {
    if (!kind.heldByKinds?.length) continue;
    for (const scope of plannedScopes(kind, org, kinds)) {
      if (!pruned(kind, org) && !itemsIn(org, kind, scope).some((i) => i.ensure === 'absent')) continue;
      for (const name of kind.heldByKinds) {
        const holder = kinds.find((k) => k.name === name);
        const key = `${name}|${scopeKey(scope)}`;
        if (holder && !planned.has(key) && !out.has(key)) out.set(key, { kind: holder, scope });
      }
    }
  }
  for (const item of org.items) {
    // Most items refer to nothing: no list is made for them.
    if (item.references === undefined) continue;
    for (const ref of item.references) {
      const kind = kinds.find((k) => k.name === ref.kind);
      if (!kind) continue;
      // Referred items live in the project, whatever item of it holds the referring one (a subscription's insights).
      const own = scopeOfItem(item);
      const key = `${kind.name}|${scopeKey(own.parent && own.project !== null ? { organization: own.organization, project: own.project } : own)}`;
      if (!planned.has(key) && !out.has(key)) out.set(key, { kind, scope: { organization: own.organization, project: own.project } });
    }
  }
  return [...out.values()];
}
