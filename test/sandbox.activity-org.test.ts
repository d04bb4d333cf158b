// The sandbox's organization-wide activity log (GET /api/organizations/:org/advanced_activity_logs/)
// as the real viewset serves it: organization admins and owners only, the audit-log feature,
// filters as repeated parameters or one JSON array, newest first by created_at, cursor pages
// (page numbers when `page` is given), every entry naming its project; and the project log's
// paywall, which leaves the scopes every plan keeps (FeatureFlag) readable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import type { SeedDocument } from '../src/sandbox/seed.js';
import type { SandboxHandle } from '../src/sandbox/server.js';

const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
const FREE_ORG = '0190d1c4-6a1e-7c3d-8e4f-bbbbbbbbbbbb';
const MEMBER_KEY = 'phx_member_of_org_log_test_000000000000000';
const ADMIN_KEY = 'phx_admin_of_org_log_test_0000000000000000';
const PROJECT_KEY = 'phx_project_limited_org_log_test_000000000';
const LOG = `/api/organizations/${ORG}/advanced_activity_logs/`;

const seed: SeedDocument = {
  organizations: [
    { id: ORG, projects: [{ id: 101, name: 'Web' }, { id: 102, name: 'Mobile' }] },
    { id: FREE_ORG, features: ['tagging'], projects: [{ id: 201, name: 'Free' }] },
  ],
  keys: [{ key: PROJECT_KEY, scopes: ['*'], projects: [101] }],
  users: [
    { first_name: 'Mia', email: 'mia@example.com', level: 'member', keys: [{ key: MEMBER_KEY, scopes: ['*'] }] },
    { first_name: 'Ada', email: 'ada@example.com', level: 'admin', keys: [{ key: ADMIN_KEY, scopes: ['*'] }] },
  ],
};

interface Entry { id: string; scope: string; item_id: string; team_id: number | null; activity: string; created_at: string; user: { email: string } | null }
interface Page { results: Entry[]; next: string | null; previous: string | null; count?: number }

let sandbox: SandboxHandle;
let owner: Api;

