// The client against the real sandbox on loopback: every endpoint through ApiClient, auth
// failures, missing scopes, pagination across pages and validation errors as one-line errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../src/http/client.js';
import { HogsyncError } from '../src/errors.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG } from './support/workspace.js';
import type { SandboxHandle } from '../src/sandbox/server.js';

const READ_ONLY = 'phx_client_test_read_only_000000000000';
let sandbox: SandboxHandle;
let client: ApiClient;

beforeAll(async () => {
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{
        id: ORG,
        projects: [{ id: 12345, name: 'Web app', persons: [{ distinct_id: 'u1', properties: { plan: 'pro' } }] }, { id: 12346, name: 'Mobile' }],
        roles: Array.from({ length: 250 }, (_, i) => ({ name: `Role ${i}` })),
      }],
      keys: [{ key: READ_ONLY, scopes: ['project:read', 'organization:read', 'feature_flag:read'] }],
    },
  });
  client = createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, requestsPerMinute: Infinity });
});
afterAll(async () => {
  await client.close();
  await stopAllSandboxes();
});

async function failure(p: Promise<unknown>): Promise<HogsyncError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(HogsyncError);
  return err as HogsyncError;
}

describe('ApiClient against the sandbox', () => {
  const org = `/api/organizations/${ORG}`;
  const project = `${org}/projects/12345/`;

  it('reads and writes every endpoint', async () => {
    expect((await client.request('GET', project)).body).toMatchObject({ id: 12345, name: 'Web app' });
    expect((await client.request('PATCH', project, { body: { timezone: 'Europe/Berlin' } })).body).toMatchObject({ timezone: 'Europe/Berlin' });
    for (const action of ['access_controls', 'global_access_controls', 'is_generating_demo_data']) {
      expect((await client.request('GET', `${project}${action}/`)).status).toBe(200);
    }
    // The project's own activity action takes no personal key; its log is read through activity_log.
    expect((await failure(client.request('GET', `${project}activity/`))).request?.status).toBe(403);
    expect((await client.request<{ results: unknown[] }>('GET', '/api/projects/12345/activity_log/')).body.results.length).toBeGreaterThan(0);
    for (const action of ['add_product_intent', 'complete_product_onboarding', 'reset_token']) {
      expect((await client.request('PATCH', `${project}${action}/`, { body: {} })).status).toBe(200);
    }
    expect((await client.listAll(`${org}/projects/`)).map((p) => p.id)).toEqual([12345, 12346]);
    expect((await client.listAll('/api/projects/')).length).toBe(2);

    const record = (await client.request<{ id: string; target_cname: string; status: string }>('POST', `${org}/proxy_records/`, { body: { domain: 'e.example.com' } })).body;
    expect(record.status).toBe('waiting');
    expect((await client.request('GET', `${org}/proxy_records/${record.id}/`)).body).toMatchObject({ domain: 'e.example.com' });
    expect((await client.request('PATCH', `${org}/proxy_records/${record.id}/`, { body: { domain: 'f.example.com' } })).body).toMatchObject({ domain: 'f.example.com' });
    expect((await client.listAll(`${org}/proxy_records/`)).length).toBe(1);
    expect((await client.request('DELETE', `${org}/proxy_records/${record.id}/`)).status).toBe(200);

    const role = (await client.request<{ id: string }>('POST', `${org}/roles/`, { body: { name: 'Eng', feature_flags_access_level: 37 } })).body;
    expect((await client.request('GET', `${org}/roles/${role.id}/`)).body).toMatchObject({ name: 'Eng', feature_flags_access_level: 37 });
    expect((await client.request('PATCH', `${org}/roles/${role.id}/`, { body: { name: 'Engineers' } })).body).toMatchObject({ name: 'Engineers' });
    expect((await client.request('DELETE', `${org}/roles/${role.id}/`)).status).toBe(204);

    const flags = '/api/projects/12345/feature_flags/';
    const flag = (await client.request<{ id: number }>('POST', flags, { body: { key: 'f1', name: 'F', active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } } })).body;
    expect((await client.request('GET', `${flags}${flag.id}/`)).body).toMatchObject({ key: 'f1' });
    expect((await client.request('PATCH', `${flags}${flag.id}/`, { body: { active: false } })).body).toMatchObject({ active: false });
    const del = await failure(client.request('DELETE', `${flags}${flag.id}/`));
    expect(del.format()).toBe(`DELETE ${flags}${flag.id}/ → 405: Method "DELETE" not allowed.`);
    expect((await client.request('POST', `${flags}user_blast_radius/`, { body: { key: 'f1', condition: { properties: [], rollout_percentage: 100 }, group_type_index: null } })).body).toEqual({ affected: 1, total: 1 });
    for (const endpoint of ['evaluation_reasons/?distinct_id=u1', 'local_evaluation/', 'my_flags/']) expect((await client.request('GET', `${flags}${endpoint}`)).status).toBe(200);
    expect((await client.request('PATCH', `${flags}${flag.id}/`, { body: { deleted: true } })).status).toBe(200);
    expect(await client.listAll(flags)).toEqual([]);

    expect((await client.request('DELETE', `${org}/projects/12346/`)).status).toBe(204);
    expect((await failure(client.request('GET', `${org}/projects/12346/`))).request?.status).toBe(404);
  });

  it('stores text as Django REST framework does: trimmed, its length counted in characters', async () => {
    const emoji = '🚀'.repeat(200);
    expect((await client.request('PATCH', project, { body: { name: emoji, product_description: 'Checkout flow\n' } })).body)
      .toMatchObject({ name: emoji, product_description: 'Checkout flow' });
    const err = await failure(client.request('PATCH', project, { body: { name: `${emoji}x` } }));
    expect(err.format()).toBe(`PATCH ${project} → 400: Ensure this field has no more than 200 characters. (attr name)`);
  });

  it('follows pagination across pages', async () => {
    const roles = await client.listAll<{ name: string }>(`${org}/roles/`);
    expect(roles).toHaveLength(250);
    expect(new Set(roles.map((r) => r.name)).size).toBe(250);
  });

  it('turns validation errors into one line naming method, path, status, detail and attr', async () => {
    const err = await failure(client.request('PATCH', project, { body: { session_recording_minimum_duration_milliseconds: 30001 } }));
    expect(err.format()).toMatch(new RegExp(`^PATCH ${project} → 400: .+ \\(attr session_recording_minimum_duration_milliseconds\\)$`));
  });

  it('names the missing key and the missing scope', async () => {
    const anonymous = createClient({ baseUrl: sandbox.baseUrl, apiKey: 'phx_not_a_real_key_0000000000000', requestsPerMinute: Infinity });
    const denied = await failure(anonymous.request('GET', project));
    expect(denied.request?.status).toBe(401);
    expect(denied.format()).not.toContain('phx_not_a_real_key');
    await anonymous.close();
    const reader = createClient({ baseUrl: sandbox.baseUrl, apiKey: READ_ONLY, requestsPerMinute: Infinity });
    expect((await reader.request('GET', project)).status).toBe(200);
    const forbidden = await failure(reader.request('POST', `${org}/roles/`, { body: { name: 'Nope' } }));
    expect(forbidden.format()).toBe(`POST ${org}/roles/ → 403: API key missing required scope 'organization:write'`);
    await reader.close();
  });
});
