// The live items some addresses name (`hogsync show`), read with no more requests than they
// need: a kind's list only where an address could name one of its items (a role address reads
// the roles list, never a project), a GET for each named item of kinds whose lists carry only
// basic fields, and a child kind's list only under the parents an address reaches. Generic
// over the kinds, like every read of src/state/.
import type { ApiPort } from '../http/port.js';
import { liveStateOf, type LiveCollection, type LiveState } from '../plan/live.js';
import type { TargetSet } from '../plan/targeting.js';
import type { LiveRecord, ResourceKind, Scope } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import { mapLimit } from '../util/map-limit.js';
import { getRecord, listRecords } from './live-state.js';
import { heldScope } from './workspace.js';
import { withReferred } from './referred.js';
import { identityOf, isChildOf, parentKeyOf } from '../resources/kind.js';

export async function readAddressed(api: ApiPort, organization: string, targets: TargetSet, parallelism: number, kinds: Kinds = KINDS): Promise<LiveState> {
  const orgScope: Scope = { organization, project: null };
  const childrenOf = (kind: ResourceKind) => kinds.filter((c) => isChildOf(c, kind.name));
  const named = (kind: ResourceKind) => targets.couldMatchUnder(`${kind.name}:${organization}/`);
  // A top-level kind is read when an address could name one of its items, or an item below one.
  // Or an item held by one of its items' items (an insight's alerts in a project).
  const reached = (kind: ResourceKind): boolean => named(kind) || childrenOf(kind).some(reached);
  const top = kinds.filter((k) => k.parent === 'organization' && reached(k));
  const lists = await mapLimit(top, parallelism, (kind) => listRecords(api, kind, orgScope));
  const records = new Map<ResourceKind, LiveRecord[]>(top.map((kind, i) => [kind, lists[i] ?? []]));

  // Kinds whose lists carry only basic fields: the full record of each item an address names.
  const address = (kind: ResourceKind, r: LiveRecord) => `${kind.name}:${organization}/${kind.displayKey(identityOf(kind, r))}`;
  const gets = top.filter((k) => k.read === 'get')
    .flatMap((kind) => (records.get(kind) ?? []).filter((r) => !kind.isGone(r) && targets.matches(address(kind, r))).map((r) => ({ kind, id: kind.liveId(r) })));
  const full = await mapLimit(gets, parallelism, ({ kind, id }) => getRecord(api, kind, orgScope, id));
  gets.forEach(({ kind, id }, i) => {
    const record = full[i];
    const list = records.get(kind) ?? [];
    records.set(kind, list.flatMap((r) => (String(kind.liveId(r)) !== String(id) ? [r] : record ? [record] : [])));
  });

  // Child collections only under the parents an address reaches (`feature_flag:ORG/111/*`: project
  // 111's; `role_membership:ORG/Engineers/*`: that role's).
  const children = top.flatMap((parent) => childrenOf(parent).filter(reached).flatMap((kind) => (records.get(parent) ?? [])
    .filter((r) => !parent.isGone(r))
    .map((r): { kind: ResourceKind; scope: Scope } => {
      if (parent.projectKind) return { kind, scope: { organization, project: Number(parent.liveId(r)) } };
      return { kind, scope: { organization, project: null, parent: { kind: parent.name, key: parent.displayKey(identityOf(parent, r)), id: parent.liveId(r) } } };
    })
    .filter(({ scope }) => (scope.parent ? true : Number.isSafeInteger(scope.project))
      && [kind, ...childrenOf(kind)].some((k) => targets.couldMatchUnder(`${k.name}:${organization}/${parentKeyOf(scope) ?? ''}/`)))));
  const childRecords = await mapLimit(children, parallelism, ({ kind, scope }) => listRecords(api, kind, scope, true));

  // Items those hold (an insight's alerts), under the parents an address reaches.
  const grandchildren = children.flatMap(({ kind: parent, scope }, i) => childrenOf(parent).filter(named).flatMap((kind) => (childRecords[i] ?? [])
    .filter((r) => !parent.isGone(r))
    .map((r) => ({ kind, scope: heldScope(scope, parent, kind, r) }))
    .filter(({ kind: k, scope: s }) => targets.couldMatchUnder(`${k.name}:${organization}/${parentKeyOf(s) ?? ''}/`))));
  const grandRecords = await mapLimit(grandchildren, parallelism, ({ kind, scope }) => listRecords(api, kind, scope, true));

  const collections: LiveCollection[] = [
    ...top.map((kind) => ({ kind, scope: orgScope, records: records.get(kind) ?? [] })),
    ...children.map(({ kind, scope }, i) => ({ kind, scope, records: childRecords[i] ?? [] })),
    ...grandchildren.map(({ kind, scope }, i) => ({ kind, scope, records: grandRecords[i] ?? [] })),
  ];
  // What those items refer to by id (a flag's cohorts), only where they do: to show it by name.
  return liveStateOf(await withReferred(api, collections, kinds, parallelism));
}
