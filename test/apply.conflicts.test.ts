// What apply makes of a flag write the API answers with 409: held for approval is `pending`
// with the change request's id, a concurrent edit is "changed since planned"; neither is
// retried. And what a flag update carries for optimistic concurrency.
import { describe, expect, it } from 'vitest';
import { executePlan } from '../src/apply/execute.js';
import type { ApiPort } from '../src/http/port.js';
import type { Change, Execution, PlanResult } from '../src/plan/types.js';
import { featureFlag } from '../src/resources/feature_flag/kind.js';

const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
const scope = { organization: ORG, project: 12345 };
const live = { id: 7, key: 'guarded', active: true, version: 4, name: 'Guarded', filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 3, cohort_name: 'Beta' }] }] } };

function planOf(values: Record<string, unknown>): PlanResult {
  const address = `feature_flag:${ORG}/12345/guarded`;
  const change: Change = { address, kind: 'feature_flag', organization: ORG, project: 12345, key: '12345/guarded', action: 'update', fields: [{ path: 'active', before: true, after: false, sensitive: false }] };
  const execution: Execution = { kind: featureFlag, scope, identity: 'guarded', id: 7, values, live };
  const plan = { format_version: '1', kind: 'plan', base_url: 'http://x', sources: [], fingerprint: 'sha256:x', summary: { create: 0, update: 1, delete: 0, unchanged: 0, unmanaged: 0 }, changes: [change], unmanaged: [], warnings: [], managed: [] } as PlanResult['plan'];
  return { plan, executions: new Map([[address, execution]]), liveCounts: new Map() };
}

function port(status: number, body: unknown, sent: unknown[]): ApiPort {
  return {
    request: async (_method, _path, options) => {
      sent.push(options?.body);
      return { status, body: body as never };
    },
    listAll: async () => [],
  };
}

describe('409 answers to a flag write', () => {
  it('is pending, with the change request id, and sent once', async () => {
    const sent: unknown[] = [];
    const body = { code: 'approval_required', status: 'approval_required', message: 'Disabling flags needs an approver', change_request_id: '0190d1c4-0000-7000-8000-00000000c0de' };
    const report = await executePlan(planOf({ active: false }), port(409, body, sent), { parallelism: 1 });
    expect(report.outcomes[0]).toMatchObject({ status: 'pending', change_request_id: body.change_request_id });
    expect(report.outcomes[0]?.error).toMatch(/held for approval \(change request 0190d1c4-0000-7000-8000-00000000c0de\): Disabling flags needs an approver/);
    expect(report.summary).toMatchObject({ pending: 1, failed: 0 });
    expect(sent).toHaveLength(1);
  });

  it('says a conflict is a change since the plan', async () => {
    const sent: unknown[] = [];
    const body = { type: 'client_error', code: 'conflict', detail: 'The feature flag was updated by bob@example.com since you started editing it. Please refresh and try again.', attr: null };
    const report = await executePlan(planOf({ active: false }), port(409, body, sent), { parallelism: 1 });
    expect(report.outcomes[0]).toMatchObject({ status: 'failed' });
    expect(report.outcomes[0]?.error).toMatch(/^changed since planned: PATCH \/api\/projects\/12345\/feature_flags\/7\/ → 409: The feature flag was updated by bob@example.com/);
    expect(sent).toHaveLength(1);
  });

  it('sends the planned version and the planned values of the changed fields (no computed cohort names)', async () => {
    const sent: unknown[] = [];
    await executePlan(planOf({ active: false, filters: { groups: [{}] } }), port(200, { ...live, active: false }, sent), { parallelism: 1 });
    expect(sent[0]).toEqual({
      active: false,
      filters: { groups: [{}] },
      version: 4,
      original_flag: { active: true, filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 3 }] }] } },
    });
  });
});
