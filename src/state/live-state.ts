// Reads live state through the API port with as few requests as the API allows: every list
// and every GET is one unit of work, so they share the parallelism fairly. Records are checked
// (an id and an identity) before anything plans on them. Which reads to make is decided
// outside: src/state/targets.ts for a plan, reread.ts after apply, workspace.ts for export.
import type { DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import { listMeta } from '../http/pagination.js';
import type { ApiPort } from '../http/port.js';
import { liveStateOf, type LiveCollection, type LiveState } from '../plan/live.js';
import type { LiveRecord, ResourceKind, Scope } from '../resources/kind.js';
import type { Kinds } from '../resources/registry.js';
import { mapLimit } from '../util/map-limit.js';
import { plannedReads, type CollectionRead } from './targets.js';
import { identityOf } from '../resources/kind.js';

/** GETs of one abridged list's records in flight at once (beside the plan's other reads). */
const ABRIDGED_PARALLELISM = 4;

export type { CollectionRead } from './targets.js';
export { heldBackReads } from './targets.js';

/** The live state a desired state needs (see targets.ts). */
export async function readLiveState(api: ApiPort, desired: DesiredState, parallelism: number, kinds?: Kinds): Promise<LiveState> {
  return readCollections(api, plannedReads(desired, kinds), parallelism);
}

/** Reads collections; every list and every GET is one unit of work, so they share the parallelism fairly. */
export async function readCollections(api: ApiPort, reads: readonly CollectionRead[], parallelism: number): Promise<LiveState> {
  const done = new Map<CollectionRead, LiveCollection>();
  await streamCollections(api, reads, parallelism, (read, collection) => done.set(read, collection));
  return liveStateOf(reads.map((read) => done.get(read) as LiveCollection));
}

/**
 * Reads collections as readCollections does, handing each one to `onCollection` as soon as its
 * last request is answered (while the others are still in flight), in whatever order that is.
 */
export async function streamCollections(api: ApiPort, reads: readonly CollectionRead[], parallelism: number,
  onCollection: (read: CollectionRead, collection: LiveCollection) => void): Promise<void> {
  type Unit = { read: CollectionRead; id?: string | number; search?: string };
  const units: Unit[] = reads.flatMap((read) => [
    ...(read.list ? [{ read }] : []),
    ...read.ids.map((id) => ({ read, id })),
    ...(read.searches ?? []).map((search) => ({ read, search })),
  ]);
  const pending = new Map<CollectionRead, { left: number; records: LiveRecord[]; meta?: Record<string, unknown> }>();
  for (const read of reads) pending.set(read, { left: 0, records: [] });
  for (const unit of units) (pending.get(unit.read) as { left: number }).left++;
  const finish = (read: CollectionRead) => {
    const p = pending.get(read) as { records: LiveRecord[]; meta?: Record<string, unknown> };
    pending.delete(read);
    onCollection(read, { kind: read.kind, scope: read.scope, records: p.records, ...(p.meta ? { meta: p.meta } : {}) });
  };
  // A read with nothing to ask (no declared item to search for) is complete at once.
  for (const read of reads) if ((pending.get(read) as { left: number }).left === 0) finish(read);
  await mapLimit(units, parallelism, async ({ read, id, search }: Unit) => {
    const missingIsEmpty = read.kind.parent !== 'organization';
    let records: LiveRecord[];
    if (search !== undefined) {
      // The API's search matches parts of names, in any case: only the item of exactly this identity is it.
      const match = read.kind.matchKey(search);
      const found = await listRecords(api, read.kind, read.scope, missingIsEmpty, read.kind.searchQuery?.(search));
      records = found.filter((r) => read.kind.matchKey(read.kind.displayKey(identityOf(read.kind, r))) === match);
    } else if (id === undefined) {
      // A child collection answers 404 when its parent does not exist: the planner names it then.
      const details = read.details === undefined ? undefined : new Set(read.details.map(String));
      const wanted = details && ((r: LiveRecord) => details.has(read.kind.matchKey(read.kind.displayKey(identityOf(read.kind, r)))) || details.has(String(read.kind.liveId(r))));
      records = await listRecords(api, read.kind, read.scope, missingIsEmpty, read.query, wanted);
      const meta = listMeta(records);
      if (meta) (pending.get(read) as { meta?: Record<string, unknown> }).meta = meta;
      // Listed records of items read one by one come from their own GET only (a 404 there means missing).
      if (read.ids.length > 0) {
        const declared = new Set(read.ids.map(String));
        records = records.filter((r) => !declared.has(String(read.kind.liveId(r))));
      }
    } else {
      const record = await getRecord(api, read.kind, read.scope, id);
      records = record ? [record] : [];
    }
    const p = pending.get(read) as { left: number; records: LiveRecord[] };
    for (const r of records) p.records.push(r);
    if (--p.left === 0) finish(read);
  });
}

/** Live records drive deletes and updates: a record without an id or identity is refused, not guessed at. */
function checkRecords(kind: ResourceKind, path: string, records: unknown[]): LiveRecord[] {
  records.forEach((record, index) => {
    const bad = (why: string) => new HogsyncError('api', `the API answered with a malformed ${kind.name} (item ${index + 1}): ${why}`, { request: { method: 'GET', path, status: 200 } });
    if (record === null || typeof record !== 'object' || Array.isArray(record)) throw bad('not an object');
    const r = record as LiveRecord;
    if (typeof r.id !== 'string' && typeof r.id !== 'number') throw bad('"id" is missing or not a string or number');
    const identity = identityOf(kind, r);
    if (typeof identity !== 'string' && typeof identity !== 'number') throw bad(`"${kind.identityField}" is missing or not a string`);
  });
  return records as LiveRecord[];
}

const is404 = (err: unknown) => err instanceof HogsyncError && err.request?.status === 404;

/**
 * A list of an organization answered 404: the API does not know the organization (a mistyped
 * UUID), or the key's user cannot see it. Said so, naming it; the use case adds where a file declares it.
 */
export class UnknownOrganization extends HogsyncError {
  constructor(readonly organization: string, cause: HogsyncError) {
    super('api', `the API does not know organization ${organization} (${cause.format()}): check the organization's UUID (the web app shows it in the organization's settings) and that the key's user belongs to it`, { cause });
    this.name = 'UnknownOrganization';
  }
}

/** Every record of a collection, checked; `missingIsEmpty`: a 404 means no collection (its parent is gone). */
export async function listRecords(api: ApiPort, kind: ResourceKind, scope: Scope, missingIsEmpty = false, query?: string,
  wanted?: (record: LiveRecord) => boolean): Promise<LiveRecord[]> {
  const collection = kind.collectionPath(scope);
  const path = query ? `${collection}${collection.includes('?') ? '&' : '?'}${query}` : collection;
  try {
    const records = checkRecords(kind, path, await api.listAll<unknown>(path));
    if (!kind.abridgedList) return records;
    // The list answers basic fields only: the records compared or written are read again in full
    // (one GET each, a few at a time); one deleted since it was listed is gone.
    const full = await mapLimit(records, ABRIDGED_PARALLELISM, async (r) => (wanted && !wanted(r) ? r : getRecord(api, kind, scope, kind.liveId(r))));
    return full.filter((r): r is LiveRecord => r !== null);
  } catch (err) {
    if (missingIsEmpty && is404(err)) return [];
    if (scope.project === null && is404(err)) throw new UnknownOrganization(scope.organization, err as HogsyncError);
    throw err;
  }
}

/** One record, checked, or null when the API answers 404. */
export async function getRecord(api: ApiPort, kind: ResourceKind, scope: Scope, id: string | number): Promise<LiveRecord | null> {
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

