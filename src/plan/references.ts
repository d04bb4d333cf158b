// Which item a reference by name means, per project: a declared item of that project (its live
// match once the planner matched it, else the create this plan makes), else the one live item of
// that name. The planner compares a declared value with its names replaced by these ids; apply
// fills in the ids of items it creates first (Deferred); plans show live ids by name again.
import type { DeclaredReference, DesiredItem } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import { identityOf, keyInScope, labelOf, type LiveRecord, type ReferredItem, type ResourceKind, type Scope } from '../resources/kind.js';
import { dottedPath } from '../config/references.js';
import { suggest } from '../config/suggest.js';
import { asSiteValue, hitsIn, namedReference, replaceAtSites, siteId } from '../resources/references.js';
import type { Kinds } from '../resources/registry.js';
import { addressOf } from './types.js';

/**
 * An id apply fills in when it runs: the id of an item the same apply creates first (its
 * change's address). Never serialized: values holding one are resolved before they are sent.
 */
export class Deferred {
  constructor(readonly address: string, readonly as: 'number' | 'string' | undefined) {}
}

/** Whether a value holds an id that only apply can fill in. */
export function holdsDeferred(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (value instanceof Deferred) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (holdsDeferred(v)) return true;
    return false;
  }
  for (const k in value) if (holdsDeferred((value as Record<string, unknown>)[k])) return true;
  return false;
}

