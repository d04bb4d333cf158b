// Messages that say what to do, from the real CLI: every error body shape the API answers prints
// its reason; 401 and 403 say what to check or change (403 by the API's own reason); a host that
// does not resolve is named with where the base URL came from, at once (no retries); apply says
// "run again" only where that can help, and exits 1 when its changes could not be verified.
// Plus drift --fail-on-unmanaged, and a secret being set shown without its value.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT } from './support/cli.js';
import { inProcessSandbox, SEED_EXAMPLE, spawnSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const json = (body: unknown, status = 200): Handler => (_req, res) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
const list = (results: unknown[]) => json({ count: results.length, next: null, previous: null, results });

const PROJECT = `/api/organizations/${ORG}/projects/12345/`;
const KEY = 'phx_messages_test_key_0123456789';
const sane: Record<string, Handler> = {
  [`/api/organizations/${ORG}/projects/`]: list([{ id: 12345, organization: ORG, name: 'Web app' }]),
  [PROJECT]: json({ id: 12345, organization: ORG, name: 'Web app', timezone: 'UTC' }),
  [`/api/organizations/${ORG}/roles/`]: list([]),
  [`/api/organizations/${ORG}/proxy_records/`]: list([]),
  '/api/projects/12345/feature_flags/': list([]),
};

let server: Server;
let base = '';
let overrides: Record<string, Handler> = {};
let ws: Workspace;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] as string;
    const handler = overrides[`${req.method} ${path}`] ?? overrides[path] ?? sane[path];
    if (!handler) return json({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null }, 404)(req, res);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  overrides = {};
  ws = workspace({ baseUrl: base, apiKey: KEY });
  ws.write('h.yaml', config('projects:\n  - id: 12345\n    timezone: Europe/Berlin\n'));
});
afterEach(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const noStack = /\n\s+at /;
const errorLine = (stderr: string) => stderr.split('\n').find((l) => l.startsWith('error: ')) ?? '';
const hintLine = (stderr: string) => stderr.split('\n').find((l) => l.startsWith('hint: ')) ?? '';

describe('every error body shape prints its reason', () => {
  it.each([
    ['{type, code, detail, attr}', json({ type: 'validation_error', code: 'invalid_input', detail: 'Not a valid time zone.', attr: 'timezone' }, 400), 'GET', '→ 400: Not a valid time zone. (attr timezone)'],
    ['{detail}', json({ detail: 'You do not have permission to perform this action.' }, 400), 'GET', '→ 400: You do not have permission to perform this action.'],
    ['{error}', json({ error: 'Proxy records are not available on this plan' }, 400), 'GET', '→ 400: Proxy records are not available on this plan'],
    ['{success: false, error}', json({ success: false, error: 'Record is still being provisioned' }, 400), 'GET', '→ 400: Record is still being provisioned'],
    ['an approval body', json({ code: 'approval_required', status: 'pending', message: 'This change needs approval by a reviewer', change_request_id: 'cr_42' }, 409), 'GET', '→ 409: This change needs approval by a reviewer (change request cr_42)'],
    ['a list of "path: message" strings', json(['filters.groups.0.properties.0: operator "between" is not valid', 'filters.groups.0.rollout_percentage: must be at most 100'], 400), 'GET', '→ 400: filters.groups.0.properties.0: operator "between" is not valid; filters.groups.0.rollout_percentage: must be at most 100'],
    ['an empty body (405)', (_req: IncomingMessage, res: ServerResponse) => { res.writeHead(405); res.end(); }, 'GET', '→ 405: Method Not Allowed (empty body)'],
  ] as const)('%s', async (_name, handler, method, expected) => {
    overrides[PROJECT] = handler;
    const r = await ws.cli(['plan', 'h.yaml']);
    expect(r.code).toBe(1);
    expect(errorLine(r.stderr)).toBe(`error: ${method} ${PROJECT} ${expected}`);
  });
});

describe('401 and 403 say what to do', () => {
  it('401: check HOGSYNC_API_KEY and the region of the base URL, naming where it came from', async () => {
    overrides[PROJECT] = json({ type: 'authentication_error', code: 'authentication_failed', detail: 'Invalid personal API key.', attr: null }, 401);
    const r = await ws.cli(['plan', 'h.yaml']);
    expect(r.code).toBe(1);
    expect(errorLine(r.stderr)).toContain('→ 401: Invalid personal API key.');
    expect(hintLine(r.stderr)).toContain('check the personal API key in HOGSYNC_API_KEY');
    expect(hintLine(r.stderr)).toContain(`HOGSYNC_BASE_URL=${base}`);
    const flag = await ws.cli(['plan', 'h.yaml', '--base-url', base], { HOGSYNC_BASE_URL: undefined });
    expect(hintLine(flag.stderr)).toContain(`--base-url ${base}`);
  });

  it.each([
    ["API key missing required scope 'project:read'", 'add the scope project:read to the personal API key'],
    ['You must be an organization admin to do this.', 'proxy records and roles need organization admin, most project settings need project admin'],
    ['API key does not have access to the requested project.', 'limited to other projects or organizations'],
    ['Your organization does not allow members to use personal API keys.', 'the organization does not allow personal API keys'],
  ])('403 "%s": %s', async (reason, advice) => {
    overrides[PROJECT] = json({ type: 'authentication_error', code: 'permission_denied', detail: reason, attr: null }, 403);
    const r = await ws.cli(['plan', 'h.yaml']);
    expect(r.code).toBe(1);
    expect(errorLine(r.stderr)).toBe(`error: GET ${PROJECT} → 403: ${reason}`);
    expect(hintLine(r.stderr)).toContain(advice);
  });
});

describe('every scope the key lacks, in one line', () => {
  it('where the API does not say which scopes the key has, a 403 for one kind\'s read does not stop the others', async () => {
    const missing = (scope: string) => json({ type: 'authentication_error', code: 'permission_denied', detail: `API key missing required scope '${scope}'`, attr: null }, 403);
    overrides[`/api/organizations/${ORG}/roles/`] = missing('organization:read');
    overrides['/api/projects/12345/feature_flags/'] = missing('feature_flag:read');
    ws.write('h.yaml', config('projects:\n  - id: 12345\n    feature_flags: [ { key: a } ]\nroles: [ { name: Support } ]\n'));
    const r = await ws.cli(['plan', 'h.yaml']);
    expect(r.code).toBe(1);
    expect(errorLine(r.stderr)).toBe('error: the personal API key lacks the scopes this run reads with: feature_flag:read, organization:read');
    expect(hintLine(r.stderr)).toContain('add the scopes feature_flag:read, organization:read to the personal API key');
  });
});

describe('an API that cannot be reached', () => {
  it('names the host and where the base URL came from, without retrying a name that does not resolve', async () => {
    const started = Date.now();
    const flag = await ws.cli(['plan', 'h.yaml', '--base-url', 'https://hogsync-test.invalid']);
    expect(flag.code).toBe(1);
    expect(errorLine(flag.stderr)).toContain('host not found (ENOTFOUND) at hogsync-test.invalid:443');
    expect(errorLine(flag.stderr)).not.toMatch(/gave up|attempts/);
    // A read that never reached the API changed nothing there.
    expect(errorLine(flag.stderr)).not.toMatch(/idempotent|may or may not have been applied/);
    expect(hintLine(flag.stderr)).toBe('hint: hogsync could not reach hogsync-test.invalid (nothing reached the API); the base URL is --base-url https://hogsync-test.invalid. '
      + "Check the address (your region's https://us.posthog.com or https://eu.posthog.com, or your own instance) and that this machine can reach it (DNS, proxy, firewall), then run again.");
    expect(Date.now() - started).toBeLessThan(15_000);
    const env = await ws.cli(['plan', 'h.yaml'], { HOGSYNC_BASE_URL: 'https://hogsync-test.invalid' });
    expect(hintLine(env.stderr)).toContain('the base URL is HOGSYNC_BASE_URL=https://hogsync-test.invalid.');
  });

  it('a refused connection: the attempts made, never "may have been applied", never "raise --timeout"', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await ws.cli(['plan', 'h.yaml', '--timeout', '2'], { HOGSYNC_BASE_URL: `http://127.0.0.1:${port}` });
    expect(r.code).toBe(1);
    expect(errorLine(r.stderr)).toContain(`: connection refused (ECONNREFUSED) at 127.0.0.1:${port}: the API could not be reached (`);
    expect(errorLine(r.stderr)).toMatch(/ attempts within --timeout 2 s\)$/);
    expect(r.stderr).not.toMatch(/idempotent|may or may not|raise --timeout|slow/);
    expect(hintLine(r.stderr)).toContain(`hogsync could not reach 127.0.0.1:${port} (nothing reached the API); the base URL is HOGSYNC_BASE_URL=http://127.0.0.1:${port}.`);
  });
});

