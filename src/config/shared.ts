// Shared definitions: what lets one configuration keep several projects of a product (dev,
// staging, prod) in step without copying. Runs after the merge of the files, on its result,
// and leaves the planner what it always saw: one item per PROJECT_ID/KEY.
//  - `alias` on a project (any kind that holds other kinds): a short name the files may use
//    wherever a project id goes; unique per organization.
//  - `defaults.<list>`: fields every declared (present) item of that kind gets unless it
//    declares the field itself; the same field in two `defaults` blocks is an error.
//  - an organization-level list of a project's kind (`feature_flags:` at the top level):
//    each entry becomes one item per project named in its `projects` (ids or aliases; default
//    every declared present project), with `overrides` per project replacing fields whole.
//  - `renamed_from` on any item: carried on the item (the planner renames in place); an item
//    renamed from one that is also declared, or two renamed from one, are errors.
// Every problem is reported at file:line:col, naming both places where there are two. Like the
// merge, the walk is defensive: it runs on files that failed the schema too.
import type { FilePosition } from '../errors.js';
import type { ResourceKind } from '../resources/kind.js';
import { KINDS } from '../resources/registry.js';
import { identityKey, interpolatedNames, itemAddressKey, previousKey, RENAMED_FROM, type LoadedFile } from './merge.js';
import { lazyPosition } from './position.js';
import { declaredReferences } from './references.js';
import { namedReference, siteHits, siteId } from '../resources/references.js';
import type { DesiredItem, DesiredOrganization, DesiredState, PruneSettings } from './model.js';
import { childPointer } from './pointer.js';
import { formatPosition, type ConfigProblem } from './problems.js';
import { identityOf, isChildOf } from '../resources/kind.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Config-only keys (the JSON Schema marks them `x-config-only`). */
export const ALIAS = 'alias';
export const OVERRIDES = 'overrides';
export const DEFAULTS = 'defaults';

const label = (kind: ResourceKind) => kind.name.replace(/_/g, ' ');
const plural = (kind: ResourceKind) => kind.configKey.replace(/_/g, ' ');

function positionIn(f: LoadedFile, pointer: string, preferKey = true): FilePosition {
  return lazyPosition(f.file, f.map, pointer, preferKey ? 'key' : 'value');
}

function underEnv(f: LoadedFile, pointer: string): boolean {
  if (f.envPointers.size === 0) return false;
  for (const p of f.envPointers) if (p === pointer || p.startsWith(`${pointer}/`)) return true;
  return false;
}

/** Where each declaration of an item (and where its fields came from) is: for `declared_at`. */
export function declaredAt(item: DesiredItem, fields?: readonly string[]): FilePosition[] {
  const out: FilePosition[] = [item.position];
  const seen = new Set([formatPosition(item.position)]);
  const origins = item.fieldOrigins ?? {};
  for (const field of fields ?? Object.keys(origins)) {
    const at = origins[field];
    if (!at || seen.has(formatPosition(at))) continue;
    seen.add(formatPosition(at));
    out.push(at);
  }
  return out;
}

interface ParentEntry { item: DesiredItem; alias?: { name: string; where: FilePosition } }

interface OrgScope {
  org: DesiredOrganization;
  files: LoadedFile[];
}

/** Expands shared definitions in `state` (in place) and returns the problems found. */
export function expandShared(files: readonly LoadedFile[], state: DesiredState): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const byOrg = new Map<string, OrgScope>();
  for (const org of state.organizations) byOrg.set(org.id, { org, files: [] });
  for (const f of files) {
    if (!isObj(f.data) || typeof f.data.organization !== 'string') continue;
    byOrg.get(f.data.organization.toLowerCase())?.files.push(f);
  }
  for (const scope of byOrg.values()) {
    readPruneAt(scope);
    const parents = readAliases(scope, problems);
    expandChildLists(scope, parents, problems);
    applyDefaults(scope, problems);
    checkRenames(scope.org, problems);
  }
  return problems;
}

