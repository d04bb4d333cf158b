// Feature flags as the real API keeps them, end to end: the real CLI against a sandbox that
// rewrites, merges, gates, refuses and hides flags as PostHog's public source does.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { config, ORG, workspace, type Workspace } from './support/workspace.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import type { SeedDocument } from '../src/sandbox/seed.js';

// Each test runs the CLI several times: on a loaded machine that takes longer than the default.
vi.setConfig({ testTimeout: 120_000 });

type Rec = Record<string, unknown>;
const P = 12345;
const F = `/api/projects/${P}/feature_flags/`;
const ALL = { groups: [{ properties: [], rollout_percentage: 100 }] };

let sandbox: SandboxHandle;
let ws: Workspace;
let http: Api;

async function start(flags: Rec[] = [], project: Rec = {}, persons: Rec[] = []): Promise<void> {
  const seed = { organizations: [{ id: ORG, projects: [{ id: P, name: 'Web app', feature_flags: flags, persons, ...project }] }] } as unknown as SeedDocument;
  sandbox = await inProcessSandbox({ seed });
  ws = workspace(sandbox);
  http = api(sandbox.baseUrl, sandbox.apiKey);
}

afterEach(async () => {
  ws?.remove();
  await stopAllSandboxes();
});

async function live(query = ''): Promise<Rec[]> {
  return ((await http.get(`${F}?limit=1000${query}`)).body as { results: Rec[] }).results;
}
const flag = async (key: string, query = '') => (await live(query)).find((f) => f.key === key) as Rec;

describe('flags the API rewrites', () => {
  it('applies a flag with groups, a split, payloads, aggregation and cohort conditions, then plans empty', async () => {
    await start([], { cohorts: [{ id: 42, name: 'Adults' }] });
    const file = ws.write('flags.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: checkout
        name: Checkout
        tags: [Checkout, Team-Payments, checkout]
        filters:
          groups:
            - properties:
                - { key: age, type: person, operator: min, value: "18" }
                - { key: id, type: cohort, value: 42 }
              rollout_percentage: 20.0
            - { rollout_percentage: 5, variant: test }
          multivariate:
            variants:
              - { key: control, rollout_percentage: 50 }
              - { key: test, rollout_percentage: 50 }
          payloads:
            control: { price: 10, currency: EUR }
            test: '{"price":12,"currency":"EUR"}'
      - key: org-beta
        filters:
          aggregation_group_type_index: 1
          groups:
            - properties: [ { key: plan, type: group, group_type_index: 1, value: enterprise, operator: exact } ]
              rollout_percentage: 50
`));
    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const stored = await flag('checkout');
    // The API rewrote what it took: hogsync compares as the API stores.
    expect(stored.tags).toEqual(['checkout', 'team-payments']);
    expect((stored.filters as Rec).payloads).toEqual({ control: '{"price": 10, "currency": "EUR"}', test: '{"price":12,"currency":"EUR"}' });
    const plan = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
    expect(plan.stdout).toContain('No changes.');
  });

  it('removes a multivariate split and its payloads (sent as null), and the live flag serves neither', async () => {
    await start([], {}, [{ distinct_id: 'user-1', properties: {} }]);
    const write = (filters: string) => ws.write('flags.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: split
        filters: ${filters}
`));
    const file = write('{ groups: [ { rollout_percentage: 100 } ], multivariate: { variants: [ { key: a, rollout_percentage: 100 } ] }, payloads: { a: { x: 1 } } }');
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    write('{ groups: [ { rollout_percentage: 100 } ] }');
    const plan = await ws.cli(['plan', file, '--format', 'json']);
    expect(JSON.parse(plan.stdout).summary).toMatchObject({ update: 1 });
    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect((await flag('split')).filters).toMatchObject({ multivariate: null, payloads: {} });
    const reasons = (await http.get(`${F}evaluation_reasons/?distinct_id=user-1`)).body as Record<string, { value: unknown }>;
    expect(reasons.split?.value).toBe(true);
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('refuses filters without groups in validate, at their line', async () => {
    await start();
    const file = ws.write('flags.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: no-groups
        filters:
          payloads: { "true": "1" }
`));
    const r = await ws.cli(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stderr + r.stdout).toMatch(/flags\.yaml:[67]:\d+: .*groups/);
  });
});

describe('encrypted payloads', () => {
  const SECRET = 'sk_live_encrypted_payload_0042';

  it('never appear in plan, apply, drift, a saved plan or an export; export writes a placeholder', async () => {
    await start([{ key: 'remote', has_encrypted_payloads: true, is_remote_configuration: true, filters: { groups: [{}], payloads: { true: JSON.stringify({ token: `${SECRET}-old` }) } } }]);
    const file = ws.write('flags.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: remote
        has_encrypted_payloads: true
        filters:
          groups: [ {} ]
          payloads: { "true": '{"token": "${SECRET}"}' }
`));
    const outputs: string[] = [];
    for (const format of ['text', 'json', 'markdown']) {
      const r = await ws.cli(['plan', file, '--format', format]);
      expect(r.code, r.stderr).toBe(0);
      outputs.push(r.stdout, r.stderr);
    }
    const json = JSON.parse(outputs[2] as string);
    expect(json.changes[0].fields).toEqual([{ path: 'filters', before: '(sensitive)', after: '(sensitive)', sensitive: true }]);
    expect((await ws.cli(['plan', file, '--out', 'plan.json'])).code).toBe(0);
    outputs.push(readFileSync(ws.path('plan.json'), 'utf8'));
    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    outputs.push(applied.stdout, applied.stderr);
    expect(((await flag('remote')).filters as Rec).payloads).toEqual({ true: `{"token": "${SECRET}"}` });
    await http.patch(`${F}${(await flag('remote')).id as number}/`, { filters: { groups: [{}], payloads: { true: JSON.stringify({ token: `${SECRET}-drifted` }) } } });
    for (const format of ['text', 'json', 'markdown', 'junit']) {
      const r = await ws.cli(['drift', file, '--format', format]);
      expect(r.code).toBe(2);
      outputs.push(r.stdout, r.stderr);
    }
    const exported = await ws.cli(['export', '--organization', ORG, '--out', 'export.yaml']);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(ws.path('export.yaml'), 'utf8');
    outputs.push(exported.stdout, exported.stderr, text);
    expect(text).toMatch(/"true": \$\{env:HOGSYNC_FEATURE_FLAG_12345_REMOTE_FILTERS_PAYLOADS_TRUE\}/);
    // Every file hogsync wrote (the configuration itself holds the secret, by design).
    for (const name of readdirSync(ws.dir)) if (name !== 'flags.yaml') outputs.push(readFileSync(join(ws.dir, name), 'utf8'));
    for (const out of outputs) expect(out).not.toContain(SECRET);
  }, 180_000);
});

