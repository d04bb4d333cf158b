// The sandbox's activity logs: every write logged in the real API's shape as the key's owner
// (projects under Team and Project, flags under FeatureFlag, roles under Role in every project
// of the organization), read through GET /api/projects/:id/activity_log/ with its filters and
// page-number pagination, behind activity_log:read; edits "from the web UI" by another user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { stateFromSeed, type SeedDocument } from '../src/sandbox/seed.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { loadSandboxModels } from '../src/sandbox/models.js';

// stateFromSeed reads the kinds' sandbox models, which the sandbox loads at start.
beforeAll(loadSandboxModels);

const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
const OTHER_ORG = '0190d1c4-6a1e-7c3d-8e4f-aaaaaaaaaaaa';
const ALICE_KEY = 'phx_alice_key_00000000000000000000000000000';
const BOB_KEY = 'phx_bob_key_0000000000000000000000000000000';
const NO_LOG_KEY = 'phx_no_activity_log_scope_000000000000000';
const P = `/api/organizations/${ORG}/projects`;

interface Entry {
  user: { first_name: string; email: string } | null;
  activity: string;
  scope: string;
  item_id: string;
  is_system: boolean;
  created_at: string;
  organization_id: string;
  detail: { name: string; changes: Array<{ type: string; action: string; field: string; before: unknown; after: unknown }> | null };
}
interface Page { results: Entry[]; next: string | null; previous: string | null; total_count: number }

const seed: SeedDocument = {
  organizations: [
    {
      id: ORG,
      projects: [{ id: 12345, name: 'Web app' }, { id: 12346, name: 'Mobile app' }],
      roles: [{ name: 'Support' }],
    },
    { id: OTHER_ORG, projects: [{ id: 22222, name: 'Elsewhere' }] },
  ],
  keys: [{ key: NO_LOG_KEY, scopes: ['project:write', 'feature_flag:write', 'organization:write'] }],
  users: [
    { first_name: 'Alice', email: 'alice@example.com', keys: [{ key: ALICE_KEY, scopes: ['*'] }] },
    { first_name: 'Bob', last_name: 'Jones', email: 'bob@example.com', keys: [{ key: BOB_KEY, scopes: ['*'] }] },
  ],
};

let sandbox: SandboxHandle;
let admin: Api;
let alice: Api;
let bob: Api;