/** Kinds that hold other kinds (projects hold flags): their items may have aliases and shared children. */
const parentKinds = () => KINDS.filter((k) => k.projectKind);

/**
 * Declared items by identity (`kind\0project\0match key`), built on first use: most files
 * have no aliases, renames or top-level child lists, and a large workspace has 20 000 items.
 */
function identityIndex(org: DesiredOrganization): Pick<Map<string, DesiredItem>, 'get' | 'set'> {
  let index: Map<string, DesiredItem> | undefined;
  const built = (): Map<string, DesiredItem> => {
    if (index) return index;
    index = new Map();
    for (const item of org.items) {
      const kind = KINDS.find((k) => k.name === item.kind);
      if (!kind) continue;
      const id = identityKey(kind, item);
      if (!index.has(id)) index.set(id, item);
    }
    return index;
  };
  return { get: (id) => built().get(id), set: (id, item) => built().set(id, item) };
}

function readPruneAt({ org, files }: OrgScope): void {
  for (const f of files) {
    const prune = (f.data as Obj).prune;
    if (!isObj(prune)) continue;
    for (const [key, value] of Object.entries(prune)) {
      if (value !== true || !(key in org.prune)) continue;
      org.pruneAt ??= {};
      org.pruneAt[key as keyof PruneSettings] ??= positionIn(f, childPointer('/prune', key));
    }
  }
}

/** Aliases of parent items: unique per organization. Returns the parent items by kind. */
function readAliases({ org, files }: OrgScope, problems: ConfigProblem[]): Map<ResourceKind, ParentEntry[]> {
  const index = identityIndex(org);
  const out = new Map<ResourceKind, ParentEntry[]>();
  const taken = new Map<string, { key: string; kind: ResourceKind; where: FilePosition }>();
  for (const kind of parentKinds()) {
    const entries: ParentEntry[] = org.items.filter((i) => i.kind === kind.name).map((item) => ({ item }));
    out.set(kind, entries);
    for (const f of files) {
      const list = (f.data as Obj)[kind.configKey];
      if (!Array.isArray(list)) continue;
      list.forEach((entry, i) => {
        if (!isObj(entry) || typeof entry[ALIAS] !== 'string' || !ALIAS_PATTERN.test(entry[ALIAS])) return;
        const raw = identityOf(kind, entry);
        if (!Number.isSafeInteger(raw) && !(typeof raw === 'string' && raw !== '')) return;
        const item = index.get(identityKey(kind, { project: null, key: kind.displayKey(raw) }));
        const parent = entries.find((e) => e.item === item);
        if (!item || !parent) return;
        const name = entry[ALIAS] as string;
        const where = positionIn(f, childPointer(childPointer(childPointer('', kind.configKey), i), ALIAS), false);
        const other = taken.get(name.toLowerCase());
        if (other && other.key !== item.key) {
          problems.push({ position: where, message: `alias "${name}" is used by two ${plural(kind)}: ${other.key} (${formatPosition(other.where)}) and ${item.key} (${formatPosition(where)}); aliases are unique in an organization (ignoring case)` });
          return;
        }
        taken.set(name.toLowerCase(), { key: item.key, kind, where });
        parent.alias = { name, where };
        org.aliases ??= {};
        org.aliases[name] = item.key;
      });
    }
  }
  return out;
}

interface Resolved { key: string; item: DesiredItem }

const before = (a: FilePosition, b: FilePosition) => a.line < b.line || (a.line === b.line && a.col < b.col);

/** What the schema allows as an alias; anything else it reports itself. */
const ALIAS_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*$/;
const ID_PATTERN = /^[1-9][0-9]*$/;

/** Whether a reference is well-formed (an id or an alias); malformed ones are the schema's to report. */
const wellFormed = (ref: unknown) => (typeof ref === 'number' && Number.isSafeInteger(ref) && ref >= 1)
  || (typeof ref === 'string' && (ID_PATTERN.test(ref) || ALIAS_PATTERN.test(ref)));

