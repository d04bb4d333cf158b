// The OpenAPI contract helper catches what the real API would refuse or ignore, and
// accepts what it documents — so other tests can trust an empty list.
import { describe, expect, it } from 'vitest';
import { validateRequest, validateResponse } from './support/openapi.js';
import { ORG } from './support/constants.js';

const PROJECT = `/api/organizations/${ORG}/projects/12345/`;
const FLAGS = '/api/projects/12345/feature_flags/';

const project = {
  id: 12345, organization: ORG, name: 'Web app', product_description: null, created_at: '2024-05-01T10:00:00Z',
  effective_membership_level: 8, has_group_types: false, group_types: [], live_events_token: null,
  updated_at: '2024-05-02T10:00:00.123456Z', uuid: '0190d1c4-6a1e-7c3d-8e4f-000000000001', api_token: 'phc_x',
  app_urls: ['https://example.com', null], slack_incoming_webhook: null, anonymize_ips: true,
  completed_snippet_onboarding: true, ingested_event: true, test_account_filters: [], test_account_filters_default_checked: null,
  path_cleaning_filters: null, is_demo: false, timezone: 'Europe/Berlin', data_attributes: ['data-attr'],
  session_recording_sample_rate: '0.50', session_recording_minimum_duration_milliseconds: null, week_start_day: 1,
  person_on_events_querying_enabled: 'true', default_modifiers: '{}', product_intents: '[]',
  secret_api_token: null, secret_api_token_backup: null,
};

describe('OpenAPI request validation', () => {
  it('accepts a good project PATCH', () => {
    expect(validateRequest('PATCH', PROJECT, { name: 'Web app', timezone: 'Europe/Berlin', anonymize_ips: true, session_recording_sample_rate: '0.25', slack_incoming_webhook: null, week_start_day: 0 })).toEqual([]);
  });

  it('catches a name longer than 200 characters', () => {
    expect(validateRequest('PATCH', PROJECT, { name: 'x'.repeat(201) })).toEqual(['request body /name: must NOT have more than 200 characters']);
  });

  it('catches wrong types, enum values and null where it is not allowed', () => {
    const problems = validateRequest('PATCH', PROJECT, { anonymize_ips: 'yes', week_start_day: 3, timezone: 'Mars/Base', name: null, session_recording_sample_rate: '0.505' });
    expect(problems).toEqual(expect.arrayContaining([
      'request body /anonymize_ips: must be boolean',
      'request body /week_start_day: must be one of 0, 1',
      'request body /timezone: must be equal to one of the allowed values',
      'request body /name: must be string',
      'request body /session_recording_sample_rate: must match pattern "^-?\\d{0,1}(?:\\.\\d{0,2})?$"',
    ]));
    expect(problems).toHaveLength(5);
  });

  it('accepts null where the document says nullable (type, enum and allOf forms)', () => {
    expect(validateRequest('PATCH', PROJECT, { session_recording_sample_rate: null, recording_domains: null, primary_dashboard: null })).toEqual([]);
    expect(validateRequest('PATCH', `${FLAGS}7/`, { evaluation_runtime: null, ensure_experience_continuity: null })).toEqual([]);
  });

  it('flags read-only fields sent in a request: the API would ignore them', () => {
    expect(validateRequest('PATCH', PROJECT, { api_token: 'phc_new', id: 1 })).toEqual([
      'request body /id: is read-only (the API ignores it)',
      'request body /api_token: is read-only (the API ignores it)',
    ]);
  });

  it('does not require read-only fields in a create', () => {
    expect(validateRequest('POST', FLAGS, { key: 'new-checkout', name: 'New checkout', active: true, filters: { groups: [] } })).toEqual([]);
    expect(validateRequest('POST', FLAGS, { name: 'no key' })).toEqual(["request body: must have required property 'key'"]);
    expect(validateRequest('POST', `/api/organizations/${ORG}/proxy_records/`, { domain: 'e.example.com' })).toEqual([]);
  });

  it('checks path parameters: organization UUID, integer project id', () => {
    expect(validateRequest('PATCH', '/api/organizations/acme/projects/12345/', {})).toEqual(['path parameter organization_id ("acme"): must match format "uuid"']);
    expect(validateRequest('PATCH', `/api/organizations/${ORG}/projects/web/`, {})).toEqual(['path parameter id ("web"): must be integer']);
    expect(validateRequest('GET', '/api/projects/abc/feature_flags/')).toEqual(['path parameter project_id ("abc"): must be integer']);
  });

  it('checks query parameters of lists', () => {
    expect(validateRequest('GET', `/api/organizations/${ORG}/roles/?limit=100&offset=200`)).toEqual([]);
    expect(validateRequest('GET', `/api/organizations/${ORG}/roles/?limit=many`)).toEqual(['query parameter limit: must be integer']);
    expect(validateRequest('GET', `/api/organizations/${ORG}/roles/?page=2`)).toEqual(['unknown query parameter page']);
  });

  it('names unknown paths and undocumented methods, and accepts full URLs', () => {
    expect(validateRequest('GET', '/api/nowhere/')).toEqual(['no path of the OpenAPI document matches /api/nowhere/']);
    expect(validateRequest('POST', PROJECT, {})).toEqual(['POST is not documented for /api/organizations/{organization_id}/projects/{id}/ (documented: DELETE, GET, PATCH, PUT)']);
    expect(validateRequest('GET', `http://127.0.0.1:8000${PROJECT}`)).toEqual([]);
  });

  it('prefers literal path segments over parameters', () => {
    expect(validateRequest('GET', `${FLAGS}my_flags/`)).toEqual([]);
  });

  it('knows which operations take a body', () => {
    expect(validateRequest('DELETE', PROJECT, { x: 1 })).toEqual(['DELETE /api/organizations/{organization_id}/projects/{id}/ takes no request body']);
    expect(validateRequest('POST', FLAGS)).toEqual(['POST /api/projects/{project_id}/feature_flags/ requires a request body']);
  });
});

