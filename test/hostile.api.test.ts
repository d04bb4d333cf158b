// Hostile and broken API answers, from a real server on loopback that misbehaves on purpose.
// Families covered:
//   - malformed bodies: not a record, not JSON, truncated, huge, null records, missing ids
//   - error bodies of every shape, and writes answered with garbage
//   - secrets echoed back: a 400 whose detail repeats a ${env:…} value sent (masked everywhere)
//   - untrusted live names: escape sequences and overrides in names (escaped in export)
//   - lists that shift between pages: a record on two pages, a count that moves, two records
//     with one identity (re-read, refused, never planned as a delete)
//   - endless lists and slow answers: a list that runs past its count, one byte per second,
//     5xx forever (bounded by the page bound and --timeout)
//   - next links: another host or scheme (path and query asked of the configured origin),
//     a path outside the list (refused, never asked)
// Each failure is one clear line on stderr, exit 1, no stack trace, and nothing written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { expectNoSecret } from './support/secrets.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const json = (body: unknown, status = 200): Handler => (_req, res) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(typeof body === 'string' ? body : JSON.stringify(body)); };
const raw = (body: string, type: string, status = 200): Handler => (_req, res) => { res.writeHead(status, { 'content-type': type }); res.end(body); };

const PROJECT = `/api/organizations/${ORG}/projects/12345/`;
const ROLES = `/api/organizations/${ORG}/roles/`;
const PROXIES = `/api/organizations/${ORG}/proxy_records/`;
const FLAGS = '/api/projects/12345/feature_flags/';

const sane: Record<string, Handler> = {
  [`/api/organizations/${ORG}/projects/`]: json({ count: 1, next: null, previous: null, results: [{ id: 12345, organization: ORG, name: 'Web app' }] }),
  [PROJECT]: json({ id: 12345, organization: ORG, name: 'Web app', timezone: 'UTC', slack_incoming_webhook: null }),
  [ROLES]: json({ count: 1, next: null, previous: null, results: [{ id: 'r1', name: 'Engineers', feature_flags_access_level: 21 }] }),
  [PROXIES]: json({ count: 0, next: null, previous: null, results: [] }),
  [FLAGS]: json({ count: 0, next: null, previous: null, results: [] }),
  [`/api/organizations/${ORG}/members/`]: json({ count: 0, next: null, previous: null, results: [] }),
  [`/api/organizations/${ORG}/invites/`]: json({ count: 0, next: null, previous: null, results: [] }),
  [`/api/organizations/${ORG}/roles/r1/role_memberships/`]: json({ count: 0, next: null, previous: null, results: [] }),
  '/api/projects/12345/access_controls/': json({ access_controls: [] }),
  '/api/projects/12345/resource_access_controls/': json({ access_controls: [] }),
};

let server: Server;
let base = '';
let overrides: Record<string, Handler> = {};
const writes: string[] = [];
/** Every request's path and query, in arrival order. */
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] as string;
    if (req.method !== 'GET') writes.push(`${req.method} ${path}`);
    asked.push(req.url ?? '');
    const handler = overrides[path] ?? sane[path];
    if (!handler) return json({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null }, 404)(req, res);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// Every kind is declared, so every list is read (a kind no file declares is never read).
const FILE = config('projects:\n  - id: 12345\n    name: Renamed\n    feature_flags:\n      - key: checkout\nroles:\n  - name: Engineers\n    feature_flags_access_level: 37\nproxy_records:\n  - domain: e.example.com\n');

