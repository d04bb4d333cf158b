// Runs the kinds' previews of a plan's creates and updates (a flag's blast radius) through the
// API port, a few at a time, and returns them as annotations beside the plan.
import type { ApiPort } from '../http/port.js';
import type { PlanAnnotations } from '../plan/annotate.js';
import type { ChangeAnnotations, PlanResult } from '../plan/types.js';
import { mapLimit } from '../util/map-limit.js';
import { holdsDeferred } from '../plan/references.js';

export async function runPreviews(result: PlanResult, port: ApiPort, parallelism: number): Promise<PlanAnnotations> {
  const targets = result.plan.changes.filter((c) => {
    const kind = result.executions.get(c.address)?.kind;
    return kind?.preview && (kind.previewActions ?? ['create', 'update']).includes(c.action);
  });
  const found = await mapLimit(targets, parallelism, async (change) => {
    const execution = result.executions.get(change.address);
    if (!execution?.kind.preview) return undefined;
    if (change.action === 'delete') {
      const { scope, identity, values, live } = execution;
      return execution.kind.preview({ address: change.address, action: 'delete', scope, identity, values, changed: [], ...(live ? { live } : {}) }, port);
    }
    // The API cannot preview what refers to an item it does not hold yet (one this plan creates).
    if (holdsDeferred(execution.values)) return { warning: `${change.address}: no preview: it refers to items this plan creates` };
    if (execution.scope.parent?.id === null) return { warning: `${change.address}: no preview: it is in a ${execution.scope.parent.kind.replace(/_/g, ' ')} this plan creates` };
    const { scope, identity, values, live } = execution;
    return execution.kind.preview({ address: change.address, action: change.action, scope, identity, values, changed: change.fields.map((f) => f.path), ...(live ? { live } : {}) }, port);
  });
  const changes = new Map<string, ChangeAnnotations>();
  const warnings: string[] = [];
  targets.forEach((change, i) => {
    const preview = found[i];
    if (preview?.annotations) changes.set(change.address, preview.annotations);
    if (preview?.warning) warnings.push(preview.warning);
  });
  // What a change says of itself (a delivery it sends), previewed or not.
  for (const change of result.plan.changes) {
    const execution = result.executions.get(change.address);
    if (!execution?.kind.annotate) continue;
    const { scope, identity, values, live } = execution;
    const own = execution.kind.annotate({ address: change.address, action: change.action, scope, identity, values, changed: change.fields.map((f) => f.path), ...(live ? { live } : {}) });
    if (own) changes.set(change.address, { ...changes.get(change.address), ...own });
  }
  return { changes, warnings };
}