async function webEdit(body: unknown): Promise<void> {
  const res = await fetch(`${sandbox.baseUrl}/_sandbox/web-edit/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBeLessThan(300);
}

async function read(query: string, key: Api = owner): Promise<Page> {
  const r = await key.get(`${LOG}${query}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as Page;
}

beforeAll(async () => {
  sandbox = await inProcessSandbox({ seed });
  owner = api(sandbox.baseUrl, sandbox.apiKey);
  // Four entries: project 101's time zone (now), its flag (now), project 102's name (dated
  // earlier, made last), and project 201 of the other organization.
  await owner.patch(`/api/organizations/${ORG}/projects/101/`, { timezone: 'Europe/Berlin' });
  await owner.post('/api/projects/101/feature_flags/', { key: 'beta', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
  await webEdit({ user: 'ada@example.com', method: 'PATCH', path: `/api/organizations/${ORG}/projects/102/`, body: { name: 'Mobile app' }, at: '2026-11-01T10:00:00Z' });
  await owner.patch(`/api/organizations/${FREE_ORG}/projects/201/`, { timezone: 'Asia/Tokyo' });
});
afterAll(stopAllSandboxes);

describe('the organization-wide activity log', () => {
  it('is read by admins and owners of an organization with the audit-log feature; others are refused as the real API refuses them', async () => {
    expect((await read('', api(sandbox.baseUrl, ADMIN_KEY))).results.length).toBe(3);
    const member = await api(sandbox.baseUrl, MEMBER_KEY).get(LOG);
    expect(member).toMatchObject({ status: 403, body: { detail: 'Only organization admins and owners can view organization-wide activity logs.' } });
    const limited = await api(sandbox.baseUrl, PROJECT_KEY).get(LOG);
    expect(limited).toMatchObject({ status: 403, body: { detail: 'API keys with scoped projects are only supported on project-based endpoints.' } });
    const free = await owner.get(`/api/organizations/${FREE_ORG}/advanced_activity_logs/`);
    expect(free).toMatchObject({ status: 402, body: { code: 'payment_required', detail: expect.stringContaining('premium') } });
  });

  it('orders entries by when they were made, newest first, each naming its project', async () => {
    const page = await read('');
    expect(page.results.map((e) => [e.scope, e.team_id])).toEqual([['FeatureFlag', 101], ['Team', 101], ['Project', 102]]);
    expect(page.results[2]).toMatchObject({ created_at: '2026-11-01T10:00:00.000Z', user: { email: 'ada@example.com' } });
    expect(await read('?ordering=created_at')).toMatchObject({ results: [{ team_id: 102 }, { scope: 'Team' }, { scope: 'FeatureFlag' }] });
  });

  it('filters by date, and by lists given as repeated parameters or one JSON array (a comma-separated value is one value)', async () => {
    expect((await read('?start_date=2026-11-02T00:00:00Z')).results.map((e) => e.team_id)).toEqual([101, 101]);
    expect((await read('?end_date=2026-11-02T00:00:00Z')).results.map((e) => e.team_id)).toEqual([102]);
    expect((await read('?scopes=Team&scopes=Project')).results.map((e) => e.scope)).toEqual(['Team', 'Project']);
    expect((await read(`?scopes=${encodeURIComponent('["Team","Project"]')}`)).results.map((e) => e.scope)).toEqual(['Team', 'Project']);
    expect((await read('?scopes=Team,Project')).results).toEqual([]);
    expect((await read('?team_ids=102')).results.map((e) => e.scope)).toEqual(['Project']);
    expect((await read('?activities=created')).results.map((e) => e.scope)).toEqual(['FeatureFlag']);
    const bad = await owner.get(`${LOG}?team_ids=web`);
    expect(bad).toMatchObject({ status: 400, body: { type: 'validation_error', attr: 'team_ids' } });
    expect(await owner.get(`${LOG}?start_date=yesterday`)).toMatchObject({ status: 400, body: { attr: 'start_date' } });
    expect(await owner.get(`${LOG}?page_size=1001`)).toMatchObject({ status: 400, body: { attr: 'page_size' } });
  });

  it('pages by cursor without a count, and by page number with one when `page` is given', async () => {
    const first = await read('?page_size=2');
    expect(first.results.map((e) => e.scope)).toEqual(['FeatureFlag', 'Team']);
    expect(first).not.toHaveProperty('count');
    expect(first.previous).toBeNull();
    const next = new URL(first.next as string);
    expect(next.origin).toBe(sandbox.baseUrl);
    expect(next.searchParams.get('cursor')).toMatch(/^[\w-]+$/);
    const second = await read(next.search);
    expect(second.results.map((e) => e.scope)).toEqual(['Project']);
    expect(second.next).toBeNull();
    expect((await read(new URL(second.previous as string).search)).results.map((e) => e.scope)).toEqual(['FeatureFlag', 'Team']);
    expect(await owner.get(`${LOG}?cursor=nonsense`)).toMatchObject({ status: 404, body: { detail: 'Invalid cursor' } });
    expect(await read('?page=2&page_size=2')).toMatchObject({ count: 3, results: [{ scope: 'Project' }], next: null });
  });
});

describe("a project's activity log without the audit-log feature", () => {
  it('answers only for the scopes every plan keeps (FeatureFlag, Experiment); others are 402', async () => {
    expect((await owner.get('/api/projects/201/activity_log/')).status).toBe(402);
    expect((await owner.get('/api/projects/201/activity_log/?scopes=Team,FeatureFlag')).status).toBe(402);
    expect((await owner.get('/api/projects/201/activity_log/?scope=FeatureFlag')).status).toBe(200);
    expect((await owner.get('/api/projects/201/activity_log/?scopes=FeatureFlag,Experiment')).status).toBe(200);
    expect((await owner.get('/api/projects/101/activity_log/?scope=Team')).status).toBe(200);
  });
});
