import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { api, DEFAULT_ORG, SEED_EXAMPLE, spawnSandbox, stopAllSandboxes } from './support/sandbox.js';

afterEach(stopAllSandboxes);

describe('hogsync sandbox (the command)', () => {
  it('prints exactly the two export lines on stdout, and request logs only on stderr with --verbose', async () => {
    const sb = await spawnSandbox(['--verbose']);
    expect(sb.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.apiKey).toMatch(/^phx_[A-Za-z0-9]{20,}$/);
    const c = api(sb.baseUrl, sb.apiKey);
    await c.get('/api/projects/');
    await c.get(`/api/organizations/${DEFAULT_ORG}/roles/`);
    expect(await sb.stop('SIGTERM')).toBe(0);
    expect(sb.stdout()).toBe(`HOGSYNC_BASE_URL=${sb.baseUrl}\nHOGSYNC_API_KEY=${sb.apiKey}\n`);
    const requestLines = sb.stderr().split('\n').filter((l) => /^(GET|POST|PATCH|DELETE) /.test(l));
    expect(requestLines).toHaveLength(2);
    expect(requestLines[0]).toMatch(/^GET \/api\/projects\/ → 200 \d+ms$/);
    expect(sb.stderr()).not.toContain(sb.apiKey);
  });

  it('logs no request lines without --verbose', async () => {
    const sb = await spawnSandbox();
    await api(sb.baseUrl, sb.apiKey).get('/api/projects/');
    expect(await sb.stop('SIGINT')).toBe(0);
    expect(sb.stderr()).not.toMatch(/^GET /m);
    expect(sb.stderr()).toContain('stopped (SIGINT)');
  });

  it('stops cleanly with exit 0 on SIGTERM and on SIGINT', async () => {
    const a = await spawnSandbox();
    const b = await spawnSandbox();
    expect(await a.stop('SIGTERM')).toBe(0);
    expect(await b.stop('SIGINT')).toBe(0);
  });

  it('starts from a seed file: its projects, event definitions and hog functions, and its extra keys with their scopes', async () => {
    const sb = await spawnSandbox(['--seed', SEED_EXAMPLE]);
    const c = api(sb.baseUrl, sb.apiKey);
    const projects = (await c.get('/api/projects/')).body as { results: { id: number }[] };
    expect(projects.results.map((p) => p.id)).toEqual([12345, 12346, 12347]);
    const readOnly = api(sb.baseUrl, 'phx_sandbox_readonly_0000000000000000000000000000000');
    expect((await readOnly.get(`/api/organizations/${DEFAULT_ORG}/roles/`)).status).toBe(200);
    expect((await readOnly.post(`/api/organizations/${DEFAULT_ORG}/roles/`, { name: 'x' })).body).toMatchObject({
      detail: "API key missing required scope 'organization:write'",
    });
    // The kinds its format comment documents, seeded as written there: event definitions and hog functions.
    const events = (await c.get('/api/projects/12345/event_definitions/')).body as { results: Array<Record<string, unknown>> };
    expect(events.results.map((e) => [e.name, e.description, e.tags])).toEqual([['$pageview', null, []], ['signed_up', 'A user finished signing up', ['growth']]]);
    const functions = (await c.get('/api/projects/12345/hog_functions/?type=destination,transformation')).body as { results: Array<{ id: string; name: string; type: string; enabled: boolean }> };
    expect(functions.results.map((f) => [f.name, f.type, f.enabled])).toEqual([['GeoIP', 'transformation', true], ['Signups to the CRM', 'destination', true]]);
    const webhook = (await c.get(`/api/projects/12345/hog_functions/${functions.results[1]!.id}/`)).body as { inputs: unknown; template: unknown };
    expect(webhook).toMatchObject({ inputs: { url: { value: 'https://hooks.example.com/signups' } }, template: { id: 'template-webhook' } });
  });

  it('refuses a non-loopback --host, bad numbers and a busy port with exit 1 and a clear message', async () => {
    const host = await runCli(['sandbox', '--port', '0', '--host', '0.0.0.0']);
    expect(host.code).toBe(1);
    expect(host.stderr).toContain('not a loopback address');
    expect(host.stdout).toBe('');
    const rate = await runCli(['sandbox', '--port', '0', '--fault-rate', '2']);
    expect(rate.code).toBe(1);
    expect(rate.stderr).toContain('--fault-rate must be a number between 0 and 1');
    const sb = await spawnSandbox();
    const port = new URL(sb.baseUrl).port;
    const busy = await runCli(['sandbox', '--port', port]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('already in use');
  });

  it('names the place of an invalid seed item', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hogsync-seed-'));
    try {
      const seed = join(dir, 'seed.yaml');
      writeFileSync(seed, `organizations:\n  - id: ${DEFAULT_ORG}\n    roles:\n      - name: Admins\n      - name: admins\n`);
      const r = await runCli(['sandbox', '--port', '0', '--seed', seed]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('organizations[0].roles[1].name: There is already a role with this name.');
      writeFileSync(seed, `organizations:\n  - projects:\n      - id: 1\n        timezone: Nowhere/Land\n`);
      const tz = await runCli(['sandbox', '--port', '0', '--seed', seed]);
      expect(tz.stderr).toContain('organizations[0].projects[0].timezone');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
