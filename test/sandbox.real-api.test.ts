// The real API's behaviour that the sandbox models (PRODUCT.md "Real-API behaviour to tolerate"):
// both rate-limit windows, asynchronous project deletion, names the API trims and keeps unique,
// values it drops, merges or refuses, fields a newer API version no longer stores, the admin
// level of the key's user, keys limited to projects, and organizations that refuse personal keys.
import { afterEach, describe, expect, it, beforeAll } from 'vitest';
import { SeedError, stateFromSeed } from '../src/sandbox/seed.js';
import { api, DEFAULT_ORG, inProcessSandbox, spawnSandbox, stopAllSandboxes } from './support/sandbox.js';
import { loadSandboxModels } from '../src/sandbox/models.js';

// stateFromSeed reads the kinds' sandbox models, which the sandbox loads at start.
beforeAll(loadSandboxModels);

type Rec = Record<string, unknown>;
const ORG = DEFAULT_ORG;
const P = (id: number) => `/api/organizations/${ORG}/projects/${id}/`;
const ROLES = `/api/organizations/${ORG}/roles/`;

afterEach(stopAllSandboxes);

const advance = (baseUrl: string, seconds: number) => fetch(`${baseUrl}/_sandbox/advance?seconds=${seconds}`, { method: 'POST' });
const waitOf = (body: unknown): number => Number(/Expected available in (\d+) seconds\.$/.exec((body as Rec).detail as string)?.[1]);

describe('sandbox: both rate-limit windows', () => {
  it('throttles above --rate-limit-hourly per key with the real 429 (wait in the detail, up to an hour, no Retry-After), and frees the window an hour later', async () => {
    const sb = await inProcessSandbox({
      rateLimitPerMinute: 100, rateLimitPerHour: 4,
      seed: { organizations: [{ id: ORG, projects: [{ id: 1 }] }], keys: [{ key: 'phx_second_key', scopes: ['*'] }] },
    });
    const c = api(sb.baseUrl, sb.apiKey);
    for (let i = 0; i < 4; i++) expect((await c.get('/api/projects/')).status).toBe(200);
    const r = await c.get('/api/projects/');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeNull();
    expect(r.body).toMatchObject({ type: 'throttled_error', code: 'throttled', attr: null });
    expect(waitOf(r.body)).toBeGreaterThan(3500);
    expect(waitOf(r.body)).toBeLessThanOrEqual(3600);
    // A throttled write changes nothing; another key has its own windows.
    expect((await c.post(ROLES, { name: 'Throttled' })).status).toBe(429);
    expect(sb.store.snapshot().roles).toHaveLength(0);
    expect((await api(sb.baseUrl, 'phx_second_key').get('/api/projects/')).status).toBe(200);
    // Half an hour later the window is still full; an hour later it is free again.
    await advance(sb.baseUrl, 1800);
    const later = await c.get('/api/projects/');
    expect(later.status).toBe(429);
    expect(waitOf(later.body)).toBeLessThanOrEqual(1800);
    await advance(sb.baseUrl, 1801);
    expect((await c.get('/api/projects/')).status).toBe(200);
  });

  it('answers the longer of the two waits when both windows are full', async () => {
    const sb = await inProcessSandbox({ rateLimitPerMinute: 2, rateLimitPerHour: 3 });
    const c = api(sb.baseUrl, sb.apiKey);
    for (let i = 0; i < 2; i++) expect((await c.get('/api/projects/')).status).toBe(200);
    const minute = await c.get('/api/projects/');
    expect(waitOf(minute.body)).toBeLessThanOrEqual(60);
    await advance(sb.baseUrl, 61);
    expect((await c.get('/api/projects/')).status).toBe(200);
    const hour = await c.get('/api/projects/');
    expect(hour.status).toBe(429);
    expect(waitOf(hour.body)).toBeGreaterThan(3000);
  });

  it('takes --rate-limit-hourly and --deletion-delay on the command line', async () => {
    const sb = await spawnSandbox(['--rate-limit-hourly', '3', '--deletion-delay', '30']);
    const c = api(sb.baseUrl, sb.apiKey);
    // The deletion delay: a deleted project stays readable, pending deletion.
    expect((await c.delete(P(12346))).status).toBe(204);
    expect(((await c.get(P(12346))).body as Rec).is_pending_deletion).toBe(true);
    expect((await c.get('/api/projects/')).status).toBe(200);
    expect((await c.get('/api/projects/')).status).toBe(429);
    await advance(sb.baseUrl, 3601);
    expect((await c.get(P(12346))).status).toBe(404);
  }, 20_000);
});

