// Alerts as code, against one sandbox: the sandbox refuses what the real API refuses (every
// refusal of the Real-API bullet), resets an alert's state on a threshold or condition write and
// deletes an insight's alerts with it; validate refuses offline what is knowable from the file, at
// file:line:col; plan resolves subscribed users by member email, checks the free tier's limit and
// an API that serves alerts to no personal key before anything is sent, names the alerts the API
// deletes with an insight, and plans empty once applied.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { ORG, workspace, type Workspace } from './support/workspace.js';

type Rec = Record<string, unknown>;
const OLD_ORG = '0190d1c4-6a1e-7c3d-8e4f-00000000a1e7';
const trends = (series: number, display?: string) => ({
  kind: 'InsightVizNode',
  source: { kind: 'TrendsQuery', series: Array.from({ length: series }, () => ({ kind: 'EventsNode', event: '$pageview' })), ...(display ? { trendsFilter: { display } } : {}) },
});
const FUNNEL = { kind: 'InsightVizNode', source: { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'a' }, { kind: 'EventsNode', event: 'b' }] } };

let sandbox: SandboxHandle;
let ws: Workspace;
let http: Api;
const ids: Record<string, number> = {};

beforeAll(async () => {
  sandbox = await inProcessSandbox({
    seed: {
      users: [{ first_name: 'Alice', email: 'alice@example.com' }, { first_name: 'Bob', email: 'bob@example.com' }, { first_name: 'Carol', email: 'carol@elsewhere.test' }],
      organizations: [
        {
          id: ORG,
          // Every feature but alerts: two alerts per project.
          features: ['data_management', 'tagging', 'advanced_permissions', 'role_based_access', 'organizations_projects', 'audit_logs'],
          members: ['alice@example.com', 'bob@example.com'],
          projects: [{
            id: 12345, name: 'Web',
            insights: [
              { name: 'Signups', query: trends(2) },
              { name: 'Funnel', query: FUNNEL },
              { name: 'Big number', query: trends(1, 'BoldNumber') },
              { name: 'Spare', query: trends(1) },
              { name: 'Doomed', query: trends(1) },
            ],
          }],
        },
        // An organization's own seed key (the alert model's section): not in the kit's seed type.
        { id: OLD_ORG, ...({ alerts_for_personal_keys: false } as object), members: ['carol@elsewhere.test'], projects: [{ id: 777, name: 'Old', insights: [{ name: 'Old signups', query: trends(1) }] }] },
      ],
    },
  });
  ws = workspace(sandbox);
  http = api(sandbox.baseUrl, sandbox.apiKey);
  const listed = (await http.get('/api/projects/12345/insights/?basic=true')).body as { results: Rec[] };
  for (const r of listed.results) ids[String(r.name)] = r.id as number;
  const users = (await http.get(`/api/organizations/${ORG}/members/`)).body as { results: Array<{ user: Rec }> };
  for (const m of users.results) ids[String(m.user.email)] = m.user.id as number;
  const old = (await http.get(`/api/organizations/${OLD_ORG}/members/`)).body as { results: Array<{ user: Rec }> };
  for (const m of old.results) ids[String(m.user.email)] ??= m.user.id as number;
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const alerts = '/api/projects/12345/alerts/';
const body = (over: Rec = {}): Rec => ({
  name: 'Dropped', insight: ids.Signups, subscribed_users: [ids['alice@example.com']],
  condition: { type: 'relative_decrease' }, threshold: { configuration: { type: 'percentage', bounds: { lower: 0.2 } } },
  config: { type: 'TrendsAlertConfig', series_index: 0 }, calculation_interval: 'daily', ...over,
});
const detail = (r: { body: unknown }) => String((r.body as Rec).detail);
const clear = async () => {
  for (const a of ((await http.get(alerts)).body as { results: Rec[] }).results) await http.delete(`${alerts}${String(a.id)}/`);
};

describe('the sandbox keeps alerts as the API does', () => {
  it('answers the insight, the users and the threshold as objects, and refuses what the API refuses', async () => {
    const made = await http.post(alerts, body());
    expect(made.status).toBe(201);
    const a = made.body as Rec;
    expect(a.insight).toMatchObject({ id: ids.Signups, name: 'Signups' });
    expect((a.subscribed_users as Rec[]).map((u) => u.email)).toEqual(['alice@example.com']);
    expect(a.threshold).toMatchObject({ id: expect.any(String), configuration: { type: 'percentage', bounds: { lower: 0.2 } } });
    const refusals: Array<[Rec, RegExp]> = [
      [{ insight: ids.Funnel }, /Alerts are not supported for this insight/],
      [{ config: { type: 'TrendsAlertConfig', series_index: 2 } }, /series_index 2 is past the insight's series/],
      [{ insight: ids['Big number'] }, /relative condition needs a time series/],
      [{ condition: { type: 'absolute_value' } }, /absolute_value needs an absolute threshold/],
      [{ threshold: { configuration: { type: 'absolute', bounds: { lower: 5, upper: 1 } } }, condition: { type: 'absolute_value' } }, /lower bound 5 is above the upper bound 1/],
      [{ subscribed_users: [ids['carol@elsewhere.test']] }, /does not belong to this organization/],
    ];
    for (const [over, message] of refusals) {
      const r = await http.post(alerts, body(over));
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(detail(r)).toMatch(message);
    }
    // Two per project without the alerts feature.
    expect((await http.post(alerts, body({ name: 'Second' }))).status).toBe(201);
    const third = await http.post(alerts, body({ name: 'Third' }));
    expect(third.status).toBe(400);
    expect(detail(third)).toMatch(/limit of 2 alerts/);
    await clear();
  });

  it('resets the state on a threshold or condition write only, and deletes alerts with their insight or a query that cannot carry them', async () => {
    const id = String(((await http.post(alerts, body())).body as Rec).id);
    await fetch(`${sandbox.baseUrl}/_sandbox/check-alerts/`, { method: 'POST' });
    const state = async () => ((await http.get(`${alerts}${id}/`)).body as Rec).state;
    expect(await state()).toBe('Firing');
    await http.patch(`${alerts}${id}/`, { enabled: true, calculation_interval: 'weekly' });
    expect(await state()).toBe('Firing');
    await http.patch(`${alerts}${id}/`, { threshold: { configuration: { type: 'percentage', bounds: { lower: 0.3 } } } });
    expect(await state()).toBe('Not firing');

    const spare = `/api/projects/12345/insights/${ids.Spare}/`;
    await http.post(alerts, body({ name: 'On spare', insight: ids.Spare }));
    expect((await http.patch(spare, { query: FUNNEL })).status).toBe(200);
    expect(((await http.get(`${alerts}?insight=${ids.Spare}`)).body as { results: Rec[] }).results).toEqual([]);
    const doomed = String(((await http.post(alerts, body({ name: 'On doomed', insight: ids.Doomed }))).body as Rec).id);
    expect((await http.patch(`/api/projects/12345/insights/${ids.Doomed}/`, { deleted: true })).status).toBe(200);
    expect((await http.get(`${alerts}${doomed}/`)).status).toBe(404);
    await clear();
  });

  it('serves alerts to no personal key where the organization runs an older version (403 for every scope)', async () => {
    const r = await http.get('/api/projects/777/alerts/');
    expect(r.status).toBe(403);
  });
});

const file = (alertsYaml: string, insight = 'Signups', extra = '') => `organization: ${ORG}
projects:
  - id: 12345
    insights:
      - name: ${insight}
        query: { kind: InsightVizNode, source: { kind: TrendsQuery, series: [ { kind: EventsNode, event: $pageview }, { kind: EventsNode, event: $pageview } ] } }
        alerts:
${alertsYaml}${extra}`;
const ALERT = `          - name: Dropped
            skip_weekend: false
            condition: { type: relative_decrease }
            threshold: { configuration: { type: percentage, bounds: { lower: 0.2 } } }
            config: { type: TrendsAlertConfig, series_index: 0 }
            calculation_interval: daily
            subscribed_users: [Alice@example.com, bob@example.com]
`;

describe('alerts as code', () => {
  it('validate refuses offline what the API refuses, at file:line:col', async () => {
    const path = ws.write('bad.yaml', `organization: ${ORG}
projects:
  - id: 12345
    insights:
      - name: Big
        query: { kind: InsightVizNode, source: { kind: TrendsQuery, series: [ { kind: EventsNode, event: x } ], trendsFilter: { display: BoldNumber } } }
        alerts:
          - name: Relative
            condition: { type: relative_increase }
          - name: Absolute
            condition: { type: absolute_value }
            threshold: { configuration: { type: percentage } }
          - name: Bounds
            threshold: { configuration: { type: absolute, bounds: { lower: 3, upper: 1 } } }
          - name: Past
            config: { type: TrendsAlertConfig, series_index: 1 }
      - name: Funnel
        query: { kind: InsightVizNode, source: { kind: FunnelsQuery, series: [ { kind: EventsNode, event: a } ] } }
        alerts: [ { name: Nope } ]
`);
    const r = await ws.cli(['validate', path]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('bad.yaml:9:32');
    expect(r.stderr).toMatch(/relative condition needs a time series: the insight is displayed as BoldNumber/);
    expect(r.stderr).toMatch(/bad\.yaml:12:49: .*absolute_value needs an absolute threshold/);
    expect(r.stderr).toMatch(/bad\.yaml:14:76: .*lower bound 3 is above the upper bound 1/);
    expect(r.stderr).toMatch(/bad\.yaml:16:62: .*series_index 1 is past the insight's series/);
    expect(r.stderr).toMatch(/bad\.yaml:19:\d+: .*Alerts are not supported for this insight/);
  });

  it('creates an alert for members by email, sends only changed fields, and plans empty', async () => {
    const path = ws.write('alerts.yaml', file(ALERT));
    const planned = JSON.parse((await ws.cli(['plan', path, '--format', 'json'])).stdout) as { changes: Rec[] };
    expect(planned.changes.map((c) => c.address)).toEqual([`alert:${ORG}/12345/Signups/Dropped`]);
    const applied = await ws.cli(['apply', path, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const live = ((await http.get(`${alerts}?insight=${ids.Signups}`)).body as { results: Rec[] }).results[0] as Rec;
    expect((live.subscribed_users as Rec[]).map((u) => u.email).sort()).toEqual(['alice@example.com', 'bob@example.com']);
    const again = await ws.cli(['plan', path, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);

    // A change of schedule is sent alone: the threshold is not written again, so the state stays.
    await fetch(`${sandbox.baseUrl}/_sandbox/check-alerts/`, { method: 'POST' });
    ws.write('alerts.yaml', file(ALERT.replace('daily', 'weekly')));
    expect((await ws.cli(['apply', path, '--auto-approve'])).code).toBe(0);
    expect(((await http.get(`${alerts}${String(live.id)}/`)).body as Rec).state).toBe('Firing');

    // Bob edits the alert in the web app: drift --since names it (AlertConfiguration), attributed to him.
    const edit = await fetch(`${sandbox.baseUrl}/_sandbox/web-edit/`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'bob@example.com', method: 'PATCH', path: `${alerts}${String(live.id)}/`, body: { skip_weekend: true } }),
    });
    expect(edit.status).toBe(200);
    const since = await ws.cli(['drift', path, '--since', '1h', '--format', 'json']);
    expect(since.code, since.stderr).toBe(2);
    const change = (JSON.parse(since.stdout) as { changes: Rec[] }).changes.find((c) => c.address === `alert:${ORG}/12345/Signups/Dropped`);
    expect(change?.fields).toEqual([expect.objectContaining({ path: 'skip_weekend', attribution: expect.objectContaining({ by: 'bob@example.com' }) })]);
  });

  it('refuses an email that is not a member, and a third alert without the alerts feature, before anything is sent', async () => {
    const stranger = ws.write('stranger.yaml', file(ALERT.replace('bob@example.com', 'carol@elsewhere.test')));
    const r = await ws.cli(['plan', stranger]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stranger\.yaml:\d+:\d+: .*carol@elsewhere\.test is not a member of the organization/);
    const many = ws.write('many.yaml', file(ALERT + ALERT.replace('Dropped', 'Second') + ALERT.replace('Dropped', 'Third')));
    const limited = await ws.cli(['plan', many]);
    expect(limited.code).toBe(1);
    expect(limited.stderr).toMatch(/would hold 3 alerts, and organization .* does not have the alerts feature \(alerts\)/);
  });

  it('says which versions serve alerts to no personal key, and what to do', async () => {
    const path = ws.write('old.yaml', `organization: ${OLD_ORG}
projects:
  - id: 777
    insights:
      - name: Old signups
        alerts: [ { name: Any } ]
`);
    const r = await ws.cli(['plan', path]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/alerts: the API refuses alerts to this personal API key \(403\): older PostHog versions served alerts to no personal API key/);
  });

  it('refuses to delete an insight that declares alerts, and names the alerts the API deletes with it, previews or not', async () => {
    const absent = ws.write('absent.yaml', file(ALERT, 'Signups\n        ensure: absent'));
    const refused = await ws.cli(['validate', absent]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/insight Signups is declared absent .*so it cannot have alerts: the API deletes them with it/);

    const gone = ws.write('gone.yaml', `organization: ${ORG}\nprojects:\n  - id: 12345\n    insights:\n      - name: Signups\n        ensure: absent\n`);
    const json = JSON.parse((await ws.cli(['plan', gone, '--format', 'json'])).stdout) as { changes: Rec[] };
    expect(json.changes).toEqual([expect.objectContaining({ action: 'delete', also_deletes: [`alert:${ORG}/12345/Signups/Dropped`] })]);
    // Said with --no-preview too: the previews that only inform are skipped, not what the API does without a word.
    const text = await ws.cli(['plan', gone, '--no-preview']);
    expect(text.stdout).toContain(`the API also deletes alert alert:${ORG}/12345/Signups/Dropped with this change`);
    const md = await ws.cli(['plan', gone, '--format', 'markdown']);
    expect(md.stdout).toContain('the API also deletes alert');
  });

  it('ensure: absent deletes the alert (DELETE), and the plan is then empty', async () => {
    const path = ws.write('absent-alert.yaml', file(ALERT.replace('          - name: Dropped\n', '          - name: Dropped\n            ensure: absent\n')));
    const planned = JSON.parse((await ws.cli(['plan', path, '--format', 'json'])).stdout) as { changes: Rec[] };
    expect(planned.changes.map((c) => [c.action, c.address])).toEqual([['delete', `alert:${ORG}/12345/Signups/Dropped`]]);
    expect((await ws.cli(['apply', path, '--auto-approve'])).code).toBe(0);
    expect(((await http.get(`${alerts}?insight=${ids.Signups}`)).body as { results: Rec[] }).results).toEqual([]);
    expect((await ws.cli(['plan', path, '--detailed-exitcode'])).code).toBe(0);
  });
});
