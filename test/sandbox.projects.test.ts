import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { schemaErrors } from './support/openapi.js';

type Rec = Record<string, unknown>;
const P = `/api/organizations/${DEFAULT_ORG}/projects`;

let c: Api;
beforeEach(async () => {
  const sb = await inProcessSandbox();
  c = api(sb.baseUrl, sb.apiKey);
});
afterEach(stopAllSandboxes);

describe('sandbox projects', () => {
  it('starts without a seed with one organization holding projects 12345 and 12346', async () => {
    const r = await c.get(`${P}/`);
    expect(r.status).toBe(200);
    const body = r.body as { count: number; next: null; previous: null; results: Rec[] };
    expect(body).toMatchObject({ count: 2, next: null, previous: null });
    expect(body.results.map((p) => [p.id, p.name])).toEqual([[12345, 'Web app'], [12346, 'Mobile app']]);
    expect(schemaErrors('PaginatedProjectBackwardCompatBasicList', body)).toEqual([]);
  });

  it('reads one project as a full record that validates against the OpenAPI ProjectBackwardCompat schema', async () => {
    const r = await c.get(`${P}/12345/`);
    expect(r.status).toBe(200);
    const p = r.body as Rec;
    expect(schemaErrors('ProjectBackwardCompat', p)).toEqual([]);
    // The check has teeth: a null week_start_day is outside the schema's enum.
    expect(schemaErrors('ProjectBackwardCompat', { ...p, week_start_day: null })).not.toEqual([]);
    expect(p).toMatchObject({
      id: 12345, organization: DEFAULT_ORG, timezone: 'UTC', session_recording_sample_rate: null, anonymize_ips: false,
      secret_api_token: null, secret_api_token_backup: null, group_types: [], has_group_types: false,
    });
    expect(p.api_token).toMatch(/^phc_/);
    // Every field of the OpenAPI schema is present.
    for (const field of ['uuid', 'created_at', 'updated_at', 'effective_membership_level', 'live_events_token', 'ingested_event',
      'person_on_events_querying_enabled', 'default_modifiers', 'product_intents', 'week_start_day', 'recording_domains',
      'session_recording_minimum_duration_milliseconds', 'slack_incoming_webhook', 'app_urls', 'modifiers', 'heatmaps_opt_in']) {
      expect(p).toHaveProperty(field);
    }
  });

  it('accepts paths with and without the trailing slash', async () => {
    expect((await c.get(`${P}/12345`)).status).toBe(200);
    expect((await c.patch(`${P}/12345`, { name: 'No slash' })).status).toBe(200);
    expect(((await c.get(`${P}/12345/`)).body as Rec).name).toBe('No slash');
  });

  it('PATCH stores canonical values, ignores unknown and read-only fields, and answers the record', async () => {
    const before = (await c.get(`${P}/12345/`)).body as Rec;
    const r = await c.patch(`${P}/12345/`, {
      name: 'Renamed', session_recording_sample_rate: '0.5', week_start_day: '1', timezone: 'Europe/Berlin',
      session_recording_minimum_duration_milliseconds: 30000, anonymize_ips: true, app_urls: ['https://a.example.com'],
      test_account_filters: [{ key: 'email', value: '@example.com', operator: 'not_icontains', type: 'person' }],
      api_token: 'phc_mine', id: 1, no_such_field: 'ignored',
    });
    expect(r.status).toBe(200);
    const p = r.body as Rec;
    expect(p).toMatchObject({
      name: 'Renamed', session_recording_sample_rate: '0.50', week_start_day: 1, timezone: 'Europe/Berlin',
      session_recording_minimum_duration_milliseconds: 30000, anonymize_ips: true, app_urls: ['https://a.example.com'], id: 12345,
    });
    expect(p.api_token).toBe(before.api_token);
    expect(p).not.toHaveProperty('no_such_field');
    expect(schemaErrors('ProjectBackwardCompat', p)).toEqual([]);
    expect((await c.get(`${P}/12345/`)).body).toEqual(p);
    for (const [sent, stored] of [['1', '1.00'], [0.25, '0.25'], ['.1', '0.10'], ['0.00', '0.00']] as const) {
      const rr = await c.patch(`${P}/12345/`, { session_recording_sample_rate: sent });
      expect((rr.body as Rec).session_recording_sample_rate).toBe(stored);
    }
    expect(((await c.patch(`${P}/12345/`, { session_recording_sample_rate: null })).body as Rec).session_recording_sample_rate).toBeNull();
  });

  it('refuses invalid values with a 400 naming the field', async () => {
    const cases: [Rec, string, string][] = [
      [{ name: '' }, 'name', 'blank'],
      [{ name: 'x'.repeat(201) }, 'name', 'max_length'],
      [{ name: 12 }, 'name', 'invalid'],
      [{ session_recording_sample_rate: '1.5' }, 'session_recording_sample_rate', 'max_value'],
      [{ session_recording_sample_rate: '-0.1' }, 'session_recording_sample_rate', 'min_value'],
      [{ session_recording_sample_rate: '0.555' }, 'session_recording_sample_rate', 'max_decimal_places'],
      [{ session_recording_sample_rate: 'half' }, 'session_recording_sample_rate', 'invalid'],
      [{ session_recording_minimum_duration_milliseconds: 30001 }, 'session_recording_minimum_duration_milliseconds', 'max_value'],
      [{ session_recording_minimum_duration_milliseconds: -1 }, 'session_recording_minimum_duration_milliseconds', 'min_value'],
      [{ session_recording_minimum_duration_milliseconds: 1.5 }, 'session_recording_minimum_duration_milliseconds', 'invalid'],
      [{ week_start_day: 2 }, 'week_start_day', 'invalid_choice'],
      [{ timezone: 'Mars/Olympus_Mons' }, 'timezone', 'invalid_choice'],
      [{ timezone: 'europe/berlin' }, 'timezone', 'invalid_choice'],
      [{ anonymize_ips: 'true' }, 'anonymize_ips', 'invalid'],
      [{ anonymize_ips: null }, 'anonymize_ips', 'null'],
      [{ app_urls: 'https://a.example.com' }, 'app_urls', 'not_a_list'],
      [{ slack_incoming_webhook: 'x'.repeat(501) }, 'slack_incoming_webhook', 'max_length'],
    ];
    for (const [body, attr, code] of cases) {
      const r = await c.patch(`${P}/12345/`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      const err = r.body as Rec;
      expect(err).toMatchObject({ type: 'validation_error', code, attr });
      expect(typeof err.detail).toBe('string');
      expect(Object.keys(err).sort()).toEqual(['attr', 'code', 'detail', 'type']);
    }
    // Nothing of the refused requests was applied.
    const p = (await c.get(`${P}/12345/`)).body as Rec;
    expect(p).toMatchObject({ name: 'Web app', timezone: 'UTC', session_recording_sample_rate: null, anonymize_ips: false });
  });

  it('accepts IANA names, UTC and tz database aliases as time zones', async () => {
    for (const tz of ['UTC', 'America/Argentina/Buenos_Aires', 'Asia/Calcutta', 'US/Eastern', 'Etc/GMT+5']) {
      const r = await c.patch(`${P}/12345/`, { timezone: tz });
      expect(r.status, tz).toBe(200);
      expect((r.body as Rec).timezone).toBe(tz);
    }
  });

  it('answers 400 parse_error for malformed JSON and 400 for a body that is not an object', async () => {
    const bad = await c.call('PATCH', `${P}/12345/`, '{"name": ');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: 'validation_error', code: 'parse_error', attr: null });
    const list = await c.call('PATCH', `${P}/12345/`, '[1, 2]');
    expect(list.status).toBe(400);
    expect(list.body).toMatchObject({ type: 'validation_error', attr: 'non_field_errors' });
    const form = await c.call('PATCH', `${P}/12345/`, 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({ type: 'invalid_request', code: 'unsupported_media_type', attr: null });
  });

  it('serves the read views with the project record shape', async () => {
    for (const view of ['access_controls', 'global_access_controls', 'is_generating_demo_data']) {
      const r = await c.get(`${P}/12346/${view}/`);
      expect(r.status, view).toBe(200);
      expect((r.body as Rec).id).toBe(12346);
      expect(schemaErrors('ProjectBackwardCompat', r.body)).toEqual([]);
    }
  });

  it('runs the update actions: reset_token, add_product_intent, complete_product_onboarding', async () => {
    const before = (await c.get(`${P}/12345/`)).body as Rec;
    const reset = await c.patch(`${P}/12345/reset_token/`, {});
    expect(reset.status).toBe(200);
    expect((reset.body as Rec).api_token).toMatch(/^phc_/);
    expect((reset.body as Rec).api_token).not.toBe(before.api_token);

    const intent = await c.patch(`${P}/12345/add_product_intent/`, { product_type: 'feature_flags' });
    expect(intent.status).toBe(200);
    expect(JSON.parse((intent.body as Rec).product_intents as string)).toMatchObject([{ product_type: 'feature_flags', onboarding_completed_at: null }]);

    const done = await c.patch(`${P}/12345/complete_product_onboarding/`, { type: 'feature_flags' });
    expect(done.status).toBe(200);
    expect((done.body as Rec).has_completed_onboarding_for).toEqual({ feature_flags: true });
    expect(schemaErrors('ProjectBackwardCompat', done.body)).toEqual([]);
    expect(((await c.get(`${P}/12345/`)).body as Rec).api_token).toBe((reset.body as Rec).api_token);
  });

  it('DELETE answers 204 and the project is gone, with its flags', async () => {
    expect((await c.post('/api/projects/12346/feature_flags/', { key: 'f' })).status).toBe(201);
    const r = await c.delete(`${P}/12346/`);
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    expect((await c.get(`${P}/12346/`)).status).toBe(404);
    expect((await c.get('/api/projects/12346/feature_flags/')).status).toBe(404);
    expect(((await c.get(`${P}/`)).body as { count: number }).count).toBe(1);
  });

  it('never gives a deleted project\'s id again (the real API never reuses ids): an old --allow-delete project/ID cannot name a new one', async () => {
    expect((await c.delete(`${P}/12346/`)).status).toBe(204);
    const made = await c.post(`${P}/`, { name: 'Next' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect((made.body as Rec).id).toBe(12347);
    expect((await c.delete(`${P}/12347/`)).status).toBe(204);
    expect(((await c.post(`${P}/`, { name: 'After' })).body as Rec).id).toBe(12348);
  });

  it('answers 404 for unknown organizations, projects and routes, and 405 for methods a path does not serve', async () => {
    const notFound = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
    for (const path of [`${P}/99999/`, `${P}/abc/`, '/api/organizations/0190d1c4-0000-7000-8000-000000000000/projects/12345/',
      '/api/organizations/not-a-uuid/projects/', `${P}/12345/no_such_action/`, '/api/']) {
      const r = await c.get(path);
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual(notFound);
    }
    const put = await c.call('PUT', `${P}/12345/`, { name: 'x' });
    expect(put.status).toBe(405);
    expect(put.body).toEqual({ type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "PUT" not allowed.', attr: null });
  });

  it('GET /api/projects/ lists projects across organizations, each with its organization', async () => {
    const r = await c.get('/api/projects/');
    const body = r.body as { count: number; results: Rec[] };
    expect(body.count).toBe(2);
    expect(body.results.every((p) => p.organization === DEFAULT_ORG)).toBe(true);
    expect(schemaErrors('PaginatedProjectBackwardCompatBasicList', body)).toEqual([]);
  });
});
