// apply end to end: the real CLI against a sandbox on loopback, asserting the sandbox's state.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { BIN, spawnCli } from './support/cli.js';
import { faultyProxy } from './support/faulty-proxy.js';
import { EVERY_ACTION_CONFIG as EVERYTHING, EVERY_ACTION_SEED as SEED, ORG, config, workspace, type Workspace } from './support/workspace.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { deleteRole } from '../src/resources/role/sandbox.js';

let sandbox: SandboxHandle;
let ws: Workspace;
let http: Api;

async function snapshot() {
  const list = async (path: string) => ((await http.get(path)).body as { results: Array<Record<string, unknown>> }).results;
  return {
    project: (await http.get(`/api/organizations/${ORG}/projects/12345/`)).body as Record<string, unknown>,
    roles: (await list(`/api/organizations/${ORG}/roles/`)).map((r) => `${r.name}:${r.feature_flags_access_level}`).sort(),
    proxies: (await list(`/api/organizations/${ORG}/proxy_records/`)).map((r) => r.domain).sort(),
    flags: (await list('/api/projects/12345/feature_flags/')).map((f) => `${f.key}:${f.active}`).sort(),
  };
}

beforeEach(async () => {
  sandbox = await inProcessSandbox({ seed: SEED });
  ws = workspace(sandbox);
  http = api(sandbox.baseUrl, sandbox.apiKey);
});
afterEach(async () => {
  ws.remove();
  await stopAllSandboxes();
});

