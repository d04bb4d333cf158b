// Every mistake a run can find, in that run (PRODUCT.md "Messages"): a plan names every
// reference that resolves to nothing (each kind of reference: a flag's cohort, a cohort's action,
// a role's member, an access grant to a role or a member) at its own file:line:col with the
// nearest declared or live name; in a GitHub Actions job each is also a workflow annotation,
// and each planned change a notice at its declared_at.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

const NEW_KEY = 'phx_onerun_new_key_0123456789';
const READ_KEY = 'phx_onerun_read_key_0123456789';
let sandbox: SandboxHandle;
let ws: Workspace;

beforeAll(async () => {
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{
        id: ORG,
        projects: [{
          id: 12345, name: 'Web app',
          actions: [{ name: 'Signed up', steps: [{ event: 'signed_up' }] }],
          cohorts: [{ name: 'Staff', filters: { properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'email', type: 'person', value: 'example.com', operator: 'icontains' }] }] } } }],
        }],
        roles: [{ name: 'Engineers', feature_flags_access_level: 21 }],
        members: ['alice@example.com'],
      }],
      users: [{ first_name: 'Alice', email: 'alice@example.com', level: 'member' }],
      keys: [
        { key: NEW_KEY, scopes: ['project:read'] },
        { key: READ_KEY, scopes: ['project:read', 'organization:read', 'feature_flag:read', 'cohort:read'] },
      ],
    },
  });
  ws = workspace(sandbox);
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const MISTAKES = config(`projects:
  - id: 12345
    feature_flags:
      - key: gated
        filters: { groups: [ { properties: [ { key: id, type: cohort, value: { cohort: Staf }, operator: in } ] } ] }
    cohorts:
      - name: Signups
        filters: { properties: { type: OR, values: [ { type: AND, values: [ { key: { action: Signed upp }, type: behavioral, value: performed_event, event_type: actions, time_value: 30, time_interval: day } ] } ] } }
    access:
      roles: { Enginers: member }
      members: { alise@example.com: member }
roles:
  - name: Engineers
    members: [ alice@exampel.com ]
`);

describe('a plan finds every unresolvable reference in one run', () => {
  it('names each at its file:line:col with the nearest name, and no more', async () => {
    const file = ws.write('mistakes.yaml', MISTAKES);
    const r = await ws.cli(['plan', file]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().replace(/^error: /, '').split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(new RegExp(`^${file}:6:\\d+: no cohort named "Staf" in project 12345: did you mean "Staff"\\?`));
    expect(lines[1]).toMatch(new RegExp(`^${file}:9:\\d+: no action named "Signed upp" in project 12345: did you mean "Signed up"\\?`));
    expect(lines[2]).toMatch(new RegExp(`^${file}:11:\\d+: access rule "role/Enginers" grants to role Enginers, which does not exist .*did you mean "Engineers"\\?`));
    expect(lines[3]).toMatch(new RegExp(`^${file}:12:\\d+: access rule "member/alise@example.com" grants to alise@example.com, who is not a member .*did you mean "alice@example.com"\\?`));
    expect(lines[4]).toMatch(new RegExp(`^${file}:15:\\d+: alice@exampel.com is not a member of the organization .*did you mean "alice@example.com"\\?`));
    expect(lines[5]).toBe('5 errors in 1 file');
  });

  it('in a GitHub Actions job, writes each error as an annotation at its line (stdout stays the plan), and each planned change as a notice', async () => {
    ws.write('mistakes.yaml', MISTAKES);
    const failed = await ws.cli(['plan', 'mistakes.yaml'], { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: ws.dir });
    expect(failed.code).toBe(1);
    const errors = failed.stderr.split('\n').filter((l) => l.startsWith('::error '));
    expect(errors).toHaveLength(5);
    expect(errors[0]).toMatch(/^::error file=mistakes\.yaml,line=6,col=\d+::no cohort named "Staf" in project 12345: did you mean "Staff"\?/);

    ws.write('good.yaml', config(`projects:
  - id: 12345
    feature_flags:
      - key: gated
        filters: { groups: [ { properties: [ { key: id, type: cohort, value: { cohort: Staff }, operator: in } ] } ] }
`));
    const planned = await ws.cli(['plan', 'good.yaml', '--format', 'json'], { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: ws.dir });
    expect(planned.code, planned.stderr).toBe(0);
    // stdout is the plan's JSON, whole; the notices go to stderr, which the runner reads too.
    expect((JSON.parse(planned.stdout) as { changes: unknown[] }).changes).toHaveLength(1);
    expect(planned.stderr.split('\n').filter((l) => l.startsWith('::'))).toEqual([
      `::notice file=good.yaml,line=5,col=9::create feature_flag:${ORG}/12345/gated`,
    ]);
  });
});

describe('the key\'s scopes, checked once at the start', () => {
  const FILE = config(`projects:
  - id: 12345
    feature_flags:
      - key: gated
        filters: { groups: [ { properties: [ { key: id, type: cohort, value: { cohort: Staff }, operator: in } ] } ] }
roles:
  - name: Engineers
`);

  it('names every read scope a new key lacks in one line, and the write scopes the files will need, before reading anything else', async () => {
    ws.write('scopes.yaml', FILE);
    const r = await ws.cli(['plan', 'scopes.yaml'], { HOGSYNC_API_KEY: NEW_KEY });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe('error: the personal API key lacks the scopes this run reads with: cohort:read, feature_flag:read, organization:read; '
      + 'the changes the files declare will also need: feature_flag:write, organization:write');
    expect(lines[1]).toBe('hint: add the scopes cohort:read, feature_flag:read, organization:read, feature_flag:write, organization:write to the personal API key (Settings → Personal API keys), or use a key that has them; then run again.');
  });

  it('asks before resolving an organization written as @current, whose read needs organization:read too', async () => {
    ws.write('current.yaml', "organization: '@current'\nprojects:\n  - id: 12345\n    feature_flags: [ { key: gated, active: true } ]\n");
    const r = await ws.cli(['plan', 'current.yaml'], { HOGSYNC_API_KEY: NEW_KEY });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe('error: the personal API key lacks the scopes this run reads with: feature_flag:read, organization:read; '
      + 'the changes the files declare will also need: feature_flag:write');
  });

  it('with every read scope: plan warns of the write scopes its changes need, apply refuses before sending anything', async () => {
    ws.write('scopes.yaml', FILE.replace('  - name: Engineers\n', '  - name: Engineers\n    feature_flags_access_level: 21\n'));
    const planned = await ws.cli(['plan', 'scopes.yaml', '--format', 'json'], { HOGSYNC_API_KEY: READ_KEY });
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string }>; warnings: string[] };
    expect(plan.changes.map((c) => c.address)).toEqual([`feature_flag:${ORG}/12345/gated`]);
    expect(plan.warnings).toContain('the personal API key lacks the scope these changes need: feature_flag:write; apply will refuse to start without it');
    const applied = await ws.cli(['apply', 'scopes.yaml', '--auto-approve'], { HOGSYNC_API_KEY: READ_KEY });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('error: the personal API key lacks the scope the planned changes need: feature_flag:write');
    const flags = await fetch(`${sandbox.baseUrl}/api/projects/12345/feature_flags/`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
    expect(((await flags.json()) as { results: unknown[] }).results).toHaveLength(0);
  });
});