describe('sandbox: projects as the real API keeps them', () => {
  it('trims names and keeps them unique per organization without regard to case (409); projects being deleted do not count', async () => {
    const sb = await inProcessSandbox({ deletionDelaySeconds: 60 });
    const c = api(sb.baseUrl, sb.apiKey);
    const renamed = await c.patch(P(12345), { name: '  Storefront  ' });
    expect(renamed.status).toBe(200);
    expect((renamed.body as Rec).name).toBe('Storefront');
    const clash = await c.patch(P(12346), { name: ' storefront' });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ code: 'conflict', detail: 'There is already a project called "storefront" in this organization. Choose a different name.' });
    // A case-only change of a project's own name is fine.
    expect(((await c.patch(P(12345), { name: 'STOREFRONT' })).body as Rec).name).toBe('STOREFRONT');
    expect((await c.delete(P(12345))).status).toBe(204);
    expect(((await c.patch(P(12346), { name: 'Storefront' })).body as Rec).name).toBe('Storefront');
  });

  it('deletes asynchronously: pending deletion for the delay, a second DELETE refused with 400, then gone with its flags', async () => {
    const sb = await inProcessSandbox({ deletionDelaySeconds: 60, seed: { organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web' }, { id: 12346, name: 'Old', feature_flags: [{ key: 'f' }] }] }] } });
    const c = api(sb.baseUrl, sb.apiKey);
    expect((await c.delete(P(12346))).status).toBe(204);
    const pending = await c.get(P(12346));
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ id: 12346, is_pending_deletion: true });
    expect(((await c.get(P(12345))).body as Rec).is_pending_deletion).toBe(false);
    const again = await c.delete(P(12346));
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ type: 'validation_error', detail: 'This project is already being deleted.' });
    await advance(sb.baseUrl, 61);
    expect((await c.get(P(12346))).status).toBe(404);
    expect(((await c.get(`/api/organizations/${ORG}/projects/`)).body as { results: Rec[] }).results.map((p) => p.id)).toEqual([12345]);
    // The next write leaves nothing of it in the state.
    await c.patch(P(12345), { timezone: 'UTC' });
    expect(sb.store.snapshot().projects.map((p) => p.id)).toEqual([12345]);
    expect(sb.store.snapshot().feature_flags).toEqual([]);
  });

  it('drops empty and null entries of app_urls and recording_domains', async () => {
    const sb = await inProcessSandbox();
    const c = api(sb.baseUrl, sb.apiKey);
    const r = await c.patch(P(12345), { app_urls: ['https://a.example.com', '', null], recording_domains: [null, 'https://r.example.com', ''] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ app_urls: ['https://a.example.com'], recording_domains: ['https://r.example.com'] });
  });

  it('refuses access_control whatever its value, and still answers the key', async () => {
    const sb = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [{ id: 12345, access_control: true }] }] } });
    const c = api(sb.baseUrl, sb.apiKey);
    for (const value of [true, false]) {
      const r = await c.patch(P(12345), { access_control: value, timezone: 'Europe/Berlin' });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', attr: 'access_control' });
      expect((r.body as Rec).detail).toMatch(/^The 'access_control' field has been deprecated and is no longer supported\./);
    }
    expect((await c.get(P(12345))).body).toMatchObject({ access_control: true, timezone: 'UTC' });
  });

  it('merges session_replay_config (two levels), survey_config and modifiers into what is stored: a key is only cleared by sending null', async () => {
    const sb = await inProcessSandbox();
    const c = api(sb.baseUrl, sb.apiKey);
    await c.patch(P(12345), {
      session_replay_config: { record_canvas: true, ai_config: { opt_in: true, preferred_events: ['$pageview'] } },
      survey_config: { appearance: { backgroundColor: '#fff' }, default_language: 'en' },
      modifiers: { personsOnEventsMode: 'disabled', bounceRatePageViewMode: 'count_pageviews' },
    });
    const r = await c.patch(P(12345), {
      session_replay_config: { ai_config: { opt_in: false } },
      survey_config: { appearance: { textColor: '#000' } },
      modifiers: { bounceRatePageViewMode: null },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      session_replay_config: { record_canvas: true, ai_config: { opt_in: false, preferred_events: ['$pageview'] } },
      // survey_config merges its top-level keys only: appearance is replaced whole.
      survey_config: { appearance: { textColor: '#000' }, default_language: 'en' },
      modifiers: { personsOnEventsMode: 'disabled', bounceRatePageViewMode: null },
    });
    // null as the whole value replaces it.
    expect(((await c.patch(P(12345), { survey_config: null })).body as Rec).survey_config).toBeNull();
  });

  it('takes the writable fields newer API versions added, within their real bounds', async () => {
    const sb = await inProcessSandbox();
    const c = api(sb.baseUrl, sb.apiKey);
    const good = {
      session_recording_masking_config: { maskAllInputs: true, maskTextSelector: '.secret', blockSelector: '.block' },
      flags_persistence_default: true, receive_org_level_activity_logs: true, cookieless_server_hash_mode: 2,
      capture_dead_clicks: true, human_friendly_comparison_periods: true, session_recording_retention_period: '90d',
      session_recording_trigger_match_type_config: 'any', session_recording_event_trigger_config: ['$pageview'],
      session_recording_url_trigger_config: [{ url: '/checkout', matching: 'regex' }], session_recording_url_blocklist_config: [],
      feature_flag_confirmation_enabled: true, feature_flag_confirmation_message: 'Sure?', default_evaluation_contexts_enabled: true,
      require_evaluation_contexts: false, default_data_theme: 3, base_currency: 'EUR', business_model: 'b2b',
      web_analytics_pre_aggregated_tables_enabled: true, conversations_enabled: false, logs_settings: { retention_days: 15 },
    };
    const r = await c.patch(P(12345), good);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject(good);
    const bad: [Rec, string][] = [
      [{ cookieless_server_hash_mode: 3 }, 'cookieless_server_hash_mode'],
      [{ session_recording_retention_period: '2y' }, 'session_recording_retention_period'],
      [{ session_recording_trigger_match_type_config: 'some' }, 'session_recording_trigger_match_type_config'],
      [{ session_recording_masking_config: { maskEverything: true } }, 'session_recording_masking_config'],
      [{ session_recording_masking_config: { maskAllInputs: 'yes' } }, 'session_recording_masking_config'],
      [{ session_replay_config: { recordCanvas: true } }, 'session_replay_config'],
      [{ base_currency: 'euro' }, 'base_currency'],
      [{ business_model: 'b2g' }, 'business_model'],
    ];
    for (const [body, attr] of bad) {
      const res = await c.patch(P(12345), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((res.body as Rec).attr).toBe(attr);
    }
  });
});

