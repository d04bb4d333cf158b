// What the kinds add to a computed plan, per scope, as pure functions: which held-back records
// (archived flags) are worth reading, the kinds' plan-time checks (warnings, or an error for
// what the API would refuse), and the views of changes the kinds' `order` hooks see.
import type { DesiredItem, DesiredState } from '../config/model.js';
import { HogsyncError, type FilePosition } from '../errors.js';
import { parentKeyOf, type ChangeView, type ResourceKind, type Scope } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import type { LiveState } from './live.js';
import { itemsIn, plannedScopes } from './scopes.js';
import type { PlanResult } from './types.js';

const scopeKey = (kind: string, scope: Scope) => `${kind}|${scope.organization}|${parentKeyOf(scope) ?? ''}`;

/**
 * Collections whose held-back records must be read: those of kinds with `heldBack` where the
 * plan creates an item (the create may be of a key a held-back record holds). At most one more
 * list per such collection, and none when nothing is created.
 */
export function heldBackTargets(result: PlanResult, kinds: Kinds = KINDS): Array<{ kind: ResourceKind; scope: Scope }> {
  const out = new Map<string, { kind: ResourceKind; scope: Scope }>();
  for (const change of result.plan.changes) {
    if (change.action !== 'create') continue;
    const execution = result.executions.get(change.address);
    const kind = kinds.find((k) => k.name === change.kind);
    if (!execution || !kind?.heldBack) continue;
    out.set(scopeKey(kind.name, execution.scope), { kind, scope: execution.scope });
  }
  return [...out.values()];
}

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

/** The kinds' plan-time checks: their warnings; throws the first error (a configuration the API would refuse). */
export function kindChecks(desired: DesiredState, live: LiveState, result: PlanResult, kinds: Kinds = KINDS): string[] {
  const warnings: string[] = [];
  const views = changeViews(result);
  for (const org of desired.organizations) {
    for (const kind of kinds) {
      if (!kind.check) continue;
      for (const scope of plannedScopes(kind, org, kinds)) {
        const all = live.find(kind, scope) ?? [];
        const items = itemsIn(org, kind, scope).map((i) => ({ key: i.key, ensure: i.ensure, fields: i.fields, position: i.position, ...(i.pin !== undefined ? { pin: i.pin } : {}) }));
        const meta = live.metaOf?.(kind, scope);
        const checked = kind.check({
          scope,
          items,
          records: all.filter((r) => !kind.isGone(r)),
          gone: all.filter((r) => kind.isGone(r)),
          changes: views.get(scopeKey(kind.name, scope)) ?? [],
          ...(meta ? { meta } : {}),
        });
        if (checked.error) throw new HogsyncError('config', checked.error, checked.errorAt ? { position: checked.errorAt as FilePosition } : undefined);
        warnings.push(...(checked.warnings ?? []));
      }
    }
  }
  return warnings;
}