async function log(project: number, query = ''): Promise<Page> {
  const r = await admin.get(`/api/projects/${project}/activity_log/${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as Page;
}

async function webEdit(body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${sandbox.baseUrl}/_sandbox/web-edit/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() as unknown };
}

beforeAll(async () => {
  sandbox = await inProcessSandbox({ seed });
  admin = api(sandbox.baseUrl, sandbox.apiKey);
  alice = api(sandbox.baseUrl, ALICE_KEY);
  bob = api(sandbox.baseUrl, BOB_KEY);
});
afterAll(stopAllSandboxes);

describe('sandbox activity log', () => {
  it('logs a project PATCH as the key\'s owner: settings under Team, its name under Project', async () => {
    expect((await alice.patch(`${P}/12345/`, { timezone: 'Europe/Berlin', name: 'Web' })).status).toBe(200);
    const page = await log(12345, '?item_id=12345');
    const team = page.results.find((e) => e.scope === 'Team');
    const own = page.results.find((e) => e.scope === 'Project');
    expect(team).toMatchObject({
      user: { first_name: 'Alice', email: 'alice@example.com' }, activity: 'updated', item_id: '12345', is_system: false, organization_id: ORG,
      detail: { name: 'Web', changes: [{ type: 'Team', action: 'changed', field: 'timezone', before: 'UTC', after: 'Europe/Berlin' }] },
    });
    expect(own?.detail.changes).toEqual([{ type: 'Project', action: 'changed', field: 'name', before: 'Web app', after: 'Web' }]);
    // Bookkeeping the API computes (updated_at) is never logged as a change.
    expect(page.results.flatMap((e) => e.detail.changes ?? []).map((c) => c.field).sort()).toEqual(['name', 'timezone']);
  });

  it('logs flags under FeatureFlag: created, updated per field, deleted (PATCH deleted: true)', async () => {
    const flags = '/api/projects/12345/feature_flags/';
    const created = (await bob.post(flags, { key: 'checkout', active: true, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } })).body as { id: number };
    expect((await bob.patch(`${flags}${created.id}/`, { filters: { groups: [{ properties: [], rollout_percentage: 20 }] } })).status).toBe(200);
    expect((await alice.patch(`${flags}${created.id}/`, { deleted: true })).status).toBe(200);
    const page = await log(12345, `?scope=FeatureFlag&item_id=${created.id}`);
    expect(page.results.map((e) => [e.activity, e.user?.email])).toEqual([
      ['deleted', 'alice@example.com'], ['updated', 'bob@example.com'], ['created', 'bob@example.com'],
    ]);
    expect(page.results[2]?.detail).toMatchObject({ name: 'checkout', changes: null });
    const update = page.results[1]?.detail.changes ?? [];
    expect(update.map((c) => c.field)).toEqual(['filters']);
    expect(update[0]).toMatchObject({ type: 'FeatureFlag', action: 'changed', before: { groups: [{ rollout_percentage: 50 }] }, after: { groups: [{ rollout_percentage: 20 }] } });
    expect(page.results[0]?.detail.changes).toEqual([expect.objectContaining({ field: 'deleted', before: false, after: true })]);
  });

  it('keeps encrypted payloads out of the log', async () => {
    const flags = '/api/projects/12345/feature_flags/';
    const secret = 'sk_live_do_not_log_me';
    const created = (await admin.post(flags, { key: 'secret-config', has_encrypted_payloads: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: JSON.stringify(secret) } } })).body as { id: number };
    expect((await admin.patch(`${flags}${created.id}/`, { filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: JSON.stringify(`${secret}-2`) } } })).status).toBe(200);
    const text = JSON.stringify(await log(12345, `?item_id=${created.id}`));
    expect(text).toContain('"payloads":{"true":"********"}');
    expect(text).not.toContain(secret);
  });

  it('logs roles under Role, shown in every project of the organization and no other', async () => {
    const roles = `/api/organizations/${ORG}/roles/`;
    const role = (await alice.post(roles, { name: 'Engineers' })).body as { id: string };
    expect((await bob.patch(`${roles}${role.id}/`, { feature_flags_access_level: 37 })).status).toBe(200);
    expect((await bob.delete(`${roles}${role.id}/`)).status).toBe(204);
    for (const project of [12345, 12346]) {
      const page = await log(project, `?scope=Role&item_id=${role.id}`);
      expect(page.results.map((e) => `${e.activity} by ${e.user?.email}`)).toEqual(['deleted by bob@example.com', 'updated by bob@example.com', 'created by alice@example.com']);
      expect(page.results[1]?.detail).toEqual(expect.objectContaining({
        name: 'Engineers', changes: [{ type: 'Role', action: 'changed', field: 'feature_flags_access_level', before: 21, after: 37 }],
      }));
    }
    expect((await log(22222, '?scope=Role')).results).toEqual([]);
  });

  it('logs nothing for a refused write', async () => {
    const before = (await log(12346)).total_count;
    expect((await alice.patch(`${P}/12346/`, { timezone: 'Mars/Olympus' })).status).toBe(400);
    expect((await alice.patch(`${P}/12346/`, {})).status).toBe(200);
    expect((await log(12346)).total_count).toBe(before);
  });

  it('filters by scope, scopes and item_id; pages newest first with absolute links and total_count', async () => {
    for (let i = 0; i < 5; i++) expect((await alice.patch(`${P}/12346/`, { week_start_day: (i + 1) % 2 })).status).toBe(200);
    const all = await log(12346, '?scopes=Team,Project');
    expect(all.results.every((e) => e.scope === 'Team' || e.scope === 'Project')).toBe(true);
    expect(all.results.map((e) => e.detail.changes?.[0]?.after).slice(0, 5)).toEqual([1, 0, 1, 0, 1]);
    const dates = all.results.map((e) => e.created_at);
    expect([...dates].sort().reverse()).toEqual(dates);

    const first = await log(12346, '?scope=Team&page=1&page_size=2');
    expect(first.total_count).toBe(5);
    expect(first.results.length).toBe(2);
    expect(first.previous).toBeNull();
    expect(first.next).toBe(`${sandbox.baseUrl}/api/projects/12346/activity_log/?scope=Team&page=2&page_size=2`);
    const second = (await admin.get(first.next as string)).body as Page;
    expect(second.previous).toBe(`${sandbox.baseUrl}/api/projects/12346/activity_log/?scope=Team&page_size=2`);
    const last = (await admin.get(second.next as string)).body as Page;
    expect(last.results.length).toBe(1);
    expect(last.next).toBeNull();
    expect(last.previous).toBe(`${sandbox.baseUrl}/api/projects/12346/activity_log/?scope=Team&page=2&page_size=2`);
    expect((await log(12346, '?scope=Team&scopes=Project')).results).toEqual([]);

    const past = await admin.get('/api/projects/12346/activity_log/?page=9');
    expect(past.status).toBe(404);
    expect(past.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Invalid page.', attr: null });
    expect((await log(12346, '?page_size=5000')).results.length).toBe((await log(12346)).total_count);
  });

  it('needs activity_log:read; the project\'s own activity action takes no personal key', async () => {
    const r = await api(sandbox.baseUrl, NO_LOG_KEY).get('/api/projects/12345/activity_log/');
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'activity_log:read'", attr: null });
    const action = await alice.get(`${P}/12345/activity/`);
    expect(action.status).toBe(403);
    expect((action.body as { detail: string }).detail).toBe('This action does not support Personal API Key access');
    expect((await api(sandbox.baseUrl, null).get('/api/projects/12345/activity_log/')).status).toBe(401);
  });

  it('records an edit "from the web UI" by a named user, dated when asked, uncounted', async () => {
    const requests = sandbox.stats.requests;
    const edit = await webEdit({ user: 'Bob@Example.com', method: 'PATCH', path: `${P}/12345/`, body: { anonymize_ips: true }, at: '2026-11-21T14:03:00Z' });
    expect(edit).toMatchObject({ status: 200, body: { id: 12345, anonymize_ips: true } });
    expect(sandbox.stats.requests).toBe(requests);
    const entry = (await log(12345, '?scope=Team')).results.find((e) => e.detail.changes?.[0]?.field === 'anonymize_ips');
    expect(entry).toMatchObject({ user: { first_name: 'Bob', email: 'bob@example.com' }, created_at: '2026-11-21T14:03:00.000Z', activity: 'updated' });

    expect(await webEdit({ user: 'nobody@example.com', method: 'PATCH', path: `${P}/12345/`, body: {} })).toMatchObject({
      status: 400, body: { type: 'validation_error', attr: 'user', detail: 'No sandbox user has the email nobody@example.com.' },
    });
    expect((await webEdit({ user: 'bob@example.com', method: 'GET', path: `${P}/12345/` })).status).toBe(400);
    expect(await webEdit({ user: 'bob@example.com', method: 'PATCH', path: `${P}/12345/`, body: { week_start_day: 7 } })).toMatchObject({ status: 400, body: { attr: 'week_start_day' } });
  });
});

describe('sandbox users in the seed', () => {
  it('refuses a user without an email, a duplicate email, and unknown keys, naming the seed path', () => {
    const bad = (users: unknown): string => {
      try {
        stateFromSeed({ users }, 'seed.yaml');
        return 'accepted';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(bad([{ first_name: 'A' }])).toBe('seed seed.yaml: users[0].email: must be an email address');
    expect(bad([{ first_name: 'A', email: 'a@x.io' }, { first_name: 'B', email: 'A@X.io' }])).toBe('seed seed.yaml: users[1].email: duplicate user A@X.io');
    expect(bad([{ first_name: 'A', email: 'a@x.io', role: 'admin' }])).toBe('seed seed.yaml: users[0].role: unknown key (expected first_name, last_name, email, level, keys)');
    expect(bad([{ first_name: 'A', email: 'a@x.io', keys: [{ key: 'phx_short_but_ok', scopes: ['activity_log:read'] }] }])).toBe('accepted');
  });

  it('loads a state file written before activity logs existed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hogsync-activity-'));
    try {
      const state = stateFromSeed({ organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web app' }] }] }, 'seed');
      const old = JSON.parse(JSON.stringify(state)) as Record<string, unknown> & { keys: Array<Record<string, unknown>> };
      delete old.users;
      delete old.activity_log;
      for (const k of old.keys) delete k.user;
      const file = join(dir, 'state.json');
      writeFileSync(file, JSON.stringify(old));
      const s = await inProcessSandbox({ statePath: file });
      const c = api(s.baseUrl, s.apiKey);
      expect((await c.patch(`${P}/12345/`, { timezone: 'Asia/Tokyo' })).status).toBe(200);
      const page = (await c.get('/api/projects/12345/activity_log/')).body as Page;
      expect(page.results[0]).toMatchObject({ user: { email: 'sandbox@hogsync.dev' }, scope: 'Team' });
      expect(JSON.parse(readFileSync(file, 'utf8')).activity_log.length).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
