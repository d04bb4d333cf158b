// The contract with the real API: every request hogsync sends, and every response the sandbox
// returns, validated against reference/posthog-openapi-subset.yaml. Traffic is recorded by a
// loopback proxy between the real CLI and the sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inProcessSandbox, stopAllSandboxes, api } from './support/sandbox.js';
import { validateRequest, validateResponse } from './support/openapi.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';
import { TOLERATED } from './support/openapi-tolerated.js';
import type { SandboxHandle } from '../src/sandbox/server.js';

interface Exchange { method: string; path: string; requestBody: unknown; status: number; responseBody: unknown; fromCli: boolean }

function untolerated(exchange: Exchange, problems: string[]): string[] {
  const where = `${exchange.method} ${exchange.path.split('?')[0]}`;
  return problems.filter((p) => !TOLERATED.some((t) => t.where.test(where) && t.problem.test(p))).map((p) => `${where} (${exchange.status}): ${p}`);
}

let sandbox: SandboxHandle;
let proxy: Server;
let proxyUrl = '';
let fromCli = true;
const exchanges: Exchange[] = [];
let ws: Workspace;

const parse = (text: string): unknown => { try { return text ? JSON.parse(text) : undefined; } catch { return text; } };

beforeAll(async () => {
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{
        id: ORG,
        projects: [
          {
            id: 12345, name: 'Web app',
            feature_flags: [{ key: 'old-flag', active: true }, { key: 'kept', active: true, filters: { groups: [{ properties: [], rollout_percentage: 10 }] } }],
            persons: Array.from({ length: 30 }, (_, i) => ({ distinct_id: `u${i}`, properties: { plan: i % 3 === 0 ? 'pro' : 'free' } })),
          },
          { id: 12346, name: 'Mobile app' },
        ],
        proxy_records: [{ domain: 'old.example.com' }],
        roles: [{ name: 'Support', feature_flags_access_level: 21 }, { name: 'Old', feature_flags_access_level: 21 }],
      }],
    },
  });
  const target = new URL(sandbox.baseUrl);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: req.headers.host } }, (up) => {
        const out: Buffer[] = [];
        up.on('data', (c: Buffer) => out.push(c));
        up.on('end', () => {
          const text = Buffer.concat(out).toString('utf8');
          exchanges.push({ method: req.method ?? '', path: req.url ?? '', requestBody: parse(body.toString('utf8')), status: up.statusCode ?? 0, responseBody: parse(text), fromCli });
          res.writeHead(up.statusCode ?? 502, up.headers);
          res.end(text);
        });
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  ws = workspace({ baseUrl: proxyUrl, apiKey: sandbox.apiKey });

  // Every kind × action through the real CLI, then export.
  const file = ws.write('h.yaml', config(`projects:
  - id: 12345
    timezone: Europe/Berlin
    session_recording_sample_rate: "0.5"
    week_start_day: 1
    test_account_filters: [ { key: email, value: "@example.com", operator: not_icontains, type: person } ]
    feature_flags:
      - key: new-flag
        name: New
        active: true
        tags: [web]
        filters: { groups: [ { properties: [ { key: plan, type: person, operator: exact, value: [pro] } ], rollout_percentage: 50 } ] }
      - key: kept
        filters: { groups: [ { properties: [], rollout_percentage: 60 } ] }
      - key: old-flag
        ensure: absent
proxy_records:
  - domain: new.example.com
  - domain: old.example.com
    ensure: absent
roles:
  - name: Engineers
    feature_flags_access_level: 37
  - name: Support
    feature_flags_access_level: 37
  - name: Old
    ensure: absent
`));
  for (const args of [['plan', file, '--attribute'], ['apply', file, '--auto-approve'], ['drift', file], ['drift', file, '--since', '1h'], ['export', '--organization', ORG]]) {
    const r = await ws.cli(args);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  }

  // Every other endpoint of the reference, for the sandbox's side of the contract.
  fromCli = false;
  const http = api(proxyUrl, sandbox.apiKey);
  const proj = `/api/organizations/${ORG}/projects/12346`;
  for (const action of ['access_controls', 'activity', 'global_access_controls', 'is_generating_demo_data']) await http.get(`${proj}/${action}/`);
  for (const action of ['add_product_intent', 'complete_product_onboarding', 'reset_token']) await http.patch(`${proj}/${action}/`, {});
  await http.get(`/api/organizations/${ORG}/projects/`);
  await http.get('/api/projects/');
  // The organization-wide log in both of its pagination styles.
  const logs = `/api/organizations/${ORG}/advanced_activity_logs/`;
  const cursorPage = (await http.get(`${logs}?page_size=2&scopes=FeatureFlag&scopes=Role`)).body as { next: string };
  await http.get(new URL(cursorPage.next).pathname + new URL(cursorPage.next).search);
  await http.get(`${logs}?page=1&page_size=2&team_ids=12345`);
  const records = ((await http.get(`/api/organizations/${ORG}/proxy_records/?limit=1`)).body as { results: Array<{ id: string }> }).results;
  await http.get(`/api/organizations/${ORG}/proxy_records/${records[0]?.id}/`);
  const roles = ((await http.get(`/api/organizations/${ORG}/roles/?limit=1&offset=1`)).body as { results: Array<{ id: string }> }).results;
  await http.get(`/api/organizations/${ORG}/roles/${roles[0]?.id}/`);
  const flags = ((await http.get('/api/projects/12345/feature_flags/')).body as { results: Array<{ id: number }> }).results;
  await http.get(`/api/projects/12345/feature_flags/${flags[0]?.id}/`);
  await http.delete(`/api/projects/12345/feature_flags/${flags[0]?.id}/`);
  for (const endpoint of ['evaluation_reasons/?distinct_id=u1', 'local_evaluation/', 'my_flags/']) await http.get(`/api/projects/12345/feature_flags/${endpoint}`);
  await http.patch(`/api/organizations/${ORG}/projects/12346/`, { name: '' });
  await http.delete(`${proj}/`);
});

