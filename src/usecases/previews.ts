// Runs the kinds' previews of a plan's creates and updates (a flag's blast radius) through the
// API port, a few at a time, and returns them as annotations beside the plan. Each preview
// costs requests (a flag's, one per condition set) under the rate limit, so they are bounded:
// at most `max` changes are previewed (the rest are named in one note), and progress is told
// as they run.
import type { ApiPort } from '../http/port.js';
import type { PlanAnnotations } from '../plan/annotate.js';
import { changeKey, type ChangeAnnotations, type PlanResult } from '../plan/types.js';
import { mapLimit } from '../util/map-limit.js';
import { holdsDeferred } from '../plan/references.js';

import { DEFAULT_MAX_PREVIEWS } from '../plan/limits.js';

export interface PreviewOptions {
  /** Changes previewed at most (default DEFAULT_MAX_PREVIEWS); the others are left without a preview, said once. Previews kinds run always (kind.previewAlways) are not counted. */
  max?: number;
  /** `--no-preview`: only the previews kinds run always (what the API does without a word). */
  alwaysOnly?: boolean;
  /** Told after each preview: how many are done of how many, and the previews' name ("blast radius"). */
  onProgress?(done: number, total: number, name: string): void;
}

export async function runPreviews(result: PlanResult, port: ApiPort, parallelism: number, options: PreviewOptions = {}): Promise<PlanAnnotations> {
  // Only changes of a field the preview looks at ask the API anything.
  const targets = result.plan.changes.filter((c) => {
    const kind = result.executions.get(changeKey(c))?.kind;
    if (!kind?.preview || !(kind.previewActions ?? ['create', 'update']).includes(c.action)) return false;
    // Only changes of a field the preview looks at ask the API anything (a delete is whole).
    return c.action === 'delete' || kind.previewFields === undefined || c.fields.some((f) => kind.previewFields?.includes(f.path.split('.')[0] as string));
  });
  const always = targets.filter((c) => result.executions.get(changeKey(c))?.kind.previewAlways === true);
  const informing = options.alwaysOnly ? [] : targets.filter((c) => result.executions.get(changeKey(c))?.kind.previewAlways !== true);
  const max = options.max ?? DEFAULT_MAX_PREVIEWS;
  const previewed = [...always, ...informing.slice(0, max)];
  const name = [...new Set(previewed.map((c) => result.executions.get(changeKey(c))?.kind.previewName ?? 'preview'))].join(', ');
  let done = 0;
  const found = await mapLimit(previewed, parallelism, async (change) => {
    const execution = result.executions.get(changeKey(change));
    try {
      if (!execution?.kind.preview) return undefined;
      if (change.action === 'delete') {
        const { scope, identity, values, live } = execution;
        return await execution.kind.preview({ address: change.address, action: 'delete', scope, identity, values, changed: [], ...(live ? { live } : {}) }, port);
      }
      // The API cannot preview what refers to an item it does not hold yet (one this plan creates).
      if (holdsDeferred(execution.values)) return { warning: `${change.address}: no preview: it refers to items this plan creates` };
      if (execution.scope.parent?.id === null) return { warning: `${change.address}: no preview: it is in a ${execution.scope.parent.kind.replace(/_/g, ' ')} this plan creates` };
      const { scope, identity, values, live } = execution;
      return await execution.kind.preview({ address: change.address, action: change.action, scope, identity, values, changed: change.fields.map((f) => f.path), ...(live ? { live } : {}) }, port);
    } finally {
      options.onProgress?.(++done, previewed.length, name);
    }
  });
  const changes = new Map<string, ChangeAnnotations>();
  const warnings: string[] = [];
  previewed.forEach((change, i) => {
    const preview = found[i];
    if (preview?.annotations) changes.set(changeKey(change), preview.annotations);
    if (preview?.warning) warnings.push(preview.warning);
  });
  if (informing.length > max) {
    const left = informing.length - max;
    const what = [...new Set(informing.map((c) => result.executions.get(changeKey(c))?.kind.previewName ?? 'preview'))].join(', ');
    warnings.push(`${what}: previewed ${max} of ${informing.length} changes (each costs a request under the rate limit); `
      + `${left} ${left === 1 ? 'is' : 'are'} not previewed: pass --max-previews ${informing.length} to preview them all, or --no-preview to skip previews`);
  }
  ownAnnotations(result, changes);
  return { changes, warnings };
}

/**
 * What each change says of itself (a delivery it sends), previewed or not: added to `changes`.
 * Asks nothing of the API, so it runs with `--no-preview` too.
 */
function ownAnnotations(result: PlanResult, changes: Map<string, ChangeAnnotations> = new Map()): Map<string, ChangeAnnotations> {
  for (const change of result.plan.changes) {
    const execution = result.executions.get(changeKey(change));
    if (!execution?.kind.annotate) continue;
    const { scope, identity, values, live } = execution;
    const own = execution.kind.annotate({ address: change.address, action: change.action, scope, identity, values, changed: change.fields.map((f) => f.path), ...(live ? { live } : {}) });
    if (own) changes.set(changeKey(change), { ...changes.get(changeKey(change)), ...own });
  }
  return changes;
}
