// Proxy records, end to end (issue 14): the plan warns when its creates would go past the
// organization's `max_proxy_records` (records still deleting count), and plan and drift note
// every declared record that is not `valid` yet, with its CNAME target and the API's message:
// notes, not drift (exit codes unchanged).
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;
afterEach(async () => {
  ws?.remove();
  await stopAllSandboxes();
});

describe('proxy records: the organization limit and records not valid yet', () => {
  it('plan warns that its create would exceed max_proxy_records, naming the limit and the records holding it with their status; apply says the refusal heals by waiting', async () => {
    sandbox = await inProcessSandbox({
      seed: { organizations: [{ id: ORG, max_proxy_records: 2, proxy_records: [{ domain: 'old.example.com', status: 'valid' }, { domain: 'keep.example.com', status: 'valid' }] }] },
      deletionDelaySeconds: 600,
    });
    ws = workspace(sandbox);
    // Delete old (valid: it goes through `deleting`, still counting), then declare a new one.
    const first = ws.write('a.yaml', config('proxy_records:\n  - domain: keep.example.com\n  - domain: old.example.com\n    ensure: absent\n'));
    expect((await ws.cli(['apply', first, '--auto-approve'])).code).toBe(0);
    const path = ws.write('b.yaml', config('proxy_records:\n  - domain: keep.example.com\n  - domain: new.example.com\n'));
    const r = await ws.cli(['plan', path, '--detailed-exitcode']);
    expect(r.code, r.stderr + r.stdout).toBe(2);
    const out = r.stdout + r.stderr;
    // Every record that holds the limit, with its status.
    expect(out).toMatch(/allows at most 2 \(max_proxy_records\) and it holds 2 \(keep\.example\.com \(valid\), old\.example\.com \(deleting\)\)/);
    expect(out).toContain(`proxy_record:${ORG}/new.example.com would exceed the limit and the API would refuse the create; a record still deleting frees its slot once the platform has deleted it`);
    // The API refuses (400) while old.example.com is deleting: a refusal that heals by waiting, said so.
    const refused = await ws.cli(['apply', path, '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('→ 400: Maximum of 2 proxy records per organization. (records still deleting hold a slot until the platform has deleted them');
    expect(refused.stdout).toContain('Run apply again once the API has finished what the failures above wait for; it converges then.');
    expect(refused.stdout).not.toContain('will not help');
    // Once the platform has deleted it, running apply again converges.
    await fetch(`${sandbox.baseUrl}/_sandbox/advance?seconds=601`, { method: 'POST' });
    expect((await ws.cli(['apply', path, '--auto-approve'])).code).toBe(0);
  });

  it('plan and drift note a declared record that is not valid: its status, CNAME target and the API message; exit codes unchanged', async () => {
    sandbox = await inProcessSandbox({
      seed: {
        organizations: [{
          id: ORG,
          proxy_records: [
            { domain: 'ok.example.com', status: 'valid' },
            { domain: 'slow.example.com', status: 'erroring', message: 'CAA record forbids issuing a certificate.' },
          ],
        }],
      },
    });
    ws = workspace(sandbox);
    const target = sandbox.store.snapshot().proxy_records.find((x) => x.domain === 'slow.example.com')?.target_cname;
    expect(target).toBeTruthy();
    const path = ws.write('h.yaml', config('proxy_records:\n  - domain: ok.example.com\n  - domain: slow.example.com\n'));
    for (const command of ['plan', 'drift']) {
      const r = await ws.cli(command === 'plan' ? ['plan', path, '--detailed-exitcode'] : ['drift', path]);
      expect(r.code, `${command}: ${r.stderr}${r.stdout}`).toBe(0);
      const out = r.stdout + r.stderr;
      expect(out, command).toContain(`proxy_record:${ORG}/slow.example.com is erroring, not valid yet; DNS: point slow.example.com CNAME ${target}; the API says: CAA record forbids issuing a certificate.`);
      expect(out, command).not.toContain(`proxy_record:${ORG}/ok.example.com is`);
    }
  });
});
