// Safety rules of apply, as pure functions of a plan: deleting too large a share of one kind,
// and deleting a project that the command line did not name.
import type { PlanResult } from './types.js';

export interface SafetyOptions {
  /** `KIND/KEY` items the user allowed to delete, e.g. `project/777`. */
  allowDelete: readonly string[];
  maxDeletePercent: number;
}

export const DEFAULT_MAX_DELETE_PERCENT = 30;
/** Below this many live items of a kind, the delete share rule does not apply. */
export const DELETE_SHARE_MIN_ITEMS = 10;

export interface SafetyViolation { rule: 'delete_share' | 'project_delete'; message: string; allowWith: string }

export function safetyViolations(result: PlanResult, options: SafetyOptions): SafetyViolation[] {
  const violations: SafetyViolation[] = [];
  const deletes = result.plan.changes.filter((c) => c.action === 'delete');
  for (const change of deletes) {
    if (change.kind !== 'project') continue;
    const allow = `project/${change.key}`;
    if (!options.allowDelete.includes(allow)) {
      violations.push({ rule: 'project_delete', message: `deleting project ${change.key} (${change.address}) needs --allow-delete ${allow}`, allowWith: `--allow-delete ${allow}` });
    }
  }
  const perKind = new Map<string, number>();
  for (const change of deletes) {
    const k = `${change.kind}|${change.organization}`;
    perKind.set(k, (perKind.get(k) ?? 0) + 1);
  }
  for (const [k, count] of perKind) {
    const live = result.liveCounts.get(k) ?? 0;
    if (live < DELETE_SHARE_MIN_ITEMS) continue;
    // Compared in whole numbers: 7 of 25 is exactly 28%, which --max-delete-percent 28 allows.
    if (count * 100 > options.maxDeletePercent * live) {
      const [kind, organization] = k.split('|');
      const percent = (count * 100) / live;
      const needed = Math.ceil((count * 100) / live);
      violations.push({
        rule: 'delete_share',
        message: `deleting ${count} of ${live} ${kind} items in organization ${organization} (${percent.toFixed(0)}%) exceeds --max-delete-percent ${options.maxDeletePercent}`,
        allowWith: `--max-delete-percent ${needed}`,
      });
    }
  }
  return violations;
}

/** What a plan shows so that a reviewer learns before apply that apply would refuse it. */
export function safetyWarnings(result: PlanResult): string[] {
  return safetyViolations(result, { allowDelete: [], maxDeletePercent: DEFAULT_MAX_DELETE_PERCENT })
    .map((v) => `apply will refuse unless run with ${v.allowWith}: ${v.message}`);
}
