// Reads a whole organization for `hogsync export`, generic over the resource kinds: one
// paginated list per collection, one GET per item of kinds whose lists carry only basic fields
// (projects), and the child collections (flags) of every exported parent.
import { HogsyncError } from '../errors.js';
import type { ApiPort } from '../http/port.js';
import { liveStateOf, type LiveCollection, type LiveState } from '../plan/live.js';
import { identityOf, isChildOf, labelOf, parentNames, type LiveRecord, type ResourceKind, type Scope } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import { mapLimit } from '../util/map-limit.js';
import { getRecord, KindUnavailable, listRecords } from './live-state.js';
import { withReferred } from './referred.js';

/** The kinds `export` writes unless `--kind` names others: every kind but those read whole only on request. */
export function defaultExportKinds(kinds: Kinds = KINDS): ResourceKind[] {
  return kinds.filter((k) => k.exportedByDefault !== false);
}

/**
 * `named`: ids of items of the parent kind (the one top-level kind whose items hold other
 * kinds: projects) to export; none = every item of the organization.
 */
export async function readWorkspace(api: ApiPort, organization: string, named: number[], parallelism: number, kinds: Kinds = KINDS, selected: Kinds = defaultExportKinds(kinds)): Promise<LiveState> {
  const orgScope: Scope = { organization, project: null };
  // The kinds asked for, and the parents that hold them (read to know where their children live).
  const wanted = new Set(selected.map((k) => k.name));
  const addParents = (kind: ResourceKind): void => {
    for (const name of parentNames(kind)) {
      const parent = kinds.find((k) => k.name === name);
      if (parent) { wanted.add(name); addParents(parent); }
    }
  };
  for (const kind of selected) addParents(kind);
  const top = kinds.filter((k) => k.parent === 'organization' && wanted.has(k.name));
  const filtered = named.length > 0 ? top.find((k) => k.projectKind) : undefined;

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
  const held = (k: ResourceKind) => kinds.some((p) => p.name === k.parent && p.parent !== 'organization');
  const children = kinds.filter((k) => k.parent !== 'organization' && wanted.has(k.name) && !held(k)).flatMap((kind) => {
    const parent = top.find((k) => k.name === kind.parent);
    if (!parent) throw new HogsyncError('internal', `no organization-level kind ${kind.parent} for ${kind.name}`);
    return (records.get(parent) ?? []).flatMap((r): Array<{ kind: ResourceKind; scope: Scope }> => {
      if (parent.projectKind) {
        const project = Number(parent.liveId(r));
        return Number.isSafeInteger(project) ? [{ kind, scope: { organization, project } }] : [];
      }
      return [{ kind, scope: { organization, project: null, parent: { kind: parent.name, key: parent.displayKey(identityOf(parent, r)), id: parent.liveId(r) } } }];
    });
  });
  const childRecords = await mapLimit(children, parallelism, async ({ kind, scope }) => {
    // A kind the organization's plan lacks (experiments without the enterprise features) has nothing to export.
    const found = await listRecords(api, kind, scope, true).catch((err: unknown) => {
      if (err instanceof KindUnavailable) return [];
      throw err;
    });
    return kind.exportable ? found.filter((r) => kind.exportable?.(r)) : found;
  });

  // 3b. Items held by items of a project's kinds (an insight's alerts, a dashboard's subscriptions).
  const grandchildren = kinds.filter((k) => wanted.has(k.name) && children.some((c) => isChildOf(k, c.kind.name))).flatMap((kind) =>
    children.flatMap(({ kind: parent, scope }, i): Array<{ kind: ResourceKind; scope: Scope }> => (!isChildOf(kind, parent.name) ? []
      : (childRecords[i] ?? []).filter((r) => !parent.isGone(r)).map((r) => ({ kind, scope: heldScope(scope, parent, kind, r) })))));
  const grandRecords = await mapLimit(grandchildren, parallelism, ({ kind, scope }) => listRecords(api, kind, scope, true));

  const collections: LiveCollection[] = [
    ...top.map((kind) => ({ kind, scope: orgScope, records: records.get(kind) ?? [] })),
    ...children.map(({ kind, scope }, i) => ({ kind, scope, records: childRecords[i] ?? [] })),
    ...grandchildren.map(({ kind, scope }, i) => ({ kind, scope, records: grandRecords[i] ?? [] })),
  ];
  // 4. What those refer to by id and was not read (a flag's cohorts, when only flags are exported): to write names.
  return liveStateOf(await withReferred(api, collections, kinds, parallelism));
}

/** The scope of the items a live record holds (an insight's alerts): its project, and the record as their parent. */
export function heldScope(scope: Scope, parent: ResourceKind, child: ResourceKind, record: LiveRecord): Scope {
  return {
    organization: scope.organization, project: scope.project,
    parent: { kind: parent.name, key: parent.displayKey(identityOf(parent, record)), id: parent.liveId(record), ...(child.tagsParent ? { tagged: true as const } : {}) },
  };
}