const cases: Array<[string, Record<string, Handler>, RegExp]> = [
  ['a project that is a list', { [PROJECT]: json([]) }, /GET .*projects\/12345\/ → 200: the API answered with a body that is not a record/],
  ['a project that is a string', { [PROJECT]: json('"hello"') }, /not a record/],
  ['an HTML page with status 200', { [PROJECT]: raw('<html><body>Welcome</body></html>', 'text/html') }, /non-JSON body \(text\/html\)/],
  ['truncated JSON', { [PROJECT]: raw('{"id": 12345, "na', 'application/json') }, /malformed JSON/],
  ['a list whose results is not a list', { [ROLES]: json({ count: 1, next: null, results: 'nope' }) }, /roles\/\?limit=1000 → 200: .*(list|results)/],
  ['a list body that is null', { [ROLES]: json('null') }, /roles\/\?limit=1000 → 200: .*(list|results)/],
  ['a record without an id', { [ROLES]: json({ count: 1, next: null, results: [{ name: 'Engineers' }] }) }, /malformed role \(item 1\): "id" is missing/],
  ['a record whose identity is null', { [ROLES]: json({ count: 1, next: null, results: [{ id: 'r1', name: null }] }) }, /malformed role \(item 1\): "name" is missing/],
  ['a null record in a list', { [ROLES]: json({ count: 1, next: null, results: [null] }) }, /malformed role \(item 1\): not an object/],
  ['a next link that is not a string', { [ROLES]: json({ count: 2, next: 12345, results: [] }) }, /roles\/\?limit=1000 → 200: .*(list|next)/],
  ['a next link that loops', { [ROLES]: (req, res) => json({ count: 9, next: `${base}${ROLES}?limit=1&offset=0`, results: [{ id: 'r1', name: 'Engineers' }] })(req, res) }, /roles\/.*(loop|again|repeat|seen)/i],
  ['a huge body', { [PROXIES]: raw(`{"results": ["${'x'.repeat(33 * 1024 * 1024)}"]}`, 'application/json') }, /larger than 32 MiB/],
  ['a 500 with a huge HTML page', { [FLAGS]: raw(`<html>${'<p>oops</p>'.repeat(100_000)}</html>`, 'text/html', 500) }, /→ 500: .{0,400}$/],
  ['a 401 in the API body shape', { [PROJECT]: json({ type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null }, 401) }, /GET .*projects\/12345\/ → 401: Authentication credentials were not provided\./],
  ['an error body with an attr', { [ROLES]: json({ type: 'validation_error', code: 'invalid_input', detail: 'Bad limit.', attr: 'limit' }, 400) }, /roles\/\?limit=1000 → 400: Bad limit\. \(attr limit\)/],
];

