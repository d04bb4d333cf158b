// The order a plan's changes must run in, beside what apply's waves already do: what the
// references ask (a create after the create of what it refers to, src/plan/references.ts) and
// what the kinds' `order` hooks ask of their changes in one scope (flags by their dependencies).
import { parentKeyOf, type ChangeView, type Scope } from '../resources/kind.js';
import type { PlanResult } from './types.js';

const scopeKey = (kind: string, scope: Scope) => `${kind}|${scope.organization}|${parentKeyOf(scope) ?? ''}`;

/** The changes of a plan as the kinds' hooks see them, by kind and scope. */
export function changeViews(result: PlanResult): Map<string, ChangeView[]> {
  const out = new Map<string, ChangeView[]>();
  for (const change of result.plan.changes) {
    const e = result.executions.get(change.address);
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
  const pairs: Array<[string, string]> = [...(result.dependencies ?? [])];
  for (const views of changeViews(result).values()) {
    const kind = result.executions.get(views[0]?.address ?? '')?.kind;
    if (kind?.order) pairs.push(...kind.order(views));
  }
  return pairs;
}

