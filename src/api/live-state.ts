// Reads the live state a plan needs with as few requests as the API allows: one paginated
// list per collection (the projects' too, for the unmanaged ones), one GET per declared
// project, flags only of declared projects.
import type { DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import type { LiveRecord, ResourceKind, Scope } from '../resources/kind.js';
import { KINDS } from '../resources/registry.js';
import { mapLimit } from '../util/map-limit.js';

/** The part of the API client live reading uses. */
export interface ApiReader {
  request<T = unknown>(method: 'GET', path: string, options?: { okStatuses?: number[] }): Promise<{ status: number; body: T }>;
  listAll<T = LiveRecord>(path: string): Promise<T[]>;
}

export interface LiveCollection { kind: ResourceKind; scope: Scope; records: LiveRecord[] }

export interface LiveState {
  collections: LiveCollection[];
  /** Live records of `kind` in `scope`, or undefined when that collection was not read. */
  find(kind: ResourceKind, scope: Scope): LiveRecord[] | undefined;
}

export function collectionKey(kind: ResourceKind, scope: Scope): string {
  return `${kind.name}|${scope.organization}|${scope.project ?? ''}`;
}

export function liveStateOf(collections: LiveCollection[]): LiveState {
  const index = new Map(collections.map((c) => [collectionKey(c.kind, c.scope), c.records]));
  return { collections, find: (kind, scope) => index.get(collectionKey(kind, scope)) };
}

/**
 * One collection to read: `list` reads all its pages, `ids` are GET one by one (kinds whose
 * lists carry only basic fields). Listed records of those ids are left out: declared items
 * come from their own GET only (a 404 there means missing, whatever the list says).
 */
export interface CollectionRead { kind: ResourceKind; scope: Scope; list: boolean; ids: ReadonlyArray<string | number> }

/** The reads a desired state needs, in a stable order. */
export function plannedReads(desired: DesiredState): CollectionRead[] {
  const reads: CollectionRead[] = [];
  for (const org of desired.organizations) {
    const projectItems = org.items.filter((i) => i.kind === 'project');
    const livingProjects = projectItems.filter((i) => i.ensure === 'present').map((i) => Number(i.key));
    for (const kind of KINDS) {
      if (kind.parent === 'organization') {
        // Kinds read one GET per declared item are listed too: the list names the unmanaged ones.
        const ids = kind.read === 'get' ? projectItems.map((i) => Number(i.key)) : [];
        reads.push({ kind, scope: { organization: org.id, project: null }, list: true, ids });
      } else {
        for (const project of livingProjects) reads.push({ kind, scope: { organization: org.id, project }, list: true, ids: [] });
      }
    }
  }
  return reads;
}

export async function readLiveState(api: ApiReader, desired: DesiredState, parallelism: number): Promise<LiveState> {
  return readCollections(api, plannedReads(desired), parallelism);
}

/** Reads collections; every list and every GET is one unit of work, so they share the parallelism fairly. */
export async function readCollections(api: ApiReader, reads: readonly CollectionRead[], parallelism: number): Promise<LiveState> {
  const units = reads.flatMap((read) => [...(read.list ? [{ read }] : []), ...read.ids.map((id) => ({ read, id }))]);
  const results = await mapLimit(units, parallelism, async ({ read, id }: { read: CollectionRead; id?: string | number }) => {
    // A project's collection answers 404 when the project does not exist: the planner names it then.
    if (id === undefined) return listRecords(api, read.kind, read.scope, read.kind.parent === 'project');
    const record = await getRecord(api, read.kind, read.scope, id);
    return record ? [record] : [];
  });
  const byRead = new Map<CollectionRead, LiveRecord[]>();
  units.forEach((unit, i) => {
    let records = results[i] ?? [];
    if (!('id' in unit) && unit.read.ids.length > 0) {
      const declared = new Set(unit.read.ids.map(String));
      records = records.filter((r) => !declared.has(String(unit.read.kind.liveId(r))));
    }
    byRead.set(unit.read, [...(byRead.get(unit.read) ?? []), ...records]);
  });
  return liveStateOf(reads.map((read) => ({ kind: read.kind, scope: read.scope, records: byRead.get(read) ?? [] })));
}

/** Live records drive deletes and updates: a record without an id or identity is refused, not guessed at. */
function checkRecords(kind: ResourceKind, path: string, records: unknown[]): LiveRecord[] {
  records.forEach((record, index) => {
    const bad = (why: string) => new HogsyncError('api', `the API answered with a malformed ${kind.name} (item ${index + 1}): ${why}`, { request: { method: 'GET', path, status: 200 } });
    if (record === null || typeof record !== 'object' || Array.isArray(record)) throw bad('not an object');
    const r = record as LiveRecord;
    if (typeof r.id !== 'string' && typeof r.id !== 'number') throw bad('"id" is missing or not a string or number');
    const identity = r[kind.identityField];
    if (typeof identity !== 'string' && typeof identity !== 'number') throw bad(`"${kind.identityField}" is missing or not a string`);
  });
  return records as LiveRecord[];
}

const is404 = (err: unknown) => err instanceof HogsyncError && err.request?.status === 404;

/** Every record of a collection, checked; `missingIsEmpty`: a 404 means no collection (its parent is gone). */
export async function listRecords(api: ApiReader, kind: ResourceKind, scope: Scope, missingIsEmpty = false): Promise<LiveRecord[]> {
  const path = kind.collectionPath(scope);
  try {
    return checkRecords(kind, path, await api.listAll<unknown>(path));
  } catch (err) {
    if (missingIsEmpty && is404(err)) return [];
    throw err;
  }
}

/** One record, checked, or null when the API answers 404. */
export async function getRecord(api: ApiReader, kind: ResourceKind, scope: Scope, id: string | number): Promise<LiveRecord | null> {
  const path = kind.itemPath(scope, id);
  try {
    const { body } = await api.request<unknown>('GET', path);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new HogsyncError('api', 'the API answered with a body that is not a record', { request: { method: 'GET', path, status: 200 } });
    }
    return checkRecords(kind, path, [body])[0] as LiveRecord;
  } catch (err) {
    if (is404(err)) return null;
    throw err;
  }
}
