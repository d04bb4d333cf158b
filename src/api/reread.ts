// Re-reads what apply changed, to verify it, with the requests planning uses: one list per
// touched collection (all pages) and one GET per touched project.
import type { ChangeOutcome } from '../apply/execute.js';
import type { PlanResult } from '../plan/types.js';
import { collectionKey, readCollections, type ApiReader, type CollectionRead, type LiveState } from './live-state.js';

export async function rereadApplied(api: ApiReader, result: PlanResult, outcomes: readonly ChangeOutcome[], parallelism: number): Promise<LiveState> {
  const touched = new Map<string, CollectionRead & { ids: Array<string | number> }>();
  for (const outcome of outcomes) {
    const execution = result.executions.get(outcome.address);
    if (outcome.status !== 'applied' || !execution) continue;
    const { kind, scope, id } = execution;
    const key = collectionKey(kind, scope);
    const entry = touched.get(key) ?? { kind, scope, list: kind.read === 'list', ids: [] };
    if (kind.read === 'get' && id !== null) entry.ids.push(id);
    touched.set(key, entry);
  }
  return readCollections(api, [...touched.values()], parallelism);
}