describe('apply', () => {
  it('an API gone mid-apply: every failed and skipped change names the host and port', async () => {
    // Answers the reads, then goes away at the first write: later changes meet a refused connection.
    const gone = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0] as string;
      if (req.method === 'GET' && sane[path]) return sane[path]!(req, res);
      // Other reads (the key's scopes) are answered as an older API would: not found.
      if (req.method === 'GET') return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found."}');
      res.destroy();
      gone.close();
      gone.closeAllConnections();
    });
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const port = (gone.address() as AddressInfo).port;
    ws.write('roles.yaml', config(`roles:\n${Array.from({ length: 4 }, (_, i) => `  - name: Team ${i}\n`).join('')}`));
    const r = await ws.cli(['apply', 'roles.yaml', '--auto-approve', '--timeout', '2', '--parallelism', '1', '--format', 'json'], { HOGSYNC_BASE_URL: `http://127.0.0.1:${port}` });
    expect(r.code).toBe(1);
    const errors = (JSON.parse(r.stdout) as { changes: Array<{ status: string; error?: string }> }).changes.filter((c) => c.status !== 'applied').map((c) => c.error ?? '');
    expect(errors.length).toBe(4);
    expect(errors.some((e) => e.includes('not started'))).toBe(true);
    for (const e of errors) expect(e).toContain(`127.0.0.1:${port}`);
  });

  it('a change the key lacks the scope for: the scope named before anything is sent, and no "run apply again"', async () => {
    const sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web app' }] }], keys: [{ key: KEY, scopes: ['organization:read', 'project:read', 'feature_flag:read'] }] } });
    const local = workspace({ baseUrl: sandbox.baseUrl, apiKey: KEY });
    try {
      local.write('h.yaml', config('roles:\n  - name: Engineers\n'));
      const r = await local.cli(['apply', 'h.yaml', '--auto-approve']);
      expect(r.code).toBe(1);
      // The API says which scopes the key has: the write it lacks is refused before the first request that needs it.
      expect(errorLine(r.stderr)).toBe('error: the personal API key lacks the scope the planned changes need: organization:write');
      expect(hintLine(r.stderr)).toContain('add the scope organization:write to the personal API key');
      expect(r.stdout + r.stderr).not.toContain('Run apply again');
      const roles = await fetch(`${sandbox.baseUrl}/api/organizations/${ORG}/roles/`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
      expect(((await roles.json()) as { results: unknown[] }).results).toHaveLength(0);
    } finally {
      local.remove();
    }
  });

  it('changes that could not be re-read are unverified: exit 1, and it says so', async () => {
    let patched = false;
    overrides[`PATCH ${PROJECT}`] = (req, res) => { patched = true; json({ id: 12345, organization: ORG, name: 'Web app', timezone: 'Europe/Berlin' })(req, res); };
    overrides[PROJECT] = (req, res) => (patched
      ? json({ type: 'server_error', code: 'error', detail: 'Bad request while reading.', attr: null }, 400)(req, res)
      : sane[PROJECT]!(req, res));
    const r = await ws.cli(['apply', 'h.yaml', '--auto-approve']);
    expect(patched).toBe(true);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Apply unverified: 1 applied, 0 failed, 0 skipped.');
    expect(r.stdout).toContain('The applied changes are unverified: could not re-read the changes to verify them');
    patched = false;
    const report = await ws.cli(['apply', 'h.yaml', '--auto-approve', '--format', 'json']);
    expect(report.code).toBe(1);
    expect(JSON.parse(report.stdout)).toMatchObject({ kind: 'apply', summary: { applied: 1 }, unverified: expect.stringContaining('could not re-read') });
  });
});

