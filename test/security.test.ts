// Reliability and security: who the sandbox lets in (every endpoint, every scope), where the
// CLI refuses to send the key (plain http:// off loopback; a `next` link is only ever asked of the
// configured origin),
// and that the key, or a sensitive value, never shows in anything hogsync prints or writes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { networkInterfaces } from 'node:os';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { sandboxRoutes } from '../src/sandbox/routes/index.js';
import { loadSandboxModels } from '../src/sandbox/models.js';
import { ANY_KEY, NO_PERSONAL_KEYS } from '../src/sandbox/router.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import type { SeedDocument } from '../src/sandbox/seed.js';
import { api, inProcessSandbox, spawnSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';
import { expectNoSecret } from './support/secrets.js';
import type { CliResult } from './support/cli.js';

/** A distinctive secret: random, so that no piece of it occurs anywhere by accident. */
function canary(prefix: string): string {
  return `${prefix}${randomBytes(18).toString('hex')}`;
}

describe('expectNoSecret (the check the rest of this file relies on)', () => {
  it('finds a secret verbatim, encoded, base64 in a header, or cut into a piece', () => {
    const secret = canary('phx_selftest_');
    const leaks = [secret, `x ${encodeURIComponent(secret)} y`, JSON.stringify({ k: secret }), Buffer.from(`Bearer ${secret}`).toString('base64'), `…${secret.slice(3, 19)}…`, secret.slice(-13)];
    for (const text of leaks) expect(() => expectNoSecret({ out: text }, secret), text).toThrow(/secret found in output/);
    expectNoSecret({ out: `${secret.slice(-11)}: 11 characters alone are too short to be a leak` }, secret);
    expect(() => expectNoSecret({ out: 'x' }, 'short')).toThrow(/would match by accident/);
  });
});

// ---------------------------------------------------------------------------------------------
// 1. Every sandbox endpoint: 401 without a valid key, 403 naming the scope without it.
// ---------------------------------------------------------------------------------------------

const OBJECTS = ['project', 'organization', 'organization_member', 'access_control', 'feature_flag', 'activity_log', 'event_definition', 'cohort', 'action', 'hog_function', 'survey', 'early_access_feature', 'user', 'insight', 'dashboard', 'experiment', 'alert', 'subscription', 'integration'] as const;
type Scope = `${(typeof OBJECTS)[number]}:${'read' | 'write'}`;
const SCOPES: Scope[] = OBJECTS.flatMap((o) => [`${o}:read`, `${o}:write`] as Scope[]);

interface Ids { role: number; proxy: string; flag: number; approve: string; reject: string; definition: string; cohort: number; action: number; hog: string; roleMember: string; invite: string; survey: string; feature: string; insight: number; dashboard: number; holdout?: number; metric?: number; experiment?: number; trend: number; alert: Record<'projects' | 'environments', string>; subscription: number }
interface Endpoint {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** The sandbox route pattern it exercises (checked against the route table). */
  pattern: string;
  path: (ids: Ids) => string;
  /** The scope it needs; NO_PERSONAL_KEYS: no key may call it (the real API's actions without a scope); ANY_KEY: every key may (a key reading itself). */
  scope: Scope | typeof NO_PERSONAL_KEYS | typeof ANY_KEY;
  body?: unknown;
}

const PROJECT = 12345;
/** The uuid of the seed's n-th user (the sandbox user is 1). */
const SEED_UUID = (n: number) => `0190d1c4-6a1e-7c3d-8e4f-${String(n).padStart(12, '0')}`;
const item = '/api/organizations/:org/projects/:id/';
const projectPath = `/api/organizations/${ORG}/projects/${PROJECT}/`;
const flags = `/api/projects/${PROJECT}/feature_flags/`;

/** Bodies the API takes for a new item of each experiment collection. */
const NEW_EXPERIMENT_ITEMS: Record<string, Record<string, unknown>> = {
  experiment_holdouts: { filters: [{ rollout_percentage: 5 }] },
  experiment_saved_metrics: { query: { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: '$pageview' } } },
  experiments: { feature_flag_key: 'new-experiment', parameters: { feature_flag_variants: [{ key: 'control' }, { key: 'test' }] } },
};