describe('sandbox: who the key belongs to', () => {
  const seed = {
    users: [
      { email: 'member@example.com', first_name: 'Mia', level: 'member' as const, keys: [{ key: 'phx_member_key', scopes: ['*'] }] },
      { email: 'admin@example.com', first_name: 'Ada', level: 'admin' as const, keys: [{ key: 'phx_admin_key', scopes: ['*'] }] },
    ],
    organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web' }, { id: 12346, name: 'Mobile' }] }],
    keys: [{ key: 'phx_project_key', scopes: ['*'], projects: [12345] }],
  };

  it('lets a member change only member-safe settings: admin-only ones and deletion answer 403 with the real reason', async () => {
    const sb = await inProcessSandbox({ seed });
    const member = api(sb.baseUrl, 'phx_member_key');
    expect(((await member.get(P(12345))).body as Rec).effective_membership_level).toBe(1);
    expect((await member.patch(P(12345), { session_recording_opt_in: true, surveys_opt_in: true })).status).toBe(200);
    const denied = await member.patch(P(12345), { timezone: 'Europe/Berlin', name: 'Shop', session_recording_opt_in: false });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'permission_denied', detail: 'Only project admins can modify these settings: name, timezone' });
    const org = await member.patch(P(12345), { receive_org_level_activity_logs: true });
    expect(org.body).toMatchObject({ detail: 'Only organization owners and admins can modify the receive_org_level_activity_logs setting.' });
    const del = await member.delete(P(12346));
    expect(del.status).toBe(403);
    expect(del.body).toMatchObject({ detail: "You don't have sufficient permissions in the project." });
    const role = await member.post(ROLES, { name: 'Eng' });
    expect(role.status).toBe(403);
    expect(role.body).toMatchObject({ detail: 'Your organization access level is insufficient.' });

    const admin = api(sb.baseUrl, 'phx_admin_key');
    expect((await admin.patch(P(12345), { timezone: 'Europe/Berlin', receive_org_level_activity_logs: true })).status).toBe(200);
    expect((await admin.post(ROLES, { name: 'Eng' })).status).toBe(201);
    expect(sb.store.snapshot().projects.find((p) => p.id === 12345)).toMatchObject({ timezone: 'Europe/Berlin', session_recording_opt_in: true });
  });

  it('limits a key to its projects, with the real reasons elsewhere', async () => {
    const sb = await inProcessSandbox({ seed });
    const c = api(sb.baseUrl, 'phx_project_key');
    expect((await c.get(P(12345))).status).toBe(200);
    expect((await c.get('/api/projects/12345/feature_flags/')).status).toBe(200);
    expect((await c.get(P(12346))).body).toMatchObject({ code: 'permission_denied', detail: 'API key does not have access to the requested project: ID 12346.' });
    expect((await c.get('/api/projects/12346/feature_flags/')).status).toBe(403);
    const org = await c.get(ROLES);
    expect(org.status).toBe(403);
    expect(org.body).toMatchObject({ detail: 'API keys with scoped projects are only supported on project-based endpoints.' });
    expect(((await c.get('/api/projects/')).body as { results: Rec[] }).results.map((p) => p.id)).toEqual([12345]);
  });

  it('refuses keys of members where the organization disallows personal API keys; admins still pass', async () => {
    const sb = await inProcessSandbox({ seed: { ...seed, organizations: [{ ...seed.organizations[0], name: 'Acme', members_can_use_personal_api_keys: false }] } });
    const r = await api(sb.baseUrl, 'phx_member_key').get(P(12345));
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ detail: "Organization 'Acme' does not allow using personal API keys. Contact an admin to enable personal API keys for this organization." });
    expect((await api(sb.baseUrl, 'phx_admin_key').get(P(12345))).status).toBe(200);
  });

  it('names the place of a bad level, project list, role member or api_version in the seed', () => {
    const bad: [unknown, string][] = [
      [{ users: [{ first_name: 'A', email: 'a@b.c', level: 'boss' }] }, 'users[0].level: must be one of member, admin, owner'],
      [{ keys: [{ key: 'phx_12345678', scopes: ['*'], projects: ['web'] }] }, 'keys[0].projects: must be a list of project ids'],
      [{ api_version: 2024 }, 'api_version: must be one of 2025, 2026'],
      [{ organizations: [{ roles: [{ name: 'R', members: ['nobody@example.com'] }] }] }, 'organizations[0].roles[0].members[0]: unknown user'],
    ];
    for (const [doc, message] of bad) {
      expect(() => stateFromSeed(doc, 's.yaml')).toThrow(SeedError);
      expect(() => stateFromSeed(doc, 's.yaml')).toThrow(`seed s.yaml: ${message}`);
    }
  });
});

