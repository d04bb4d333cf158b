// Reads a whole organization for `hogsync export`, generic over the resource kinds: one
// paginated list per collection, one GET per item of kinds whose lists carry only basic fields
// (projects), and the child collections (flags) of every exported parent.
import { HogsyncError } from '../errors.js';
import type { ApiPort } from '../http/port.js';
import { liveStateOf, type LiveCollection, type LiveState } from '../plan/live.js';
import { labelOf, type LiveRecord, type ResourceKind, type Scope } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import { mapLimit } from '../util/map-limit.js';
import { getRecord, listRecords } from './live-state.js';

/**
 * `named`: ids of items of the parent kind (the one top-level kind whose items hold other
 * kinds: projects) to export; none = every item of the organization.
 */
export async function readWorkspace(api: ApiPort, organization: string, named: number[], parallelism: number, kinds: Kinds = KINDS): Promise<LiveState> {
  const orgScope: Scope = { organization, project: null };
  const top = kinds.filter((k) => k.parent === 'organization');
  const filtered = named.length > 0 ? top.find((k) => kinds.some((c) => c.parent === k.name)) : undefined;

  // 1. Organization-level lists; for kinds read one by one, the list only names the items.
  const lists = await mapLimit(top, parallelism, async (kind) => (kind === filtered ? [] : listRecords(api, kind, orgScope)));
  const records = new Map<ResourceKind, LiveRecord[]>(top.map((kind, i) => [kind, lists[i] ?? []]));

  // 2. Full records of kinds whose list answers only basic fields.
  const gets = top.filter((k) => k.read === 'get').flatMap((kind) => {
    const ids = kind === filtered ? named : (records.get(kind) ?? []).map((r) => kind.liveId(r));
    return ids.map((id) => ({ kind, id }));
  });
  const fetched = await mapLimit(gets, parallelism, ({ kind, id }) => getRecord(api, kind, orgScope, id));
  for (const kind of top.filter((k) => k.read === 'get')) {
    records.set(kind, fetched.filter((r, i): r is LiveRecord => r !== null && gets[i]?.kind === kind));
  }
  if (filtered) {
    const missing = named.filter((id) => !(records.get(filtered) ?? []).some((r) => Number(filtered.liveId(r)) === id));
    if (missing.length > 0) {
      throw new HogsyncError('usage', `${labelOf(filtered)} ${missing.join(', ')} not found in organization ${organization}`);
    }
  }

  // 3. Child collections (feature flags) of every exported parent; a parent deleted since it
  // was listed has no collection any more.
  const children = kinds.filter((k) => k.parent !== 'organization').flatMap((kind) => {
    const parent = top.find((k) => k.name === kind.parent);
    if (!parent) throw new HogsyncError('internal', `no organization-level kind ${kind.parent} for ${kind.name}`);
    const ids = (records.get(parent) ?? []).map((r) => Number(parent.liveId(r))).filter((id) => Number.isSafeInteger(id));
    return ids.map((project) => ({ kind, scope: { organization, project } }));
  });
  const childRecords = await mapLimit(children, parallelism, ({ kind, scope }) => listRecords(api, kind, scope, true));

  const collections: LiveCollection[] = [
    ...top.map((kind) => ({ kind, scope: orgScope, records: records.get(kind) ?? [] })),
    ...children.map(({ kind, scope }, i) => ({ kind, scope, records: childRecords[i] ?? [] })),
  ];
  return liveStateOf(collections);
}
