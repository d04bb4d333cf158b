// Items a file names by a field instead of their identity (a project by `name`, without `id`):
// before anything is planned, each is found among the live items of its kind, without regard to
// case (or by its `renamed_from`), and from then on it is that item, by its identity: its address,
// its children's scope, the aliases that stand for it. One list per organization that names such
// items. One that no live item has is left as it is: the plan creates it, and its items are
// created after it; the organization's record is read then (one request) to refuse, before
// anything is sent, a create the organization's plan does not allow.
import type { DesiredItem, DesiredOrganization, DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import type { ApiPort } from '../http/port.js';
import { identityOf, labelOf, type LiveRecord, type ResourceKind, type Scope } from '../resources/kind.js';
import type { Kinds } from '../resources/registry.js';
import { getRecord, listRecords } from '../state/live-state.js';
import { printable } from '../util/printable.js';

export async function resolveNamedItems(api: ApiPort, desired: DesiredState, kinds: Kinds): Promise<void> {
  for (const kind of kinds.filter((k) => k.nameField !== undefined && k.parent === 'organization')) {
    for (const org of desired.organizations) {
      const named = org.items.filter((i) => i.kind === kind.name && kind.creatable?.(i.key) === true);
      if (named.length === 0) continue;
      const scope = { organization: org.id, project: null };
      const live = (await listRecords(api, kind, scope)).filter((r) => !kind.isGone(r));
      const toCreate: DesiredItem[] = [];
      for (const item of named) {
        const record = await byName(api, kind, scope, live, item.key) ?? (item.renamedFrom === undefined ? undefined : await byName(api, kind, scope, live, item.renamedFrom));
        if (record) adopt(kind, org, item, kind.displayKey(identityOf(kind, record)));
        else if (item.ensure === 'present') toCreate.push(item);
      }
      const first = toCreate[0];
      if (!first || !kind.createRefusal) continue;
      const { body } = await api.request<unknown>('GET', `/api/organizations/${encodeURIComponent(org.id)}/`);
      const refusal = body !== null && typeof body === 'object' && !Array.isArray(body) ? kind.createRefusal(body as LiveRecord, live) : undefined;
      if (refusal !== undefined) {
        throw new HogsyncError('config', `${labelOf(kind)} "${printable(first.key)}" would be created, but organization ${org.id} may hold no more ${kind.configKey.replace(/_/g, ' ')}; `
          + `nothing was sent. The API says: ${printable(refusal)}`, { position: first.position });
      }
    }
  }
}

/**
 * The live item of that name, if any. The list may not say that an item is gone (a project's
 * list leaves out is_pending_deletion), so each one of the name is read whole first: one being
 * deleted no longer claims its name (the API's refusal is shown if it still holds it).
 */
async function byName(api: ApiPort, kind: ResourceKind, scope: Scope, live: readonly LiveRecord[], name: string): Promise<LiveRecord | undefined> {
  const field = kind.nameField as string;
  const wanted = name.trim().toLowerCase();
  const found: LiveRecord[] = [];
  for (const r of live) {
    if (typeof r[field] !== 'string' || (r[field] as string).trim().toLowerCase() !== wanted) continue;
    const whole = await getRecord(api, kind, scope, kind.liveId(r));
    if (whole && !kind.isGone(whole)) found.push(r);
  }
  if (found.length > 1) {
    throw new HogsyncError('api', `the API lists ${found.length} ${kind.configKey.replace(/_/g, ' ')} named "${printable(name)}" (ids ${found.map((r) => String(kind.liveId(r))).join(', ')}): declare the one meant by its id`);
  }
  return found[0];
}

/**
 * The item found live is that item from now on: its key is the live identity, its children live
 * in it (a project's id), and its aliases stand for that identity.
 */
function adopt(kind: ResourceKind, org: DesiredOrganization, item: DesiredItem, identity: string): void {
  const former = item.key;
  const match = (key: string) => kind.matchKey(key) === kind.matchKey(former);
  item.key = identity;
  delete item.renamedFrom;
  // Its items' scopes as the files wrote them (its alias, else its name), for the whole lists below.
  const scopeOf = (key: string) => `${kind.name}:${key.toLowerCase()}`;
  const formerScopes = new Set([scopeOf(former)]);
  for (const child of org.items) {
    if (child.parent?.kind !== kind.name || !match(child.parent.item ?? child.parent.key)) continue;
    formerScopes.add(scopeOf(child.parent.key));
    delete child.parent;
    if (kind.projectKind) child.project = Number(identity);
    else child.parent = { kind: kind.name, key: identity };
  }
  for (const [alias, key] of Object.entries(org.aliases ?? {})) if (match(key)) (org.aliases as Record<string, string>)[alias] = identity;
  for (const [at, where] of Object.entries(org.wholeLists ?? {})) {
    const [child, scope] = at.split('|') as [string, string];
    if (!formerScopes.has(scope) || !org.wholeLists) continue;
    delete org.wholeLists[at];
    org.wholeLists[`${child}|${kind.projectKind ? identity : scopeOf(identity)}`] = where;
  }
  // A new array: what was indexed by the old keys is indexed again.
  org.items = [...org.items];
}