describe('review', () => {
  it('drift --fail-on-unmanaged exits 2 for live items no file declares, and every format counts them as findings', async () => {
    const sandbox = await inProcessSandbox();
    const local = workspace(sandbox);
    try {
      local.write('h.yaml', config('projects:\n  - id: 12345\n'));
      const plain = await local.cli(['drift', 'h.yaml']);
      expect(plain.code).toBe(0);
      expect(plain.stdout).toContain(`project:${ORG}/12346`);
      const strict = await local.cli(['drift', 'h.yaml', '--fail-on-unmanaged']);
      expect(strict.code).toBe(2);
      // What fails the run is a finding in every format: never "No drift" beside exit 2.
      expect(strict.stdout).not.toContain('No drift');
      expect(strict.stdout).toContain(`Unmanaged (live, in no file: drift with --fail-on-unmanaged):\n  ? project:${ORG}/12346\n`);
      expect(strict.stdout).toContain('Drift: 0 missing, 0 changed, 0 to delete, 1 unmanaged (live, in no file; --fail-on-unmanaged).\n');
      const junit = await local.cli(['drift', 'h.yaml', '--fail-on-unmanaged', '--format', 'junit']);
      expect(junit.code).toBe(2);
      expect(junit.stdout).toContain('<testsuites name="hogsync drift" tests="2" failures="1">');
      expect(junit.stdout).toContain(`<failure message="project:${ORG}/12346 is live but no file declares it (unmanaged; --fail-on-unmanaged)" type="unmanaged"/>`);
      const markdown = await local.cli(['drift', 'h.yaml', '--fail-on-unmanaged', '--format', 'markdown']);
      expect(markdown.stdout).toContain('Drift: 0 missing, 0 changed, 0 to delete, 1 unmanaged');
      expect(markdown.stdout).toContain('<summary>1 unmanaged item (live, in no file: drift with --fail-on-unmanaged)</summary>');
      const json = await local.cli(['drift', 'h.yaml', '--fail-on-unmanaged', '--format', 'json']);
      expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'drift', fail_on_unmanaged: true, findings: 1, summary: { unmanaged: 1 } });
      // Without the option, unmanaged items are left alone and the JUnit report counts none.
      const lenient = await local.cli(['drift', 'h.yaml', '--format', 'junit']);
      expect(lenient.code).toBe(0);
      expect(lenient.stdout).toContain('failures="0"');
    } finally {
      local.remove();
    }
  });

  it('a secret being set shows as null → (sensitive), never its value', async () => {
    const sandbox = await inProcessSandbox();
    const local = workspace(sandbox);
    try {
      local.write('h.yaml', config('projects:\n  - id: 12345\n    product_description: ${env:DESCRIPTION}\n'));
      const r = await local.cli(['plan', 'h.yaml', '--format', 'json'], { DESCRIPTION: 'top secret words' });
      expect(r.code, r.stderr).toBe(0);
      const plan = JSON.parse(r.stdout) as { changes: Array<{ fields: Array<{ path: string; before: unknown; after: unknown; sensitive: boolean }> }> };
      expect(plan.changes[0]?.fields).toEqual([{ path: 'product_description', before: null, after: '(sensitive)', sensitive: true }]);
      const text = await local.cli(['plan', 'h.yaml'], { DESCRIPTION: 'top secret words' });
      expect(text.stdout).toContain('product_description: null → (sensitive)');
      expect(text.stdout + r.stdout).not.toContain('top secret words');
    } finally {
      local.remove();
    }
  });
});