// Scopes the reference fixes: project PATCH/DELETE write, proxy records and roles
// organization:read/write, local_evaluation feature_flag:read. The others (project reads and
// actions, the other flag endpoints) follow the same rule: GET reads, anything else writes.
/** Ids the alert and subscription bodies name, known once the sandbox is seeded. */
let trendId = 0;
let dashboardId = 0;

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', pattern: item, path: () => projectPath, scope: 'project:read' },
  { method: 'PATCH', pattern: item, path: () => projectPath, scope: 'project:write', body: { name: 'Renamed' } },
  { method: 'DELETE', pattern: item, path: () => projectPath, scope: 'project:write' },
  ...['access_controls', 'global_access_controls', 'is_generating_demo_data'].map((action): Endpoint => (
    { method: 'GET', pattern: `${item}${action}/`, path: () => `${projectPath}${action}/`, scope: 'project:read' })),
  { method: 'GET', pattern: `${item}activity/`, path: () => `${projectPath}activity/`, scope: NO_PERSONAL_KEYS },
  { method: 'GET', pattern: '/api/projects/:project/activity_log/', path: () => `/api/projects/${PROJECT}/activity_log/`, scope: 'activity_log:read' },
  { method: 'GET', pattern: '/api/organizations/:org/advanced_activity_logs/', path: () => `/api/organizations/${ORG}/advanced_activity_logs/`, scope: 'activity_log:read' },
  { method: 'PATCH', pattern: `${item}add_product_intent/`, path: () => `${projectPath}add_product_intent/`, scope: 'project:write', body: { product_type: 'feature_flags' } },
  { method: 'PATCH', pattern: `${item}complete_product_onboarding/`, path: () => `${projectPath}complete_product_onboarding/`, scope: 'project:write', body: { type: 'feature_flags' } },
  { method: 'PATCH', pattern: `${item}reset_token/`, path: () => `${projectPath}reset_token/`, scope: 'project:write', body: {} },
  { method: 'GET', pattern: '/api/projects/', path: () => '/api/projects/', scope: 'project:read' },
  { method: 'GET', pattern: '/api/organizations/:org/projects/', path: () => `/api/organizations/${ORG}/projects/`, scope: 'project:read' },

  { method: 'GET', pattern: '/api/organizations/:org/proxy_records/', path: () => `/api/organizations/${ORG}/proxy_records/`, scope: 'organization:read' },
  { method: 'POST', pattern: '/api/organizations/:org/proxy_records/', path: () => `/api/organizations/${ORG}/proxy_records/`, scope: 'organization:write', body: { domain: 'new.example.com' } },
  { method: 'GET', pattern: '/api/organizations/:org/proxy_records/:id/', path: (ids) => `/api/organizations/${ORG}/proxy_records/${ids.proxy}/`, scope: 'organization:read' },
  { method: 'PATCH', pattern: '/api/organizations/:org/proxy_records/:id/', path: (ids) => `/api/organizations/${ORG}/proxy_records/${ids.proxy}/`, scope: 'organization:write', body: {} },
  { method: 'DELETE', pattern: '/api/organizations/:org/proxy_records/:id/', path: (ids) => `/api/organizations/${ORG}/proxy_records/${ids.proxy}/`, scope: 'organization:write' },

  // Before the role's own DELETE and the member's (both would take the role membership with them).
  { method: 'POST', pattern: '/api/organizations/:org/roles/:role/role_memberships/', path: (ids) => `/api/organizations/${ORG}/roles/${ids.role}/role_memberships/`, scope: 'organization:write', body: { user_uuid: SEED_UUID(3) } },
  { method: 'DELETE', pattern: '/api/organizations/:org/roles/:role/role_memberships/:id/', path: (ids) => `/api/organizations/${ORG}/roles/${ids.role}/role_memberships/${ids.roleMember}/`, scope: 'organization:write' },
  { method: 'GET', pattern: '/api/organizations/:org/members/', path: () => `/api/organizations/${ORG}/members/`, scope: 'organization_member:read' },
  { method: 'PATCH', pattern: '/api/organizations/:org/members/:user/', path: () => `/api/organizations/${ORG}/members/${SEED_UUID(2)}/`, scope: 'organization_member:write', body: { level: 8 } },
  { method: 'DELETE', pattern: '/api/organizations/:org/members/:user/', path: () => `/api/organizations/${ORG}/members/${SEED_UUID(2)}/`, scope: 'organization_member:write' },
  { method: 'GET', pattern: '/api/organizations/:org/invites/', path: () => `/api/organizations/${ORG}/invites/`, scope: 'organization_member:read' },
  { method: 'POST', pattern: '/api/organizations/:org/invites/', path: () => `/api/organizations/${ORG}/invites/`, scope: 'organization_member:write', body: { target_email: 'new@example.com', level: 1 } },
  { method: 'DELETE', pattern: '/api/organizations/:org/invites/:id/', path: (ids) => `/api/organizations/${ORG}/invites/${ids.invite}/`, scope: 'organization_member:write' },
  ...([['access_controls', { access_level: 'member' }], ['resource_access_controls', { resource: 'feature_flag', access_level: 'viewer' }]] as const).flatMap(([name, body]): Endpoint[] => [
    { method: 'GET', pattern: `/api/projects/:project/${name}/`, path: () => `/api/projects/${PROJECT}/${name}/`, scope: 'access_control:read' },
    { method: 'PUT', pattern: `/api/projects/:project/${name}/`, path: () => `/api/projects/${PROJECT}/${name}/`, scope: 'access_control:write', body },
  ]),
  { method: 'POST', pattern: '/api/organizations/:org/projects/', path: () => `/api/organizations/${ORG}/projects/`, scope: 'project:write', body: { name: 'Created' } },
  { method: 'GET', pattern: '/api/organizations/:org/roles/', path: () => `/api/organizations/${ORG}/roles/`, scope: 'organization:read' },
  { method: 'POST', pattern: '/api/organizations/:org/roles/', path: () => `/api/organizations/${ORG}/roles/`, scope: 'organization:write', body: { name: 'New role' } },
  { method: 'GET', pattern: '/api/organizations/:org/roles/:id/', path: (ids) => `/api/organizations/${ORG}/roles/${ids.role}/`, scope: 'organization:read' },
  { method: 'PATCH', pattern: '/api/organizations/:org/roles/:id/', path: (ids) => `/api/organizations/${ORG}/roles/${ids.role}/`, scope: 'organization:write', body: { name: 'Support team' } },
  { method: 'DELETE', pattern: '/api/organizations/:org/roles/:id/', path: (ids) => `/api/organizations/${ORG}/roles/${ids.role}/`, scope: 'organization:write' },
  { method: 'GET', pattern: '/api/organizations/:org/roles/:role/role_memberships/', path: (ids) => `/api/organizations/${ORG}/roles/${ids.role}/role_memberships/`, scope: 'organization:read' },

  { method: 'GET', pattern: '/api/projects/:project/feature_flags/', path: () => flags, scope: 'feature_flag:read' },
  { method: 'POST', pattern: '/api/projects/:project/feature_flags/', path: () => flags, scope: 'feature_flag:write', body: { key: 'new-flag' } },
  { method: 'GET', pattern: '/api/projects/:project/feature_flags/:id/', path: (ids) => `${flags}${ids.flag}/`, scope: 'feature_flag:read' },
  { method: 'PATCH', pattern: '/api/projects/:project/feature_flags/:id/', path: (ids) => `${flags}${ids.flag}/`, scope: 'feature_flag:write', body: { name: 'Renamed' } },
  // Answers 405 to a caller that may write: flags are deleted with PATCH {"deleted": true}.
  { method: 'DELETE', pattern: '/api/projects/:project/feature_flags/:id/', path: (ids) => `${flags}${ids.flag}/`, scope: 'feature_flag:write' },
  { method: 'GET', pattern: '/api/projects/:project/feature_flags/evaluation_reasons/', path: () => `${flags}evaluation_reasons/?distinct_id=user-1`, scope: 'feature_flag:read' },
  { method: 'GET', pattern: '/api/projects/:project/feature_flags/local_evaluation/', path: () => `${flags}local_evaluation/`, scope: 'feature_flag:read' },
  { method: 'GET', pattern: '/api/projects/:project/feature_flags/my_flags/', path: () => `${flags}my_flags/`, scope: 'feature_flag:read' },
  {
    method: 'POST', pattern: '/api/projects/:project/feature_flags/user_blast_radius/', path: () => `${flags}user_blast_radius/`, scope: 'feature_flag:write',
    body: { condition: { properties: [], rollout_percentage: 100 }, group_type_index: null },
  },
  { method: 'GET', pattern: '/api/projects/:project/event_definitions/', path: () => `/api/projects/${PROJECT}/event_definitions/`, scope: 'event_definition:read' },
  { method: 'GET', pattern: '/api/projects/:project/event_definitions/:id/', path: (ids) => `/api/projects/${PROJECT}/event_definitions/${ids.definition}/`, scope: 'event_definition:read' },
  { method: 'PATCH', pattern: '/api/projects/:project/event_definitions/:id/', path: (ids) => `/api/projects/${PROJECT}/event_definitions/${ids.definition}/`, scope: 'event_definition:write', body: { description: 'x' } },
  { method: 'DELETE', pattern: '/api/projects/:project/event_definitions/:id/', path: (ids) => `/api/projects/${PROJECT}/event_definitions/${ids.definition}/`, scope: 'event_definition:write' },
  ...(['cohort', 'action'] as const).flatMap((kind): Endpoint[] => {
    const list = `/api/projects/${PROJECT}/${kind}s/`;
    const pattern = `/api/projects/:project/${kind}s/`;
    return [
      { method: 'GET', pattern, path: () => list, scope: `${kind}:read` },
      { method: 'POST', pattern, path: () => list, scope: `${kind}:write`, body: { name: `New ${kind}` } },
      { method: 'GET', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids[kind]}/`, scope: `${kind}:read` },
      { method: 'PATCH', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids[kind]}/`, scope: `${kind}:write`, body: { description: 'x' } },
      // Answers 405 to a caller that may write: both are deleted with PATCH {"deleted": true}.
      { method: 'DELETE', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids[kind]}/`, scope: `${kind}:write` },
    ];
  }),
  // Hog functions, at their path and at the older alias under /api/environments/.
  ...(['projects', 'environments'] as const).flatMap((root): Endpoint[] => {
    const list = `/api/${root}/${PROJECT}/hog_functions/`;
    const pattern = `/api/${root}/:project/hog_functions/`;
    return [
      { method: 'GET', pattern, path: () => list, scope: 'hog_function:read' },
      { method: 'POST', pattern, path: () => list, scope: 'hog_function:write', body: { name: `New ${root}`, type: 'destination', template_id: 'template-webhook', inputs: { url: { value: 'https://hooks.example.com/x' } } } },
      { method: 'GET', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids.hog}/`, scope: 'hog_function:read' },
      { method: 'PATCH', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids.hog}/`, scope: 'hog_function:write', body: { description: 'x' } },
      // Answers 405 to a caller that may write: deleted with PATCH {"deleted": true}.
      { method: 'DELETE', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids.hog}/`, scope: 'hog_function:write' },
    ];
  }),
  // Hog function templates (their inputs schemas), read with the functions' scope.
  { method: 'GET', pattern: '/api/projects/:project/hog_function_templates/', path: () => `/api/projects/${PROJECT}/hog_function_templates/`, scope: 'hog_function:read' },
  { method: 'GET', pattern: '/api/projects/:project/hog_function_templates/:template_id/', path: () => `/api/projects/${PROJECT}/hog_function_templates/template-webhook/`, scope: 'hog_function:read' },
  // Surveys and early access features: hard DELETE.
  ...([['surveys', 'survey', 'survey', { name: 'New survey', type: 'popover', questions: [{ type: 'open', question: 'Why?' }] }],
    ['early_access_feature', 'early_access_feature', 'feature', { name: 'New feature', stage: 'draft' }]] as const).flatMap(([segment, kind, id, body]): Endpoint[] => {
    const list = `/api/projects/${PROJECT}/${segment}/`;
    const pattern = `/api/projects/:project/${segment}/`;
    return [
      { method: 'GET', pattern, path: () => list, scope: `${kind}:read` },
      { method: 'POST', pattern, path: () => list, scope: `${kind}:write`, body },
      { method: 'GET', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids[id]}/`, scope: `${kind}:read` },
      { method: 'PATCH', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids[id]}/`, scope: `${kind}:write`, body: { description: 'x' } },
      { method: 'DELETE', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids[id]}/`, scope: `${kind}:write` },
    ];
  }),
  // Insights and dashboards, at their path and at the alias under /api/environments/.
  ...(['projects', 'environments'] as const).flatMap((root) => (['insight', 'dashboard'] as const).flatMap((kind): Endpoint[] => {
    const list = `/api/${root}/${PROJECT}/${kind}s/`;
    const pattern = `/api/${root}/:project/${kind}s/`;
    const body = kind === 'insight' ? { name: `New ${root}`, query: { kind: 'HogQuery', code: 'return 1' } } : { name: `New ${root}` };
    return [
      { method: 'GET', pattern, path: () => list, scope: `${kind}:read` },
      { method: 'POST', pattern, path: () => list, scope: `${kind}:write`, body },
      { method: 'GET', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids[kind]}/`, scope: `${kind}:read` },
      { method: 'PATCH', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids[kind]}/`, scope: `${kind}:write`, body: { description: 'x' } },
      // Answers 405 to a caller that may write: deleted with PATCH {"deleted": true}.
      { method: 'DELETE', pattern: `${pattern}:id/`, path: (ids) => `${list}${ids[kind]}/`, scope: `${kind}:write` },
    ];
  })),
  // Experiments, their holdouts and saved metrics (hard DELETE; an experiment's answers 405), and the experiment's lifecycle actions.
  ...(['experiment_holdouts', 'experiment_saved_metrics', 'experiments'] as const).flatMap((collection): Endpoint[] => {
    const list = `/api/projects/${PROJECT}/${collection}/`;
    const pattern = `/api/projects/:project/${collection}/`;
    const id = (ids: Ids) => String(collection === 'experiments' ? ids.experiment : collection === 'experiment_holdouts' ? ids.holdout : ids.metric);
    return [
      { method: 'GET', pattern, path: () => list, scope: 'experiment:read' },
      { method: 'POST', pattern, path: () => list, scope: 'experiment:write', body: { name: `New ${collection}`, ...NEW_EXPERIMENT_ITEMS[collection] } },
      { method: 'GET', pattern: `${pattern}:id/`, path: (ids) => `${list}${id(ids)}/`, scope: 'experiment:read' },
      { method: 'PATCH', pattern: `${pattern}:id/`, path: (ids) => `${list}${id(ids)}/`, scope: 'experiment:write', body: { description: 'x' } },
      { method: 'DELETE', pattern: `${pattern}:id/`, path: (ids) => `${list}${id(ids)}/`, scope: 'experiment:write' },
    ];
  }),
  ...['launch', 'pause', 'resume', 'end', 'ship_variant', 'archive', 'unarchive'].map((action): Endpoint => (
    { method: 'POST', pattern: `/api/projects/:project/experiments/:id/${action}/`, path: (ids) => `/api/projects/${PROJECT}/experiments/${String(ids.experiment)}/${action}/`, scope: 'experiment:write', body: action === 'ship_variant' ? { variant_key: 'test' } : {} })),
  // Alerts (hard DELETE: one alert per root) and subscriptions (soft), at both roots.
  ...(['projects', 'environments'] as const).flatMap((root): Endpoint[] => {
    const alerts = `/api/${root}/${PROJECT}/alerts/`;
    const subscriptions = `/api/${root}/${PROJECT}/subscriptions/`;
    const alert = {
      name: `New ${root}`, subscribed_users: [], condition: { type: 'absolute_value' }, threshold: { configuration: { type: 'absolute', bounds: { upper: 10 } } },
      get insight() { return trendId; },
    };
    const subscription = { target_type: 'email', target_value: 'mia@example.com', frequency: 'weekly', start_date: '2026-01-05T09:00:00Z', get dashboard() { return dashboardId; } };
    return [
      { method: 'GET', pattern: `/api/${root}/:project/alerts/`, path: () => alerts, scope: 'alert:read' },
      { method: 'POST', pattern: `/api/${root}/:project/alerts/`, path: () => alerts, scope: 'alert:write', body: alert },
      { method: 'GET', pattern: `/api/${root}/:project/alerts/:id/`, path: (ids) => `${alerts}${ids.alert[root]}/`, scope: 'alert:read' },
      { method: 'PATCH', pattern: `/api/${root}/:project/alerts/:id/`, path: (ids) => `${alerts}${ids.alert[root]}/`, scope: 'alert:write', body: { enabled: false } },
      { method: 'DELETE', pattern: `/api/${root}/:project/alerts/:id/`, path: (ids) => `${alerts}${ids.alert[root]}/`, scope: 'alert:write' },
      { method: 'GET', pattern: `/api/${root}/:project/subscriptions/`, path: () => subscriptions, scope: 'subscription:read' },
      { method: 'POST', pattern: `/api/${root}/:project/subscriptions/`, path: () => subscriptions, scope: 'subscription:write', body: subscription },
      { method: 'GET', pattern: `/api/${root}/:project/subscriptions/:id/`, path: (ids) => `${subscriptions}${ids.subscription}/`, scope: 'subscription:read' },
      { method: 'PATCH', pattern: `/api/${root}/:project/subscriptions/:id/`, path: (ids) => `${subscriptions}${ids.subscription}/`, scope: 'subscription:write', body: { title: 'x' } },
      // Answers 405 to a caller that may write: deleted with PATCH {"deleted": true}.
      { method: 'DELETE', pattern: `/api/${root}/:project/subscriptions/:id/`, path: (ids) => `${subscriptions}${ids.subscription}/`, scope: 'subscription:write' },
      // The project's integrations (the seed's Slack one is 1), read for Slack subscriptions.
      { method: 'GET', pattern: `/api/${root}/:project/integrations/`, path: () => `/api/${root}/${PROJECT}/integrations/`, scope: 'integration:read' },
      { method: 'GET', pattern: `/api/${root}/:project/integrations/:id/`, path: () => `/api/${root}/${PROJECT}/integrations/1/`, scope: 'integration:read' },
      { method: 'GET', pattern: `/api/${root}/:project/integrations/:id/channels/`, path: () => `/api/${root}/${PROJECT}/integrations/1/channels/`, scope: 'integration:read' },
    ];
  }),
  { method: 'GET', pattern: '/api/organizations/', path: () => '/api/organizations/', scope: 'organization:read' },
  { method: 'GET', pattern: '/api/organizations/:org/', path: () => `/api/organizations/${ORG}/`, scope: 'organization:read' },
  { method: 'GET', pattern: '/api/users/@me/', path: () => '/api/users/@me/', scope: 'user:read' },
  { method: 'GET', pattern: '/api/personal_api_keys/@current/', path: () => '/api/personal_api_keys/@current/', scope: ANY_KEY },
  { method: 'GET', pattern: '/api/projects/:project/change_requests/', path: () => `/api/projects/${PROJECT}/change_requests/`, scope: 'feature_flag:read' },
  { method: 'GET', pattern: '/api/projects/:project/change_requests/:id/', path: (ids) => `/api/projects/${PROJECT}/change_requests/${ids.approve}/`, scope: 'feature_flag:read' },
  { method: 'POST', pattern: '/api/projects/:project/change_requests/:id/approve/', path: (ids) => `/api/projects/${PROJECT}/change_requests/${ids.approve}/approve/`, scope: 'feature_flag:write', body: {} },
  { method: 'POST', pattern: '/api/projects/:project/change_requests/:id/reject/', path: (ids) => `/api/projects/${PROJECT}/change_requests/${ids.reject}/reject/`, scope: 'feature_flag:write', body: {} },
];

/** Keys for the scope checks: for each scope, one with exactly it, and one with all but it. */
function scopeKeys() {
  const only = Object.fromEntries(SCOPES.map((s) => [s, canary(`phx_only_${s.replace(':', '_')}_`)])) as Record<Scope, string>;
  const without = Object.fromEntries(SCOPES.map((s) => [s, canary(`phx_without_${s.replace(':', '_')}_`)])) as Record<Scope, string>;
  const scopesWithout = (scope: Scope): string[] => {
    const [object, action] = scope.split(':') as [string, string];
    // Every other object with write (which implies read); for a write scope, its own read too.
    return [...OBJECTS.filter((o) => o !== object).map((o) => `${o}:write`), ...(action === 'write' ? [`${object}:read`] : [])];
  };
  const keys = [
    ...SCOPES.map((s) => ({ key: only[s], label: `only ${s}`, scopes: [s] })),
    ...SCOPES.map((s) => ({ key: without[s], label: `without ${s}`, scopes: scopesWithout(s) })),
  ];
  return { only, without, keys };
}

describe('sandbox: every endpoint checks the key and its scope', () => {
  const { only, without, keys } = scopeKeys();
  const seed: SeedDocument = {
    organizations: [{
      id: ORG,
      projects: [{
        id: PROJECT, name: 'Web app',
        // Two held changes, for the change request endpoints (one to approve, one to reject).
        flag_approvals: ['feature_flag.disable', 'feature_flag.update'],
        feature_flags: [{ key: 'existing', name: 'Existing', active: true, filters: { groups: [{ properties: [], rollout_percentage: 50 }] } }],
        persons: [{ distinct_id: 'user-1', properties: {} }],
        event_definitions: [{ name: 'signed_up' }],
        cohorts: [{ name: 'Staff' }],
        actions: [{ name: 'Signed up', steps: [{ event: 'signed_up' }] }],
        hog_functions: [{ name: 'Hook', type: 'destination', template_id: 'template-webhook', inputs: { url: { value: 'https://hooks.example.com/x' } } }],
        surveys: [{ name: 'Seeded survey', type: 'popover', questions: [{ type: 'open', question: 'Why?' }] }],
        early_access_features: [{ name: 'Seeded feature', stage: 'draft' }],
        insights: [{ name: 'Signups', query: { kind: 'HogQuery', code: 'return 1' } }, { name: 'Trend', query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x' }] } } }],
        dashboards: [{ name: 'Growth', tiles: [{ insight: 'Signups' }] }],
        experiment_holdouts: [{ name: 'Holdout', filters: [{ rollout_percentage: 5 }] }],
        experiment_saved_metrics: [{ name: 'Views', query: { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: '$pageview' } } }],
        experiments: [{ name: 'Test', feature_flag_key: 'test-experiment', parameters: { feature_flag_variants: [{ key: 'control' }, { key: 'test' }] } }],
        integrations: [{ kind: 'slack', name: 'Acme Slack', channels: ['growth'] }],
      }],
      proxy_records: [{ domain: 'e.example.com', status: 'valid' }],
      roles: [{ name: 'Support', members: ['mia@example.com'] }],
      invites: [{ email: 'invited@example.com' }],
    }],
    users: [{ first_name: 'Mia', email: 'mia@example.com', level: 'member' }, { first_name: 'Ron', email: 'ron@example.com', level: 'member' }],
    keys,
  };
  let sandbox: SandboxHandle;
  let ids: Ids;

  beforeAll(async () => {
    sandbox = await inProcessSandbox({ seed });
    const admin = api(sandbox.baseUrl, sandbox.apiKey);
    const first = async (path: string): Promise<Record<string, unknown>> => ((await admin.get(path)).body as { results: Record<string, unknown>[] }).results[0] as Record<string, unknown>;
    ids = {
      role: (await first(`/api/organizations/${ORG}/roles/`)).id as number,
      proxy: String((await first(`/api/organizations/${ORG}/proxy_records/`)).id),
      flag: (await first(flags)).id as number,
      approve: '',
      reject: '',
      definition: String((await first(`/api/projects/${PROJECT}/event_definitions/`)).id),
      cohort: (await first(`/api/projects/${PROJECT}/cohorts/`)).id as number,
      action: (await first(`/api/projects/${PROJECT}/actions/`)).id as number,
      hog: String((await first(`/api/projects/${PROJECT}/hog_functions/`)).id),
      holdout: (await first(`/api/projects/${PROJECT}/experiment_holdouts/`)).id as number,
      metric: (await first(`/api/projects/${PROJECT}/experiment_saved_metrics/`)).id as number,
      experiment: (await first(`/api/projects/${PROJECT}/experiments/`)).id as number,
      roleMember: '',
      invite: String((await first(`/api/organizations/${ORG}/invites/`)).id),
      survey: String((await first(`/api/projects/${PROJECT}/surveys/`)).id),
      feature: String((await first(`/api/projects/${PROJECT}/early_access_feature/`)).id),
      insight: (((await admin.get(`/api/projects/${PROJECT}/insights/`)).body as { results: Record<string, unknown>[] }).results.find((r) => r.name === 'Signups') as Record<string, unknown>).id as number,
      dashboard: (await first(`/api/projects/${PROJECT}/dashboards/`)).id as number,
      trend: (((await admin.get(`/api/projects/${PROJECT}/insights/`)).body as { results: Record<string, unknown>[] }).results.find((r) => r.name === 'Trend') as Record<string, unknown>).id as number,
      alert: { projects: '', environments: '' },
      subscription: 0,
    };
    trendId = ids.trend;
    dashboardId = ids.dashboard;
    for (const root of ['projects', 'environments'] as const) {
      const made = await admin.post(`/api/projects/${PROJECT}/alerts/`, { name: `Seeded ${root}`, insight: ids.trend, subscribed_users: [], condition: { type: 'absolute_value' }, threshold: { configuration: { type: 'absolute', bounds: { upper: 1 } } } });
      ids.alert[root] = String((made.body as Record<string, unknown>).id);
    }
    ids.subscription = ((await admin.post(`/api/projects/${PROJECT}/subscriptions/`, { dashboard: ids.dashboard, target_type: 'email', target_value: 'mia@example.com', frequency: 'weekly', start_date: '2026-01-05T09:00:00Z' })).body as Record<string, unknown>).id as number;
    ids.roleMember = String((await first(`/api/organizations/${ORG}/roles/${ids.role}/role_memberships/`)).id);
    ids.approve = ((await admin.patch(`${flags}${ids.flag}/`, { active: false })).body as { change_request_id: string }).change_request_id;
    ids.reject = ((await admin.patch(`${flags}${ids.flag}/`, { filters: { groups: [{ properties: [], rollout_percentage: 60 }] } })).body as { change_request_id: string }).change_request_id;
  });
  afterAll(stopAllSandboxes);

  it('the list covers every route and method the sandbox serves, with the scope it requires', async () => {
    const served = sandboxRoutes(await loadSandboxModels()).flatMap((r) => Object.entries(r.methods).map(([method, m]) => `${method} ${r.pattern} ${m?.scope}`)).sort();
    const listed = ENDPOINTS.map((e) => `${e.method} ${e.pattern} ${e.scope}`).sort();
    expect(listed).toEqual(served);
  });

  const label = (e: Endpoint) => `${e.method} ${e.pattern}`;

  it.each(ENDPOINTS.map((e) => [label(e), e] as const))('%s: 401 without a key and with an unknown key', async (_name, e) => {
    const none = await api(sandbox.baseUrl, null).call(e.method, e.path(ids), e.body);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ type: 'authentication_error', code: 'not_authenticated', attr: null });
    const unknown = await api(sandbox.baseUrl, canary('phx_unknown_')).call(e.method, e.path(ids), e.body);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ type: 'authentication_error', code: 'authentication_failed', attr: null });
  });

  const scoped = ENDPOINTS.flatMap((e) => (e.scope === NO_PERSONAL_KEYS || e.scope === ANY_KEY ? [] : [{ ...e, scope: e.scope }]));
  it.each(scoped.map((e) => [label(e), e] as const))('%s: 403 naming the scope for a key without it', async (_name, e) => {
    const r = await api(sandbox.baseUrl, without[e.scope]).call(e.method, e.path(ids), e.body);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: `API key missing required scope '${e.scope}'`, attr: null });
  });

  it('the project\'s activity action refuses every personal key, even one with every scope', async () => {
    for (const e of ENDPOINTS.filter((x) => x.scope === NO_PERSONAL_KEYS)) {
      const r = await api(sandbox.baseUrl, sandbox.apiKey).call(e.method, e.path(ids), e.body);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ type: 'authentication_error', code: 'permission_denied', detail: 'This action does not support Personal API Key access', attr: null });
    }
  });

  // Last: these calls change state (deletes run at the end, the project's own last).
  it('a key with exactly that scope gets through (the scope is the right one and enough)', async () => {
    const order = (e: Endpoint) => (e.method !== 'DELETE' ? 0 : e.pattern === item ? 2 : 1);
    for (const e of [...scoped].sort((a, b) => order(a) - order(b))) {
      const r = await api(sandbox.baseUrl, only[e.scope]).call(e.method, e.path(ids), e.body);
      // Flags, cohorts, actions, hog functions, insights and dashboards are deleted with PATCH {"deleted": true}, event definitions never: a DELETE answers 405 to a caller that may write.
      const softDeleted = ['feature_flag:write', 'event_definition:write', 'cohort:write', 'action:write', 'hog_function:write', 'insight:write', 'dashboard:write', 'subscription:write'];
      // Experiments too (their holdouts and saved metrics are deleted by DELETE, with the same scope).
      const soft = softDeleted.includes(e.scope) || e.pattern === '/api/projects/:project/experiments/:id/';
      const expected = e.method === 'DELETE' && soft ? [405] : [200, 201, 204];
      expect({ endpoint: label(e), status: r.status }, JSON.stringify(r.body)).toEqual({ endpoint: label(e), status: expect.toBeOneOf(expected) });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Small loopback servers that record every connection and request they get.
// ---------------------------------------------------------------------------------------------

interface Recorded { method: string; url: string; authorization: string | undefined }
interface Recorder { server: http.Server; host: string; port: number; origin: string; requests: Recorded[]; connections: number; close(): Promise<void> }
const recorders: Recorder[] = [];

async function recorder(host: string, answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => { res.writeHead(500).end(); }): Promise<Recorder> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    answer(req, res);
  });
  const rec: Recorder = {
    server, host, port: 0, origin: '', requests, connections: 0,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  server.on('connection', () => { rec.connections++; });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  rec.port = (server.address() as AddressInfo).port;
  rec.origin = `http://${host}:${rec.port}`;
  recorders.push(rec);
  return rec;
}