/** Resolves a project reference (an id, or an alias) among the parents of an organization. */
function resolveRef(ref: unknown, parents: ParentEntry[]): Resolved | undefined {
  if (typeof ref === 'number' || (typeof ref === 'string' && ID_PATTERN.test(ref))) {
    const found = parents.find((p) => p.item.key === String(ref));
    return found ? { key: found.item.key, item: found.item } : undefined;
  }
  if (typeof ref !== 'string') return undefined;
  const found = parents.find((p) => p.alias?.name.toLowerCase() === ref.toLowerCase());
  return found ? { key: found.item.key, item: found.item } : undefined;
}

function refName(key: string, parents: ParentEntry[]): string {
  const alias = parents.find((p) => p.item.key === key)?.alias?.name;
  return alias ? `${alias} (${key})` : key;
}

function unknownRef(ref: unknown, parentKind: ResourceKind, parents: ParentEntry[]): string {
  const aliases = parents.flatMap((p) => (p.alias ? [p.alias.name] : []));
  if (typeof ref === 'string' && !ID_PATTERN.test(ref)) {
    const known = aliases.length > 0 ? `the aliases are ${aliases.join(', ')}` : `no ${label(parentKind)} has an alias`;
    return `unknown ${label(parentKind)} alias "${ref}" (${known})`;
  }
  return `${label(parentKind)} ${String(ref)} is not declared in this organization; declare it under \`${parentKind.configKey}\` to use it here`;
}

/** Raw ids (not names) at a kind's reference sites in one field's value: they belong to one project. */
export function projectBoundIds(kind: ResourceKind, field: string, value: unknown): Array<{ kind: string; id: string | number }> {
  const found = new Map<string, { kind: string; id: string | number }>();
  for (const hit of siteHits(kind, field, value)) {
    if (namedReference(hit.value)) continue;
    const id = siteId(hit.value);
    if (id !== undefined) found.set(`${hit.site.kind} ${id}`, { kind: hit.site.kind, id });
  }
  return [...found.values()];
}

