// The safety rules are pure functions of a plan and the command line's options.
import { describe, expect, it } from 'vitest';
import { safetyViolations } from '../src/plan/safety.js';
import type { Change, PlanResult } from '../src/plan/types.js';

function result(deletes: number, live: number, kind: Change['kind'] = 'role'): PlanResult {
  const changes: Change[] = Array.from({ length: deletes }, (_, i) => ({
    address: `${kind}:org/${i}`, kind, organization: 'org', project: null, key: String(i), action: 'delete', fields: [],
  }));
  return {
    plan: {
      format_version: '1', kind: 'plan', base_url: 'x', sources: [], fingerprint: 'sha256:0', managed: [], unmanaged: [], warnings: [],
      summary: { create: 0, update: 0, delete: deletes, unchanged: 0, unmanaged: 0 }, changes,
    },
    executions: new Map(),
    liveCounts: new Map([[`${kind}|org`, live]]),
  };
}

describe('delete share rule', () => {
  it('allows exactly the given percentage and refuses above it (no floating-point surprises)', () => {
    expect(safetyViolations(result(7, 25), { allowDelete: [], maxDeletePercent: 28 })).toEqual([]);
    expect(safetyViolations(result(11, 20), { allowDelete: [], maxDeletePercent: 55 })).toEqual([]);
    expect(safetyViolations(result(3, 10), { allowDelete: [], maxDeletePercent: 30 })).toEqual([]);
    const refused = safetyViolations(result(8, 25), { allowDelete: [], maxDeletePercent: 28 });
    expect(refused).toEqual([{
      rule: 'delete_share',
      message: 'deleting 8 of the 25 live role items in organization org (32%) exceeds --max-delete-percent 28',
      allowWith: '--max-delete-percent 32',
    }]);
  });

  it('says what it counted: a kind that lives in projects, in the projects the files declare (all a plan reads of it)', () => {
    const [flags] = safetyViolations(result(10, 12, 'feature_flag'), { allowDelete: [], maxDeletePercent: 30 });
    expect(flags?.message).toBe('deleting 10 of the 12 live feature_flag items in the projects of organization org that the files declare (83%) exceeds --max-delete-percent 30');
    const [access] = safetyViolations(result(5, 10, 'access'), { allowDelete: [], maxDeletePercent: 30 });
    expect(access?.message).toMatch(/^deleting 5 of the 10 live access items in the projects of organization org that the files declare/);
    const [memberships] = safetyViolations(result(5, 10, 'role_membership'), { allowDelete: [], maxDeletePercent: 30 });
    expect(memberships?.message).toMatch(/^deleting 5 of the 10 live role_membership items in organization org \(50%\)/);
  });

  it('does not apply below 10 live items of the kind', () => {
    expect(safetyViolations(result(9, 9), { allowDelete: [], maxDeletePercent: 30 })).toEqual([]);
    expect(safetyViolations(result(4, 10), { allowDelete: [], maxDeletePercent: 30 })).toHaveLength(1);
  });
});

describe('project deletion rule', () => {
  it('needs --allow-delete project/ID for each deleted project', () => {
    const r = result(2, 2, 'project');
    expect(safetyViolations(r, { allowDelete: ['project/0'], maxDeletePercent: 30 }).map((v) => v.allowWith)).toEqual(['--allow-delete project/1']);
    expect(safetyViolations(r, { allowDelete: ['project/0', 'project/1'], maxDeletePercent: 30 })).toEqual([]);
  });
});