describe('apply shows what matters once', () => {
  it('shows the blast radius in the plan before it applies, and lists each change once in a log', async () => {
    const seeded = await spawnSandbox(['--seed', SEED_EXAMPLE]);
    const local = workspace(seeded);
    try {
      const r = await local.cli(['apply', `${ROOT}/examples/basic`, '--auto-approve']);
      expect(r.code, r.stderr).toBe(0);
      const radius = r.stdout.indexOf('blast radius: the new release conditions reach');
      expect(radius).toBeGreaterThan(0);
      expect(radius).toBeLessThan(r.stdout.indexOf('Apply complete'));
      const address = `project:${ORG}/12346`;
      const outcomeLines = (r.stdout + r.stderr).split('\n').filter((l) => l.includes(address) && /\bapplied\b/.test(l));
      expect(outcomeLines).toHaveLength(1);
    } finally {
      local.remove();
    }
  });
});

describe('a key of any length or content', () => {
  it('a clean run or a one-line error, never a stack trace and never the key', async () => {
    const sandbox = await inProcessSandbox();
    const local = workspace(sandbox);
    try {
      local.write('h.yaml', config('projects:\n  - id: 12345\n'));
      const long = `phx_${'a'.repeat(120_000)}`;
      // Offline: the key only feeds the mask of what is printed.
      const offline = await local.cli(['validate', 'h.yaml'], { HOGSYNC_API_KEY: long });
      expect(offline).toEqual({ code: 0, stdout: '1 file valid: 1 organization, 1 project\n', stderr: '' });
      const planned = await local.cli(['plan', 'h.yaml'], { HOGSYNC_API_KEY: long });
      expect(planned.code).toBe(1);
      expect(planned.stderr).toBe('error: HOGSYNC_API_KEY holds 120004 characters, but a personal API key is about 50 (phx_…): check what the variable is set to\n');
      // Characters a pattern would give a meaning to: a wrong key like any other (401), masked.
      const odd = 'phx_a+b(c)*[d]?{e}|^$\\.';
      const refused = await local.cli(['plan', 'h.yaml'], { HOGSYNC_API_KEY: odd });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^error: GET \S+ → 401: .*\nhint: check the personal API key in HOGSYNC_API_KEY/);
      expect(refused.stderr).not.toMatch(noStack);
    } finally {
      local.remove();
    }
  });
});