/** Top-level lists of a child kind (`feature_flags:` at the top level): one item per listed parent. */
function expandChildLists({ org, files }: OrgScope, parentsByKind: Map<ResourceKind, ParentEntry[]>, problems: ConfigProblem[]): void {
  const index = identityIndex(org);
  for (const kind of KINDS.filter((k) => k.shared)) {
    const parentKind = KINDS.find((k) => k.name === kind.parent);
    if (!parentKind) continue;
    const parents = parentsByKind.get(parentKind) ?? [];
    const present = parents.filter((p) => p.item.ensure === 'present');
    const listKey = parentKind.configKey;
    for (const f of files) {
      const list = (f.data as Obj)[kind.configKey];
      if (!Array.isArray(list)) continue;
      list.forEach((entry, i) => {
        if (!isObj(entry)) return;
        const pointer = childPointer(childPointer('', kind.configKey), i);
        const raw = identityOf(kind, entry);
        if (typeof raw !== 'string' || raw === '') return;
        const keyPointer = childPointer(pointer, kind.identityField);
        const at = positionIn(f, keyPointer);
        if (underEnv(f, keyPointer)) {
          problems.push({ position: at, message: `${kind.identityField}: the identity of a ${label(kind)} cannot come from \${env:…}; it is shown in every plan` });
          return;
        }
        const key = kind.displayKey(raw);
        const shown = `${label(kind)} "${key}"`;

        // 1. The parents it applies to.
        const targets: Resolved[] = [];
        const listPointer = childPointer(pointer, listKey);
        const listed = entry[listKey];
        const listAt = positionIn(f, listPointer);
        if (Array.isArray(listed)) {
          listed.forEach((ref, j) => {
            if (!wellFormed(ref)) return;
            const refAt = positionIn(f, childPointer(listPointer, j), false);
            const found = resolveRef(ref, parents);
            if (!found) { problems.push({ position: refAt, message: unknownRef(ref, parentKind, parents) }); return; }
            if (targets.some((t) => t.key === found.key)) {
              problems.push({ position: refAt, message: `${label(parentKind)} ${refName(found.key, parents)} is listed twice in the ${listKey} of ${shown}` });
              return;
            }
            if (found.item.ensure === 'absent') {
              problems.push({ position: refAt, message: `${label(parentKind)} ${found.key} is declared absent (${formatPosition(found.item.position)}), so it cannot have ${plural(kind)}` });
              return;
            }
            targets.push(found);
          });
        } else if (listed === undefined) {
          targets.push(...present.map((p) => ({ key: p.item.key, item: p.item })));
          if (targets.length === 0) {
            problems.push({ position: at, message: `organization-level ${shown} applies to no ${label(parentKind)}: this organization declares none; declare ${plural(parentKind)} or list them in \`${listKey}\`` });
            return;
          }
        } else {
          return; // the schema reports it
        }

        // 2. Overrides per parent, each for a parent the entry applies to.
        const overrides = new Map<string, { fields: Obj; pointer: string; where: FilePosition }>();
        const overridesPointer = childPointer(pointer, OVERRIDES);
        if (isObj(entry[OVERRIDES])) {
          for (const [ref, value] of Object.entries(entry[OVERRIDES] as Obj)) {
            if (!wellFormed(ref)) continue;
            const refPointer = childPointer(overridesPointer, ref);
            const where = positionIn(f, refPointer);
            const found = resolveRef(ref, parents);
            if (!found) { problems.push({ position: where, message: `${OVERRIDES}: ${unknownRef(ref, parentKind, parents)}` }); continue; }
            const twice = overrides.get(found.key);
            if (twice) {
              // Mappings list integer keys first: report at whichever of the two comes later in the file.
              const [a, b] = before(twice.where, where) ? [twice.where, where] : [where, twice.where];
              problems.push({ position: b, message: `${label(parentKind)} ${refName(found.key, parents)} has two overrides in ${shown}: ${formatPosition(a)} and ${formatPosition(b)}` });
              if (b === twice.where && isObj(value)) overrides.set(found.key, { fields: value, pointer: refPointer, where });
              continue;
            }
            if (!targets.some((t) => t.key === found.key)) {
              const why = Array.isArray(listed) ? `its ${listKey} (${formatPosition(listAt)}) do not include it` : `${label(parentKind)} ${found.key} is declared absent (${formatPosition(found.item.position)})`;
              problems.push({ position: where, message: `override for ${label(parentKind)} ${refName(found.key, parents)}, but ${shown} is not in that ${label(parentKind)}: ${why}` });
              continue;
            }
            if (isObj(value)) overrides.set(found.key, { fields: value, pointer: refPointer, where });
          }
        }

        // 3. Ids of one project at a reference site need an override of that field everywhere (or a name).
        const ensure = entry.ensure === 'absent' ? 'absent' : 'present';
        if (ensure === 'present') {
          for (const field of new Set((kind.references ?? []).map((site) => site.field))) {
            if (!(field in entry)) continue;
            const ids = projectBoundIds(kind, field, entry[field]);
            if (ids.length === 0) continue;
            const missing = targets.filter((t) => !(field in (overrides.get(t.key)?.fields ?? {})));
            if (missing.length === 0) continue;
            const example = ids[0] as { kind: string };
            problems.push({
              position: at,
              message: `${shown}: ${field} holds ${ids.map((i) => `${i.kind.replace(/_/g, ' ')} ${i.id}`).join(', ')}, ids of one ${label(parentKind)} (the API refuses another's): write them by name ({ ${example.kind}: NAME }, resolved in each ${label(parentKind)}), or give each of its ${plural(parentKind)} its own ${field} in ${OVERRIDES}; missing for ${missing.map((t) => refName(t.key, parents)).join(', ')}`,
            });
          }
        }

        // 4. One item per parent.
        for (const target of targets) {
          const project = Number(target.key);
          const fields: Record<string, unknown> = {};
          const interpolated: string[] = [];
          const origins: Record<string, FilePosition> = {};
          if (ensure === 'present') {
            for (const [name, value] of Object.entries(entry)) {
              if (!(name in kind.fields)) continue;
              fields[name] = value;
              if (underEnv(f, childPointer(pointer, name))) interpolated.push(...interpolatedNames(kind, name, childPointer(pointer, name), f.envPointers));
            }
            const override = overrides.get(target.key);
            for (const [name, value] of Object.entries(override?.fields ?? {})) {
              if (!override || !(name in kind.fields)) continue;
              fields[name] = value;
              const fieldPointer = childPointer(override.pointer, name);
              origins[name] = positionIn(f, fieldPointer);
              // The override replaces the field whole: what the shared value interpolated no longer counts.
              for (let i = interpolated.length - 1; i >= 0; i--) if (interpolated[i] === name || interpolated[i]?.startsWith(`${name}.`)) interpolated.splice(i, 1);
              if (underEnv(f, fieldPointer)) interpolated.push(...interpolatedNames(kind, name, fieldPointer, f.envPointers));
            }
          }
          const implied = ensure === 'present' && kind.impliedFields ? kind.impliedFields(key) : undefined;
          if (implied) Object.assign(fields, implied);
          const pointerOf = (field: string) => {
            if (implied && field in implied) return childPointer(pointer, kind.identityField);
            const override = overrides.get(target.key);
            return override && field in override.fields ? childPointer(override.pointer, field) : childPointer(pointer, field);
          };
          const references = kind.references && ensure === 'present'
            ? declaredReferences(kind, fields, pointerOf, (p) => positionIn(f, p, false), problems) : [];
          const item: DesiredItem = {
            kind: kind.name, organization: org.id, project, key, ensure, fields, interpolated, position: at,
            ...(references.length > 0 ? { references } : {}),
            ...(typeof entry[RENAMED_FROM] === 'string' ? { renamedFrom: previousKey(kind, entry) } : {}),
            ...(Object.keys(origins).length > 0 ? { fieldOrigins: origins } : {}),
          };
          const id = identityKey(kind, { project, key });
          const first = index.get(id);
          if (first) {
            problems.push({ position: at, message: `${label(kind)} "${project}/${key}" is declared twice: ${formatPosition(first.position)} and ${formatPosition(at)} (organization-level ${plural(kind)} apply to ${refName(target.key, parents)})` });
            continue;
          }
          index.set(id, item);
          org.items.push(item);
          declareNested(f, org, kind, entry, pointer, item, problems);
        }
      });
    }
  }
}