afterAll(async () => {
  ws.remove();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await stopAllSandboxes();
});

describe('OpenAPI contract', () => {
  it('the CLI exercised every kind of request', () => {
    const seen = new Set(exchanges.filter((e) => e.fromCli).map((e) => `${e.method} ${e.path.split('?')[0]?.replace(ORG, 'ORG').replace(/\/[0-9a-f-]{36}\//, '/ID/').replace(/\/\d+\//g, '/N/')}`));
    for (const call of [
      'GET /api/organizations/ORG/projects/N/', 'PATCH /api/organizations/ORG/projects/N/',
      'GET /api/organizations/ORG/proxy_records/', 'POST /api/organizations/ORG/proxy_records/', 'DELETE /api/organizations/ORG/proxy_records/ID/',
      'GET /api/organizations/ORG/roles/', 'POST /api/organizations/ORG/roles/', 'PATCH /api/organizations/ORG/roles/ID/', 'DELETE /api/organizations/ORG/roles/ID/',
      'GET /api/projects/N/feature_flags/', 'POST /api/projects/N/feature_flags/', 'PATCH /api/projects/N/feature_flags/N/', 'POST /api/projects/N/feature_flags/user_blast_radius/',
      'GET /api/projects/N/activity_log/', 'GET /api/organizations/ORG/advanced_activity_logs/',
    ]) expect(seen, call).toContain(call);
  });

  it('every request body hogsync sent validates', () => {
    const problems = exchanges.filter((e) => e.fromCli).flatMap((e) => untolerated(e, validateRequest(e.method, e.path, e.requestBody)));
    expect(problems).toEqual([]);
  });

  it('every response of the sandbox validates, including errors of documented statuses', () => {
    const checked = exchanges.filter((e) => !e.path.startsWith('/_sandbox'));
    expect(checked.length).toBeGreaterThan(40);
    const problems = checked.flatMap((e) => untolerated(e, validateResponse(e.method, e.path, e.status, e.responseBody)));
    expect(problems).toEqual([]);
  });

  it('every error answer has the API error shape', () => {
    const errors = exchanges.filter((e) => e.status >= 400);
    // 403: the project's activity action refuses personal keys, as the real one does.
    expect(errors.map((e) => e.status).sort()).toEqual([400, 403, 405]);
    for (const e of errors) expect(Object.keys(e.responseBody as object).sort()).toEqual(['attr', 'code', 'detail', 'type']);
  });
});
