// Alerts and subscriptions of examples/analytics end to end, through the real CLI against one
// sandbox seeded with the example's workspace: the Growth dashboard's weekly email and the alert
// on Weekly signups (for Alice and Bob, by email) converge and plan empty, and creating the
// subscriptions is said to send a delivery (the sandbox counts them); the sandbox refuses what the
// API refuses of a subscription; an unsubscribe is drift attributed to the recipient, and re-adding
// them says it invites them again; the insight cannot be deleted while its alert is declared, and
// with the alert taken out the plan names the alert the API deletes with it; both kinds export
// nested under their insight and dashboard, and the export plans empty.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, inProcessSandbox, ROOT, stopAllSandboxes, type Api } from './support/sandbox.js';
import { ORG, workspace, type Workspace } from './support/workspace.js';
import { fixtureProblems, recordCliRequests, type SentRequest } from './support/cli-requests.js';

type Rec = Record<string, unknown>;
type PlanJson = { changes: Array<Rec & { address: string; action: string }> };
const EXAMPLE = join(ROOT, 'examples/analytics');
const SUBSCRIPTION = (p: number) => `subscription:${ORG}/${p}/dashboard/Growth/Weekly growth email`;
const ALERT = (p: number) => `alert:${ORG}/${p}/Weekly signups/Signups dropped`;

let sandbox: SandboxHandle;
let ws: Workspace;
let http: Api;
let file: string;
/** What the CLI sent (its user agent) for alerts and subscriptions, checked against the OpenAPI fixture at the end. */
let sent: SentRequest[] = [];