/**
 * The items a shared item holds (an insight's alerts), one set per project it applies to,
 * addressed by the project and their parent's key.
 */
function declareNested(f: LoadedFile, org: DesiredOrganization, kind: ResourceKind, entry: Obj, pointer: string, parent: DesiredItem, problems: ConfigProblem[]): void {
  for (const child of KINDS.filter((k) => isChildOf(k, kind.name))) {
    const list = entry[child.configKey];
    if (!Array.isArray(list)) continue;
    if (parent.ensure === 'absent') {
      // Only once, not per project the shared item applies to.
      if (list.some((v) => isObj(v) && v.ensure !== 'absent') && !problems.some((p) => p.message.startsWith(`${label(kind)} ${parent.key} is declared absent`))) {
        problems.push({ position: positionIn(f, childPointer(pointer, child.configKey)), message: `${label(kind)} ${parent.key} is declared absent (${formatPosition(parent.position)}), so it cannot have ${plural(child)}: the API deletes them with it; remove them from the file` });
      }
      continue;
    }
    const seen = new Map<string, FilePosition>();
    list.forEach((value, i) => {
      if (!isObj(value)) return;
      const raw = identityOf(child, value);
      if (typeof raw !== 'string' || raw === '') return;
      const at = childPointer(childPointer(pointer, child.configKey), i);
      const position = positionIn(f, childPointer(at, child.identityField));
      const key = child.displayKey(raw);
      const twice = seen.get(child.matchKey(key));
      if (twice) {
        problems.push({ position, message: `${label(child)} "${key}" is declared twice in ${label(kind)} "${parent.key}": ${formatPosition(twice)} and ${formatPosition(position)}` });
        return;
      }
      seen.set(child.matchKey(key), position);
      const ensure = value.ensure === 'absent' ? 'absent' : 'present';
      const fields: Record<string, unknown> = {};
      if (ensure === 'present') for (const [name, v] of Object.entries(value)) if (name in child.fields) fields[name] = v;
      const references = child.references && ensure === 'present'
        ? declaredReferences(child, fields, (field) => childPointer(at, field), (p) => positionIn(f, p, false), problems) : [];
      org.items.push({
        kind: child.name, organization: org.id, project: parent.project, key, ensure, fields, interpolated: [], position,
        parent: { kind: kind.name, key: parent.key, ...(child.tagsParent ? { tagged: true as const } : {}) }, ...(references.length > 0 ? { references } : {}),
      });
    });
  }
}