describe('sandbox: a newer API version (seed api_version: 2026)', () => {
  it('no longer stores slack_incoming_webhook (dropped from a PATCH without a word) nor roles\' feature_flags_access_level', async () => {
    const sb = await inProcessSandbox({ seed: { api_version: 2026, organizations: [{ id: ORG, projects: [{ id: 12345 }], roles: [{ name: 'Eng', feature_flags_access_level: 37 }] }] } });
    const c = api(sb.baseUrl, sb.apiKey);
    expect(await c.get(P(12345)).then((r) => r.body as Rec)).not.toHaveProperty('slack_incoming_webhook');
    const patched = await c.patch(P(12345), { slack_incoming_webhook: 'https://hooks.slack.com/services/T/B/X', timezone: 'Europe/Berlin' });
    expect(patched.status).toBe(200);
    expect(patched.body).not.toHaveProperty('slack_incoming_webhook');
    expect((patched.body as Rec).timezone).toBe('Europe/Berlin');
    const roles = ((await c.get(ROLES)).body as { results: Rec[] }).results;
    expect(roles[0]).not.toHaveProperty('feature_flags_access_level');
    const created = await c.post(ROLES, { name: 'Ops', feature_flags_access_level: 37 });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('feature_flags_access_level');
  });
});

describe('sandbox: roles and their members', () => {
  it('lists a role\'s members, and deleting the role deletes its memberships with it', async () => {
    const sb = await inProcessSandbox({
      seed: {
        users: [{ email: 'ann@example.com', first_name: 'Ann', level: 'member' }, { email: 'bob@example.com', first_name: 'bob', level: 'member' }],
        organizations: [{ id: ORG, roles: [{ name: 'Engineers', members: ['ann@example.com', 'bob@example.com'] }] }],
      },
    });
    const c = api(sb.baseUrl, sb.apiKey);
    const role = ((await c.get(ROLES)).body as { results: Rec[] }).results[0] as Rec;
    expect(JSON.parse(role.members as string).map((m: { user: Rec }) => m.user.email)).toEqual(['ann@example.com', 'bob@example.com']);
    const members = await c.get(`${ROLES}${role.id as string}/role_memberships/`);
    expect(members.status).toBe(200);
    expect((members.body as { results: Array<{ role_id: string; user: Rec }> }).results.map((m) => [m.role_id, m.user.first_name])).toEqual([[role.id, 'Ann'], [role.id, 'bob']]);
    expect((await c.delete(`${ROLES}${role.id as string}/`)).status).toBe(204);
    expect((await c.get(`${ROLES}${role.id as string}/role_memberships/`)).status).toBe(404);
    // A new role of the same name starts without members.
    const again = await c.post(ROLES, { name: 'engineers' });
    expect((again.body as Rec).members).toBe('[]');
  });

  it('trims role names and keeps them unique without regard to case', async () => {
    const sb = await inProcessSandbox();
    const c = api(sb.baseUrl, sb.apiKey);
    expect(((await c.post(ROLES, { name: '  Support ' })).body as Rec).name).toBe('Support');
    const dup = await c.post(ROLES, { name: 'SUPPORT' });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ code: 'unique', detail: 'There is already a role with this name.' });
  });
});