/** `value` with every Deferred replaced by the created id (`ids.get(address)`); undefined when one was not created. */
export function fillDeferred(value: unknown, ids: ReadonlyMap<string, string | number>): { value: unknown; missing?: string } {
  let missing: string | undefined;
  const walk = (v: unknown): unknown => {
    if (v instanceof Deferred) {
      const id = ids.get(v.address);
      if (id === undefined) {
        missing ??= v.address;
        return null;
      }
      return v.as === 'string' ? String(id) : id;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const out = walk(value);
  return missing === undefined ? { value: out } : { value: out, missing };
}

interface Target { kind: ResourceKind; scope: Scope }

/** What is known of one kind in one project: declared items, their live matches, live items by name. */
interface Entry {
  declared: Map<string, DesiredItem>;
  matched: Map<DesiredItem, LiveRecord>;
  live: LiveRecord[] | undefined;
  byName?: Map<string, LiveRecord[]>;
  byId?: Map<string, LiveRecord>;
  byRecord?: Map<LiveRecord, DesiredItem>;
}

/** One resolved reference: the id the API takes, or the create that makes it. */
export type Resolved = { id: string | number; record: LiveRecord } | { deferred: string; item: DesiredItem };

export class ReferenceIndex {
  private readonly entries = new Map<string, Entry>();
  /**
   * The kinds the organization's declared items refer to: only theirs are looked up by name or
   * matched to a reference, so only theirs are indexed (a workspace of 20 000 flags that refer
   * to nothing indexes none of them).
   */
  private readonly referred: ReadonlySet<string>;

  constructor(private readonly organization: string, private readonly kinds: Kinds, items: readonly DesiredItem[]) {
    const referred = new Set<string>();
    for (const item of items) for (const ref of item.references ?? []) referred.add(ref.kind);
    this.referred = referred;
  }

  private readonly released = new Set<number>();

  /**
   * Lets a project's records go once its unit is planned: its references resolve within it
   * (or up, to the organization's), so nothing asks for them again, and a plan of hundreds of
   * projects would otherwise hold every project's records to the end.
   */
  release(project: number): void {
    this.released.add(project);
    for (const kind of this.kinds) this.entries.delete(`${kind.name}|${project}`);
  }

  private entry(kind: ResourceKind, project: number | null): Entry {
    if (project !== null && this.released.has(project)) throw new HogsyncError('internal', `the ${kind.name}s of project ${project} were asked for after the project was planned`);
    const key = `${kind.name}|${project ?? ''}`;
    let e = this.entries.get(key);
    if (!e) {
      e = { declared: new Map(), matched: new Map(), live: undefined };
      this.entries.set(key, e);
    }
    return e;
  }

  /** The declared items of a kind in a project, and its live records (gone ones aside), before it is planned. */
  register(kind: ResourceKind, scope: Scope, items: readonly DesiredItem[], live: LiveRecord[] | undefined): void {
    const e = this.entry(kind, scope.project);
    if (this.referred.has(kind.name)) for (const item of items) e.declared.set(kind.matchKey(item.key), item);
    e.live = live;
    e.byName = undefined;
    e.byId = undefined;
    e.byRecord = undefined;
  }

  /** A declared item's live match, once the planner found it. */
  matched(kind: ResourceKind, scope: Scope, item: DesiredItem, record: LiveRecord): void {
    if (!this.referred.has(kind.name)) return;
    const e = this.entry(kind, scope.project);
    e.matched.set(item, record);
    e.byRecord = undefined;
  }

  private named(kind: ResourceKind, e: Entry): Map<string, LiveRecord[]> {
    if (!e.byName) {
      e.byName = new Map();
      for (const r of e.live ?? []) {
        const name = kind.matchKey(kind.displayKey(identityOf(kind, r)));
        const list = e.byName.get(name);
        if (list) list.push(r);
        else e.byName.set(name, [r]);
      }
    }
    return e.byName;
  }

  private ids(kind: ResourceKind, e: Entry): Map<string, LiveRecord> {
    if (!e.byId) e.byId = new Map((e.live ?? []).map((r) => [String(kind.liveId(r)), r]));
    return e.byId;
  }

  /** The item a reference of an item in `scope` means, or an error at the reference's line. */
  resolve(ref: DeclaredReference, scope: Scope): Resolved {
    const target = this.kinds.find((k) => k.name === ref.kind);
    if (!target) throw new HogsyncError('config', `${ref.kind} is not a kind hogsync manages`, { position: ref.position });
    const e = this.entry(target, scope.project);
    const where = scope.project === null ? `organization ${this.organization}` : `project ${scope.project}`;
    const label = labelOf(target);
    const declared = e.declared.get(target.matchKey(ref.name));
    if (declared) {
      if (declared.ensure === 'absent') {
        throw new HogsyncError('config', `refers to ${label} "${ref.name}", which the files delete (${declared.position.file}:${declared.position.line}:${declared.position.col})`, { position: ref.position });
      }
      const record = e.matched.get(declared);
      if (record) return { id: target.liveId(record), record };
      // Referred items live in the project (a subscription's insights), whatever item of it holds the referring one.
      const home = scope.parent && scope.parent.project !== true ? { organization: scope.organization, project: scope.project } : scope;
      return { deferred: addressOf(target.name, this.organization, keyInScope(home, declared.key)), item: declared };
    }
    if (e.live === undefined) {
      throw new HogsyncError('config', `${label} "${ref.name}" cannot be looked up: the ${target.configKey.replace(/_/g, ' ')} of ${where} were not read`, { position: ref.position });
    }
    const found = this.named(target, e).get(target.matchKey(ref.name)) ?? [];
    if (found.length === 1) return { id: target.liveId(found[0] as LiveRecord), record: found[0] as LiveRecord };
    if (found.length === 0) {
      const near = suggest(ref.name, this.namesOf(target, e));
      const fix = near !== undefined ? `did you mean "${near}"? Correct the name, or declare "${ref.name}" in the files` : 'declare it in the files, or correct the name';
      throw new HogsyncError('config', `no ${label} named "${ref.name}" in ${where}: ${fix}`, { position: ref.position });
    }
    const ids = found.map((r) => String(target.liveId(r))).join(', ');
    throw new HogsyncError('config', `${found.length} ${target.configKey.replace(/_/g, ' ')} of ${where} are named "${ref.name}" (ids ${ids}): declare the one meant with its id: (\`id: ${String(target.liveId(found[0] as LiveRecord))}\`) to refer to it by name`, { position: ref.position });
  }

  /** The names a reference to a kind in a project could have meant: the declared ones, then the live ones. */
  private namesOf(kind: ResourceKind, e: Entry): string[] {
    const names = [...e.declared.values()].filter((i) => i.ensure === 'present').map((i) => i.key);
    for (const r of e.live ?? []) names.push(kind.displayKey(identityOf(kind, r)));
    return names;
  }

  /** A live id at a site, shown by name where the project holds one live item of that id and its name is unique. */
  nameOf(kindName: string, scope: Scope, id: string | number): string | undefined {
    const target = this.kinds.find((k) => k.name === kindName);
    if (!target) return undefined;
    const e = this.entry(target, scope.project);
    const record = this.ids(target, e).get(String(id));
    if (!record) return undefined;
    const name = target.displayKey(identityOf(target, record));
    return (this.named(target, e).get(target.matchKey(name))?.length ?? 0) === 1 ? name : undefined;
  }

  /** The declared item a live record of a kind stands for, where the planner matched one. */
  private itemOf(e: Entry, record: LiveRecord): DesiredItem | undefined {
    e.byRecord ??= new Map([...e.matched].map(([item, r]) => [r, item]));
    return e.byRecord.get(record);
  }

  /**
   * A reference the referred item's kind refuses (a flag targeting a cohort with behavioral
   * criteria): an error at the reference's line. The referred item is seen as it will be after
   * the plan: its declared fields over its live record.
   */
  private checkRefusal(from: ResourceKind, ref: DeclaredReference, scope: Scope, resolved: Resolved): void {
    const target = this.kinds.find((k) => k.name === ref.kind);
    if (!target?.refusesReference) return;
    const e = this.entry(target, scope.project);
    const view = (item: DesiredItem | undefined, record: LiveRecord | undefined): ReferredItem => ({
      name: item ? item.key : target.displayKey(identityOf(target, record)),
      fields: { ...(record ?? {}), ...(item?.ensure === 'present' ? item.fields : {}) },
    });
    const find = (value: unknown): ReferredItem | undefined => {
      const named = namedReference(value);
      if (named) {
        if (named.kind !== target.name) return undefined;
        const declared = e.declared.get(target.matchKey(named.name));
        if (declared) return declared.ensure === 'present' ? view(declared, e.matched.get(declared)) : undefined;
        const found = this.named(target, e).get(target.matchKey(named.name)) ?? [];
        return found.length === 1 ? view(this.itemOf(e, found[0] as LiveRecord), found[0]) : undefined;
      }
      const id = siteId(value);
      const record = id === undefined ? undefined : this.ids(target, e).get(String(id));
      return record ? view(this.itemOf(e, record), record) : undefined;
    };
    const referred = 'id' in resolved ? view(this.itemOf(e, resolved.record), resolved.record) : view(resolved.item, undefined);
    const why = target.refusesReference(from.name, referred, find);
    if (why) throw new HogsyncError('config', `${dottedPath(ref.field, ref.path)}: ${why}`, { position: ref.position });
  }

  /**
   * The ids an item's declared fields hold at its sites once its references are resolved, and
   * the creates it waits for; or every reference of it that does not resolve (`errors`), each at
   * its line, so a plan names all of them in one run.
   */
  resolveFields(kind: ResourceKind, scope: Scope, item: DesiredItem): { fields: Record<string, unknown>; after: string[]; uses: Target[]; errors?: HogsyncError[] } {
    const refs = item.references ?? [];
    if (refs.length === 0) return { fields: item.fields, after: [], uses: [] };
    const fields = { ...item.fields };
    const after: string[] = [];
    let errors: HogsyncError[] | undefined;
    for (const ref of refs) {
      let resolved: Resolved;
      try {
        resolved = this.resolve(ref, scope);
        this.checkRefusal(kind, ref, scope, resolved);
      } catch (err) {
        if (!(err instanceof HogsyncError) || err.code !== 'config') throw err;
        (errors ??= []).push(err);
        continue;
      }
      const site = kind.references?.find((s) => s.field === ref.field && s.kind === ref.kind);
      const value = 'id' in resolved ? asSiteValue(site ?? { field: ref.field, path: '', key: '', kind: ref.kind }, resolved.id) : new Deferred(resolved.deferred, site?.as);
      if ('deferred' in resolved) after.push(resolved.deferred);
      fields[ref.field] = setAt(fields[ref.field], ref.path, value);
    }
    return errors ? { fields: item.fields, after: [], uses: [], errors } : { fields, after, uses: [] };
  }

  /** A live value with the ids at the kind's sites written by name, where the name is known and unique. */
  liveByName(kind: ResourceKind, scope: Scope, field: string, value: unknown): unknown {
    return replaceAtSites(kind, field, value, (hit) => {
      if (namedReference(hit.value)) return undefined;
      const id = siteId(hit.value);
      const name = id === undefined ? undefined : this.nameOf(hit.site.kind, scope, id);
      return name === undefined ? undefined : { [hit.site.kind]: name };
    });
  }
}

function setAt(value: unknown, path: ReadonlyArray<string | number>, next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  if (Array.isArray(value) && typeof head === 'number') {
    const copy = [...value];
    copy[head] = setAt(value[head], rest, next);
    return copy;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return { ...(value as Record<string, unknown>), [head]: setAt((value as Record<string, unknown>)[head], rest, next) };
  }
  return value;
}