afterEach(async () => {
  await Promise.all(recorders.splice(0).map((r) => r.close()));
});

function oneLine(r: CliResult): string {
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines, r.stderr).toHaveLength(1);
  return lines[0] as string;
}

/** A non-loopback IPv4 address of this machine: traffic to it never leaves the machine. */
function ownAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// 2. Plain http:// only on loopback.
// ---------------------------------------------------------------------------------------------

describe('the CLI refuses plain http:// to a host that is not loopback', () => {
  let ws: Workspace;
  const key = canary('phx_http_canary_');
  beforeAll(() => {
    ws = workspace({ baseUrl: 'https://unused.invalid', apiKey: key });
    ws.write('h.yaml', config('roles:\n  - name: Support\n'));
  });
  afterAll(() => ws.remove());

  it.each([
    ['plan', ['plan', 'h.yaml']],
    ['drift', ['drift', 'h.yaml']],
    ['apply', ['apply', 'h.yaml', '--auto-approve']],
  ])('%s --base-url http://example.com: exit 1, one line, nothing printed on stdout', async (_verb, args) => {
    const r = await ws.cli([...args, '--base-url', 'http://example.com']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(oneLine(r)).toMatch(/^error: refusing to send the API key over plain http:\/\/ to example\.com; use https:\/\//);
    expectNoSecret({ stdout: r.stdout, stderr: r.stderr }, key);
  });

  it('also from HOGSYNC_BASE_URL, and for an IP address and a name that only look local', async () => {
    for (const base of ['http://10.0.0.1:8010', 'http://127.0.0.1.example.com', 'http://[::ffff:a00:1]/']) {
      const r = await ws.cli(['plan', 'h.yaml'], { HOGSYNC_BASE_URL: base });
      expect({ base, code: r.code }).toEqual({ base, code: 1 });
      expect(oneLine(r)).toMatch(/refusing to send the API key over plain http:\/\//);
    }
  });

  it.skipIf(ownAddress() === undefined)('makes no request at all: a server on a non-loopback address of this machine gets no connection', async () => {
    const target = await recorder(ownAddress() as string);
    const r = await ws.cli(['plan', 'h.yaml', '--base-url', target.origin, '--verbose']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refusing to send the API key over plain http:\/\//);
    expect(target.connections).toBe(0);
    expectNoSecret({ stdout: r.stdout, stderr: r.stderr }, key);
  });
});

describe('a base URL with credentials is refused at once, and the message never repeats them', () => {
  let ws: Workspace;
  const key = canary('phx_cred_canary_');
  const password = canary('pw');
  beforeAll(() => {
    ws = workspace({ baseUrl: 'https://unused.invalid', apiKey: key });
    ws.write('h.yaml', config('roles:\n  - name: Support\n'));
  });
  afterAll(() => ws.remove());

  it('from --base-url and from HOGSYNC_BASE_URL, for every command that talks to the API (nothing written, nothing asked)', async () => {
    const url = `https://deploy:${password}@eu.posthog.example`;
    const verbs: string[][] = [['plan', 'h.yaml', '--out', 'plan.json'], ['apply', 'h.yaml', '--auto-approve'], ['drift', 'h.yaml'], ['export'], ['show', 'role:*']];
    const runs = await Promise.all(verbs.flatMap((args) => [
      ws.cli([...args, '--base-url', url]).then((r) => ({ from: '--base-url', args, r })),
      ws.cli(['--base-url=' + url, ...args]).then((r) => ({ from: '--base-url', args, r })),
      ws.cli(args, { HOGSYNC_BASE_URL: url }).then((r) => ({ from: 'HOGSYNC_BASE_URL', args, r })),
    ]));
    for (const { from, args, r } of runs) {
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(oneLine(r)).toBe(`error: the base URL set by ${from} contains credentials (user:password@ before the host): remove them, it must be an origin such as https://eu.posthog.example; the API key comes only from HOGSYNC_API_KEY`);
      expect(r.stderr).not.toContain('deploy');
    }
    expect(() => readFileSync(ws.path('plan.json'))).toThrow();
    expectNoSecret(runs.flatMap(({ args, r }) => [{ label: `${args.join(' ')}: stdout`, text: r.stdout }, { label: `${args.join(' ')}: stderr`, text: r.stderr }]), [password, key]);
  });
});

// ---------------------------------------------------------------------------------------------
// 3. `next` links to another origin: their path and query only, asked of the configured origin.
// ---------------------------------------------------------------------------------------------

describe('a next link to another origin is followed by its path only: the key is not sent there', () => {
  const key = canary('phx_next_canary_');
  let ws: Workspace;
  afterEach(() => ws?.remove());

  /** An API answering the lists a roles-only plan reads; the roles list points `next` at `foreign(apiPort)`. */
  async function apiWithForeignNext(foreign: (apiPort: number) => string): Promise<Recorder> {
    let port = 0;
    const rec = await recorder('127.0.0.1', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.headers.authorization !== `Bearer ${key}`) return send(401, { type: 'authentication_error', code: 'authentication_failed', detail: 'Invalid key', attr: null });
      if (url.pathname === `/api/organizations/${ORG}/roles/` && !url.searchParams.has('offset')) {
        return send(200, {
          count: 2, previous: null,
          next: `${foreign(port)}/api/organizations/${ORG}/roles/?limit=1&offset=1`,
          results: [{ id: 1, name: 'Support', feature_flags_access_level: 21, created_at: '2024-01-01T00:00:00Z', created_by: null, members: [] }],
        });
      }
      if (url.pathname === `/api/organizations/${ORG}/roles/`) {
        return send(200, { count: 2, previous: null, next: null, results: [{ id: 2, name: 'Engineers', feature_flags_access_level: 21, created_at: '2024-01-01T00:00:00Z', created_by: null, members: [] }] });
      }
      if (url.pathname.endsWith('/proxy_records/') || url.pathname === `/api/organizations/${ORG}/projects/`) return send(200, { count: 0, next: null, previous: null, results: [] });
      return send(404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    });
    port = rec.port;
    return rec;
  }

  async function otherLoopbackHost(): Promise<Recorder> {
    try {
      return await recorder('127.0.0.2');
    } catch {
      return recorder('127.0.0.1'); // no 127.0.0.2 here (macOS): another port is another origin too
    }
  }

  const CASES: Array<[string, { foreignServer: boolean; origin: (apiPort: number, foreign?: Recorder) => string }]> = [
    ['another loopback address', { foreignServer: true, origin: (_p, f) => (f as Recorder).origin }],
    ['the same server under another name (localhost)', { foreignServer: false, origin: (p) => `http://localhost:${p}` }],
    ['the same host and port over https', { foreignServer: false, origin: (p) => `https://127.0.0.1:${p}` }],
  ];

  it.each(CASES)('%s: only its path and query are asked, of the configured origin; the other origin never is', async (_name, c) => {
    const foreign = c.foreignServer ? await otherLoopbackHost() : undefined;
    const server = await apiWithForeignNext((apiPort) => c.origin(apiPort, foreign));
    ws = workspace({ baseUrl: server.origin, apiKey: key });
    const file = ws.write('h.yaml', config('roles:\n  - name: Support\n'));

    for (const args of [['plan', file, '--format', 'json'], ['drift', file, '--format', 'json', '--verbose']]) {
      const r = await ws.cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      // Both pages were read: the second page's role is there.
      expect(JSON.parse(r.stdout).unmanaged.map((u: { key: string }) => u.key)).toEqual(['Engineers']);
      expectNoSecret({ stdout: r.stdout, stderr: r.stderr }, key);
    }
    // The API itself was asked for the second page, with the key; the other origin never was.
    expect(server.requests.some((q) => q.url === `/api/organizations/${ORG}/roles/?limit=1&offset=1` && q.authorization === `Bearer ${key}`)).toBe(true);
    if (foreign) expect({ connections: foreign.connections, requests: foreign.requests }).toEqual({ connections: 0, requests: [] });
  });
});

// ---------------------------------------------------------------------------------------------
// 4. The key (and a sensitive value) never appears in any output.
// ---------------------------------------------------------------------------------------------

describe('the API key never appears in any output', () => {
  const KEY = canary('phx_canary_all_');
  const READ_ONLY = canary('phx_canary_read_');
  const WRONG = canary('phx_canary_wrong_');
  const WEBHOOK = `https://hooks.example.test/services/${randomBytes(16).toString('hex')}`;
  const SECRETS = [KEY, READ_ONLY, WRONG, WEBHOOK];
  const seed: SeedDocument = {
    organizations: [{
      id: ORG,
      projects: [{ id: PROJECT, name: 'Web app', timezone: 'UTC', feature_flags: [{ key: 'old', name: 'Old', active: true }], persons: [{ distinct_id: 'u1', properties: {} }] }],
      proxy_records: [{ domain: 'old.example.com' }],
      roles: [{ name: 'Support', feature_flags_access_level: 21 }],
    }],
    keys: [
      { key: KEY, scopes: ['*'] },
      { key: READ_ONLY, scopes: ['project:read', 'organization:read', 'feature_flag:read'] },
    ],
  };
  const CONFIG = config(`projects:
  - id: ${PROJECT}
    timezone: Europe/Berlin
    slack_incoming_webhook: \${env:SLACK_WEBHOOK}
    feature_flags:
      - key: new-flag
        name: New
        active: true
        filters: { groups: [ { properties: [], rollout_percentage: 30 } ] }
proxy_records:
  - domain: new.example.com
roles:
  - name: Engineers
    feature_flags_access_level: 37
`);

  let sandbox: SandboxHandle;
  let ws: Workspace;
  const outputs: Array<{ label: string; text: string }> = [];
  const env = { SLACK_WEBHOOK: WEBHOOK };

  /** Runs the CLI and keeps what it printed (and any file it wrote) for the final check. */
  async function run(label: string, args: string[], extraEnv: Record<string, string> = {}, files: string[] = []): Promise<CliResult> {
    const r = await ws.cli(args, { ...env, ...extraEnv });
    outputs.push({ label: `${label}: stdout`, text: r.stdout }, { label: `${label}: stderr`, text: r.stderr });
    for (const f of files) {
      try {
        outputs.push({ label: `${label}: ${f}`, text: readFileSync(ws.path(f), 'utf8') });
      } catch {
        // not written (an error run): nothing to look at
      }
    }
    return r;
  }

  beforeAll(async () => {
    sandbox = await inProcessSandbox({ seed });
    ws = workspace({ baseUrl: sandbox.baseUrl, apiKey: KEY });
    ws.write('h.yaml', CONFIG);
    ws.write('bad.yaml', config('projects:\n  - id: 12345\n    timezone: ${env:SLACK_WEBHOOK}\n    slack_incoming_webhook: ${env:SLACK_WEBHOOK}\n    no_such_field: ${env:SLACK_WEBHOOK}\n'));
    ws.write('missing-project.yaml', config('projects:\n  - id: 99999\n    name: Nope\n'));
  });
  afterAll(async () => {
    ws.remove();
    await stopAllSandboxes();
  });

  it('in validate, plan and drift in every format, export, and their errors (also with --verbose)', async () => {
    const results = await Promise.all([
      run('validate', ['validate', 'h.yaml']),
      run('validate invalid', ['validate', 'bad.yaml', '--verbose']),
      run('validate long secret', ['validate', 'h.yaml'], { SLACK_WEBHOOK: `${WEBHOOK}/${'x'.repeat(600)}` }),
      run('plan text', ['plan', 'h.yaml', '--verbose']),
      run('plan json', ['plan', 'h.yaml', '--format', 'json', '--out', 'plan-a.json'], {}, ['plan-a.json']),
      run('plan markdown', ['plan', 'h.yaml', '--format', 'markdown', '--detailed-exitcode']),
      run('plan 404', ['plan', 'missing-project.yaml', '--verbose']),
      ...['text', 'json', 'markdown'].map((f) => run(`drift ${f}`, ['drift', 'h.yaml', '--format', f, '--verbose'])),
      run('drift junit file', ['drift', 'h.yaml', '--format', 'junit', '--out', 'drift.xml'], {}, ['drift.xml']),
      run('export', ['export', '--organization', ORG, '--out', 'export.yaml', '--verbose'], {}, ['export.yaml']),
      run('plan, wrong key (401) --verbose', ['plan', 'h.yaml', '--verbose'], { HOGSYNC_API_KEY: WRONG }),
      run('drift, wrong key (401)', ['drift', 'h.yaml', '--format', 'junit'], { HOGSYNC_API_KEY: WRONG }),
      run('plan, read-only key (blast radius 403)', ['plan', 'h.yaml', '--format', 'json', '--verbose'], { HOGSYNC_API_KEY: READ_ONLY }),
    ]);
    const labels = ['validate', 'validate invalid', 'validate long secret', 'plan text', 'plan json', 'plan markdown', 'plan 404',
      'drift text', 'drift json', 'drift markdown', 'drift junit file', 'export', 'plan 401', 'drift 401', 'plan read-only'];
    expect(Object.fromEntries(results.map((r, i) => [labels[i], r.code]))).toEqual({
      'validate': 0, 'validate invalid': 1, 'validate long secret': 1, 'plan text': 0, 'plan json': 0, 'plan markdown': 2, 'plan 404': 1,
      'drift text': 2, 'drift json': 2, 'drift markdown': 2, 'drift junit file': 2,
      'export': expect.any(Number), // whatever it answers (it may not be built yet), it must not print the key
      'plan 401': 1, 'drift 401': 1, 'plan read-only': 0,
    });
    expect(readFileSync(ws.path('plan-a.json'), 'utf8')).toContain('(sensitive)');
    expectNoSecret(outputs, SECRETS);
  });

  it('in apply: text and JSON reports, a stale plan, no terminal, failures with a key that may not write', async () => {
    expect((await run('plan to apply', ['plan', 'h.yaml', '--out', 'plan.json'], {}, ['plan.json'])).code).toBe(0);
    const refused = await run('apply without a terminal', ['apply', 'h.yaml']);
    expect(refused.code).toBe(1);
    const denied = await run('apply, read-only key', ['apply', 'h.yaml', '--auto-approve', '--format', 'json', '--verbose'], { HOGSYNC_API_KEY: READ_ONLY });
    expect(denied.code).toBe(1);
    expect(denied.stdout + denied.stderr).toContain('organization:write');
    // Somebody changes the workspace between plan and apply: the saved plan is stale.
    await api(sandbox.baseUrl, KEY).post(`/api/organizations/${ORG}/roles/`, { name: 'Engineers', feature_flags_access_level: 21 });
    const stale = await run('apply stale plan', ['apply', '--plan', 'plan.json', '--auto-approve', '--verbose']);
    expect(stale.code).toBe(1);
    expect((await run('apply text', ['apply', 'h.yaml', '--auto-approve'])).code).toBe(0);
    writeFileSync(ws.path('h.yaml'), CONFIG.replace('rollout_percentage: 30', 'rollout_percentage: 60'));
    expect((await run('apply json', ['apply', 'h.yaml', '--auto-approve', '--format', 'json'])).code).toBe(0);
    expect((await run('apply, nothing to do', ['apply', 'h.yaml', '--auto-approve', '--format', 'json'])).code).toBe(0);
    expect((await run('apply, wrong key --verbose', ['apply', 'h.yaml', '--auto-approve', '--verbose'], { HOGSYNC_API_KEY: WRONG })).code).toBe(1);
    expectNoSecret(outputs, SECRETS);
  });

  it('even when the API echoes the key back in its error messages (plan errors, apply reports)', async () => {
    // In front of the sandbox: reads pass through, except the proxy records list when asked
    // to fail; every write fails with a 400 whose detail quotes the Authorization header.
    let failReads = true;
    const echo = await recorder('127.0.0.1', (req, res) => {
      const fail = req.method !== 'GET' || (failReads && (req.url ?? '').includes('/proxy_records/'));
      if (fail) {
        req.resume();
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'validation_error', code: 'invalid', detail: `Rejected request with header ${req.headers.authorization}`, attr: null }));
        return;
      }
      fetch(`${sandbox.baseUrl}${req.url}`, { headers: { authorization: req.headers.authorization ?? '' } })
        .then(async (up) => res.writeHead(up.status, { 'content-type': 'application/json' }).end(await up.text()))
        .catch(() => res.writeHead(502).end());
    });
    ws.write('echo.yaml', config('roles:\n  - name: Echo team\nproxy_records:\n  - domain: echo.example.com\n'));
    const plan = await run('plan, API echoing the key', ['plan', 'echo.yaml', '--base-url', echo.origin, '--verbose']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(/→ 400: Rejected request with header/);
    failReads = false;
    // Roles only: the organization holds as many proxy records as it may (a create past that is a plan error).
    ws.write('echo-apply.yaml', config('roles:\n  - name: Echo team\n'));
    const text = await run('apply text, API echoing the key', ['apply', 'echo-apply.yaml', '--auto-approve', '--base-url', echo.origin]);
    const json = await run('apply json, API echoing the key', ['apply', 'echo-apply.yaml', '--auto-approve', '--format', 'json', '--base-url', echo.origin, '--verbose']);
    expect([text.code, json.code]).toEqual([1, 1]);
    expect(json.stdout, json.stderr).toMatch(/Rejected request with header/);
    expectNoSecret(outputs, SECRETS);
  });

  it('in the sandbox itself: its --verbose request log never shows the keys callers send', async () => {
    const seedFile = ws.write('seed.json', JSON.stringify(seed));
    const spawned = await spawnSandbox(['--seed', seedFile, '--verbose']);
    const r = await run('plan against a spawned sandbox', ['plan', 'h.yaml', '--base-url', spawned.baseUrl]);
    expect(r.code).toBe(0);
    await run('plan with a wrong key against a spawned sandbox', ['plan', 'h.yaml', '--base-url', spawned.baseUrl], { HOGSYNC_API_KEY: WRONG });
    await spawned.stop();
    expect(spawned.stderr()).toMatch(/GET \/api\/organizations\//);
    // The sandbox prints its own all-scope key on stdout by design; never a key it was sent.
    expectNoSecret({ 'sandbox stdout': spawned.stdout(), 'sandbox stderr': spawned.stderr() }, [KEY, WRONG]);
    expectNoSecret(outputs, SECRETS);
  });
});
