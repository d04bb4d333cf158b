// Blast radius of flag changes: for every flag whose release conditions a plan changes, ask
// the API how many users each new condition reaches. A failure is a warning, not an error.
import type { HttpCall } from '../resources/kind.js';
import type { BlastRadius, PlanResult } from '../plan/types.js';
import { mapLimit } from '../util/map-limit.js';
import { isHogsyncError } from '../errors.js';

export interface ApiPoster {
  request<T = unknown>(method: HttpCall['method'], path: string, options?: { body?: unknown; okStatuses?: number[]; idempotent?: boolean }): Promise<{ status: number; body: T }>;
}

/** Reads both answer shapes: {affected, total} and the older {users_affected, total_users}. */
export function parseBlastRadius(body: unknown): BlastRadius | null {
  if (body === null || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const affected = b.affected ?? b.users_affected;
  const total = b.total ?? b.total_users;
  return typeof affected === 'number' && typeof total === 'number' && affected >= 0 && total >= 0 ? { affected, total } : null;
}

type Group = Record<string, unknown>;

function groupsOf(filters: unknown): Group[] {
  if (filters === null || typeof filters !== 'object') return [];
  const groups = (filters as { groups?: unknown }).groups;
  return Array.isArray(groups) ? groups.filter((g): g is Group => g !== null && typeof g === 'object') : [];
}

/** Adds `blast_radius` to flag changes that set release conditions; returns warnings. */
export async function addBlastRadius(result: PlanResult, api: ApiPoster, parallelism: number): Promise<string[]> {
  const targets = result.plan.changes.filter((c) => c.kind === 'feature_flag' && c.action !== 'delete' && c.fields.some((f) => f.path === 'filters'));
  const warnings: string[] = [];
  await mapLimit(targets, parallelism, async (change) => {
    const execution = result.executions.get(change.address);
    if (!execution || change.project === null) return;
    const filters = execution.values.filters;
    const groupTypeIndex = (filters as { aggregation_group_type_index?: unknown } | undefined)?.aggregation_group_type_index ?? null;
    const path = `/api/projects/${encodeURIComponent(String(change.project))}/feature_flags/user_blast_radius/`;
    try {
      let affected = 0;
      let total = 0;
      for (const condition of groupsOf(filters)) {
        const { body } = await api.request('POST', path, { body: { key: execution.identity, condition, group_type_index: groupTypeIndex }, okStatuses: [200, 201], idempotent: true });
        const radius = parseBlastRadius(body);
        if (!radius) throw new Error('the API answered with an unexpected body');
        affected += radius.affected;
        total = Math.max(total, radius.total);
      }
      // Conditions may overlap: the sum is an upper bound, and never more than everyone.
      change.blast_radius = { affected: Math.min(affected, total), total };
    } catch (err) {
      const why = isHogsyncError(err) ? err.format() : err instanceof Error ? err.message : String(err);
      warnings.push(`blast radius of ${change.address} is unknown: ${why}`);
    }
  });
  return warnings;
}