/** `defaults.<list>` blocks: each field once across files; applied to every present item that leaves it out. */
function applyDefaults({ org, files }: OrgScope, problems: ConfigProblem[]): void {
  for (const kind of KINDS) {
    const defaults = new Map<string, { value: unknown; where: FilePosition; env: boolean }>();
    for (const f of files) {
      const block = (f.data as Obj)[DEFAULTS];
      if (!isObj(block) || !isObj(block[kind.configKey])) continue;
      const pointer = childPointer(childPointer('', DEFAULTS), kind.configKey);
      for (const [name, value] of Object.entries(block[kind.configKey] as Obj)) {
        if (!(name in kind.fields) || name === kind.identityField) continue;
        const fieldPointer = childPointer(pointer, name);
        const where = positionIn(f, fieldPointer);
        const first = defaults.get(name);
        if (first) {
          problems.push({ position: where, message: `${DEFAULTS}.${kind.configKey}.${name} is declared twice: ${formatPosition(first.where)} and ${formatPosition(where)}` });
          continue;
        }
        defaults.set(name, { value, where, env: underEnv(f, fieldPointer) });
      }
    }
    if (defaults.size === 0) continue;
    for (const item of org.items) {
      if (item.kind !== kind.name || item.ensure !== 'present') continue;
      for (const [name, d] of defaults) {
        if (name in item.fields) continue;
        item.fields[name] = structuredClone(d.value);
        (item.fieldOrigins ??= {})[name] = d.where;
        if (d.env) item.interpolated.push(name);
      }
    }
  }
}

/** A rename names one old item, which is not also declared, and is not the item itself. */
function checkRenames(org: DesiredOrganization, problems: ConfigProblem[]): void {
  const index = identityIndex(org);
  const claimed = new Map<string, DesiredItem>();
  for (const item of org.items) {
    if (item.renamedFrom === undefined) continue;
    const kind = KINDS.find((k) => k.name === item.kind);
    if (!kind) continue;
    const shown = (key: string) => `${label(kind)} "${itemAddressKey({ ...item, key })}"`;
    if (kind.matchKey(item.renamedFrom) === kind.matchKey(item.key)) {
      // A role whose name changes only in case is updated in place anyway: nothing to rename from.
      if (item.renamedFrom === item.key) problems.push({ position: item.position, message: `${shown(item.key)} has ${RENAMED_FROM} its own ${kind.identityField}; remove ${RENAMED_FROM}` });
      continue;
    }
    const id = identityKey(kind, { project: item.project, ...(item.parent ? { parent: item.parent } : {}), key: item.renamedFrom });
    const declared = index.get(id);
    if (declared) {
      problems.push({ position: item.position, message: `${shown(item.key)} has ${RENAMED_FROM}: "${item.renamedFrom}", but ${shown(declared.key)} is also declared (${formatPosition(declared.position)}); an item is either renamed or declared, not both` });
      continue;
    }
    const other = claimed.get(id);
    if (other) {
      problems.push({ position: item.position, message: `two ${plural(kind)} have ${RENAMED_FROM}: "${item.renamedFrom}": ${formatPosition(other.position)} and ${formatPosition(item.position)}; only one can take over the live ${label(kind)}` });
      continue;
    }
    claimed.set(id, item);
  }
}