describe('apply', () => {
  it('converges every kind × action, and a re-plan is empty', async () => {
    const file = ws.write('h.yaml', EVERYTHING);
    const r = await ws.cli(['apply', file, '--auto-approve']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Apply complete: 9 applied, 0 failed, 0 skipped.');
    expect(r.stdout).toMatch(/DNS: point new\.example\.com CNAME \S+ \(status waiting\)/);
    const state = await snapshot();
    expect(state.project.timezone).toBe('Europe/Berlin');
    expect(state.project.session_recording_sample_rate).toBe('0.25');
    expect(state.roles).toEqual(['Engineers:37', 'Support:37']);
    expect(state.proxies).toEqual(['keep.example.com', 'new.example.com']);
    expect(state.flags).toEqual(['kept-flag:false', 'new-flag:true']);
    const again = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(again.code).toBe(0);
  });

  it('prints a JSON report with a status per change', async () => {
    const file = ws.write('h.yaml', config('roles:\n  - name: Engineers\n'));
    const r = await ws.cli(['apply', file, '--auto-approve', '--format', 'json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ kind: 'apply', summary: { applied: 1, failed: 0, skipped: 0 } });
    expect(report.changes).toEqual([{ address: `role:${ORG}/Engineers`, action: 'create', status: 'applied' }]);
  });

  it('asks on a terminal, and applies only after "yes"', async () => {
    // util-linux `script` gives the CLI a pseudo-terminal (Debian ships it in an essential package).
    const file = ws.write('h.yaml', config('roles:\n  - name: Engineers\n'));
    const onTerminal = (answer: string) => new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} apply ${JSON.stringify(file)} --no-color`, '/dev/null'], {
        env: { ...process.env, HOGSYNC_BASE_URL: sandbox.baseUrl, HOGSYNC_API_KEY: sandbox.apiKey },
      });
      let out = '';
      let answered = false;
      // Answer once: output that follows the prompt must not write to a terminal that is gone.
      child.stdin.on('error', () => undefined);
      child.stdout.on('data', (d) => {
        out += d;
        if (!answered && out.includes("Only 'yes' is accepted")) {
          answered = true;
          child.stdin.write(`${answer}\n`);
        }
      });
      child.on('close', (code) => resolve({ code, out }));
    });
    const no = await onTerminal('no');
    expect(no.code).toBe(1);
    expect(no.out).toContain('Apply cancelled; nothing was changed.');
    expect((await snapshot()).roles).not.toContain('Engineers:21');
    const yes = await onTerminal('yes');
    expect(yes.code).toBe(0);
    expect(yes.out).toContain('Apply complete: 1 applied, 0 failed, 0 skipped.');
    expect((await snapshot()).roles).toContain('Engineers:21');
  });

  it('refuses without a terminal unless --auto-approve, changing nothing', async () => {
    const before = await snapshot();
    const r = await ws.cli(['apply', ws.write('h.yaml', EVERYTHING)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('pass --auto-approve');
    expect(await snapshot()).toEqual(before);
  });

  it('applies a saved plan, and refuses it (exit 1, naming the item) once live state changed', async () => {
    const file = ws.write('h.yaml', EVERYTHING);
    expect((await ws.cli(['plan', file, '--out', 'plan.json'])).code).toBe(0);
    // Someone edits a role the plan manages.
    const roles = ((await http.get(`/api/organizations/${ORG}/roles/`)).body as { results: Array<{ id: string; name: string }> }).results;
    const support = roles.find((r) => r.name === 'Support');
    await http.patch(`/api/organizations/${ORG}/roles/${support?.id}/`, { feature_flags_access_level: 37 });
    const before = await snapshot();
    const stale = await ws.cli(['apply', '--plan', 'plan.json', '--auto-approve']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`the plan plan.json is stale`);
    expect(stale.stderr).toContain(`role:${ORG}/Support (changed since the plan)`);
    expect(await snapshot()).toEqual(before);

    expect((await ws.cli(['plan', file, '--out', 'plan.json'])).code).toBe(0);
    const ok = await ws.cli(['apply', '--plan', 'plan.json', '--auto-approve']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('Apply complete: 8 applied');
  });

  it('refuses a saved plan once an item it leaves unchanged changed live, naming that item', async () => {
    const file = ws.write('h.yaml', EVERYTHING);
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    // In step with the files: the plan's one change is the new role; the new flag it leaves alone.
    ws.write('h.yaml', EVERYTHING.replace('roles:\n', 'roles:\n  - name: Readers\n'));
    const planned = await ws.cli(['plan', file, '--out', 'plan.json', '--format', 'json']);
    expect(JSON.parse(planned.stdout).changes.map((c: { address: string }) => c.address)).toEqual([`role:${ORG}/Readers`]);
    const flags = ((await http.get('/api/projects/12345/feature_flags/')).body as { results: Array<{ id: number; key: string }> }).results;
    const flag = flags.find((f) => f.key === 'new-flag');
    await http.patch(`/api/projects/12345/feature_flags/${flag?.id}/`, { filters: { groups: [{ properties: [], rollout_percentage: 90 }] } });
    const before = await snapshot();
    const stale = await ws.cli(['apply', '--plan', 'plan.json', '--auto-approve']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`feature_flag:${ORG}/12345/new-flag (changed since the plan)`);
    expect(await snapshot()).toEqual(before);
  });

  it('applies a saved plan after a live change the comparison ignores (a key another feature owns)', async () => {
    const file = ws.write('h.yaml', EVERYTHING);
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    ws.write('h.yaml', EVERYTHING.replace('roles:\n', 'roles:\n  - name: Readers\n'));
    expect((await ws.cli(['plan', file, '--out', 'plan.json'])).code).toBe(0);
    const flags = ((await http.get('/api/projects/12345/feature_flags/')).body as { results: Array<{ id: number; key: string; filters: Record<string, unknown> }> }).results;
    const flag = flags.find((f) => f.key === 'new-flag');
    // An early access feature's enrollment: stored beside the conditions, never compared.
    await http.patch(`/api/projects/12345/feature_flags/${flag?.id}/`, { filters: { ...flag?.filters, feature_enrollment: true } });
    const applied = await ws.cli(['apply', '--plan', 'plan.json', '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect((await snapshot()).roles.some((r) => r.startsWith('Readers:'))).toBe(true);
  });

  it('refuses a saved plan when the files changed', async () => {
    const file = ws.write('h.yaml', config('roles:\n  - name: Engineers\n'));
    await ws.cli(['plan', file, '--out', 'plan.json']);
    ws.write('h.yaml', config('roles:\n  - name: Engineers\n    feature_flags_access_level: 37\n'));
    const r = await ws.cli(['apply', '--plan', 'plan.json', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`role:${ORG}/Engineers (changed since the plan)`);
  });

  it('refuses a tampered or truncated plan file with one line', async () => {
    const file = ws.write('h.yaml', config('roles:\n  - name: Engineers\n'));
    await ws.cli(['plan', file, '--out', 'plan.json']);
    ws.write('cut.json', '{"format_version": "1", "kind": "pl');
    const cut = await ws.cli(['apply', '--plan', 'cut.json', '--auto-approve']);
    expect(cut.code).toBe(1);
    expect(cut.stderr.trim()).toBe('error: cut.json is not a usable hogsync plan: it is not valid JSON (truncated or edited?)');
    ws.write('v2.json', JSON.stringify({ format_version: '2', kind: 'plan' }));
    const v2 = await ws.cli(['apply', '--plan', 'v2.json', '--auto-approve']);
    expect(v2.stderr.trim()).toBe('error: v2.json is not a usable hogsync plan: format_version is "2", this hogsync reads "1"');
  });

  it('refuses a project deletion not named by --allow-delete (exit 3, nothing applied), and does it when named', async () => {
    const file = ws.write('h.yaml', config('projects:\n  - id: 12346\n    ensure: absent\nroles:\n  - name: Engineers\n'));
    const before = await snapshot();
    const r = await ws.cli(['apply', file, '--auto-approve']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('refused: deleting project 12346');
    // Said once: the refusal, then how to allow it.
    expect(r.stderr).toContain(`refused: deleting project 12346 (project:${ORG}/12346) needs an explicit allow; to allow it, pass --allow-delete project/12346\n`);
    expect(r.stderr.split('--allow-delete project/12346').length - 1).toBe(1);
    expect(await snapshot()).toEqual(before);
    const ok = await ws.cli(['apply', file, '--auto-approve', '--allow-delete', 'project/12346']);
    expect(ok.code).toBe(0);
    // The plan's warning assumed the default flags; with --allow-delete it no longer applies.
    expect(ok.stdout).not.toContain('apply will refuse');
    expect((await http.get(`/api/organizations/${ORG}/projects/12346/`)).status).toBe(404);
  });

  it('refuses deleting more than --max-delete-percent of a kind where at least 10 exist', async () => {
    await stopAllSandboxes();
    sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [{ id: 12345 }], roles: Array.from({ length: 10 }, (_, i) => ({ name: `R${i}` })) }] } });
    ws = workspace(sandbox);
    http = api(sandbox.baseUrl, sandbox.apiKey);
    const keep = Array.from({ length: 6 }, (_, i) => `  - name: R${i}\n`).join('');
    const file = ws.write('h.yaml', config(`roles:\n${keep}prune:\n  roles: true\n`));
    const before = await snapshot();
    const r = await ws.cli(['apply', file, '--auto-approve']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`refused: deleting 4 of the 10 live role items in organization ${ORG} (40%) exceeds --max-delete-percent 30; to allow it, pass --max-delete-percent 40`);
    expect(await snapshot()).toEqual(before);
    const ok = await ws.cli(['apply', file, '--auto-approve', '--max-delete-percent', '40']);
    expect(ok.code).toBe(0);
    expect((await snapshot()).roles).toHaveLength(6);
  });

  it('refuses before sending anything when the key lacks a write scope the changes need, naming it', async () => {
    await stopAllSandboxes();
    const limited = 'phx_test_no_flag_write_00000000000000000000';
    sandbox = await inProcessSandbox({ seed: { ...SEED, keys: [{ key: limited, scopes: ['project:write', 'organization:write', 'feature_flag:read'] }] } });
    http = api(sandbox.baseUrl, sandbox.apiKey);
    ws = workspace({ baseUrl: sandbox.baseUrl, apiKey: limited });
    const r = await ws.cli(['apply', ws.write('h.yaml', EVERYTHING), '--auto-approve', '--format', 'json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: the personal API key lacks the scope the planned changes need: feature_flag:write');
    expect(Object.keys(sandbox.stats.byRoute).filter((route) => !route.startsWith('GET '))).toEqual([]);
  });

  it('reports a failed change with the API message, applies the independent ones, and converges on re-run', async () => {
    await stopAllSandboxes();
    // A key with every scope whose user is a member, not an admin: the API refuses role and proxy record writes (403).
    const member = 'phx_test_member_key_00000000000000000000000';
    sandbox = await inProcessSandbox({ seed: { ...SEED, users: [{ first_name: 'M', email: 'member@example.com', level: 'member', keys: [{ key: member, scopes: ['*'] }] }] } });
    http = api(sandbox.baseUrl, sandbox.apiKey);
    ws = workspace({ baseUrl: sandbox.baseUrl, apiKey: member });
    const file = ws.write('h.yaml', EVERYTHING);
    const r = await ws.cli(['apply', file, '--auto-approve', '--format', 'json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    const byStatus = (status: string) => report.changes.filter((c: { status: string }) => c.status === status).map((c: { address: string }) => c.address).sort();
    const failed = byStatus('failed') as string[];
    expect(failed).toContain(`role:${ORG}/Engineers`);
    expect(failed).toContain(`proxy_record:${ORG}/new.example.com`);
    expect(byStatus('applied')).toContain(`feature_flag:${ORG}/12345/new-flag`);
    const refused = report.changes.find((c: { address: string }) => c.address === `role:${ORG}/Engineers`);
    expect(refused.error).toMatch(/ → 403: Your organization access level is insufficient\.$/);
    // With an admin's key, a second apply converges.
    const full = workspace(sandbox);
    expect((await full.cli(['apply', file, '--auto-approve'])).stdout).toContain(`Apply complete: ${failed.length} applied, 0 failed, 0 skipped.`);
    expect((await full.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    full.remove();
  });
});

describe('apply under faults', () => {
  it.each([0.1, 0.2, 0.3])('with --fault-rate %s either succeeds or names exactly the failed changes, and a second apply converges', async (faultRate) => {
    await stopAllSandboxes();
    const dir = workspace({ baseUrl: '', apiKey: '' });
    sandbox = await inProcessSandbox({ seed: SEED, faultRate, statePath: dir.path('state.json') });
    ws = { ...workspace(sandbox), path: dir.path };
    http = api(sandbox.baseUrl, sandbox.apiKey);
    const roles = Array.from({ length: 20 }, (_, i) => `  - name: Team ${i}\n    feature_flags_access_level: 37\n`).join('');
    const file = ws.write('h.yaml', config(`roles:\n${roles}`));
    const first = await ws.cli(['apply', file, '--auto-approve', '--format', 'json']);
    let applied: string[] = [];
    if (first.code === 0) {
      expect(JSON.parse(first.stdout).summary).toEqual({ applied: 20, failed: 0, skipped: 0 });
    } else if (first.stdout) {
      const report = JSON.parse(first.stdout);
      const failed = report.changes.filter((c: { status: string }) => c.status !== 'applied');
      expect(failed.length).toBeGreaterThan(0);
      for (const c of failed) expect(c.error).toBeTruthy();
      applied = report.changes.filter((c: { status: string }) => c.status === 'applied').map((c: { address: string }) => c.address.split('/')[1]);
    } else {
      expect(first.stderr).toMatch(/^error: GET .* → 50\d|^error: GET .*connection/m); // reading live state failed: nothing applied
    }
    await stopAllSandboxes();
    // The same state (kept in the state file), without faults: the second apply finishes the job.
    sandbox = await inProcessSandbox({ statePath: ws.path('state.json') });
    ws = workspace(sandbox);
    http = api(sandbox.baseUrl, sandbox.apiKey);
    // Faults strike before any state changes: what the report calls applied is exactly what exists.
    const teams = (await snapshot()).roles.map((r) => r.split(':')[0] as string).filter((n) => n.startsWith('Team'));
    if (first.code === 0) expect(teams).toHaveLength(20);
    else expect(teams.sort()).toEqual(applied.sort());
    const second = await ws.cli(['apply', file, '--auto-approve']);
    expect(second.code).toBe(0);
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });
});

describe('interrupting apply', () => {
  it('SIGINT stops starting changes and reports every change as applied or skipped', async () => {
    await stopAllSandboxes();
    sandbox = await inProcessSandbox({ seed: SEED, latencyMs: 150 });
    ws = workspace(sandbox);
    http = api(sandbox.baseUrl, sandbox.apiKey);
    const roles = Array.from({ length: 30 }, (_, i) => `  - name: Team ${i}\n`).join('');
    const file = ws.write('h.yaml', config(`roles:\n${roles}`));
    const child = spawnCli(['apply', file, '--auto-approve', '--format', 'json', '--parallelism', '2'], {
      env: { HOGSYNC_BASE_URL: sandbox.baseUrl, HOGSYNC_API_KEY: sandbox.apiKey },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    const interrupted = new Promise<void>((resolve) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        if (stderr.includes('[3/30]') && !child.killed) { child.kill('SIGINT'); resolve(); }
      });
    });
    await interrupted;
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report.changes).toHaveLength(30);
    const applied = report.changes.filter((c: { status: string }) => c.status === 'applied').map((c: { address: string }) => c.address.split('/')[1]);
    const skipped = report.changes.filter((c: { status: string }) => c.status === 'skipped');
    expect(applied.length + skipped.length).toBe(30);
    expect(skipped.length).toBeGreaterThan(0);
    for (const s of skipped) expect(s.error).toBe('interrupted before it started');
    // What the report says applied is exactly what exists.
    const live = (await snapshot()).roles.map((r) => r.split(':')[0]).filter((n) => n?.startsWith('Team'));
    expect(live.sort()).toEqual(applied.sort());
  });
});

describe('a delete whose answer is lost', () => {
  it('is retried, and when the retry finds the item gone (404, or 500 for a proxy record), the re-read counts it applied', async () => {
    await stopAllSandboxes();
    sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web' }], proxy_records: [{ domain: 'old.example.com' }], roles: [{ name: 'Gone', feature_flags_access_level: 21 }] }] } });
    // Every first DELETE reaches the sandbox, which deletes; its answer never comes back.
    const seen = new Set<string>();
    const proxy = await faultyProxy(sandbox.baseUrl, (req) => {
      if (req.method !== 'DELETE' || seen.has(req.url ?? '')) return undefined;
      seen.add(req.url ?? '');
      return 'lose-answer';
    });
    try {
      ws = workspace({ baseUrl: proxy.baseUrl, apiKey: sandbox.apiKey });
      const file = ws.write('h.yaml', config('proxy_records: []\nroles:\n  - name: Gone\n    ensure: absent\nprune: { proxy_records: true }\n'));
      const r = await ws.cli(['apply', file, '--auto-approve']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(proxy.lost).toHaveLength(2);
      expect(r.stdout).toContain('Apply complete: 2 applied, 0 failed, 0 skipped.');
      expect(r.stdout).toMatch(/deleted: the delete failed \(DELETE \/api\/organizations\/\S+\/proxy_records\/\S+ → 500[^)]*\), but re-read, the proxy record is gone/);
      expect(r.stdout).toMatch(/deleted: the delete failed \(DELETE \/api\/organizations\/\S+\/roles\/\S+ → 404[^)]*\), but re-read, the role is gone/);
      expect(r.stdout + r.stderr).not.toContain('still there');
      expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('a delete refused (400) because its item went meanwhile counts applied once re-read; never "running again will not help"', async () => {
    await stopAllSandboxes();
    sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web' }], roles: [{ name: 'Gone', feature_flags_access_level: 21 }] }] } });
    // Someone else deletes the role just before hogsync's DELETE lands, which the API then refuses.
    const proxy = await faultyProxy(sandbox.baseUrl, (req) => {
      if (req.method !== 'DELETE') return undefined;
      const id = decodeURIComponent((req.url ?? '').split('/').filter(Boolean).pop() ?? '');
      void sandbox.store.write((state) => deleteRole(state, id));
      return { status: 400, body: '{"type": "validation_error", "code": "invalid", "detail": "Invalid pk - object does not exist.", "attr": null}' };
    });
    try {
      ws = workspace({ baseUrl: proxy.baseUrl, apiKey: sandbox.apiKey });
      const file = ws.write('h.yaml', config('roles:\n  - name: Gone\n    ensure: absent\n'));
      const r = await ws.cli(['apply', file, '--auto-approve']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('Apply complete: 1 applied, 0 failed, 0 skipped.');
      expect(r.stdout).toMatch(/deleted: the delete failed \(DELETE \/api\/organizations\/\S+\/roles\/\S+ → 400[^)]*\), but re-read, the role is gone/);
      expect(r.stdout).not.toContain('will not help');
      expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('stays failed when the re-read still finds the item', async () => {
    await stopAllSandboxes();
    sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web' }], roles: [{ name: 'Kept', feature_flags_access_level: 21 }] }] } });
    // Every DELETE is answered 500 in the sandbox's place: nothing is deleted.
    const proxy = await faultyProxy(sandbox.baseUrl, (req) => (req.method === 'DELETE' ? { status: 500, body: '{"detail": "A server error occurred."}' } : undefined));
    try {
      ws = workspace({ baseUrl: proxy.baseUrl, apiKey: sandbox.apiKey });
      const file = ws.write('h.yaml', config('roles:\n  - name: Kept\n    ensure: absent\n'));
      const r = await ws.cli(['apply', file, '--auto-approve']);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('0 applied, 1 failed');
      expect(r.stdout).not.toContain('re-read, the role is gone');
    } finally {
      await proxy.close();
    }
  });
});