describe('approvals', () => {
  it('reports a gated change as pending with its change request, exits 1, and plans empty once approved', async () => {
    await start([{ key: 'guarded', active: true, filters: ALL }], { flag_approvals: ['feature_flag.disable'] });
    const file = ws.write('flags.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: guarded
        active: false
`));
    const text = await ws.cli(['apply', file, '--auto-approve']);
    expect(text.code).toBe(1);
    const id = /change request ([0-9a-f-]{36})/.exec(text.stdout)?.[1] as string;
    expect(id, text.stdout).toBeDefined();
    expect(text.stdout).toMatch(/guarded pending: held for approval/);
    expect(text.stdout).toMatch(/1 pending approval/);
    // Asked again, the API answers with the open request: still pending, same id, never retried.
    const json = await ws.cli(['apply', file, '--auto-approve', '--format', 'json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report.summary).toMatchObject({ pending: 1, failed: 0 });
    expect(report.changes[0]).toMatchObject({ status: 'pending', change_request_id: id });
    expect(sandbox.stats.byRoute['PATCH /api/projects/:project/feature_flags/:id/']).toBe(2);

    expect((await http.post(`/api/projects/${P}/change_requests/${id}/approve/`, {})).body).toMatchObject({ status: 'applied' });
    const plan = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
  });
});

describe('dependencies', () => {
  it('prunes and disables inter-dependent flags in one apply, dependents first', async () => {
    // Seed ids: base = 1, middle = 2 (depends on base), top = 3 (depends on middle).
    const dep = (id: number) => ({ groups: [{ properties: [{ key: String(id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] });
    await start([{ key: 'base', filters: ALL }, { key: 'middle', filters: dep(1) }, { key: 'top', filters: dep(2) }, { key: 'other', filters: ALL }]);
    const file = ws.write('flags.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: top
        active: false
      - key: other
prune:
  feature_flags: true
`));
    const r = await ws.cli(['apply', file, '--auto-approve', '--max-delete-percent', '100']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await live()).map((f) => f.key).sort()).toEqual(['other', 'top']);
    expect((await flag('top')).active).toBe(false);
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('refuses a dependency cycle in the files at plan time, naming the flags', async () => {
    const dep = (id: number) => `{ groups: [ { properties: [ { key: "${id}", type: flag, operator: flag_evaluates_to, value: true } ] } ] }`;
    await start([{ key: 'a', filters: ALL }, { key: 'b', filters: ALL }]);
    const file = ws.write('flags.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: a
        filters: ${dep(2)}
      - key: b
        filters: ${dep(1)}
`));
    const r = await ws.cli(['plan', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/depend on each other in a cycle: a → b → a/);
  });
});

describe('keys the list does not show', () => {
  it('updates the archived flag that holds a declared key, never creates it, and never lists it as unmanaged', async () => {
    await start([{ key: 'old', name: 'Old', active: false, archived: true, filters: ALL }, { key: 'visible', filters: ALL }, { key: 'shelved', active: false, archived: true, filters: ALL }]);
    const file = ws.write('flags.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: old
        name: Old, renamed
      - key: fresh
        filters: { groups: [ { rollout_percentage: 10 } ] }
`));
    sandbox.stats.byRoute = {};
    const plan = await ws.cli(['plan', file, '--format', 'json']);
    const parsed = JSON.parse(plan.stdout);
    expect(parsed.changes.map((c: Rec) => `${c.action as string} ${c.key as string}`).sort()).toEqual([`create ${P}/fresh`, `update ${P}/old`]);
    expect(parsed.unmanaged.map((u: Rec) => u.key)).toEqual([`${P}/visible`]);
    // One more list, of the archived flags, because a create is planned in the project.
    expect(sandbox.stats.byRoute['GET /api/projects/:project/feature_flags/']).toBe(2);
    const r = await ws.cli(['apply', file, '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await flag('old', '&archived=true')).toMatchObject({ name: 'Old, renamed', archived: true });
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('reads no archived flags when nothing is created; archiving sends active false with it', async () => {
    await start([{ key: 'retire', active: true, filters: ALL }]);
    const file = ws.write('flags.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: retire
        archived: true
`));
    sandbox.stats.byRoute = {};
    expect((await ws.cli(['plan', file, '--format', 'json'])).code).toBe(0);
    expect(sandbox.stats.byRoute['GET /api/projects/:project/feature_flags/']).toBe(1);
    const r = await ws.cli(['apply', file, '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/not found when re-read|did not take/);
    expect(await flag('retire', '&archived=true')).toMatchObject({ archived: true, active: false });
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('explains a create refused for a key a hidden flag holds; a plan past 2000 flags in a project is an error before any preview', async () => {
    const many = Array.from({ length: 1998 }, (_, i) => ({ key: `f${i}`, filters: ALL }));
    await start([{ key: 'survey-targeting', internal: 'survey', filters: ALL }, ...many]);
    const file = ws.write('flags.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: survey-targeting
        filters: { groups: [ { rollout_percentage: 10 } ] }
      - key: brand-new
        filters: { groups: [ { rollout_percentage: 10 } ] }
      - key: one-too-many
        filters: { groups: [ { rollout_percentage: 10 } ] }
`));
    const plan = await ws.cli(['plan', file, '--format', 'json']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`${file}:9:9: project 12345 would hold 2001 feature flags after this plan (1998 live, 3 created, 0 deleted): a project holds at most 2000, and the API refuses every create past that (from feature_flag:${ORG}/12345/one-too-many on)`);
    expect(sandbox.stats.byRoute['POST /api/projects/:project/feature_flags/user_blast_radius/'] ?? 0).toBe(0);
    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code).toBe(1);
    expect(sandbox.stats.byRoute['POST /api/projects/:project/feature_flags/'] ?? 0).toBe(0);
    // Within the limit (by the list's count), the create the hidden flag's key refuses is explained.
    const fits = ws.write('fits.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: survey-targeting
        filters: { groups: [ { rollout_percentage: 10 } ] }
`));
    const r = await ws.cli(['apply', fits, '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/survey-targeting failed: .*already a feature flag with this key.*survey's or product tour's internal flag.*not retried/);
  });
});

describe('blast radius', () => {
  it('names the group type of a group-aggregated flag', async () => {
    await start();
    const file = ws.write('flags.yaml', config(`projects:
  - id: ${P}
    feature_flags:
      - key: orgs
        filters:
          aggregation_group_type_index: 0
          groups: [ { properties: [], rollout_percentage: 50 } ]
`));
    const r = await ws.cli(['plan', file]);
    expect(r.stdout).toMatch(/reach 0 of 0 groups of group type 0/);
  });
});
