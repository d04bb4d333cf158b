// Re-reads what apply changed, to verify it, with the requests planning uses: one list per
// touched collection (all pages) and one GET per touched project.
import type { ChangeOutcome } from '../apply/execute.js';
import type { LiveRecord, ResourceKind, Scope } from '../resources/kind.js';
import type { PlanResult } from '../plan/types.js';
import { mapLimit } from '../util/map-limit.js';
import { collectionKey, getRecord, listRecords, liveStateOf, type ApiReader, type LiveState } from './live-state.js';

interface Touched { kind: ResourceKind; scope: Scope; ids: Array<string | number> }

export async function rereadApplied(api: ApiReader, result: PlanResult, outcomes: readonly ChangeOutcome[], parallelism: number): Promise<LiveState> {
  const touched = new Map<string, Touched>();
  for (const outcome of outcomes) {
    const execution = result.executions.get(outcome.address);
    if (outcome.status !== 'applied' || !execution) continue;
    const key = collectionKey(execution.kind, execution.scope);
    const entry = touched.get(key) ?? { kind: execution.kind, scope: execution.scope, ids: [] };
    if (execution.id !== null) entry.ids.push(execution.id);
    touched.set(key, entry);
  }
  const reads = [...touched.values()];
  const records = await mapLimit(reads, parallelism, async ({ kind, scope, ids }): Promise<LiveRecord[]> => {
    if (kind.read === 'list') return listRecords(api, kind, scope, kind.parent === 'project');
    const found = await mapLimit(ids, parallelism, (id) => getRecord(api, kind, scope, id));
    return found.filter((r): r is LiveRecord => r !== null);
  });
  return liveStateOf(reads.map(({ kind, scope }, i) => ({ kind, scope, records: records[i] ?? [] })));
}
