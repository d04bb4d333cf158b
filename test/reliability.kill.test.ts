// Reliability: the sandbox is SIGKILLed in the middle of an apply and restarted from its state
// file. The state file is never corrupt, the interrupted apply names what failed, and a second
// apply converges.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { spawnSandbox, stopAllSandboxes, api } from './support/sandbox.js';
import { config, workspace, ORG } from './support/workspace.js';

afterEach(async () => { await stopAllSandboxes(); });

describe('a sandbox killed mid-apply', () => {
  it('keeps a valid state file, and a re-apply converges', async () => {
    const scratch = workspace({ baseUrl: '', apiKey: '' });
    const state = scratch.path('state.json');
    const first = await spawnSandbox(['--state', state, '--latency', '40']);
    const roles = Array.from({ length: 40 }, (_, i) => `  - name: Team ${i}\n    feature_flags_access_level: 37\n`).join('');
    const file = scratch.write('h.yaml', config(`roles:\n${roles}`));
    const ws = workspace(first);
    const running = ws.cli(['apply', file, '--auto-approve', '--format', 'json', '--parallelism', '4']);
    // Kill the sandbox once a few roles exist.
    for (;;) {
      await new Promise((r) => setTimeout(r, 50));
      const n = ((await api(first.baseUrl, first.apiKey).get(`/api/organizations/${ORG}/roles/`)).body as { count: number }).count;
      if (n >= 5) break;
    }
    await first.stop('SIGKILL');
    const interrupted = await running;
    expect(interrupted.code).toBe(1);
    const report = JSON.parse(interrupted.stdout);
    const applied = report.changes.filter((c: { status: string }) => c.status === 'applied').map((c: { address: string }) => c.address.split('/')[1]);
    const failed = report.changes.filter((c: { status: string }) => c.status === 'failed');
    const skipped = report.changes.filter((c: { status: string }) => c.status === 'skipped');
    expect(applied.length + failed.length + skipped.length).toBe(40);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    for (const f of failed) expect(f.error).toMatch(/(connection|refused|reset|closed|not retried).* at 127\.0\.0\.1:\d+/i);
    // Once the API could not be reached, the rest were not started (and said so) instead of retried one by one.
    expect(skipped.length).toBeGreaterThan(0);
    for (const s of skipped) expect(s.error).toMatch(/^not started: the API at 127\.0\.0\.1:\d+ (could not be reached \(see the first failure\)|stopped answering \(3 changes in a row could not reach it\))$/);

    // The state file parses, and holds at least every role the report calls applied.
    const saved = JSON.parse(readFileSync(state, 'utf8'));
    expect(saved).toBeTypeOf('object');
    const second = await spawnSandbox(['--state', state]);
    const live = ((await api(second.baseUrl, second.apiKey).get(`/api/organizations/${ORG}/roles/?limit=100`)).body as { results: Array<{ name: string }> }).results.map((r) => r.name);
    for (const name of applied) expect(live).toContain(name);

    const again = workspace(second);
    const rerun = await again.cli(['apply', file, '--auto-approve']);
    expect(rerun.code).toBe(0);
    expect((await again.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    for (const w of [scratch, ws, again]) w.remove();
  }, 120_000);
});
