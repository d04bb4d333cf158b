// Merges the files into one DesiredState: files that name the same organization add up, and
// the same item declared twice is an error naming both places. The rules:
//  - identity: project → id; proxy record → domain, lower-cased, without a trailing dot;
//    role → name, case-insensitively; feature flag → key within its project.
//  - A project may be declared more than once only as a *reference*: an entry with just `id`
//    and `feature_flags`, so that flags can live in another file than the project's settings.
//    At most one declaration of a project may set anything else (fields or `ensure`).
//  - A project declared `ensure: absent` cannot have feature flags declared anywhere.
//  - The same project id in two organizations is an error.
//  - prune: per organization and kind, true if any file says true; one file saying true and
//    another false is an error naming both places.
//  - Organizations keep the order in which files first name them (ids compared lower-cased);
//    items keep declaration order; a project's item sits where the project is first declared.
// The walk is defensive: it runs on files that failed the schema too, skipping what it cannot
// read, so that duplicates are reported together with schema errors.
import type { FilePosition } from '../errors.js';
import { aLabelOf, identityOf, isChildOf, labelOf, type ResourceKind } from '../resources/kind.js';
import { KINDS, pruneKeys, type Kinds } from '../resources/registry.js';
import type { DesiredItem, DesiredOrganization, DesiredState, PruneSettings } from './model.js';
import type { SourceMap } from './parse.js';
import { childPointer, splitPointer } from './pointer.js';
import { formatPosition, type ConfigProblem } from './problems.js';
import { lazyPosition } from './position.js';
import { declaredReferences } from './references.js';

