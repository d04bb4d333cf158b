// The order a plan's changes must run in, beside what apply's waves already do: what the
// references ask (a create after the create of what it refers to, src/plan/references.ts), a
// change that removes a reference before the delete of what it refers to (removalPairs), and
// what the kinds' `order` hooks ask of their changes in one scope (flags by their dependencies).
import { parentKeyOf, type ChangeView, type KindName, type ResourceKind, type Scope } from '../resources/kind.js';
import { hitsIn, namedReference, siteId } from '../resources/references.js';
import { changeKey, type Execution, type PlanResult } from './types.js';

const scopeKey = (kind: string, scope: Scope) => `${kind}|${scope.organization}|${parentKeyOf(scope) ?? ''}`;

/** The changes of a plan as the kinds' hooks see them, by kind and scope. */
export function changeViews(result: PlanResult): Map<string, ChangeView[]> {
  const out = new Map<string, ChangeView[]>();
  for (const change of result.plan.changes) {
    const e = result.executions.get(changeKey(change));
    if (!e) continue;
    const key = scopeKey(e.kind.name, e.scope);
    const view: ChangeView = { address: change.address, action: change.action, identity: e.identity, scope: e.scope, values: e.values };
    if (e.live) view.live = e.live;
    const list = out.get(key);
    if (list) list.push(view);
    else out.set(key, [view]);
  }
  return out;
}

/** Pairs [before, after] the kinds and the references ask apply to respect. */
export function orderPairs(result: PlanResult): Array<[string, string]> {
  const pairs: Array<[string, string]> = [...(result.dependencies ?? []), ...removalPairs(result)];
  for (const views of changeViews(result).values()) {
    const kind = result.executions.get(views[0]?.address ?? '')?.kind;
    if (kind?.order) pairs.push(...kind.order(views));
  }
  return pairs;
}

/** What a live item refers to: an item of a kind, by its id (or by the value of its field `by`). */
interface Referred { kind: KindName; id: string | number; by?: string }

/**
 * What an item's live record refers to: the ids at its kind's reference sites and in its
 * `refersTo` fields, and the item that holds it (a role of its memberships, a project of its items).
 */
function referredBy(execution: Execution, projectKind: KindName | undefined): Referred[] {
  const { kind, scope, live } = execution;
  const out: Referred[] = [];
  if (scope.parent && scope.parent.id !== null && scope.parent.project !== true) out.push({ kind: scope.parent.kind, id: scope.parent.id });
  else if (scope.project !== null && projectKind !== undefined && !kind.projectKind) out.push({ kind: projectKind, id: scope.project });
  if (!live) return out;
  for (const hit of hitsIn(kind.references ?? [], live)) {
    const id = siteId(hit.value);
    if (id !== undefined && !namedReference(hit.value)) out.push({ kind: hit.site.kind, id });
  }
  for (const ref of kind.refersTo ?? []) {
    const id = live[ref.field];
    if (typeof id === 'string' || typeof id === 'number') out.push({ kind: ref.kind, id, ...(ref.by ? { by: ref.by } : {}) });
  }
  return out;
}

/**
 * Pairs [change, delete]: a change of an item that refers to something the plan deletes runs
 * before that delete, for every kind (the contract: deletes before the items they reference go).
 * The API refuses, or finds gone, a change that names what no longer exists (an access rule's
 * removal once its role is deleted answers 400).
 */
export function removalPairs(result: PlanResult): Array<[string, string]> {
  const kinds = new Map<KindName, ResourceKind>();
  for (const e of result.executions.values()) kinds.set(e.kind.name, e.kind);
  // Fields other than the id by which kinds refer to items of a kind (a grant names a membership).
  const byFields = new Map<KindName, Set<string>>();
  for (const kind of kinds.values()) {
    for (const ref of kind.refersTo ?? []) {
      if (ref.by === undefined) continue;
      const fields = byFields.get(ref.kind) ?? new Set<string>();
      fields.add(ref.by);
      byFields.set(ref.kind, fields);
    }
  }
  // A delete is found by its kind, organization, project (none for an organization's items) and id.
  const where = (kind: KindName, organization: string, project: number | null) => {
    const k = kinds.get(kind);
    return `${kind}|${organization}|${k && k.parent !== 'organization' ? String(project ?? '') : ''}`;
  };
  const deletes = new Map<string, string>();
  for (const change of result.plan.changes) {
    const e = result.executions.get(changeKey(change));
    if (change.action !== 'delete' || !e || e.id === null) continue;
    const at = where(e.kind.name, e.scope.organization, e.scope.project);
    deletes.set(`${at}|${String(e.id)}`, changeKey(change));
    for (const field of byFields.get(e.kind.name) ?? []) {
      const value = e.live?.[field];
      if (value !== undefined && value !== null) deletes.set(`${at}|${field}:${String(value)}`, changeKey(change));
    }
  }
  if (deletes.size === 0) return [];
  const projectKind = [...kinds.values()].find((k) => k.projectKind)?.name;
  const pairs: Array<[string, string]> = [];
  for (const change of result.plan.changes) {
    const e = result.executions.get(changeKey(change));
    if (change.action === 'create' || !e) continue;
    for (const r of referredBy(e, projectKind)) {
      const at = where(r.kind, e.scope.organization, e.scope.project);
      const gone = deletes.get(`${at}|${r.by ? `${r.by}:` : ''}${String(r.id)}`);
      if (gone !== undefined && gone !== changeKey(change)) pairs.push([changeKey(change), gone]);
    }
  }
  return pairs;
}