describe('hostile API answers', () => {
  let ws: Workspace;
  beforeAll(() => { ws = workspace({ baseUrl: base, apiKey: 'phx_hostile_test_key_0123456789' }); });
  afterAll(() => ws.remove());

  it.each(cases)('%s: one line, exit 1, nothing written', async (_name, routes, message) => {
    overrides = routes;
    writes.length = 0;
    const file = ws.write('h.yaml', FILE);
    for (const verb of [['plan', file], ['apply', file, '--auto-approve']]) {
      const r = await ws.cli(verb, { HOGSYNC_BASE_URL: base });
      expect(r.code).toBe(1);
      // One error line; a `hint:` line under it only where doing something helps (401, 403, unreachable).
      const lines = r.stderr.trimEnd().split('\n').filter((l) => !l.startsWith('hint: '));
      expect(lines).toHaveLength(1);
      expect(r.stderr.split('\n').filter((l) => l.startsWith('hint: ')).length).toBeLessThanOrEqual(1);
      expect(lines[0]).toMatch(/^error: /);
      expect(lines[0]).toMatch(message);
      expect(r.stderr).not.toContain('phx_hostile_test_key');
      expect(r.stdout).toBe('');
    }
    expect(writes).toEqual([]);
  });

  it('an organization slug that two organizations answer is refused, naming both', async () => {
    const other = '0190d1c4-0000-7000-8000-000000000002';
    overrides = { '/api/organizations/': json({ count: 2, next: null, previous: null, results: [{ id: ORG, slug: 'acme' }, { id: other, slug: 'acme' }] }) };
    writes.length = 0;
    const file = ws.write('slug.yaml', 'organization: acme\nroles:\n  - name: Engineers\n');
    const before = asked.length;
    const r = await ws.cli(['plan', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: ${file}:1:15: organization "acme": the API lists 2 organizations with that slug (${ORG} and ${other}); slugs are unique, so hogsync will not guess: write the organization's UUID\n`);
    // Nothing of either organization is read (the key's scopes are asked first, before any read).
    expect(asked.slice(before).filter((a) => !a.startsWith('/api/organizations/?') && a !== '/api/personal_api_keys/@current/')).toEqual([]);
  });

  it('drift --since whose logs answer an HTML page and garbage is a full drift with one warning', async () => {
    overrides = {
      [`/api/organizations/${ORG}/advanced_activity_logs/`]: raw('<html><body>Sign in</body></html>', 'text/html'),
      '/api/projects/12345/activity_log/': json({ results: 'garbage', next: 7 }),
    };
    const r = await ws.cli(['drift', ws.write('h.yaml', FILE), '--since', '25h', '--format', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as { since?: string; warnings: string[]; changes: Array<{ address: string }> };
    expect(report.since).toBeUndefined();
    expect(report.changes.map((c) => c.address)).toContain(`project:${ORG}/12345`);
    expect(report.warnings, report.warnings.join('\n')).toHaveLength(1);
    expect(report.warnings[0]).toMatch(/^drift --since .*: neither the organization-wide activity log of \S+ \(200: .*non-JSON body \(text\/html\).*\) nor its projects' logs \(200, but the answer is not a page of activity entries .*\) could be read, so this report is a full drift/);
  });

  it('a create answered without an id fails naming the request, and what stands on it is skipped, saying why', async () => {
    const PROJECTS = `/api/organizations/${ORG}/projects/`;
    overrides = {
      [PROJECTS]: (req, res) => (req.method === 'POST' ? json({ name: 'Mobile', organization: ORG }, 201)(req, res) : sane[PROJECTS]!(req, res)),
      [`/api/organizations/${ORG}/`]: json({ id: ORG, slug: 'acme', available_product_features: [{ key: 'organizations_projects' }] }),
    };
    writes.length = 0;
    const file = ws.write('noid.yaml', config('projects:\n  - name: Mobile\n    feature_flags:\n      - key: checkout\n'));
    const r = await ws.cli(['apply', file, '--auto-approve', '--format', 'json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).not.toContain('undefined');
    const report = JSON.parse(r.stdout) as { changes: Array<{ address: string; status: string; error?: string }> };
    expect(report.changes.map((c) => [c.address, c.status, c.error])).toEqual([
      [`project:${ORG}/Mobile`, 'failed', `POST ${PROJECTS} → 201: the API answered the create without the project's id, so nothing can refer to it; it may exist now: plan again to see`],
      [`feature_flag:${ORG}/Mobile/checkout`, 'skipped', 'not started: its project Mobile was created without an id in the answer'],
    ]);
    expect(writes).toEqual([`POST ${PROJECTS}`]);
  });

  it('unexpected extra fields are tolerated (a positive control for the cases above)', async () => {
    overrides = { [ROLES]: json({ count: 1, next: null, previous: null, surprise: { a: 1 }, results: [{ id: 'r1', name: 'Engineers', feature_flags_access_level: 37, new_field: [1, 2] }] }) };
    const r = await ws.cli(['plan', ws.write('h.yaml', FILE), '--format', 'json'], { HOGSYNC_BASE_URL: base });
    expect(r.code).toBe(0);
    // The flag and the proxy record the file declares are created; the role was read despite the surprises.
    expect(JSON.parse(r.stdout).changes.map((c: { address: string }) => c.address)).toEqual([
      `project:${ORG}/12345`, `proxy_record:${ORG}/e.example.com`, `feature_flag:${ORG}/12345/checkout`,
    ]);
  });

  it('verification re-reads what changed and names what the API did not take', async () => {
    // The API accepts every write but keeps the old values (a setting the workspace's plan lacks).
    overrides = {
      [PROJECT]: (req, res) => (req.method === 'PATCH' ? json({ id: 12345, name: 'Renamed' })(req, res) : sane[PROJECT]!(req, res)),
      [`${ROLES}r1/`]: (_req, res) => { res.writeHead(204); res.end(); },
    };
    writes.length = 0;
    const file = ws.write('v.yaml', config('projects:\n  - id: 12345\n    name: Renamed\nroles:\n  - name: Engineers\n    ensure: absent\n'));
    const r = await ws.cli(['apply', file, '--auto-approve', '--format', 'json'], { HOGSYNC_BASE_URL: base });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.warnings).toEqual([
      `project:${ORG}/12345: the API did not take name (re-read, it holds another value; unless someone else changed it meanwhile)`,
      `role:${ORG}/Engineers: still there when re-read after the delete`,
    ]);
    expect(report.changes.find((c: { address: string }) => c.address.endsWith('/12345')).not_taken).toEqual(['name']);
    expect(writes.sort()).toEqual([`DELETE ${ROLES}r1/`, `PATCH ${PROJECT}`]);
  });

  it('a write answered with garbage is reported failed with a clear message', async () => {
    overrides = { [PROJECT]: (req, res) => (req.method === 'PATCH' ? raw('{"id": 1', 'application/json')(req, res) : sane[PROJECT]!(req, res)) };
    writes.length = 0;
    const r = await ws.cli(['apply', ws.write('h.yaml', config('projects:\n  - id: 12345\n    name: Renamed\n')), '--auto-approve'], { HOGSYNC_BASE_URL: base });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/project:.*\/12345 failed: PATCH .*projects\/12345\/ → 200: .*malformed JSON/);
    expect(writes).toEqual([`PATCH ${PROJECT}`]);
  });
});

describe('secrets the API echoes back', () => {
  let ws: Workspace;
  beforeAll(() => { ws = workspace({ baseUrl: base, apiKey: 'phx_hostile_test_key_0123456789' }); });
  afterAll(() => ws.remove());

  it('a 400 whose detail echoes a ${env:…} webhook URL is reported with the URL masked, in every output', async () => {
    const hook = 'https://hooks.slack.com/services/T000/B000/s3cr3t-w3bh00k-t0k3n';
    const token = 's3cr3t-w3bh00k-t0k3n';
    // The API echoes what it was sent, in the detail and in a field list, raw and JSON-escaped.
    overrides = {
      [PROJECT]: (req, res) => {
        if (req.method !== 'PATCH') return sane[PROJECT]!(req, res);
        let body = '';
        req.setEncoding('utf8').on('data', (d: string) => { body += d; }).on('end', () => {
          const sent = (JSON.parse(body) as { slack_incoming_webhook: string }).slack_incoming_webhook;
          json({ type: 'validation_error', code: 'invalid_input', detail: `Enter a valid URL: ${sent} (token ${sent.split('/').pop()})`, attr: 'slack_incoming_webhook' }, 400)(req, res);
        });
      },
    };
    writes.length = 0;
    const file = ws.write('s.yaml', config('projects:\n  - id: 12345\n    slack_incoming_webhook: https://hooks.slack.com/services/T000/B000/${env:SLACK_TOKEN}\n'));
    const env = { HOGSYNC_BASE_URL: base, SLACK_TOKEN: token };
    const text = await ws.cli(['apply', file, '--auto-approve', '--verbose'], env);
    const json_ = await ws.cli(['apply', file, '--auto-approve', '--format', 'json'], env);
    for (const r of [text, json_]) expect(r.code).toBe(1);
    expect(text.stdout).toContain(`project:${ORG}/12345 failed: PATCH /api/organizations/${ORG}/projects/12345/ → 400: Enter a valid URL: (sensitive) (token (sensitive)) (attr slack_incoming_webhook)`);
    const report = JSON.parse(json_.stdout);
    expect(report.changes[0].status).toBe('failed');
    expect(report.changes[0].error).toContain('Enter a valid URL: (sensitive)');
    const plan = await ws.cli(['plan', file, '--out', 'plan.json', '--format', 'json'], env);
    expect(plan.code).toBe(0);
    expectNoSecret({
      'apply: stdout': text.stdout, 'apply: stderr': text.stderr, 'apply json: stdout': json_.stdout, 'apply json: stderr': json_.stderr,
      'plan: stdout': plan.stdout, 'plan.json': readFileSync(ws.path('plan.json'), 'utf8'),
    }, [hook, token], { minFragment: 0 });
    expect(writes).toEqual([`PATCH ${PROJECT}`, `PATCH ${PROJECT}`]);
  });
});

describe('untrusted live names', () => {
  let ws: Workspace;
  beforeAll(() => { ws = workspace({ baseUrl: base, apiKey: 'phx_hostile_test_key_0123456789' }); });
  afterAll(() => ws.remove());

  it('export\'s warning about a live role shows its escape sequences and overrides escaped', async () => {
    overrides = { [ROLES]: json({ count: 1, next: null, results: [{ id: 'r9', name: 'Ops\u001b[2J\u202eevil', feature_flags_access_level: 'not-a-level' }] }) };
    const r = await ws.cli(['export', '--organization', ORG], { HOGSYNC_BASE_URL: base });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Ops\\u001b[2J\\u202eevil');
    expect(r.stderr).not.toMatch(/[\u001b\u202e]/);
  });
});

describe('a live member whose email holds escapes, NUL, BEL and bidirectional controls', () => {
  let ws: Workspace;
  beforeAll(() => { ws = workspace({ baseUrl: base, apiKey: 'phx_hostile_test_key_0123456789' }); });
  afterAll(() => ws.remove());

  it('is shown escaped in every format, and JSON keeps its value', async () => {
    const email = 'eve\u001b[2J\u0000\u0007\u007f\u009b\u202a\u202e\u2066\u2069\u200e\u200f@evil.example';
    overrides = { [`/api/organizations/${ORG}/members/`]: json({ count: 2, next: null, previous: null, results: [
      { id: 'm1', user: { uuid: 'u1', email: 'alice@example.com' }, level: 1 }, { id: 'm2', user: { uuid: 'u2', email }, level: 1 },
    ] }) };
    const file = ws.write('people.yaml', config('members:\n  - email: alice@example.com\n'));
    const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
    for (const [verb, format] of [['plan', 'json'], ['plan', 'text'], ['plan', 'markdown'], ['drift', 'junit'], ['drift', 'json']] as const) {
      const r = await ws.cli([verb, file, '--format', format, '--fail-on-unmanaged'].filter((a) => verb === 'drift' || a !== '--fail-on-unmanaged'));
      expect(r.stderr, `${verb} ${format}`).toBe('');
      expect(r.stdout, `${verb} ${format}`).not.toMatch(raw);
      expect(r.stdout, `${verb} ${format}`).toMatch(/eve\\u001b\[2J\\u0000\\u0007\\u007f\\u009b\\u202a\\u202e\\u2066\\u2069\\u200e\\u200f@evil\.example/);
      if (format === 'json') expect((JSON.parse(r.stdout) as { unmanaged: Array<{ address: string }> }).unmanaged.map((u) => u.address)).toContain(`member:${ORG}/${email}`);
    }
  });
});

describe('lists that shift between their pages', () => {
  let ws: Workspace;
  beforeAll(() => { ws = workspace({ baseUrl: base, apiKey: 'phx_hostile_test_key_0123456789' }); });
  afterAll(() => ws.remove());
  const offsetOf = (req: IncomingMessage) => Number(new URL(req.url ?? '/', 'http://x').searchParams.get('offset') ?? '0');
  const PRUNED = config('prune:\n  roles: true\nroles:\n  - name: Engineers\n    feature_flags_access_level: 37\n');

  it('a declared role listed on two pages makes the list read again: updated once, never deleted', async () => {
    // The real API's lists have no stable order: on the first read Engineers shows on both
    // pages and Support on none; the second read is whole.
    const engineers = { id: 'r1', name: 'Engineers', feature_flags_access_level: 21 };
    const support = { id: 'r2', name: 'Support', feature_flags_access_level: 37 };
    let reads = 0;
    overrides = {
      [ROLES]: (req, res) => {
        if (offsetOf(req) === 0) reads += 1;
        const page = offsetOf(req) === 0
          ? { count: 2, next: `${base}${ROLES}?limit=1&offset=1`, previous: null, results: [engineers] }
          : { count: 2, next: null, previous: null, results: [reads === 1 ? engineers : support] };
        json(page)(req, res);
      },
      [`${ROLES}r1/`]: (req, res) => {
        if (req.method === 'PATCH') engineers.feature_flags_access_level = 37;
        json(engineers)(req, res);
      },
    };
    writes.length = 0;
    const file = ws.write('p.yaml', config('prune:\n  roles: true\nroles:\n  - name: Engineers\n    feature_flags_access_level: 37\n  - name: Support\n    feature_flags_access_level: 37\n'));
    const plan = await ws.cli(['plan', file, '--format', 'json'], { HOGSYNC_BASE_URL: base });
    expect(plan.code).toBe(0);
    const doc = JSON.parse(plan.stdout);
    expect(doc.changes.map((c: { action: string; address: string }) => `${c.action} ${c.address}`)).toEqual([`update role:${ORG}/Engineers`]);
    expect(doc.unmanaged).toEqual([]);
    reads = 0;
    const apply = await ws.cli(['apply', file, '--auto-approve', '--format', 'json'], { HOGSYNC_BASE_URL: base });
    expect(apply.code).toBe(0);
    const report = JSON.parse(apply.stdout);
    expect(report.changes).toEqual([{ address: `role:${ORG}/Engineers`, action: 'update', status: 'applied' }]);
    expect(report.summary).toEqual({ applied: 1, failed: 0, skipped: 0 });
    expect(writes).toEqual([`PATCH ${ROLES}r1/`]);
  });

  it('a list that never reads whole stops the plan: nothing is planned, nothing deleted', async () => {
    let n = 0;
    overrides = {
      [ROLES]: (req, res) => {
        n += 1;
        // The count moves on every page.
        const page = offsetOf(req) === 0
          ? { count: 2 + n, next: `${base}${ROLES}?limit=1&offset=1`, previous: null, results: [{ id: 'r1', name: 'Engineers', feature_flags_access_level: 21 }] }
          : { count: 2 + n, next: null, previous: null, results: [{ id: `r${n}`, name: `Old ${n}`, feature_flags_access_level: 21 }] };
        json(page)(req, res);
      },
    };
    writes.length = 0;
    const file = ws.write('p.yaml', PRUNED);
    for (const verb of [['plan', file], ['apply', file, '--auto-approve']]) {
      const r = await ws.cli(verb, { HOGSYNC_BASE_URL: base });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^error: GET /api/organizations/${ORG}/roles/\\?limit=1000: the list changed while it was read, 3 times in a row \\(its count went from \\d+ to \\d+\\); nothing is planned from a list that never read whole: run again when it is quiet\n$`));
      expect(r.stdout).toBe('');
    }
    expect(writes).toEqual([]);
  });

  it('two live records with one identity are an error, not two items', async () => {
    overrides = {
      [ROLES]: json({ count: 2, next: null, previous: null, results: [{ id: 'r1', name: 'Engineers', feature_flags_access_level: 21 }, { id: 'r2', name: 'engineers', feature_flags_access_level: 21 }] }),
    };
    writes.length = 0;
    const r = await ws.cli(['apply', ws.write('p.yaml', PRUNED), '--auto-approve'], { HOGSYNC_BASE_URL: base });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: the API lists two roles as role:${ORG}/engineers (ids r1 and r2): hogsync cannot tell which one the files mean, so it plans nothing; remove or rename one of them in the web app\n`);
    expect(writes).toEqual([]);
  });
});

describe('endless lists and slow answers are bounded', () => {
  let ws: Workspace;
  beforeAll(() => { ws = workspace({ baseUrl: base, apiKey: 'phx_hostile_test_key_0123456789' }); });
  afterAll(() => ws.remove());

  it('a list whose every page holds one new record and a next link runs out after a few pages past its count', async () => {
    overrides = {
      [ROLES]: (req, res) => {
        const offset = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('offset') ?? '0');
        json({ count: 5, next: `${base}${ROLES}?offset=${offset + 1}`, previous: null, results: [{ id: `r${offset}`, name: `Role ${offset}`, feature_flags_access_level: 21 }] })(req, res);
      },
    };
    asked.length = 0;
    const started = Date.now();
    const r = await ws.cli(['plan', ws.write('h.yaml', config('roles:\n  - name: Engineers\n'))], { HOGSYNC_BASE_URL: base });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: GET /api/organizations/${ORG}/roles/?limit=1000: the list does not end: 8 pages read, more pages than its count of 5 records needs; stopped\n`);
    expect(asked.filter((u) => u.startsWith(ROLES))).toHaveLength(8);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('an API that sends one byte per second is stopped by --timeout, retries included', async () => {
    const trickle: Handler = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), 1000);
      res.on('close', () => clearInterval(timer));
      req.on('close', () => clearInterval(timer));
    };
    overrides = { [PROJECT]: trickle };
    const started = Date.now();
    const r = await ws.cli(['plan', ws.write('p.yaml', FILE), '--timeout', '3'], { HOGSYNC_BASE_URL: base });
    const took = Date.now() - started;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: GET /api/organizations/${ORG}/projects/12345/: no complete answer within --timeout 3 s \\(1 attempt; the last: no complete answer within 3000 ms at 127\\.0\\.0\\.1:\\d+\\); the API or the network is slow: raise --timeout, or try again later\n$`));
    expect(took).toBeLessThan(12_000);
  });

  it('an API that answers 503 to every attempt is given up within --timeout, backoff included', async () => {
    overrides = { [PROJECT]: json({ detail: 'Service unavailable, try later.' }, 503) };
    const started = Date.now();
    const r = await ws.cli(['plan', ws.write('p.yaml', FILE), '--timeout', '0.5'], { HOGSYNC_BASE_URL: base });
    const took = Date.now() - started;
    expect(r.code).toBe(1);
    // Without --timeout the five retries may back off for up to 15 s. (Jitter may, about once
    // in a thousand runs, fit all six attempts in 0.5 s: then they are all used, in time.)
    expect(r.stderr).toMatch(new RegExp(`^error: GET /api/organizations/${ORG}/projects/12345/ → 503: (no complete answer within --timeout 0.5 s \\(\\d attempts?; the last: Service unavailable, try later\\.\\); the API or the network is slow: raise --timeout, or try again later|Service unavailable, try later\\. \\(gave up after 6 attempts\\))\n$`));
    expect(took).toBeLessThan(8_000);
  });

  it('--timeout takes a positive number of seconds', async () => {
    for (const bad of ['0', '-1', 'soon', '1e3']) {
      const r = await ws.cli(['plan', ws.write('p.yaml', FILE), `--timeout=${bad}`], { HOGSYNC_BASE_URL: base });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`error: --timeout must be a number from 0.001 to 86400, got "${bad}"\n`);
    }
  });
});

describe('next links: path and query only, on the configured origin, on the list\'s own path', () => {
  let ws: Workspace;
  beforeAll(() => { ws = workspace({ baseUrl: base, apiKey: 'phx_hostile_test_key_0123456789' }); });
  afterAll(() => ws.remove());
  const twoPages = (next: string): Handler => (req, res) => {
    const offset = new URL(req.url ?? '/', 'http://x').searchParams.get('offset');
    json(offset === null
      ? { count: 2, next, previous: null, results: [{ id: 'r1', name: 'Engineers', feature_flags_access_level: 21 }] }
      : { count: 2, next: null, previous: null, results: [{ id: 'r2', name: 'Support', feature_flags_access_level: 21 }] })(req, res);
  };

  it('a server behind a TLS proxy that links http:// to another host name is read on the configured origin', async () => {
    overrides = { [ROLES]: twoPages(`http://posthog.internal:8000${ROLES}?limit=1&offset=1`) };
    asked.length = 0;
    const r = await ws.cli(['plan', ws.write('h.yaml', config('roles:\n  - name: Engineers\n    feature_flags_access_level: 21\n')), '--format', 'json'], { HOGSYNC_BASE_URL: base });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).unmanaged.map((u: { address: string }) => u.address)).toContain(`role:${ORG}/Support`);
    expect(asked).toContain(`${ROLES}?limit=1&offset=1`);
  });

  it('a relative link that leaves the list (../../../../etc/passwd) is refused and never asked', async () => {
    for (const next of ['../../../../etc/passwd?offset=1', `${base}/api/users/@me/?offset=1`]) {
      overrides = { [ROLES]: twoPages(next) };
      asked.length = 0;
      const r = await ws.cli(['plan', ws.write('h.yaml', config('roles:\n  - name: Engineers\n'))], { HOGSYNC_BASE_URL: base });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^error: GET /api/organizations/${ORG}/roles/\\?limit=1000: refusing to follow next link to /(etc/passwd|api/users/@me/): a list's next page is on its own path /api/organizations/${ORG}/roles/\n$`));
      expect(asked.filter((u) => u.includes('passwd') || u.includes('@me'))).toEqual([]);
    }
  });
});
