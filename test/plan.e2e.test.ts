// plan and drift end to end: the real CLI against a sandbox on loopback.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { EVERY_ACTION_CONFIG, EVERY_ACTION_SEED as SEED, ORG, config, workspace, type Workspace } from './support/workspace.js';
import type { SandboxHandle } from '../src/sandbox/server.js';

let sandbox: SandboxHandle;
let ws: Workspace;

beforeEach(async () => {
  sandbox = await inProcessSandbox({ seed: SEED });
  ws = workspace(sandbox);
});
afterEach(async () => {
  ws.remove();
  await stopAllSandboxes();
});

async function planJson(file: string, extra: string[] = []) {
  const r = await ws.cli(['plan', file, '--format', 'json', ...extra]);
  expect(r.stderr).toBe('');
  return { ...r, plan: JSON.parse(r.stdout) };
}

describe('plan', () => {
  it('is empty with exit 0 when the workspace matches, also with --detailed-exitcode', async () => {
    const file = ws.write('h.yaml', config(`projects:
  - id: 12345
    name: Web app
    session_recording_sample_rate: "0.5"   # "0.50" live: the same value
proxy_records:
  - domain: keep.example.com
roles:
  - name: Support
    feature_flags_access_level: 21
`));
    const text = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('No changes.');
    const { plan } = await planJson(file);
    expect(plan.changes).toEqual([]);
  });

  it('matches role names case-insensitively and plans the change of case', async () => {
    const { plan } = await planJson(ws.write('h.yaml', config('roles:\n  - name: SUPPORT\n')));
    expect(plan.changes).toEqual([expect.objectContaining({ address: `role:${ORG}/SUPPORT`, action: 'update', fields: [{ path: 'name', before: 'Support', after: 'SUPPORT', sensitive: false }] })]);
  });

  it('plans every kind × action with the contract JSON shape', async () => {
    const file = ws.write('h.yaml', EVERY_ACTION_CONFIG);
    const { plan, code } = await planJson(file, ['--detailed-exitcode']);
    expect(code).toBe(2);
    expect(plan).toMatchObject({ format_version: '1', kind: 'plan', base_url: sandbox.baseUrl, sources: [file] });
    expect(plan.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    const byAddress = Object.fromEntries(plan.changes.map((c: { address: string; action: string }) => [c.address, c.action]));
    expect(byAddress).toEqual({
      [`project:${ORG}/12345`]: 'update',
      [`proxy_record:${ORG}/new.example.com`]: 'create',
      [`proxy_record:${ORG}/old.example.com`]: 'delete',
      [`role:${ORG}/Engineers`]: 'create',
      [`role:${ORG}/Support`]: 'update',
      [`role:${ORG}/Admins`]: 'delete',
      [`feature_flag:${ORG}/12345/new-flag`]: 'create',
      [`feature_flag:${ORG}/12345/kept-flag`]: 'update',
      [`feature_flag:${ORG}/12345/old-flag`]: 'delete',
    });
    expect(plan.summary).toEqual({ create: 3, update: 3, delete: 3, unchanged: 0, unmanaged: 2 });
    const support = plan.changes.find((c: { address: string }) => c.address === `role:${ORG}/Support`);
    expect(support).toEqual({
      address: `role:${ORG}/Support`, kind: 'role', organization: ORG, project: null, key: 'Support', action: 'update',
      fields: [{ path: 'feature_flags_access_level', before: 21, after: 37, sensitive: false }],
      declared_at: [`${file}:22:5`],
    });
    const project = plan.changes.find((c: { kind: string }) => c.kind === 'project');
    expect(project.fields).toEqual([
      { path: 'timezone', before: 'UTC', after: 'Europe/Berlin', sensitive: false },
      { path: 'session_recording_sample_rate', before: '0.50', after: '0.25', sensitive: false },
    ]);
    expect(plan.unmanaged).toEqual([
      { address: `project:${ORG}/12346`, kind: 'project', organization: ORG, key: '12346' },
      { address: `proxy_record:${ORG}/keep.example.com`, kind: 'proxy_record', organization: ORG, key: 'keep.example.com' },
    ]);

    const text = await ws.cli(['plan', file]);
    expect(text.stdout).toContain(`~ project:${ORG}/12345`);
    expect(text.stdout).toContain('timezone: "UTC" → "Europe/Berlin"');
    expect(text.stdout).toContain(`+ role:${ORG}/Engineers`);
    expect(text.stdout).toContain(`- feature_flag:${ORG}/12345/old-flag`);
    expect(text.stdout).toContain(`? proxy_record:${ORG}/keep.example.com`);
    expect(text.stdout.trimEnd().split('\n').at(-1)).toBe('Plan: 3 to create, 3 to update, 3 to delete.');
  });

  it('deletes undeclared items only where prune owns the kind', async () => {
    const body = `projects:
  - id: 12345
    feature_flags:
      - key: kept-flag
proxy_records:
  - domain: keep.example.com
roles:
  - name: Admins
`;
    const off = await planJson(ws.write('off.yaml', config(body)));
    expect(off.plan.changes).toEqual([]);
    expect(off.plan.unmanaged.map((u: { address: string }) => u.address).sort()).toEqual([
      `feature_flag:${ORG}/12345/old-flag`, `project:${ORG}/12346`, `proxy_record:${ORG}/old.example.com`, `role:${ORG}/Support`,
    ]);
    const on = await planJson(ws.write('on.yaml', config(`${body}prune:\n  proxy_records: true\n  feature_flags: true\n`)));
    expect(on.plan.changes.map((c: { address: string; action: string }) => `${c.action} ${c.address}`).sort()).toEqual([
      `delete feature_flag:${ORG}/12345/old-flag`, `delete proxy_record:${ORG}/old.example.com`,
    ]);
    // Projects are never pruned: an undeclared one stays unmanaged.
    expect(on.plan.unmanaged.map((u: { address: string }) => u.address)).toEqual([`project:${ORG}/12346`, `role:${ORG}/Support`]);
  });

  it('names a declared project that does not exist, at its line', async () => {
    const file = ws.write('h.yaml', config('projects:\n  - id: 99999\n    name: Nope\n'));
    const r = await ws.cli(['plan', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/h\.yaml:3:5: project "99999" does not exist in organization/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('shows only what differs inside a value: not nulls, not the order keys were written in', async () => {
    const file = ws.write('h.yaml', config(`projects:
  - id: 12345
    feature_flags:
      - key: kept-flag
        filters: { groups: [ { rollout_percentage: 50, variant: null, properties: [] } ] }
`));
    const r = await ws.cli(['plan', file]);
    const diff = r.stdout.split('\n').filter((l) => /^ {8}[-+~] /.test(l));
    expect(diff).toEqual(['        ~ condition set 1: rollout 100% → 50%']);
  });

  it('--verbose logs every request on stderr, and stdout keeps only the plan', async () => {
    sandbox.stats.requests = 0;
    const r = await ws.cli(['plan', ws.write('h.yaml', config('roles:\n  - name: Support\n')), '--format', 'json', '--verbose']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).kind).toBe('plan');
    const logged = r.stderr.split('\n').filter((l) => /^hogsync: request (GET|POST) \/api\/\S+ → 200$/.test(l));
    expect(logged.length).toBe(sandbox.stats.requests);
    expect(logged.length).toBeGreaterThan(0);
  });

  it('names the file it cannot write, not a temporary one', async () => {
    const r = await ws.cli(['plan', ws.write('h.yaml', config('roles:\n  - name: Support\n')), '--out', 'missing-dir/plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: cannot write missing-dir/plan.json: ENOENT\n');
  });

  it('saves a plan with --out and warns when apply would refuse it', async () => {
    const file = ws.write('h.yaml', config('projects:\n  - id: 12346\n    ensure: absent\n'));
    const r = await ws.cli(['plan', file, '--out', 'plan.json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('apply will refuse unless run with --allow-delete project/12346');
    const saved = JSON.parse(readFileSync(ws.path('plan.json'), 'utf8'));
    expect(saved.changes.map((c: { action: string; key: string }) => `${c.action} ${c.key}`)).toEqual(['delete 12346']);
    expect(saved.warnings[0]).toContain('--allow-delete project/12346');
  });

  it('reads live state with the fewest requests: one list per page, one GET per project, flags of declared projects', async () => {
    await stopAllSandboxes();
    const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
    sandbox = await inProcessSandbox({
      seed: {
        organizations: [{
          id: ORG,
          projects: [
            { id: 12345, name: 'A', feature_flags: many(230, (i) => ({ key: `flag-${i}`, name: `F${i}`, active: true })) },
            { id: 12346, name: 'B', feature_flags: many(5, (i) => ({ key: `b-${i}` })) },
            { id: 12347, name: 'C (not declared)', feature_flags: many(50, (i) => ({ key: `c-${i}` })) },
          ],
          proxy_records: many(150, (i) => ({ domain: `p${i}.example.com` })),
          roles: many(201, (i) => ({ name: `Role ${i}` })),
        }],
      },
    });
    ws = workspace(sandbox);
    const file = ws.write('h.yaml', config(`projects:
  - id: 12345
    feature_flags: [ { key: flag-0 } ]
  - id: 12346
    feature_flags: [ { key: b-0 } ]
proxy_records: [ { domain: p0.example.com } ]
roles: [ { name: Role 0 } ]
`));
    sandbox.stats.requests = 0;
    sandbox.stats.byRoute = {};
    const r = await ws.cli(['plan', file, '--format', 'json']);
    expect(r.code).toBe(0);
    // Pages of 1000 are asked for (the API's default is 100, which would take flags 3 + 1,
    // roles 3): flags 1 + 1, roles 1, projects 1; proxy records in one page (the real list is
    // not paged); plus one GET per declared project, and the key's scopes, asked once.
    const minimum = 1 + 1 + 1 + 1 + 1 + 2 + 1;
    expect(sandbox.stats.requests).toBe(minimum);
    expect(Object.keys(sandbox.stats.byRoute).some((k) => k.includes('12347'))).toBe(false);
    const plan = JSON.parse(r.stdout);
    expect(plan.summary.unmanaged).toBe(229 + 4 + 149 + 200 + 1);

    // A kind no file declares is never read: projects alone cost their list and their GETs.
    sandbox.stats.requests = 0;
    sandbox.stats.byRoute = {};
    const only = await ws.cli(['plan', ws.write('p.yaml', config('projects:\n  - id: 12345\n  - id: 12346\n')), '--format', 'json']);
    expect(only.code).toBe(0);
    expect(Object.keys(sandbox.stats.byRoute).sort()).toEqual(['GET /api/organizations/:org/projects/', 'GET /api/organizations/:org/projects/:id/', 'GET /api/personal_api_keys/@current/']);
    expect(sandbox.stats.requests).toBe(1 + 2 + 1);
    expect(JSON.parse(only.stdout).summary.unmanaged).toBe(1);
  });

  it('reads a project of 250 flags in one flag-list request: pages of 1000, not the API\'s default 100', async () => {
    // Every flag-list page read with a personal key is billed to the user as a local-evaluation request.
    await stopAllSandboxes();
    ws.remove();
    const many = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
    const asked: string[] = [];
    sandbox = await inProcessSandbox({
      log: (line) => asked.push(line.replace(/ \d+ms$/, '')),
      seed: {
        organizations: [{
          id: ORG,
          projects: [
            { id: 12345, name: 'A', feature_flags: many(250, (i) => ({ key: `flag-${i}` })) },
            { id: 12346, name: 'B', feature_flags: many(101, (i) => ({ key: `b-${i}` })) },
          ],
        }],
      },
    });
    ws = workspace(sandbox);
    const r = await ws.cli(['plan', ws.write('h.yaml', config('projects:\n  - id: 12345\n    feature_flags: [ { key: flag-0 } ]\n  - id: 12346\n    feature_flags: [ { key: b-0 } ]\n')), '--format', 'json']);
    expect(r.code).toBe(0);
    // One request per project, answered whole (the sandbox's next link is null): no second page.
    expect(asked.filter((l) => l.includes('/feature_flags/')).sort()).toEqual([
      'GET /api/projects/12345/feature_flags/?limit=1000 → 200',
      'GET /api/projects/12346/feature_flags/?limit=1000 → 200',
    ]);
    expect(JSON.parse(r.stdout).summary.unmanaged).toBe(249 + 100);
  });
});

describe('drift', () => {
  it('exits 0 without drift and 2 with drift, in every format', async () => {
    const clean = ws.write('clean.yaml', config('roles:\n  - name: Admins\n    feature_flags_access_level: 37\n'));
    const none = await ws.cli(['drift', clean]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('No drift');

    const drifted = ws.write('drift.yaml', config('roles:\n  - name: Admins\n    feature_flags_access_level: 21\n  - name: Missing\n'));
    const text = await ws.cli(['drift', drifted]);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('Drift: 1 missing, 1 changed, 0 to delete.');
    // Every format says which side is live and which is the files, in the same words.
    expect(text.stdout).toContain('feature_flags_access_level: live 37, files say 21');

    const json = await ws.cli(['drift', drifted, '--format', 'json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'drift', summary: { create: 1, update: 1 } });

    const junit = await ws.cli(['drift', drifted, '--format', 'junit', '--out', 'drift.xml']);
    expect(junit.code).toBe(2);
    const xml = readFileSync(ws.path('drift.xml'), 'utf8');
    expect(xml).toContain('<testsuite name="hogsync drift" tests="2" failures="2"');
    expect(xml).toContain(`name="role:${ORG}/Admins"`);
    expect(xml).toContain('feature_flags_access_level: live 37, files say 21');

    const md = await ws.cli(['drift', drifted, '--format', 'markdown']);
    expect(md.stdout).toContain('### hogsync drift report');
    expect(md.stdout).toContain(`<b>role:${ORG}/Missing</b>`);
    expect(md.stdout).toContain('- feature_flags_access_level: 37   (live)\n+ feature_flags_access_level: 21   (files)');
  });
});

describe('drift with a read-only key', () => {
  it('reports flag drift without asking for a blast radius (no write request at all)', async () => {
    await stopAllSandboxes();
    const readOnly = 'phx_drift_read_only_key_0000000000000';
    sandbox = await inProcessSandbox({ seed: { ...SEED, keys: [{ key: readOnly, scopes: ['project:read', 'organization:read', 'feature_flag:read'] }] } });
    const reader = workspace({ baseUrl: sandbox.baseUrl, apiKey: readOnly });
    const file = reader.write('h.yaml', config('projects:\n  - id: 12345\n    feature_flags:\n      - key: kept-flag\n        filters: { groups: [ { properties: [], rollout_percentage: 50 } ] }\n'));
    const r = await reader.cli(['drift', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain('blast radius');
    expect(Object.keys(sandbox.stats.byRoute).filter((route) => !route.startsWith('GET '))).toEqual([]);
    reader.remove();
  });
});

describe('secrets', () => {
  it('never prints a sensitive value: text, json, markdown, junit, saved plan, errors', async () => {
    const secret = 'https://hooks.slack.com/services/T000/B000/SECRETSECRET';
    const env = { SLACK_WEBHOOK: secret, TEAM_NAME: 'Secret team name' };
    const file = ws.write('h.yaml', config(`projects:
  - id: 12345
    slack_incoming_webhook: \${env:SLACK_WEBHOOK}
    product_description: \${env:TEAM_NAME}
`));
    const outputs: string[] = [];
    for (const format of ['text', 'json', 'markdown']) {
      const r = await ws.cli(['plan', file, '--format', format, '--out', `plan-${format}.json`], env);
      expect(r.code).toBe(0);
      outputs.push(r.stdout, r.stderr, readFileSync(ws.path(`plan-${format}.json`), 'utf8'));
    }
    for (const format of ['text', 'json', 'markdown', 'junit']) {
      const r = await ws.cli(['drift', file, '--format', format], env);
      expect(r.code).toBe(2);
      outputs.push(r.stdout, r.stderr);
    }
    const apply = await ws.cli(['apply', file, '--auto-approve'], env);
    outputs.push(apply.stdout, apply.stderr);
    const after = await ws.cli(['drift', file, '--format', 'json'], { ...env, SLACK_WEBHOOK: `${secret}-rotated` });
    outputs.push(after.stdout, after.stderr);
    const all = outputs.join('\n');
    expect(all).toContain('(sensitive)');
    expect(all).not.toContain('SECRETSECRET');
    expect(all).not.toContain('Secret team name');
    // Nine CLI runs (and an apply): on a loaded two-core machine that takes longer than the default.
  }, 90_000);
});
