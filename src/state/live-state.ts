// Reads live state through the API port with as few requests as the API allows: every list
// and every GET is one unit of work, so they share the parallelism fairly. Records are checked
// (an id and an identity) before anything plans on them. Which reads to make is decided
// outside: src/state/targets.ts for a plan, reread.ts after apply, workspace.ts for export.
import type { DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import { listMeta } from '../http/pagination.js';
import type { ApiPort } from '../http/port.js';
import { liveStateOf, type LiveState } from '../plan/live.js';
import type { LiveRecord, ResourceKind, Scope } from '../resources/kind.js';
import type { Kinds } from '../resources/registry.js';
import { mapLimit } from '../util/map-limit.js';
import { plannedReads, type CollectionRead } from './targets.js';

export type { CollectionRead } from './targets.js';
export { heldBackReads } from './targets.js';

/** The live state a desired state needs (see targets.ts). */
export async function readLiveState(api: ApiPort, desired: DesiredState, parallelism: number, kinds?: Kinds): Promise<LiveState> {
  return readCollections(api, plannedReads(desired, kinds), parallelism);
}

/** Reads collections; every list and every GET is one unit of work, so they share the parallelism fairly. */
export async function readCollections(api: ApiPort, reads: readonly CollectionRead[], parallelism: number): Promise<LiveState> {
  type Unit = { read: CollectionRead; id?: string | number; search?: string };
  const units: Unit[] = reads.flatMap((read) => [
    ...(read.list ? [{ read }] : []),
    ...read.ids.map((id) => ({ read, id })),
    ...(read.searches ?? []).map((search) => ({ read, search })),
  ]);
  const results = await mapLimit(units, parallelism, async ({ read, id, search }: Unit) => {
    const missingIsEmpty = read.kind.parent !== 'organization';
    if (search !== undefined) {
      // The API's search matches parts of names, in any case: only the item of exactly this identity is it.
      const match = read.kind.matchKey(search);
      const found = await listRecords(api, read.kind, read.scope, missingIsEmpty, read.kind.searchQuery?.(search));
      return found.filter((r) => read.kind.matchKey(read.kind.displayKey(r[read.kind.identityField])) === match);
    }
    // A child collection answers 404 when its parent does not exist: the planner names it then.
    if (id === undefined) return listRecords(api, read.kind, read.scope, missingIsEmpty, read.query);
    const record = await getRecord(api, read.kind, read.scope, id);
    return record ? [record] : [];
  });
  const byRead = new Map<CollectionRead, LiveRecord[]>();
  const metas = new Map<CollectionRead, Record<string, unknown>>();
  units.forEach((unit, i) => {
    let records = results[i] ?? [];
    const meta = listMeta(records);
    if (meta) metas.set(unit.read, meta);
    if (unit.id === undefined && unit.search === undefined && unit.read.ids.length > 0) {
      const declared = new Set(unit.read.ids.map(String));
      records = records.filter((r) => !declared.has(String(unit.read.kind.liveId(r))));
    }
    byRead.set(unit.read, [...(byRead.get(unit.read) ?? []), ...records]);
  });
  return liveStateOf(reads.map((read) => {
    const meta = metas.get(read);
    return { kind: read.kind, scope: read.scope, records: byRead.get(read) ?? [], ...(meta ? { meta } : {}) };
  }));
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
export async function listRecords(api: ApiPort, kind: ResourceKind, scope: Scope, missingIsEmpty = false, query?: string): Promise<LiveRecord[]> {
  const path = `${kind.collectionPath(scope)}${query ? `?${query}` : ''}`;
  try {
    return checkRecords(kind, path, await api.listAll<unknown>(path));
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