describe('OpenAPI response validation', () => {
  it('accepts a documented project record', () => {
    expect(validateResponse('GET', PROJECT, 200, project)).toEqual([]);
    expect(validateResponse('PATCH', PROJECT, 200, { ...project, effective_membership_level: null })).toEqual([]);
  });

  it('catches a missing required field and a wrong type in a response', () => {
    const { uuid: _uuid, ...withoutUuid } = project;
    expect(validateResponse('GET', PROJECT, 200, { ...withoutUuid, id: '12345' })).toEqual([
      "response body: must have required property 'uuid'",
      'response body /id: must be integer',
    ]);
  });

  it('checks list envelopes and their items', () => {
    const role = { id: '0190d1c4-6a1e-7c3d-8e4f-000000000002', name: 'Engineers', created_at: '2024-05-01T10:00:00Z', created_by: null, members: '[]', is_default: 'false' };
    const list = { count: 1, next: null, previous: null, results: [role] };
    // created_by is an allOf wrapper without nullable: null is not allowed.
    expect(validateResponse('GET', `/api/organizations/${ORG}/roles/`, 200, list)).toEqual(['response body /results/0/created_by: must be object']);
    const user = { id: 1, uuid: '0190d1c4-6a1e-7c3d-8e4f-000000000003', email: 'a@example.com', hedgehog_config: null };
    expect(validateResponse('GET', `/api/organizations/${ORG}/roles/`, 200, { ...list, results: [{ ...role, created_by: user }] })).toEqual([]);
    expect(validateResponse('GET', `/api/organizations/${ORG}/roles/`, 200, { results: [] })).toEqual(["response body: must have required property 'count'"]);
  });

  it('names undocumented statuses and skips bodies documented as absent', () => {
    expect(validateResponse('POST', `/api/organizations/${ORG}/proxy_records/`, 200, {})).toEqual([
      'status 200 is not documented for POST /api/organizations/{organization_id}/proxy_records/ (documented: 201)',
    ]);
    expect(validateResponse('DELETE', PROJECT, 204, null)).toEqual([]);
  });
});
