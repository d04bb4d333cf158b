import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SeedDocument } from '../src/sandbox/seed.js';
import { api, inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';

const ORG_A = '0190d1c4-6a1e-7c3d-8e4f-00000000000a';
const ORG_B = '0190d1c4-6a1e-7c3d-8e4f-00000000000b';
const KEYS = {
  readOnly: 'phx_test_read_only_key_000000000000000000000000000',
  orgWrite: 'phx_test_org_write_key_00000000000000000000000000',
  flagsRead: 'phx_test_flags_read_key_0000000000000000000000000',
  onlyA: 'phx_test_only_org_a_key_0000000000000000000000000',
};

const seed: SeedDocument = {
  organizations: [
    { id: ORG_A, name: 'A', projects: [{ id: 100, name: 'A1' }], roles: [{ name: 'Viewers' }] },
    { id: ORG_B, name: 'B', projects: [{ id: 200, name: 'B1' }] },
  ],
  keys: [
    { key: KEYS.readOnly, scopes: ['project:read', 'organization:read', 'feature_flag:read'] },
    { key: KEYS.orgWrite, scopes: ['organization:write'] },
    { key: KEYS.flagsRead, scopes: ['feature_flag:read'] },
    { key: KEYS.onlyA, scopes: ['*'], organizations: [ORG_A] },
  ],
};

let baseUrl = '';
let primary = '';
beforeEach(async () => {
  const sb = await inProcessSandbox({ seed });
  baseUrl = sb.baseUrl;
  primary = sb.apiKey;
});
afterEach(stopAllSandboxes);

describe('sandbox authentication', () => {
  it('answers 401 not_authenticated without an Authorization header', async () => {
    const r = await api(baseUrl, null).get(`/api/organizations/${ORG_A}/roles/`);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null });
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('answers 401 for a key it does not know, and for a non-Bearer scheme', async () => {
    const unknown = await api(baseUrl, 'phx_not_a_real_key').get('/api/projects/');
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ type: 'authentication_error', code: 'authentication_failed', attr: null });
    const basic = await api(baseUrl, null).call('GET', '/api/projects/', undefined, { authorization: `Basic ${primary}` });
    expect(basic.status).toBe(401);
    expect(basic.body).toMatchObject({ code: 'not_authenticated' });
  });

  it('prints a key that has every scope in every organization', async () => {
    const c = api(baseUrl, primary);
    expect((await c.post(`/api/organizations/${ORG_A}/roles/`, { name: 'X' })).status).toBe(201);
    expect((await c.post(`/api/organizations/${ORG_B}/proxy_records/`, { domain: 'b.example.com' })).status).toBe(200);
    expect((await c.patch(`/api/organizations/${ORG_B}/projects/200/`, { name: 'renamed' })).status).toBe(200);
    expect((await c.post('/api/projects/100/feature_flags/', { key: 'k' })).status).toBe(201);
  });

  it('answers 403 naming the missing scope', async () => {
    const ro = api(baseUrl, KEYS.readOnly);
    const cases: [Promise<{ status: number; body: unknown }>, string][] = [
      [ro.post(`/api/organizations/${ORG_A}/roles/`, { name: 'New' }), 'organization:write'],
      [ro.post(`/api/organizations/${ORG_A}/proxy_records/`, { domain: 'x.example.com' }), 'organization:write'],
      [ro.patch(`/api/organizations/${ORG_A}/projects/100/`, { name: 'n' }), 'project:write'],
      [ro.delete(`/api/organizations/${ORG_A}/projects/100/`), 'project:write'],
      [ro.patch(`/api/organizations/${ORG_A}/projects/100/reset_token/`, {}), 'project:write'],
      [ro.post('/api/projects/100/feature_flags/', { key: 'k' }), 'feature_flag:write'],
      [ro.post('/api/projects/100/feature_flags/user_blast_radius/', { condition: { properties: [] } }), 'feature_flag:write'],
      [api(baseUrl, KEYS.flagsRead).get(`/api/organizations/${ORG_A}/projects/100/`), 'project:read'],
      [api(baseUrl, KEYS.flagsRead).get(`/api/organizations/${ORG_A}/roles/`), 'organization:read'],
      [api(baseUrl, KEYS.orgWrite).get('/api/projects/100/feature_flags/local_evaluation/'), 'feature_flag:read'],
    ];
    for (const [pending, scope] of cases) {
      const r = await pending;
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: `API key missing required scope '${scope}'`, attr: null });
    }
  });

  it('lets read scopes read, and a write scope imply its read scope', async () => {
    const ro = api(baseUrl, KEYS.readOnly);
    expect((await ro.get(`/api/organizations/${ORG_A}/roles/`)).status).toBe(200);
    expect((await ro.get(`/api/organizations/${ORG_A}/projects/100/access_controls/`)).status).toBe(200);
    expect((await ro.get('/api/projects/100/feature_flags/')).status).toBe(200);
    const ow = api(baseUrl, KEYS.orgWrite);
    const roles = await ow.get(`/api/organizations/${ORG_A}/roles/`);
    expect(roles.status).toBe(200);
    expect((roles.body as { count: number }).count).toBe(1);
  });

  it('limits a key to its organizations: 403 elsewhere, and /api/projects/ lists only what it can see', async () => {
    const a = api(baseUrl, KEYS.onlyA);
    expect((await a.get(`/api/organizations/${ORG_A}/roles/`)).status).toBe(200);
    for (const r of [
      await a.get(`/api/organizations/${ORG_B}/roles/`),
      await a.get(`/api/organizations/${ORG_B}/projects/200/`),
      await a.post(`/api/organizations/${ORG_B}/proxy_records/`, { domain: 'b.example.com' }),
      await a.get('/api/projects/200/feature_flags/'),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ type: 'authentication_error', code: 'permission_denied', attr: null });
    }
    const visible = await a.get('/api/projects/');
    expect((visible.body as { results: { id: number; organization: string }[] }).results.map((p) => [p.id, p.organization])).toEqual([[100, ORG_A]]);
    const all = await api(baseUrl, primary).get('/api/projects/');
    expect((all.body as { count: number }).count).toBe(2);
  });

  it('checks the key before it reads the body: a malformed body from a caller without a key is a 401', async () => {
    const r = await api(baseUrl, null).call('POST', `/api/organizations/${ORG_A}/roles/`, '{not json');
    expect(r.status).toBe(401);
    const scoped = await api(baseUrl, KEYS.readOnly).call('POST', `/api/organizations/${ORG_A}/roles/`, '{not json');
    expect(scoped.status).toBe(403);
  });

  it('checks the route before the key: an unknown path is 404 even without a key', async () => {
    const r = await api(baseUrl, null).get('/api/nothing/here/');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
  });

  it('serves the sandbox-only stats endpoint without a key', async () => {
    await api(baseUrl, null).get('/api/projects/');
    const r = await api(baseUrl, null).get('/_sandbox/stats');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ requests: 1, byRoute: { 'GET /api/projects/': 1 }, throttled: 0, faults: 0 });
  });
});