describe('the base URL and the organization', () => {
  it('a base URL with a path is refused before any request, saying where it was set', async () => {
    const sandbox = await inProcessSandbox();
    const local = workspace(sandbox);
    try {
      local.write('h.yaml', config('projects:\n  - id: 12345\n'));
      const flag = await local.cli(['plan', 'h.yaml', '--base-url', `${sandbox.baseUrl}/api/`]);
      expect(flag.code).toBe(1);
      expect(flag.stderr).toBe(`error: the base URL must be an origin only, such as ${sandbox.baseUrl}: remove the path /api (hogsync adds the API's /api/… paths itself); it is set by --base-url ${sandbox.baseUrl}/api\n`);
      const env = await local.cli(['drift', 'h.yaml'], { HOGSYNC_BASE_URL: `${sandbox.baseUrl}/api/` });
      expect(env.stderr).toContain(`; it is set by HOGSYNC_BASE_URL=${sandbox.baseUrl}/api\n`);
      expect(sandbox.stats.requests).toBe(0);
    } finally {
      local.remove();
    }
  });

  it('an organization the API does not know is named at the line that declares it', async () => {
    const sandbox = await inProcessSandbox();
    const local = workspace(sandbox);
    const other = '0190d1c4-6a1e-7c3d-8e4f-000000000000';
    try {
      local.write('h.yaml', `# a typo in the UUID\norganization: ${other}\nroles:\n  - name: Engineers\n`);
      for (const verb of ['plan', 'apply']) {
        const r = await local.cli([verb, 'h.yaml', '--auto-approve'].slice(0, verb === 'apply' ? 3 : 2));
        expect(r.code).toBe(1);
        expect(errorLine(r.stderr)).toMatch(new RegExp(`^error: h\\.yaml:2:15: the API does not know organization ${other} \\(GET /api/organizations/${other}/\\w+/\\?limit=1000 → 404: .*\\): check the organization's UUID`));
      }
    } finally {
      local.remove();
    }
  });
});

