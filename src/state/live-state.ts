// Reads live state through the API port with as few requests as the API allows: every list
// and every GET is one unit of work, so they share the parallelism fairly. Records are checked
// (an id and an identity) before anything plans on them. Which reads to make is decided
// outside: src/state/targets.ts for a plan, reread.ts after apply, workspace.ts for export.
import { MissingScopes, missingScopeOf } from '../http/advice.js';
import type { DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import { listMeta, withListMeta } from '../http/pagination.js';
import type { ApiPort } from '../http/port.js';
import { liveStateOf, type LiveCollection, type LiveState } from '../plan/live.js';
import { withParentId, type Companions, type CompanionRead, type LiveRecord, type ParentRef, type ResourceKind, type Scope } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import { evenly } from '../util/evenly.js';
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
 * Collections whose parent is not a project (a role's memberships) are read once the parent's
 * list names its id; a parent the API does not have yet (the plan creates it) has none.
 */
export async function streamCollections(port: ApiPort, reads: readonly CollectionRead[], parallelism: number,
  onCollection: (read: CollectionRead, collection: LiveCollection) => void): Promise<void> {
  const dependents = reads.filter(needsParentId);
  const direct = reads.filter((read) => !needsParentId(read));
  // Each dependent waits for its parent's list: one the reads have, else one read for it alone.
  const parentLists = new Map<CollectionRead, CollectionRead[]>();
  const hidden = new Set<CollectionRead>();
  for (const read of dependents) {
    const parent = read.scope.parent as ParentRef;
    // A parent inside a project (an insight holding alerts) is listed in that project; others in the organization.
    const project = parent.project === true ? null : read.scope.project;
    let list = direct.find((r) => r.kind.name === parent.kind && r.scope.organization === read.scope.organization && r.scope.project === project && r.list && r.query === undefined)
      ?? [...parentLists.keys()].find((r) => r.kind.name === parent.kind && r.scope.organization === read.scope.organization && r.scope.project === project);
    if (!list) {
      const parentKind = read.parentKind ?? KINDS.find((k) => k.name === parent.kind);
      if (!parentKind) throw new HogsyncError('internal', `no parent kind for ${read.kind.name} of ${parent.kind} ${parent.key}`);
      list = { kind: parentKind, scope: { organization: read.scope.organization, project }, list: true, ids: [] };
      hidden.add(list);
    }
    parentLists.set(list, [...(parentLists.get(list) ?? []), read]);
  }
  const all = [...direct, ...hidden];
  const api = sharedReads(port, new Set([...reads, ...hidden].flatMap((read) => [
    ...read.kind.companions?.(read.scope).map((c) => c.path) ?? [],
    // A kind listed once per project: that list's GET is shared with a companion of the same path (the alert limit's project_alerts).
    ...(read.kind.listedPerProject ? [read.kind.collectionPath(projectScopeOf(read.scope))] : []),
  ])));
  // The one list per project of kinds listedPerProject, read and checked once for all its parent items.
  const projectLists = new Map<string, Promise<LiveRecord[]>>();
  type Unit = { read: CollectionRead; id?: string | number; search?: string };
  const asked: Unit[] = all.flatMap((read) => [
    ...(read.list ? [{ read }] : []),
    ...read.ids.map((id) => ({ read, id })),
    ...(read.searches ?? []).map((search) => ({ read, search })),
  ]);
  // Requests for the projects' collections are spread evenly among the organization's (a plan
  // of many projects makes one GET for each): the answers compared at length (a project's
  // flags) then come at the pace of the whole read, not all in its first half, where their
  // comparison fell behind the network and answers waited to be read.
  const units = evenly(asked.filter((u) => u.read.scope.project !== null), asked.filter((u) => u.read.scope.project === null));
  const pending = new Map<CollectionRead, { left: number; records: LiveRecord[]; meta?: Record<string, unknown> }>();
  for (const read of all) pending.set(read, { left: 0, records: [] });
  for (const unit of units) (pending.get(unit.read) as { left: number }).left++;
  const children: Array<Promise<void>> = [];
  /** A read's records are all in: `last`, the answer of its last unit (most reads have one). */
  const finish = (read: CollectionRead, last: LiveRecord[] = []) => {
    const p = pending.get(read) as { records: LiveRecord[]; meta?: Record<string, unknown> };
    pending.delete(read);
    // The records move to an array of their own: `p` was made before the reads began and has
    // long been promoted to the collector's old generation, where whatever an object points to
    // survives every young collection until a full one, however dead the object (most of a
    // plan's records were copied twice and promoted that way). Emptied, it points to none. A
    // read of one unit passes its answer on as it is, never copied.
    const records = p.records.length === 0 ? last : [...p.records.splice(0), ...last];
    const waiting = parentLists.get(read);
    if (waiting) {
      const task = readChildren(api, read.kind, records, waiting, onCollection, projectLists);
      task.catch(() => undefined);
      children.push(task);
    }
    if (!hidden.has(read)) onCollection(read, { kind: read.kind, scope: read.scope, records, ...(p.meta ? { meta: p.meta } : {}) });
  };
  // A read with nothing to ask (no declared item to search for) is complete at once.
  for (const read of all) if ((pending.get(read) as { left: number }).left === 0) finish(read);
  // Twice as many units under way as requests in flight (the client's slots hold those to
  // `parallelism`): a unit whose answer is in waits for its turn to be parsed, and meanwhile the
  // next unit's request, already waiting for a slot, takes the one it freed. With one unit a
  // slot, each next request waited for the parse before it (about 2 ms a round trip).
  // A read refused for a scope the key lacks does not stop the others: every such scope is said at the end, in one line.
  const lacking = new Map<string, unknown>();
  await mapLimit(units, parallelism * 2, async (unit: Unit) => {
    try {
      await readUnit(unit);
    } catch (err) {
      const scope = missingScopeOf(err);
      if (scope === undefined) throw err;
      if (!lacking.has(scope)) lacking.set(scope, err);
    }
  });
  await Promise.all(children);
  // One scope: the API's own words; several: all of them in one line.
  if (lacking.size === 1) throw [...lacking.values()][0];
  if (lacking.size > 1) throw new MissingScopes([...lacking.keys()].sort());

  async function readUnit({ read, id, search }: Unit): Promise<void> {
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
    if (--p.left === 0) finish(read, records);
    else for (const r of records) p.records.push(r);
  }
}

function needsParentId(read: CollectionRead): boolean {
  return read.scope.parent !== undefined && read.scope.parent.id === null;
}

/**
 * The collections of parents that are not projects, once the parents' list is in: each read in
 * its parent's live id (found by the declared name, or the name it had before a rename); a
 * parent the API does not have yet holds nothing.
 */
async function readChildren(api: ApiPort, parentKind: ResourceKind, parents: readonly LiveRecord[], reads: readonly CollectionRead[],
  onCollection: (read: CollectionRead, collection: LiveCollection) => void, projectLists: Map<string, Promise<LiveRecord[]>>): Promise<void> {
  const byKey = new Map<string, LiveRecord>();
  for (const r of parents) {
    if (!parentKind.isGone(r)) byKey.set(parentKind.matchKey(parentKind.displayKey(identityOf(parentKind, r))), r);
  }
  await mapLimit(reads, ABRIDGED_PARALLELISM, async (read) => {
    const parent = read.scope.parent as ParentRef;
    const record = byKey.get(parentKind.matchKey(parent.key)) ?? (parent.formerKey === undefined ? undefined : byKey.get(parentKind.matchKey(parent.formerKey)));
    if (!record) {
      // Nothing to list yet; what its items are made with (members' uuids) is still needed.
      const companions = read.kind.companions ? await readCompanions(api, read.kind.companions(read.scope)) : undefined;
      return onCollection(read, { kind: read.kind, scope: read.scope, records: [], ...(companions ? { meta: { companions } } : {}) });
    }
    const scope = withParentId(read.scope, parentKind.liveId(record));
    const records = read.kind.listedPerProject ? await heldRecords(api, read.kind, scope, parentKind, projectLists) : await listRecords(api, read.kind, scope, true, read.query);
    const meta = listMeta(records);
    return onCollection(read, { kind: read.kind, scope, records, ...(meta ? { meta } : {}) });
  });
}

/** A parent-less scope in the same project: where a kind listed once per project is listed. */
function projectScopeOf(scope: Scope): Scope {
  return { organization: scope.organization, project: scope.project };
}

/** The records a parent item holds, out of its project's one list of the kind (read once, kept in `projectLists` for the other parent items). */
async function heldRecords(api: ApiPort, kind: ResourceKind, scope: Scope, parentKind: ResourceKind, projectLists: Map<string, Promise<LiveRecord[]>>): Promise<LiveRecord[]> {
  const path = kind.collectionPath(projectScopeOf(scope));
  let listed = projectLists.get(path);
  if (!listed) projectLists.set(path, (listed = listRecords(api, kind, projectScopeOf(scope), true)));
  const all = await listed;
  const id = String(scope.parent?.id);
  // What the list said besides its records (the companions an item is made with) stays with each part.
  return withListMeta(all.filter((r) => {
    const holder = kind.listedPerProject?.(r);
    return holder !== undefined && holder.kind === parentKind.name && String(holder.id) === id;
  }), listMeta(all));
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
  return kind.readAs ? (records as LiveRecord[]).map((r) => (kind.readAs as (r: LiveRecord) => LiveRecord)(r)) : records as LiveRecord[];
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

/** A kind the API does not serve here (its list answered 404 or 403: a feature the organization lacks). */
export class KindUnavailable extends HogsyncError {
  constructor(readonly kind: ResourceKind, message: string, cause: unknown) {
    super('config', message, { cause });
    this.name = 'KindUnavailable';
  }
}

/** Every record of a collection, checked; `missingIsEmpty`: a 404 means no collection (its parent is gone). */
export async function listRecords(api: ApiPort, kind: ResourceKind, scope: Scope, missingIsEmpty = false, query?: string,
  wanted?: (record: LiveRecord) => boolean): Promise<LiveRecord[]> {
  const collection = kind.collectionPath(scope);
  const path = query ? `${collection}${collection.includes('?') ? '&' : '?'}${query}` : collection;
  try {
    const [listed, companions] = await Promise.all([
      kind.listField ? fieldList(api, path, kind.listField) : api.listAll<unknown>(path),
      kind.companions ? readCompanions(api, kind.companions(scope)) : undefined,
    ]);
    const meta = listMeta(listed);
    const own = kind.listed ? withListMeta(listed.filter((r) => r !== null && typeof r === 'object' && kind.listed?.(r as LiveRecord)), meta) : listed;
    const records = checkRecords(kind, path, companions && kind.combine ? kind.combine(own, companions) : own);
    if (companions) withListMeta(records, { ...meta, companions });
    if (!kind.abridgedList) return records;
    // The list answers basic fields only: the records compared or written are read again in full
    // (one GET each, a few at a time); one deleted since it was listed is gone.
    const full = await mapLimit(records, ABRIDGED_PARALLELISM, async (r) => (wanted && !wanted(r) ? r : getRecord(api, kind, scope, kind.liveId(r))));
    return full.filter((r): r is LiveRecord => r !== null);
  } catch (err) {
    const status = err instanceof HogsyncError ? err.request?.status : undefined;
    // A 403 naming a missing scope is the key's, not the organization's plan: it is said as such.
    const missingScope = status === 403 && err instanceof HogsyncError && /scope/i.test(err.message);
    if (kind.unavailable && (status === 404 || (status === 403 && !missingScope))) {
      throw new KindUnavailable(kind, `${kind.configKey}: ${kind.unavailable} (GET ${path} → ${status}); nothing was sent`, err);
    }
    if (missingIsEmpty && is404(err)) return [];
    // A kind the API refuses to every key (older versions' alerts) says so in the user's words.
    const refused = err instanceof HogsyncError && err.request?.status !== undefined ? kind.refusedRead?.(err.request.status, err.message) : undefined;
    if (refused !== undefined) throw new HogsyncError('api', `${kind.configKey}: ${refused}`, { cause: err, request: (err as HogsyncError).request });
    if (scope.project === null && is404(err)) throw new UnknownOrganization(scope.organization, err as HogsyncError);
    throw err;
  }
}

/** The records of a list answered as one object, unpaginated (`{"access_controls": [...]}`). */
async function fieldList(api: ApiPort, path: string, field: string): Promise<unknown[]> {
  const { body } = await api.request<unknown>('GET', path);
  const list = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(list)) throw new HogsyncError('api', `the API answered without a "${field}" list`, { request: { method: 'GET', path, status: 200 } });
  return list;
}

/** The answers of a kind's companion reads, by name. */
async function readCompanions(api: ApiPort, reads: readonly CompanionRead[]): Promise<Companions> {
  const answers = await Promise.all(reads.map(async (read) => {
    try {
      return read.one ? (await api.request<unknown>('GET', read.path)).body : await api.listAll<unknown>(read.path);
    } catch (err) {
      if (read.optional && err instanceof HogsyncError && (err.request?.status === 403 || err.request?.status === 404)) return undefined;
      throw err;
    }
  }));
  return Object.fromEntries(reads.map((read, i) => [read.name, answers[i]]));
}

/**
 * The port a run's reads share: a list (or a GET) that several collections need (an
 * organization's members, for its members and for each role's memberships) is asked once and
 * kept for the run. Only those (`shared`, the companions' paths) are kept: the others are
 * megabytes of flags, let go as soon as their project is compared.
 */
export function sharedReads(api: ApiPort, shared: ReadonlySet<string>): ApiPort {
  const lists = new Map<string, Promise<unknown[]>>();
  const gets = new Map<string, Promise<{ status: number; body: unknown }>>();
  return {
    listAll: <T>(path: string) => {
      if (!shared.has(path)) return api.listAll<T>(path);
      let found = lists.get(path);
      if (!found) {
        found = api.listAll<unknown>(path);
        lists.set(path, found);
      }
      return found as Promise<T[]>;
    },
    request: <T>(method: Parameters<ApiPort['request']>[0], path: string, options?: Parameters<ApiPort['request']>[2]) => {
      if (method !== 'GET' || options !== undefined || !shared.has(path)) return api.request<T>(method, path, options);
      let found = gets.get(path);
      if (!found) {
        found = api.request<unknown>('GET', path);
        gets.set(path, found);
      }
      return found as Promise<{ status: number; body: T }>;
    },
  };
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

