// Hostile saved plans (`apply --plan FILE`). Families covered:
//   - broken files: empty, binary, truncated, not an object, wrong types of fields
//   - plans from elsewhere: another format version, a drift report, another API, other files
//   - tampered plans: a flipped fingerprint; contents edited while the fingerprint was kept
//     (an injected delete, a changed value, another organization, a dropped change, edited
//     counts, changes of the wrong types), refused because they do not match the fingerprint
//   - files that are not files: a directory, a FIFO (refused at once, never waited on)
// Each is refused in one line with exit 1 and nothing is written to the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { EVERY_ACTION_SEED, ORG, config, workspace, type Workspace } from './support/workspace.js';
import type { SandboxHandle } from '../src/sandbox/server.js';

let sandbox: SandboxHandle;
let ws: Workspace;
let good: Record<string, unknown>;

beforeAll(async () => {
  sandbox = await inProcessSandbox({ seed: EVERY_ACTION_SEED });
  ws = workspace(sandbox);
  ws.write('h.yaml', config('roles:\n  - name: Engineers\n    feature_flags_access_level: 37\n  - name: Support\n    feature_flags_access_level: 37\n'));
  const r = await ws.cli(['plan', 'h.yaml', '--out', 'plan.json']);
  expect(r.code).toBe(0);
  good = JSON.parse(readFileSync(ws.path('plan.json'), 'utf8'));
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const edit = (patch: Record<string, unknown>) => () => JSON.stringify({ ...good, ...patch });
const flipped = () => {
  const f = String(good.fingerprint);
  return JSON.stringify({ ...good, fingerprint: `${f.slice(0, -1)}${f.endsWith('0') ? '1' : '0'}` });
};

const cases: Array<[string, () => string, string]> = [
  ['an empty file', () => '', 'error: bad.json is not a usable hogsync plan: it is not valid JSON (truncated or edited?)'],
  ['binary garbage', () => '\u0000\u00ff\u0001PK\u0003\u0004', 'error: bad.json is not a usable hogsync plan: it is not valid JSON (truncated or edited?)'],
  ['a truncated plan', () => JSON.stringify(good).slice(0, 120), 'error: bad.json is not a usable hogsync plan: it is not valid JSON (truncated or edited?)'],
  ['a JSON list', () => '[]', 'error: bad.json is not a usable hogsync plan: it is not a JSON object'],
  ['JSON null', () => 'null', 'error: bad.json is not a usable hogsync plan: it is not a JSON object'],
  ['no format_version', edit({ format_version: undefined }), 'error: bad.json is not a usable hogsync plan: format_version is null, this hogsync reads "1"'],
  ['a plan from another version', edit({ format_version: '2' }), 'error: bad.json is not a usable hogsync plan: format_version is "2", this hogsync reads "1"'],
  ['a drift report instead of a plan', edit({ kind: 'drift' }), 'error: bad.json is not a usable hogsync plan: its kind is "drift", not "plan"'],
  ['no fingerprint', edit({ fingerprint: undefined }), 'error: bad.json is not a usable hogsync plan: its fingerprint is missing or malformed'],
  ['a malformed fingerprint', edit({ fingerprint: 'sha256:xyz' }), 'error: bad.json is not a usable hogsync plan: its fingerprint is missing or malformed'],
  ['sources that are not a list', edit({ sources: 'h.yaml' }), 'error: bad.json is not a usable hogsync plan: sources must be a list of file names'],
  ['managed that is not a list', edit({ managed: {} }), 'error: bad.json is not a usable hogsync plan: managed must be a list of {address, digest}'],
  ['a managed item without a digest', edit({ managed: [{ address: 'role:x/y' }] }), 'error: bad.json is not a usable hogsync plan: managed must be a list of {address, digest}'],
  ['no changes list', edit({ changes: undefined }), 'error: bad.json is not a usable hogsync plan: changes must be a list'],
  ['no base_url', edit({ base_url: undefined }), 'error: bad.json is not a usable hogsync plan: base_url is missing'],
  ['a plan made against another API', edit({ base_url: 'https://eu.posthog.com' }), `error: the plan bad.json was made against https://eu.posthog.com, not ${'BASE'}`],
  ['a tampered fingerprint', flipped, 'error: the plan bad.json is stale, live state or files changed since it was made (no item changed: the prune settings changed, or the plan file was edited). Run plan again.'],
];

describe('hostile saved plans', () => {
  it.each(cases)('%s: one line, exit 1, nothing written', async (_name, content, message) => {
    ws.write('bad.json', content());
    sandbox.stats.byRoute = {};
    const r = await ws.cli(['apply', '--plan', 'bad.json', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${message.replace('BASE', sandbox.baseUrl)}\n`);
    expect(r.stdout).toBe('');
    expect(Object.keys(sandbox.stats.byRoute).filter((route) => !route.startsWith('GET '))).toEqual([]);
  });

  it('names the plan when the files it was made from are not where apply runs', async () => {
    const elsewhere = workspace(sandbox);
    elsewhere.write('p.json', readFileSync(ws.path('plan.json'), 'utf8'));
    const r = await elsewhere.cli(['apply', '--plan', 'p.json', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: the plan p.json was made from h.yaml, not found from ${elsewhere.dir}: run apply where plan ran, or pass the configuration paths\n`);
    elsewhere.remove();
  });

  it('a missing or unreadable plan file is one line', async () => {
    for (const [path, code] of [['nope.json', 'ENOENT'], ['.', 'it is a directory']]) {
      const r = await ws.cli(['apply', '--plan', path, '--auto-approve']);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`error: cannot read the plan ${path}: ${code}\n`);
    }
  });

  it('a FIFO given as the plan is refused at once, not waited on', async () => {
    execFileSync('mkfifo', [ws.path('fifo.json')]);
    const started = Date.now();
    const r = await ws.cli(['apply', '--plan', 'fifo.json', '--auto-approve'], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: cannot read the plan fifo.json: it is not a regular file (a pipe or a device); save the plan with plan --out and pass that file\n');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  const changes = () => structuredClone(good.changes) as Array<Record<string, unknown> & { fields: Array<Record<string, unknown>> }>;
  const tampered: Array<[string, () => unknown, string]> = [
    ['an injected delete', () => ({ changes: [...changes(), { address: `role:${ORG}/Admins`, kind: 'role', organization: ORG, project: null, key: 'Admins', action: 'delete', fields: [] }] }),
      `role:${ORG}/Admins (not a change of this plan)`],
    ['a changed value', () => ({ changes: changes().map((c) => ({ ...c, fields: c.fields.map((f) => ({ ...f, after: 21 })) })) }),
      `role:${ORG}/Engineers (edited), role:${ORG}/Support (edited)`],
    ['another organization', () => ({ changes: changes().map((c) => ({ ...c, organization: '0190d1c4-0000-0000-0000-000000000000' })) }),
      `role:${ORG}/Engineers (edited), role:${ORG}/Support (edited)`],
    ['a dropped change', () => ({ changes: changes().slice(1) }), `role:${ORG}/Engineers (left out of the file)`],
    // A step of its own runs only after the step before: marking one so would change what apply does.
    ['a change marked as a later step', () => ({ changes: changes().map((c, i) => (i === 0 ? { ...c, step: { number: 2, of: 2 } } : c)) }), `role:${ORG}/Engineers (edited)`],
    ['an update turned into a delete', () => ({ changes: changes().map((c) => (c.action === 'update' ? { ...c, action: 'delete', fields: [] } : c)) }), `role:${ORG}/Support (edited)`],
    ['edited counts', () => ({ summary: { ...(good.summary as object), delete: 3 } }), 'summary.delete'],
  ];

  it.each(tampered)('a plan whose contents were edited under its fingerprint is refused: %s', async (_name, patch, named) => {
    ws.write('tampered.json', JSON.stringify({ ...good, ...(patch() as object) }));
    sandbox.stats.byRoute = {};
    const r = await ws.cli(['apply', '--plan', 'tampered.json', '--auto-approve', '--format', 'json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: the plan tampered.json was edited: its contents do not match its fingerprint (${named}). Nothing was applied; run plan again.\n`);
    expect(r.stdout).toBe('');
    expect(Object.keys(sandbox.stats.byRoute).filter((route) => !route.startsWith('GET '))).toEqual([]);
  });

  it('changes of the wrong types are refused in one line', async () => {
    for (const [bad, index] of [[[42], 0], [[...changes(), { address: 1, action: 'delete' }], 2], [[{ ...changes()[0], action: 'drop' }], 0], [[{ ...changes()[0], fields: [{ path: 3 }] }], 0]] as const) {
      ws.write('types.json', JSON.stringify({ ...good, changes: bad }));
      const r = await ws.cli(['apply', '--plan', 'types.json', '--auto-approve']);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`error: types.json is not a usable hogsync plan: changes[${index}] is not a change (address, kind, organization, project, key, action, fields)\n`);
    }
  });

  it('the untouched plan still applies, and only what it showed', async () => {
    const r = await ws.cli(['apply', '--plan', 'plan.json', '--auto-approve', '--format', 'json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.changes.map((c: { address: string; action: string }) => `${c.action} ${c.address}`).sort()).toEqual([`create role:${ORG}/Engineers`, `update role:${ORG}/Support`]);
    const roles = await fetch(`${sandbox.baseUrl}/api/organizations/${ORG}/roles/`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
    expect(((await roles.json()) as { results: Array<{ name: string }> }).results.map((x) => x.name).sort()).toEqual(['Admins', 'Engineers', 'Support']);
  });
});