describe('apply after refusals that heal, and fields an API version lacks', () => {
  it('a project delete the API refuses because it is already being deleted: waiting helps, and apply says so', async () => {
    ws.write('gone.yaml', config('projects:\n  - id: 12345\n    ensure: absent\n'));
    overrides[`DELETE ${PROJECT}`] = json({ type: 'validation_error', code: 'invalid_input', detail: 'This project is already being deleted.', attr: null }, 400);
    const r = await ws.cli(['apply', 'gone.yaml', '--auto-approve', '--allow-delete', 'project/12345']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`→ 400: This project is already being deleted. (the project is already being deleted: once the API has finished, it is gone and a plan shows nothing to do)`);
    expect(r.stdout).toContain('Run apply again once the API has finished what the failures above wait for; it converges then.');
    expect(r.stdout).not.toContain('will not help');
  });

  it('a refused project delete says how to allow it once, in plan and in apply', async () => {
    ws.write('gone.yaml', config('projects:\n  - id: 12345\n    ensure: absent\n'));
    const planned = await ws.cli(['plan', 'gone.yaml']);
    expect(planned.stdout).toContain(`! apply will refuse unless run with --allow-delete project/12345: deleting project 12345 (project:${ORG}/12345) needs an explicit allow\n`);
    expect(planned.stdout.split('--allow-delete').length - 1).toBe(1);
  });

  it('creating a role on an API without feature_flags_access_level says that field is what the API lacks', async () => {
    const sandbox = await inProcessSandbox({ seed: { api_version: 2026, organizations: [{ id: ORG, projects: [{ id: 12345 }] }] } });
    const local = workspace(sandbox);
    try {
      local.write('h.yaml', config('roles:\n  - name: Engineers\n    feature_flags_access_level: 37\n'));
      const r = await local.cli(['apply', 'h.yaml', '--auto-approve']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`! role:${ORG}/Engineers: the API did not take feature_flags_access_level: its role records have no such field (this API version does not keep it), so plans will not manage it; remove it from the files`);
      expect(r.stdout).not.toContain('it holds another value');
    } finally {
      local.remove();
    }
  });
});

describe('strings written the shell\'s way', () => {
  it('are sent as written, and validate and plan warn at their line suggesting ${env:NAME}', async () => {
    ws.write('shell.yaml', config([
      'projects:',
      '  - id: 12345',
      '    name: $APP_NAME',
      '    slack_incoming_webhook: ${SLACK_WEBHOOK}',
      '    product_description: "Signups ($pageview on /welcome), a literal $${HOME}"',
      '',
    ].join('\n')));
    const suggestion = (name: string, form: string) => `${name} is written the shell's way (${form}): hogsync sends the text as written; to read the environment variable, write \${env:${name}}`;
    const validated = await ws.cli(['validate', 'shell.yaml'], { SLACK_WEBHOOK: 'https://hooks.slack.com/services/T0/B0/never-read' });
    expect(validated.code).toBe(0);
    expect(validated.stderr).toBe(`shell.yaml:4:11: warning: ${suggestion('APP_NAME', '$NAME')}\nshell.yaml:5:29: warning: ${suggestion('SLACK_WEBHOOK', '${NAME}')}\n`);
    overrides[PROJECT] = json({ id: 12345, organization: ORG, name: 'Web app', slack_incoming_webhook: null, product_description: null });
    const planned = await ws.cli(['plan', 'shell.yaml', '--format', 'json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { warnings: string[]; changes: Array<{ fields: Array<{ path: string; after: unknown }> }> };
    expect(plan.warnings.slice(0, 2)).toEqual([`shell.yaml:4:11: ${suggestion('APP_NAME', '$NAME')}`, `shell.yaml:5:29: ${suggestion('SLACK_WEBHOOK', '${NAME}')}`]);
    // As written: the text, not the environment (the webhook is a secret field: masked).
    expect(plan.changes[0]?.fields.find((f) => f.path === 'name')?.after).toBe('$APP_NAME');
    expect(plan.changes[0]?.fields.find((f) => f.path === 'slack_incoming_webhook')?.after).toBe('(sensitive)');
  });
});