beforeAll(async () => {
  sandbox = await inProcessSandbox({ seed: join(EXAMPLE, 'sandbox/seed.yaml') });
  ws = workspace(sandbox);
  http = api(sandbox.baseUrl, sandbox.apiKey);
  cpSync(EXAMPLE, ws.dir, { recursive: true });
  sent = recordCliRequests(sandbox, /\/(alerts|subscriptions)\//);
  file = ws.path('hogsync.yaml');
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const clean = (args: string[]) => ws.clean(args);
/** The fields of a daily email subscription "DAU daily", and a file declaring one with `fields` under the Daily active users insight. */
const DAU = `            target_type: email
            target_value: [ alice@example.com ]
            frequency: daily
            start_date: 2026-01-05T09:00:00Z
`;
const underDailyUsers = (fields: string) => `organization: ${ORG}
projects:
  - id: 3001
    insights:
      - name: Daily active users
        subscriptions:
          - title: DAU daily
${fields}`;
const deliveries = async () => (await (await fetch(`${sandbox.baseUrl}/_sandbox/deliveries/`, { method: 'POST' })).json()) as Record<string, number>;
const subscriptionsOf = async (p: number) => ((await http.get(`/api/projects/${p}/subscriptions/`)).body as { results: Rec[] }).results;

describe('alerts and subscriptions of examples/analytics', () => {
  it('converge: the plan says which changes send a delivery, apply sends one per subscription, and the plan is then empty', async () => {
    const planned = JSON.parse((await clean(['plan', file, '--format', 'json'])).stdout) as PlanJson;
    const subscription = planned.changes.find((c) => c.address === SUBSCRIPTION(3001));
    expect(subscription).toMatchObject({ action: 'create', sends_delivery: true });
    expect(planned.changes.find((c) => c.address === ALERT(3001))?.sends_delivery).toBeUndefined();
    // Alerts after their insight; subscriptions after their dashboard.
    const order = planned.changes.map((c) => c.address);
    expect(order.indexOf(ALERT(3001))).toBeGreaterThan(order.indexOf(`insight:${ORG}/3001/Weekly signups`));
    expect(order.indexOf(SUBSCRIPTION(3001))).toBeGreaterThan(order.indexOf(`dashboard:${ORG}/3001/Growth`));
    const markdown = (await clean(['plan', file, '--format', 'markdown'])).stdout;
    expect(markdown).toContain('sends a delivery now');

    await clean(['apply', file, '--auto-approve']);
    expect(Object.values(await deliveries())).toEqual([1, 1, 1]);
    const [live] = await subscriptionsOf(3001);
    expect(live).toMatchObject({ target_value: 'alice@example.com,bob@example.com', frequency: 'weekly', byweekday: ['monday'] });
    expect((live as Rec).dashboard_export_insights).toHaveLength(2);
    const alert = ((await http.get('/api/projects/3001/alerts/')).body as { results: Rec[] }).results[0] as Rec;
    expect((alert.subscribed_users as Rec[]).map((u) => u.email).sort()).toEqual(['alice@example.com', 'bob@example.com']);
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    expect(Object.values(await deliveries())).toEqual([1, 1, 1]);
  });

  it('the sandbox refuses what the API refuses of a subscription', async () => {
    const dashboard = ((await subscriptionsOf(3001))[0] as Rec).dashboard;
    const base = { dashboard, target_type: 'email', target_value: 'alice@example.com', frequency: 'weekly', start_date: '2026-01-05T09:00:00Z' };
    const refusals: Array<[Rec, RegExp]> = [
      [{ until_date: '2020-01-01T00:00:00Z' }, /schedule has already ended/],
      [{ dashboard_export_insights: [1, 2, 3, 4, 5, 6, 7] }, /more than 6 insights/],
      [{ dashboard_export_insights: [99999] }, /not on the subscription's dashboard/],
      [{ frequency: 'hourly' }, /not a valid choice/],
      [{ insight: 1 }, /Exactly one of dashboard or insight/],
    ];
    for (const [over, message] of refusals) {
      const r = await http.post('/api/projects/3001/subscriptions/', { ...base, ...over });
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(String((r.body as Rec).detail)).toMatch(message);
    }
    const id = String(((await subscriptionsOf(3001))[0] as Rec).id);
    expect((await http.delete(`/api/projects/3001/subscriptions/${id}/`)).status).toBe(405);
    expect((await http.patch(`/api/projects/3001/subscriptions/${id}/`, { dashboard: 99 })).status).toBe(400);
    // A change of schedule delivers nothing; turning it off and on again delivers once.
    const item = `/api/projects/3001/subscriptions/${id}/`;
    await http.patch(item, { frequency: 'daily' });
    await http.patch(item, { frequency: 'weekly', enabled: false });
    expect((await deliveries())[id]).toBe(1);
    await http.patch(item, { enabled: true });
    expect((await deliveries())[id]).toBe(2);
  });

  it('refuses offline an exported insight the dashboard does not show, and at plan time a schedule that has ended', async () => {
    const offDashboard = ws.write('off.yaml', `organization: ${ORG}
projects:
  - id: 3001
    dashboards:
      - name: Growth
        tiles: [ { insight: Weekly signups } ]
        subscriptions:
          - title: Weekly growth email
            insights: [ Weekly signups, Signup funnel ]
`);
    const refused = await ws.cli(['validate', offDashboard]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/off\.yaml:9:41: .*Signup funnel is not on the dashboard: the API delivers only insights the dashboard shows/);
    const ended = ws.write('ended.yaml', `organization: ${ORG}
projects:
  - id: 3001
    dashboards:
      - name: Growth
        subscriptions:
          - title: Weekly growth email
            until_date: 2020-01-01T00:00:00Z
`);
    const r = await ws.cli(['plan', ended]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ended\.yaml:7:\d+: .*until_date 2020-01-01T00:00:00Z has passed: the API refuses a schedule that has already ended/);
  });

  it('an unsubscribe is drift attributed to the recipient, and listing them again says it invites them again', async () => {
    const id = String(((await subscriptionsOf(3001))[0] as Rec).id);
    await fetch(`${sandbox.baseUrl}/_sandbox/unsubscribe/?subscription=${id}&email=bob@example.com`, { method: 'POST' });
    const drift = await ws.cli(['drift', file, '--format', 'json']);
    expect(drift.code).toBe(2);
    const change = (JSON.parse(drift.stdout) as PlanJson).changes.find((c) => c.address === SUBSCRIPTION(3001)) as Rec;
    expect(change.fields).toEqual([expect.objectContaining({ path: 'target_value', attribution: expect.objectContaining({ by: 'bob@example.com' }) })]);
    const since = await ws.cli(['drift', file, '--since', '1h']);
    expect(since.stdout).toContain(`${SUBSCRIPTION(3001)}`);
    expect(since.stdout).toContain('changed by bob@example.com');

    const plan = await ws.cli(['plan', file]);
    expect(plan.stdout).toContain('adds bob@example.com to the recipients: the API sends each of them the subscription, which invites again anyone who unsubscribed');
    expect(plan.stdout).toContain('sends a delivery now');
    const before = (await deliveries())[id] ?? 0;
    await clean(['apply', file, '--auto-approve']);
    expect((await deliveries())[id]).toBe(before + 1);
  });

  it('refuses to delete the insight while its alert is declared; without the alert, the plan names the alert the API deletes', async () => {
    const text = readFileSync(file, 'utf8');
    const doomed = text.replace('    description: Unique users who signed up, by week, staff excluded\n', '    ensure: absent\n');
    ws.write('hogsync.yaml', doomed);
    const refused = await ws.cli(['plan', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/insight Weekly signups is declared absent .*so it cannot have alerts: the API deletes them with it/);

    const withoutAlert = doomed.replace(/    alerts:[^\n]*\n(?: {6,}[^\n]*\n)+/, '').replace(/      - insight: Weekly signups\n        layout: [^\n]*\n/, '')
      .replace('insights: [ Weekly signups, Revenue by plan ]', 'insights: [ Revenue by plan ]');
    expect(withoutAlert).not.toContain('alerts:');
    ws.write('hogsync.yaml', withoutAlert);
    const planned = JSON.parse((await clean(['plan', file, '--format', 'json'])).stdout) as PlanJson;
    const gone = planned.changes.find((c) => c.address === `insight:${ORG}/3001/Weekly signups`);
    expect(gone).toMatchObject({ action: 'delete', also_deletes: [ALERT(3001)] });
    expect((await clean(['plan', file])).stdout).toContain(`the API also deletes alert ${ALERT(3001)} with this change`);
    ws.write('hogsync.yaml', text);
  });

  it('exports both kinds nested under their insight and dashboard (export and show), and the export plans empty', async () => {
    await clean(['export', '--organization', ORG, '--kind', 'insights', '--kind', 'dashboards', '--out', ws.path('exported.yaml')]);
    const exported = readFileSync(ws.path('exported.yaml'), 'utf8');
    expect(exported).toMatch(/alerts:\n\s+- name: Signups dropped/);
    expect(exported).toMatch(/subscriptions:\n\s+- title: Weekly growth email/);
    expect(exported).toMatch(/subscribed_users:\n\s+- alice@example\.com\n\s+- bob@example\.com/);
    expect(exported).toMatch(/insights:\n\s+- Weekly signups\n\s+- Revenue by plan/);
    const again = await ws.cli(['plan', ws.path('exported.yaml'), '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    // show reads only what the addresses reach, and writes the items under their parents.
    const shown = await clean(['show', ALERT(3001), `subscription:${ORG}/3001/dashboard/Growth/*`]);
    expect(shown.stdout).toMatch(/- name: Weekly signups\n\s+alerts:\n\s+- name: Signups dropped/);
    expect(shown.stdout).toMatch(/- name: Growth\n\s+subscriptions:\n\s+- title: Weekly growth email/);
  });

  it('ensure: absent deletes a subscription (PATCH deleted), and the plan is then empty', async () => {
    const text = readFileSync(file, 'utf8');
    ws.write('hogsync.yaml', text.replace('      - title: Weekly growth email\n', '      - title: Weekly growth email\n        ensure: absent\n'));
    const planned = JSON.parse((await clean(['plan', file, '--format', 'json'])).stdout) as PlanJson;
    expect(planned.changes.filter((c) => c.kind === 'subscription').map((c) => c.action)).toEqual(['delete', 'delete', 'delete']);
    await clean(['apply', file, '--auto-approve']);
    expect(await subscriptionsOf(3001)).toEqual([]);
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    ws.write('hogsync.yaml', text);
  });

  it('a subscription under an insight: created with the insight as its subject, plans empty, exported under the insight; moved to the dashboard it is a delete and a create', async () => {
    const INSIGHT_SUB = `subscription:${ORG}/3001/insight/Daily active users/DAU daily`;
    const DASHBOARD_SUB = `subscription:${ORG}/3001/dashboard/Growth/DAU daily`;
    const own = ws.write('insight-subscription.yaml', underDailyUsers(DAU));
    const planned = JSON.parse((await clean(['plan', own, '--format', 'json'])).stdout) as PlanJson;
    expect(planned.changes.map((c) => [c.address, c.action, c.sends_delivery])).toEqual([[INSIGHT_SUB, 'create', true]]);
    await clean(['apply', own, '--auto-approve']);
    const insight = (((await http.get('/api/projects/3001/insights/?basic=true')).body as { results: Rec[] }).results.find((i) => i.name === 'Daily active users') as Rec).id;
    const live = (await subscriptionsOf(3001)).find((r) => r.title === 'DAU daily') as Rec;
    expect(live).toMatchObject({ insight, dashboard: null, target_value: 'alice@example.com' });
    expect((await deliveries())[String(live.id)]).toBe(1);
    expect((await ws.cli(['plan', own, '--detailed-exitcode'])).code).toBe(0);

    // show and export write it under its insight; the export plans empty.
    expect((await clean(['show', INSIGHT_SUB])).stdout).toMatch(/- name: Daily active users\n\s+subscriptions:\n\s+- title: DAU daily/);
    await clean(['export', '--organization', ORG, '--project', '3001', '--kind', 'subscriptions', '--out', ws.path('subscriptions.yaml')]);
    const exported = readFileSync(ws.path('subscriptions.yaml'), 'utf8');
    expect(exported).toMatch(/insights:\n\s+- name: Daily active users\n\s+subscriptions:\n\s+- title: DAU daily/);
    const again = await ws.cli(['plan', ws.path('subscriptions.yaml'), '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);

    // The API fixes the subject at create: moved in the file to the dashboard, it is created there and deleted where it was.
    const moved = ws.write('insight-subscription.yaml', `organization: ${ORG}
projects:
  - id: 3001
    insights:
      - name: Daily active users
    dashboards:
      - name: Growth
        subscriptions:
          - title: DAU daily
${DAU}`);
    const move = JSON.parse((await clean(['plan', moved, '--format', 'json'])).stdout) as PlanJson;
    expect(move.changes.filter((c) => c.kind === 'subscription').map((c) => [c.address, c.action])).toEqual([[DASHBOARD_SUB, 'create'], [INSIGHT_SUB, 'delete']]);
    expect(move.changes.find((c) => c.action === 'delete')?.notes).toEqual([`moved to ${DASHBOARD_SUB}: the API fixes a subscription's dashboard or insight at create, so it is deleted here and created there`]);
    await clean(['apply', moved, '--auto-approve']);
    expect((await subscriptionsOf(3001)).filter((r) => r.title === 'DAU daily').map((r) => (r.dashboard === null ? 'insight' : 'dashboard'))).toEqual(['dashboard']);
    expect((await ws.cli(['plan', moved, '--detailed-exitcode'])).code).toBe(0);
    // Titles are not unique: one of the same title that already stands where the file declares it leaves the other alone.
    await http.post('/api/projects/3001/subscriptions/', { insight, title: 'DAU daily', target_type: 'email', target_value: 'bob@example.com', frequency: 'daily', start_date: '2026-01-05T09:00:00Z' });
    const other = await ws.cli(['plan', moved, '--detailed-exitcode']);
    expect(other.code, other.stdout + other.stderr).toBe(0);
    expect(other.stdout).toContain(`? ${INSIGHT_SUB}`);
  });

  it('refuses offline an insight\'s subscription that names insights to deliver (only a dashboard\'s may)', async () => {
    const bad = ws.write('bad-insight-subscription.yaml', underDailyUsers('            insights: [ Daily active users ]\n'));
    const r = await ws.cli(['validate', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad-insight-subscription\.yaml:8:13: field "insights" is not allowed in subscription: `insights` names the insights a dashboard's subscription delivers; an insight's subscription delivers that insight/);
  });

  it('every alert and subscription request the CLI sent is one the OpenAPI fixture accepts', () => {
    expect(sent.filter((r) => r.method !== 'GET').length).toBeGreaterThan(5);
    const problems = fixtureProblems(sent);
    expect(problems).toEqual([]);
  });
});
