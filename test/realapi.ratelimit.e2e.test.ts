// Both rate windows end to end: the real CLI against a sandbox that throttles the way the real
// API does (--rate-limit / --rate-limit-hourly, the wait only in the 429's detail). A short wait
// is sat out with a line on stderr; a wait past --max-wait ends the run at once: plan exits 1
// saying when, apply reports exactly what the API took as applied and the rest as skipped, and
// a later run converges.
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { ApiClient, isRateLimitStop } from '../src/http/client.js';
import { ENDPOINT_BUDGETS } from '../src/http/rate-limit.js';
import { api, inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

const ROLES = 10;
const seed = { organizations: [{ id: ORG, projects: [{ id: 12345 }], roles: Array.from({ length: ROLES }, (_, i) => ({ name: `R${i}`, feature_flags_access_level: 21 })) }] };
const file = config(`roles:\n${Array.from({ length: ROLES }, (_, i) => `  - name: R${i}\n    feature_flags_access_level: 37\n`).join('')}`);

let sandbox: SandboxHandle;
let ws: Workspace;
afterEach(async () => {
  ws?.remove();
  await stopAllSandboxes();
});

const advance = (seconds: number) => fetch(`${sandbox.baseUrl}/_sandbox/advance?seconds=${seconds}`, { method: 'POST' });
/** Sends `n` requests with the sandbox's key, filling its rate windows. */
async function spend(n: number): Promise<void> {
  const c = api(sandbox.baseUrl, sandbox.apiKey);
  for (let i = 0; i < n; i++) expect((await c.get('/api/projects/')).status).toBe(200);
}

describe('both rate windows, end to end', () => {
  it('an apply that runs out of the hourly budget stops within seconds: exactly what the API took is applied, the rest skipped, exit 1; it converges once the window frees', async () => {
    const HOURLY = 40;
    sandbox = await inProcessSandbox({ seed, rateLimitPerHour: HOURLY });
    ws = workspace(sandbox);
    const path = ws.write('h.yaml', file);
    // What one plan costs, so the budget can be left at that plus 4 writes.
    const planned = await ws.cli(['plan', path, '--format', 'json']);
    expect(planned.code).toBe(0);
    const reads = sandbox.stats.requests;
    await spend(HOURLY - 2 * reads - 4);

    const started = Date.now();
    const r = await ws.cli(['apply', path, '--auto-approve', '--format', 'json']);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { summary: Record<string, number>; changes: Array<{ address: string; status: string; error?: string }> };
    const taken = sandbox.store.snapshot().roles.filter((x) => x.feature_flags_access_level === 37).map((x) => `role:${ORG}/${x.name}`).sort();
    expect(taken).toHaveLength(4);
    expect(report.changes.filter((o) => o.status === 'applied').map((o) => o.address).sort()).toEqual(taken);
    expect(report.summary).toMatchObject({ applied: 4, failed: 0, skipped: ROLES - 4 });
    for (const o of report.changes.filter((x) => x.status === 'skipped')) {
      expect(o.error).toMatch(/^not sent: the API's rate limit is spent: the API expects to be available again at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in (59 min|1 h)\), longer than --max-wait 300 s; run apply again then$/);
    }

    // An hour later the window is free: the same apply converges, and the plan is empty.
    await advance(3601);
    const again = await ws.cli(['apply', path, '--auto-approve', '--format', 'json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).summary).toMatchObject({ applied: ROLES - 4, failed: 0, skipped: 0 });
    const after = await ws.cli(['plan', path, '--detailed-exitcode']);
    expect(after.code).toBe(0);
  }, 60_000);

  it('plan stops at once when the API asks for longer than --max-wait, saying when it expects to be free', async () => {
    sandbox = await inProcessSandbox({ seed, rateLimitPerMinute: 5 });
    ws = workspace(sandbox);
    const path = ws.write('h.yaml', file);
    await spend(5);
    const r = await ws.cli(['plan', path, '--max-wait', '10']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/→ 429: the API's rate limit is spent: the API expects to be available again at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in \d+ s\), longer than --max-wait 10 s\n/);
    expect(r.stdout).toBe('');
  });

  it('sits out a short server wait with one line on stderr, without a terminal, and goes on', async () => {
    sandbox = await inProcessSandbox({ seed, rateLimitPerMinute: 5 });
    ws = workspace(sandbox);
    const path = ws.write('h.yaml', file);
    await spend(5);
    // The window's oldest request is now 57 s old: the API will ask for about 3 s.
    await advance(57);
    const started = Date.now();
    const r = await ws.cli(['plan', path, '--format', 'json']);
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    const pauses = r.stderr.split('\n').filter((l) => l.startsWith('hogsync: '));
    expect(pauses, r.stderr).toHaveLength(1);
    expect(pauses[0]).toMatch(/^hogsync: the API asked to wait \(rate limit\): waiting [1-4] s, until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(JSON.parse(r.stdout).summary.update).toBe(ROLES);
  }, 30_000);

  it('keeps within --max-hourly itself, and stops rather than wait an hour for its own budget', async () => {
    sandbox = await inProcessSandbox({ seed });
    ws = workspace(sandbox);
    const path = ws.write('h.yaml', file);
    const r = await ws.cli(['apply', path, '--auto-approve', '--format', 'json', '--max-hourly', '5']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { summary: Record<string, number>; changes: Array<{ status: string; error?: string }> };
    expect(sandbox.stats.requests).toBeLessThanOrEqual(5);
    expect(sandbox.stats.throttled).toBe(0);
    expect(report.summary.applied + report.summary.skipped).toBe(ROLES);
    expect(report.changes.find((o) => o.status === 'skipped')?.error).toMatch(/^not sent: this run has sent as many requests as --max-hourly allows in an hour: it may send again at /);
  });
});

describe('the insight endpoints\' own windows, client and sandbox together', () => {
  it('the client keeps within the budget the sandbox throttles by: it never meets a 429, and stops cleanly, naming the budget, where the wait is past --max-wait; other requests go on', async () => {
    sandbox = await inProcessSandbox({ seed, insightRateLimitPerHour: 3 });
    // The client's table, with the hour the sandbox was given (the real one is 1200).
    const budget = { ...ENDPOINT_BUDGETS[0]!, perHour: 3 };
    const client = new ApiClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, endpointBudgets: [budget] });
    try {
      for (const path of ['/api/projects/12345/insights/', '/api/environments/12345/insights/', '/api/projects/12345/insights/1/']) {
        await client.request('GET', path, { okStatuses: [404] });
      }
      const stopped = await client.request('GET', '/api/projects/12345/insights/', { okStatuses: [404] }).then(() => undefined, (e: unknown) => e);
      expect(isRateLimitStop(stopped)).toBe(true);
      expect((stopped as Error).message).toMatch(/^this run has sent as many requests to insight endpoints as the API allows them in an hour \(3\): it may send again at .* longer than --max-wait 300 s$/);
      expect((await client.request('GET', '/api/projects/')).status).toBe(200);
      expect(sandbox.stats.throttled).toBe(0);
      expect(sandbox.stats.requests).toBe(4);
    } finally {
      await client.close();
    }
  });
});