export interface LoadedFile {
  file: string;
  /** Data after ${env:…} interpolation. */
  data: unknown;
  map: SourceMap;
  /** Pointers of strings that took a value from the environment. */
  envPointers: ReadonlySet<string>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

interface Declared { item: DesiredItem; reference: boolean; where: FilePosition }

/** Where a declared item lives: its project, and its parent when that is not a project. */
interface ItemScope { project: number | null; parent?: { kind: string; key: string; item?: string; tagged?: true } }

/** The key an `id:` pin is written under (kinds whose identities repeat in the API). */
export const PIN = 'id';
/** An item's previous identity: the live item of that identity is renamed in place. */
export const RENAMED_FROM = 'renamed_from';

/** The identity an entry's `renamed_from` names: its previous name, with the rest of its identity (a hog function's type). */
export function previousKey(kind: ResourceKind, entry: Record<string, unknown>): string {
  return kind.displayKey(identityOf(kind, { ...entry, [kind.identityField]: entry[RENAMED_FROM] }));
}

/** An item's identity among the declared items of its organization: kind, parent and match key. */
export function identityKey(kind: ResourceKind, item: Pick<DesiredItem, 'project' | 'parent' | 'key'>): string {
  return `${kind.name}\0${identityScope(item)}\0${kind.matchKey(item.key)}`;
}

/**
 * Where an identity is unique: its project's id as is (no string made for each of thousands of
 * items), or its parent (names ignore case). The planner's index of declared items and the keys
 * of `wholeLists` use it too (src/plan/scopes.ts).
 */
export function identityScope(item: Pick<DesiredItem, 'project' | 'parent'>): number | string {
  // A parent inside a project (an insight holding alerts) is named within its project.
  const within = item.parent && item.project !== null && item.project !== undefined ? `${item.project}/` : '';
  return item.parent ? `${item.parent.kind}:${within}${item.parent.key.toLowerCase()}` : item.project ?? '';
}

/** How messages name an item within its organization: `KEY`, `PROJECT/KEY`, `PARENT/KEY`. */
export function itemAddressKey(item: Pick<DesiredItem, 'project' | 'parent' | 'key'>): string {
  if (item.parent) return `${item.project !== null && item.project !== undefined ? `${item.project}/` : ''}${item.parent.tagged ? `${item.parent.kind}/` : ''}${item.parent.key}/${item.key}`;
  return item.project === null ? item.key : `${item.project}/${item.key}`;
}

/**
 * The entries of a child list as the kind writes them: a list of mappings, or (kinds whose
 * items are only their identity, a role's members) a list of identities, each becoming
 * `{identityField: value}` at the list item's own position, or (kinds written another way, a
 * project's access rules) what the kind's `entriesOf` makes of it, each at its own place.
 */
function childEntries(kind: ResourceKind, value: unknown): Array<{ entry: Obj; path: ReadonlyArray<string | number> }> {
  if (kind.entriesOf) return kind.entriesOf(value).map(({ entry, path }) => ({ entry: { ...entry, [IDENTITY_AT]: true }, path }));
  if (!Array.isArray(value)) return [];
  const out: Array<{ entry: Obj; path: ReadonlyArray<string | number> }> = [];
  value.forEach((v, i) => {
    if (isObj(v)) out.push({ entry: v, path: [i] });
    else if (kind.identityList && (typeof v === 'string' || typeof v === 'number')) out.push({ entry: { [kind.identityField]: v, [IDENTITY_AT]: true }, path: [i] });
  });
  return out;
}

/** Marks an entry made from a bare identity: its position is the list item itself. */
const IDENTITY_AT = '\u0000identity';

interface OrgState {
  org: DesiredOrganization;
  /**
   * First declarations by kind, scope (a project's id, a parent) and match key: nested rather
   * than keyed by one identity string, which would be a new string to hash for every item.
   */
  declared: Map<ResourceKind, Map<number | string, Map<string, Declared>>>;
  prune: Map<string, { value: boolean; where: FilePosition }[]>;
}

/** The first declarations of a kind in the item's scope (see OrgState.declared; identityKey's parts). */
function declaredOf(st: OrgState, kind: ResourceKind, item: DesiredItem): Map<string, Declared> {
  let byScope = st.declared.get(kind);
  if (!byScope) st.declared.set(kind, (byScope = new Map()));
  const scope = identityScope(item);
  let byKey = byScope.get(scope);
  if (!byKey) byScope.set(scope, (byKey = new Map()));
  return byKey;
}

/** What itemOf and add need of the file being merged. */
interface FileContext {
  f: LoadedFile;
  orgId: string;
  st: OrgState;
  problems: ConfigProblem[];
  kinds: Kinds;
}

const childKindsOf = (kinds: Kinds, kind: ResourceKind) => kinds.filter((c) => isChildOf(c, kind.name));
const isParent = (kinds: Kinds, kind: ResourceKind) => childKindsOf(kinds, kind).length > 0;
// Projects, which hold other kinds (feature flags), may repeat as references: their id and those lists.
const repeats = (kinds: Kinds, kind: ResourceKind) => kind.projectKind === true && isParent(kinds, kind);

function itemOf(cx: FileContext, kind: ResourceKind, entry: Obj, pointer: string, at: ItemScope): DesiredItem | undefined {
  const { f, orgId, problems } = cx;
  const raw = identityOf(kind, entry);
  // Only well-formed identities take part; the schema check reports the others.
  const validId = Number.isSafeInteger(raw) || (typeof raw === 'string' && raw !== '');
  if (!validId) return undefined;
  // Identities are shown in every plan (addresses, unmanaged lists): they cannot be secrets.
  const identityPointer = entry[IDENTITY_AT] === true ? pointer
    : childPointer(pointer, entry[kind.identityField] === undefined && kind.nameField !== undefined ? kind.nameField : kind.identityField);
  // Asked only of files that interpolate: the pointer is a new string, hashed for the lookup.
  if (f.envPointers.size > 0 && f.envPointers.has(identityPointer)) {
    problems.push({ position: lazyPosition(f.file, f.map, identityPointer), message: `${kind.identityField}: the identity of ${aLabelOf(kind)} cannot come from \${env:…}; it is shown in every plan` });
    return undefined;
  }
  const ensure = entry.ensure === 'absent' ? 'absent' : 'present';
  const fields: Record<string, unknown> = {};
  const interpolated: string[] = [];
  if (ensure === 'present') {
    const known = kind.fields;
    for (const name in entry) {
      if (!(name in known)) continue;
      fields[name] = entry[name];
      if (f.envPointers.size === 0) continue;
      const fp = childPointer(pointer, name);
      if ([...f.envPointers].some((p) => p === fp || p.startsWith(`${fp}/`))) interpolated.push(...interpolatedNames(kind, name, fp, f.envPointers));
    }
  }
  const implied = ensure === 'present' && kind.impliedFields ? kind.impliedFields(kind.displayKey(raw)) : undefined;
  if (implied) Object.assign(fields, implied);
  const pin = kind.idPin && (Number.isSafeInteger(entry[PIN]) || (typeof entry[PIN] === 'string' && entry[PIN] !== '')) ? entry[PIN] as string | number : undefined;
  const references = kind.references && ensure === 'present'
    ? declaredReferences(kind, fields, (field) => (implied && field in implied ? identityPointer : childPointer(pointer, field)), (p) => lazyPosition(f.file, f.map, p, 'value'), problems, cx.kinds) : [];
  // Optional members are assigned only when present (not spread in): this runs for every declared item.
  const item: DesiredItem = { kind: kind.name, organization: orgId, project: at.project, key: kind.displayKey(raw), ensure, fields, interpolated, position: lazyPosition(f.file, f.map, identityPointer) };
  if (at.parent) item.parent = at.parent;
  if (pin !== undefined) item.pin = pin;
  if (references.length > 0) item.references = references;
  if (typeof entry[RENAMED_FROM] === 'string' && entry[RENAMED_FROM] !== '') item.renamedFrom = previousKey(kind, entry);
  return item;
}

/**
 * The names an interpolated field is marked by: the field, and for a field shown key by key (a
 * hog function's inputs) each of its keys whose value came through ${env:…} (`inputs.url`).
 */
export function interpolatedNames(kind: ResourceKind, name: string, fieldPointer: string, envPointers: ReadonlySet<string>): string[] {
  if (!kind.keyedFields?.[name]) return [name];
  const keys = new Set<string>();
  for (const p of envPointers) {
    if (!p.startsWith(`${fieldPointer}/`)) continue;
    const segment = splitPointer(p.slice(fieldPointer.length))[0];
    if (segment !== undefined) keys.add(`${name}.${segment}`);
  }
  return [name, ...keys];
}

/** Adds an item unless it is a duplicate; returns false for a duplicate. */
function add(cx: FileContext, kind: ResourceKind, item: DesiredItem, reference: boolean): boolean {
  const { st, problems } = cx;
  const declared = declaredOf(st, kind, item);
  const id = kind.matchKey(item.key);
  const first = declared.get(id);
  if (!first) {
    declared.set(id, { item, reference, where: item.position });
    st.org.items.push(item);
    return true;
  }
  if (repeats(cx.kinds, kind) && (reference || first.reference)) {
    // A reference adds nothing; a full declaration after references takes the item's fields.
    if (!reference) {
      first.item.fields = item.fields;
      first.item.interpolated = item.interpolated;
      first.item.ensure = item.ensure;
      first.item.position = item.position;
      if (item.pin !== undefined) first.item.pin = item.pin;
      if (item.renamedFrom !== undefined) first.item.renamedFrom = item.renamedFrom;
      if (item.references) first.item.references = item.references;
      first.reference = false;
      first.where = item.position;
    }
    return true;
  }
  const label = labelOf(kind);
  const shownKey = itemAddressKey(item);
  // Say why two different spellings are the same item (role names ignore case).
  const caseNote = first.item.key !== item.key ? ` (${label} ${kind.identityField}s ignore case: "${first.item.key}" and "${item.key}")` : '';
  const hint = repeats(cx.kinds, kind) ? `; a ${label} may repeat only as \`${kind.identityField}\` plus the lists of what it holds (${childKindsOf(cx.kinds, kind).map((c) => c.configKey).join(', ')})` : '';
  problems.push({
    position: item.position,
    message: `${label} "${shownKey}" is declared twice: ${formatPosition(first.where)} and ${formatPosition(item.position)}${caseNote}${hint}`,
  });
  return false;
}

/**
 * A parent's child items, added one by one. A function of its own rather than a loop in the
 * parent's: V8 optimises it while the first projects are read, instead of compiling the whole
 * per-parent code (and everything it calls) again halfway through the files.
 */
function declareChildren(cx: FileContext, child: ResourceKind, entries: ReadonlyArray<{ entry: Obj; path: ReadonlyArray<string | number> }>,
  base: string, at: ItemScope): void {
  for (const { entry, path } of entries) {
    const pointer = path.reduce<string>((p, step) => childPointer(p, step), base);
    const item = itemOf(cx, child, entry, pointer, at);
    if (!item || !add(cx, child, item, false)) continue;
    // Items of a project's kind may hold items in turn (an insight's alerts), addressed by the
    // project and their parent's key.
    for (const grandchild of childKindsOf(cx.kinds, child)) {
      const value = entry[grandchild.configKey];
      if (value === undefined || value === null) continue;
      const grandBase = childPointer(pointer, grandchild.configKey);
      if (item.ensure === 'absent' && childEntries(grandchild, value).some(({ entry: e }) => e.ensure !== 'absent')) {
        cx.problems.push({ position: lazyPosition(cx.f.file, cx.f.map, grandBase), message: `${labelOf(child)} ${item.key} is declared absent (${formatPosition(item.position)}), so it cannot have ${grandchild.configKey.replace(/_/g, ' ')}: the API deletes them with it; remove them from the file` });
        continue;
      }
      declareChildren(cx, grandchild, childEntries(grandchild, value), grandBase, { project: at.project, parent: { kind: child.name, key: item.key, ...(grandchild.tagsParent ? { tagged: true as const } : {}) } });
    }
  }
}

export function mergeFiles(files: readonly LoadedFile[], kinds: Kinds = KINDS): { state: DesiredState; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const orgs = new Map<string, OrgState>();
  /** Parent items (`kind|id`) → the organization that declared them first. */
  const parentOrg = new Map<string, { org: string; where: FilePosition }>();
  /** Parent items declared absent, and the first child list declared in them anywhere. */
  const absentParents = new Map<string, { kind: ResourceKind; key: string; where: FilePosition }>();
  const childrenOf = new Map<string, { child: ResourceKind; where: FilePosition }>();
  const prunable = pruneKeys(kinds);

  const orgKinds = kinds.filter((k) => k.parent === 'organization');

  for (const f of files) {
    const root = f.data;
    if (!isObj(root) || typeof root.organization !== 'string') continue;
    const orgId = root.organization.toLowerCase();
    const pos = (pointer: string): FilePosition => lazyPosition(f.file, f.map, pointer);
    let state = orgs.get(orgId);
    if (!state) {
      const position = lazyPosition(f.file, f.map, '/organization', 'value');
      state = { org: { id: orgId, items: [], prune: Object.fromEntries(prunable.map((k) => [k, false])) as PruneSettings, position }, declared: new Map(), prune: new Map() };
      orgs.set(orgId, state);
    }
    const st = state;
    const cx: FileContext = { f, orgId, st, problems, kinds };

    for (const kind of orgKinds) {
      const list = root[kind.configKey];
      if (!Array.isArray(list)) continue;
      list.forEach((entry, i) => {
        if (!isObj(entry)) return;
        const pointer = childPointer(childPointer('', kind.configKey), i);
        const item = itemOf(cx, kind, entry, pointer, { project: null });
        if (!item) return;
        const childKinds = childKindsOf(kinds, kind);
        const children = childKinds.filter((c) => entry[c.configKey] !== undefined && entry[c.configKey] !== null);
        const reference = repeats(kinds, kind) && Object.keys(entry).every((k) => k === kind.identityField || childKinds.some((c) => c.configKey === k));
        add(cx, kind, item, reference);
        if (!isParent(kinds, kind)) return;

        // Children name their parent by its identity: a project's id (DesiredItem.project), another parent's key.
        const parentKey = `${kind.name}|${kind.matchKey(item.key)}`;
        const other = parentOrg.get(parentKey);
        if (kind.projectKind) {
          if (other && other.org !== orgId) {
            problems.push({ position: item.position, message: `${labelOf(kind)} ${item.key} is declared in two organizations: ${formatPosition(other.where)} (organization ${other.org}) and here (organization ${orgId})` });
          } else if (!other) {
            parentOrg.set(parentKey, { org: orgId, where: item.position });
          }
        }
        const inOrg = `${orgId}|${parentKey}`;
        if (item.ensure === 'absent') absentParents.set(inOrg, { kind, key: item.key, where: item.position });
        // A project declared by name (to find or create) holds its items as a parent until it has an id.
        const byId = kind.projectKind && kind.creatable?.(item.key) !== true;
        // Its items are addressed by its alias where it has one (`cohort:ORG/mobile/Staff`).
        const alias = kind.projectKind && typeof entry.alias === 'string' && entry.alias !== '' ? entry.alias : undefined;
        const at: ItemScope = byId ? { project: Number(item.key) }
          : { project: null, parent: { kind: kind.name, key: alias ?? item.key, ...(alias !== undefined ? { item: item.key } : {}) } };
        if (byId && !Number.isSafeInteger(at.project)) return;

        for (const child of children) {
          const childPointerBase = childPointer(pointer, child.configKey);
          const entries = childEntries(child, entry[child.configKey]);
          if (entries.length > 0 && !childrenOf.has(inOrg)) childrenOf.set(inOrg, { child, where: pos(childPointerBase) });
          // A whole list (a role's members) is declared even when empty: it then removes every live one.
          if (child.wholeList && item.ensure === 'present') {
            (st.org.wholeLists ??= {})[`${child.name}|${String(identityScope(at))}`] = pos(childPointerBase);
          }
          declareChildren(cx, child, entries, childPointerBase, at);
        }
      });
    }

    const prune = root.prune;
    if (isObj(prune)) {
      for (const key of prunable) {
        const value = prune[key];
        if (typeof value !== 'boolean') continue;
        const where = pos(childPointer('/prune', key));
        const seen = st.prune.get(key) ?? [];
        const conflict = seen.find((s) => s.value !== value);
        if (conflict) {
          problems.push({ position: where, message: `prune.${key} is set to both ${conflict.value} and ${value}: ${formatPosition(conflict.where)} and ${formatPosition(where)}` });
        }
        seen.push({ value, where });
        st.prune.set(key, seen);
        if (value) st.org.prune[key] = true;
      }
    }
  }

  for (const [key, absent] of absentParents) {
    const children = childrenOf.get(key);
    if (children) {
      problems.push({ position: children.where, message: `${labelOf(absent.kind)} ${absent.key} is declared absent (${formatPosition(absent.where)}), so it cannot have ${children.child.configKey.replace(/_/g, ' ')}` });
    }
  }

  return {
    state: { sources: files.map((f) => f.file), organizations: [...orgs.values()].map((s) => s.org) },
    problems,
  };
}
