// A rate-limit stop during apply: when the general windows are spent nothing more is sent (the
// rest is skipped, a later run converges); when only an endpoint's own budget is spent (the
// insight endpoints'), the changes that go elsewhere still run.
import { describe, expect, it } from 'vitest';
import { executePlan } from '../src/apply/execute.js';
import { RateLimitStop } from '../src/http/client.js';
import type { ApiPort } from '../src/http/port.js';
import type { Change, Execution, PlanResult } from '../src/plan/types.js';
import { featureFlag } from '../src/resources/feature_flag/kind.js';

const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';

function planOf(keys: string[]): PlanResult {
  const changes: Change[] = [];
  const executions = new Map<string, Execution>();
  for (const [i, key] of keys.entries()) {
    const address = `feature_flag:${ORG}/12345/${key}`;
    changes.push({ address, kind: 'feature_flag', organization: ORG, project: 12345, key: `12345/${key}`, action: 'update', fields: [{ path: 'name', before: 'a', after: 'b', sensitive: false }] });
    executions.set(address, { kind: featureFlag, scope: { organization: ORG, project: 12345 }, identity: key, id: i + 1, values: { name: 'b' }, live: { id: i + 1, key, name: 'a', version: 1 } });
  }
  const plan = { format_version: '1', kind: 'plan', base_url: 'http://x', sources: [], fingerprint: 'sha256:x', summary: { create: 0, update: keys.length, delete: 0, unchanged: 0, unmanaged: 0 }, changes, unmanaged: [], warnings: [], managed: [] } as PlanResult['plan'];
  return { plan, executions, liveCounts: new Map() };
}

/** The first write meets a stop; the others are answered. */
function port(budget: string | undefined): ApiPort & { sent: number } {
  let calls = 0;
  const p = {
    sent: 0,
    request: async (method: string, path: string) => {
      if (calls++ === 0) throw new RateLimitStop('the rate limit is spent', Date.now() + 3_600_000, { method, path }, budget);
      p.sent++;
      return { status: 200, body: { id: 2, key: 'x', name: 'b', version: 2 } as never };
    },
    listAll: async () => [],
  };
  return p;
}

describe('a rate-limit stop during apply', () => {
  it('of the general windows: nothing more is sent, the rest is skipped', async () => {
    const api = port(undefined);
    const report = await executePlan(planOf(['a', 'b', 'c']), api, { parallelism: 1 });
    expect(report.outcomes.map((o) => o.status)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(api.sent).toBe(0);
  });

  it('of an endpoint budget only: the changes that go elsewhere still run', async () => {
    const api = port('insight endpoints');
    const report = await executePlan(planOf(['a', 'b', 'c']), api, { parallelism: 1 });
    expect(report.outcomes.map((o) => o.status)).toEqual(['skipped', 'applied', 'applied']);
    expect(report.outcomes[0]?.error).toMatch(/^not sent: the rate limit is spent/);
    expect(api.sent).toBe(2);
  });
});
