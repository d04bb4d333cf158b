// Safety rules of apply, as pure functions of a plan and the command line's options: deleting
// too large a share of one kind (of its live items in the organization; for a kind that lives in
// projects, in the projects the files declare, which are all a plan reads), and deleting an item of a kind that needs an explicit allow
// (projects) that the command line did not name.
import { labelOf } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import { DEFAULT_MAX_DELETE_PERCENT, DELETE_SHARE_MIN_ITEMS } from './limits.js';
import type { PlanResult } from './types.js';

export interface SafetyOptions {
  /** `KIND/KEY` items the user allowed to delete, e.g. `project/777`. */
  allowDelete: readonly string[];
  maxDeletePercent: number;
}

export { DEFAULT_MAX_DELETE_PERCENT, DELETE_SHARE_MIN_ITEMS } from './limits.js';

export interface SafetyViolation { rule: 'delete_share' | 'delete_needs_allow'; message: string; allowWith: string }

export function safetyViolations(result: PlanResult, options: SafetyOptions, kinds: Kinds = KINDS): SafetyViolation[] {
  const violations: SafetyViolation[] = [];
  const deletes = result.plan.changes.filter((c) => c.action === 'delete');
  for (const change of deletes) {
    const kind = kinds.find((k) => k.name === change.kind);
    if (!kind?.deleteNeedsAllow) continue;
    const allow = `${kind.name}/${change.key}`;
    // An item the files name by name (a project without id) may be allowed by that name too.
    const live = result.executions.get(change.address)?.live;
    const name = kind.nameField !== undefined && typeof live?.[kind.nameField] === 'string' ? `${kind.name}/${(live[kind.nameField] as string).trim().toLowerCase()}` : undefined;
    if (!options.allowDelete.includes(allow) && !(name !== undefined && options.allowDelete.some((a) => a.toLowerCase() === name))) {
      // The flag that allows it is said once, by whoever shows the violation (allowWith).
      violations.push({ rule: 'delete_needs_allow', message: `deleting ${labelOf(kind)} ${change.key} (${change.address}) needs an explicit allow`, allowWith: `--allow-delete ${allow}` });
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
      const [kind, organization] = k.split('|') as [string, string];
      const percent = (count * 100) / live;
      const needed = Math.ceil((count * 100) / live);
      // What was counted, said as it is: the items of a kind that lives in projects are read (and
      // counted) only in the projects the files declare, never in the organization's others.
      const where = inProjects(kind, kinds) ? `in the projects of organization ${organization} that the files declare` : `in organization ${organization}`;
      violations.push({
        rule: 'delete_share',
        message: `deleting ${count} of the ${live} live ${kind} items ${where} (${percent.toFixed(0)}%) exceeds --max-delete-percent ${options.maxDeletePercent}`,
        allowWith: `--max-delete-percent ${needed}`,
      });
    }
  }
  return violations;
}

/** Whether a kind's items live in projects (flags, a project's access rules), not in the organization itself (roles, members). */
function inProjects(name: string, kinds: Kinds): boolean {
  for (let kind = kinds.find((k) => k.name === name); kind && !kind.projectKind; kind = kinds.find((k) => k.name === kind?.parent)) {
    if (kind.parent === 'organization') return false;
    if (kinds.find((k) => k.name === kind?.parent)?.projectKind) return true;
  }
  return false;
}

/** What a plan shows so that a reviewer learns before apply that apply would refuse it. */
export function safetyWarnings(result: PlanResult, kinds: Kinds = KINDS): string[] {
  return safetyViolations(result, { allowDelete: [], maxDeletePercent: DEFAULT_MAX_DELETE_PERCENT }, kinds)
    .map((v) => `apply will refuse unless run with ${v.allowWith}: ${v.message}`);
}
