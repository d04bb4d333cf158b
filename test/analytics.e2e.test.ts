// Analytics as code end to end, through the real CLI against one sandbox seeded with
// examples/analytics/sandbox/seed.yaml: the example's "Growth" dashboard, shared by three projects
// whose action and cohort ids differ, converges from empty (plan → apply → plan empty → drift
// empty), and again after the sandbox's background job rewrote every stored query; its export
// validates and plans empty (queries by name, `sql:`, tiles by insight name); renaming an insight
// keeps its tiles; a tile removed from the file comes off the dashboard only; and what the API
// made on its own (a flag's usage dashboard) is never an item, while flags hogsync creates get none.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, inProcessSandbox, recordRequests, ROOT, stopAllSandboxes, type Api } from './support/sandbox.js';
import { ORG, workspace, type Workspace } from './support/workspace.js';

type Rec = Record<string, unknown>;
const PROJECTS = [3001, 3002, 3003];
const EXAMPLE = join(ROOT, 'examples/analytics');

let sandbox: SandboxHandle;
let ws: Workspace;
let http: Api;
let file: string;

beforeAll(async () => {
  sandbox = await inProcessSandbox({ seed: join(EXAMPLE, 'sandbox/seed.yaml') });
  ws = workspace(sandbox);
  http = api(sandbox.baseUrl, sandbox.apiKey);
  cpSync(EXAMPLE, ws.dir, { recursive: true });
  file = ws.path('hogsync.yaml');
  // A flag made in the web app brings its usage dashboard (and two insights) with it.
  expect((await http.post('/api/projects/3001/feature_flags/', { key: 'web-made', filters: { groups: [{ rollout_percentage: 100 }] } })).status).toBe(201);
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const list = async (project: number, kind: string): Promise<Rec[]> => ((await http.get(`/api/projects/${project}/${kind}/?limit=1000`)).body as { results: Rec[] }).results;
const named = async (project: number, kind: string, name: string) => (await list(project, kind)).find((r) => r.name === name) as Rec;
/** The insights a project's Growth dashboard shows, by name, and their layouts. */
async function growth(project: number): Promise<Array<[string, unknown]>> {
  const id = (await named(project, 'dashboards', 'Growth')).id;
  const tiles = ((await http.get(`/api/projects/${project}/dashboards/${String(id)}/`)).body as { tiles: Array<{ insight: Rec | null; text: Rec | null; layouts: { sm: Rec } }> }).tiles;
  return tiles.map((t) => [t.insight ? `insight ${String(t.insight.name)}` : `text ${String(t.text?.body)}`, t.layouts.sm]);
}
const clean = (args: string[]) => ws.clean(args);

describe('analytics as code (examples/analytics)', () => {
  it('converges from empty in three projects, each query naming its own project\'s action and cohort', async () => {
    const planned = JSON.parse((await clean(['plan', file, '--format', 'json'])).stdout) as { changes: Array<{ address: string; action: string }> };
    const order = planned.changes.map((c) => c.address.replace(`${ORG}/`, '').split(':')[0]);
    // Insights after the actions and cohorts they name, dashboards after the insights they show.
    expect(order.lastIndexOf('cohort')).toBeLessThan(order.indexOf('insight'));
    expect(order.lastIndexOf('insight')).toBeLessThan(order.indexOf('dashboard'));
    expect(planned.changes.filter((c) => c.address.startsWith('dashboard:'))).toHaveLength(3);

    await clean(['apply', file, '--auto-approve']);
    const actions = await Promise.all(PROJECTS.map(async (p) => (await named(p, 'actions', 'Signed up')).id));
    const cohorts = await Promise.all(PROJECTS.map(async (p) => (await named(p, 'cohorts', 'Staff')).id));
    expect(new Set(actions).size).toBe(3);
    expect(new Set(cohorts).size).toBe(3);
    for (const [i, p] of PROJECTS.entries()) {
      const source = ((await named(p, 'insights', 'Weekly signups')).query as { source: { series: Rec[]; properties: Rec[] } }).source;
      expect(source.series[0]?.id).toBe(actions[i]);
      expect(source.properties[0]?.value).toBe(cohorts[i]);
      expect(await growth(p)).toEqual(expect.arrayContaining([
        ['insight Weekly signups', { x: 0, y: 0, w: 6, h: 5 }], ['insight Signup funnel', { x: 6, y: 0, w: 6, h: 5 }],
        ['insight Revenue by plan', { x: 0, y: 5, w: 8, h: 4 }], ['text Numbers exclude staff accounts (the Staff cohort).', { x: 8, y: 5, w: 4, h: 2 }],
        ['insight Daily active users', expect.anything()],
      ]));
      expect(await growth(p)).toHaveLength(5);
    }
    const sql = (await named(3002, 'insights', 'Revenue by plan')).query as { source: { query: string } };
    expect(sql.source.query).toBe(readFileSync(join(EXAMPLE, 'queries/revenue-by-plan.sql'), 'utf8'));
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).stdout).toContain('No changes');
    expect((await clean(['drift', file])).stdout).toContain('No drift');
  });

  it('stays converged after the API\'s background job rewrote every stored query', async () => {
    const job = await fetch(new URL('/_sandbox/upgrade-queries/', sandbox.baseUrl), { method: 'POST' });
    expect(((await job.json()) as { rewritten: number }).rewritten).toBeGreaterThanOrEqual(12);
    const stored = (await named(3003, 'insights', 'Weekly signups')).query as Rec;
    expect(stored.version).toBe(1);
    await fetch(new URL('/_sandbox/reset-stats/', sandbox.baseUrl), { method: 'POST' });
    const again = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    // One basic=true insight list per project, never an insight GET; a dashboard GET only for the one declaring tiles.
    const routes = ((await (await fetch(new URL('/_sandbox/stats/', sandbox.baseUrl))).json()) as { byRoute: Record<string, number> }).byRoute;
    expect(routes['GET /api/projects/:project/insights/']).toBe(3);
    expect(routes['GET /api/projects/:project/insights/:id/']).toBeUndefined();
    expect(routes['GET /api/projects/:project/dashboards/']).toBe(3);
    expect(routes['GET /api/projects/:project/dashboards/:id/']).toBe(3);
    expect((await clean(['drift', file])).stdout).toContain('No drift');
  });

  it('show writes them as a file would; drift names who changed them, and drift --since reads them from the log', async () => {
    const shown = parse((await clean(['show', `dashboard:${ORG}/3002/Growth`])).stdout) as { projects: Array<{ dashboards: Array<{ tiles: Rec[] }> }> };
    expect(shown.projects[0]?.dashboards[0]?.tiles).toEqual(expect.arrayContaining([{ insight: 'Weekly signups', layout: { x: 0, y: 0, w: 6, h: 5 } }]));
    const sql = parse((await clean(['show', `insight:${ORG}/3002/Revenue by plan`])).stdout) as { projects: Array<{ insights: Rec[] }> };
    expect(sql.projects[0]?.insights[0]).toEqual({ name: 'Revenue by plan', sql: readFileSync(join(EXAMPLE, 'queries/revenue-by-plan.sql'), 'utf8') });

    const board = await named(3002, 'dashboards', 'Growth');
    const weekly = await named(3002, 'insights', 'Weekly signups');
    expect((await http.patch(`/api/projects/3002/dashboards/${String(board.id)}/`, { pinned: false })).status).toBe(200);
    expect((await http.patch(`/api/projects/3002/insights/${String(weekly.id)}/`, { description: 'edited by hand' })).status).toBe(200);
    for (const args of [['drift', file, '--format', 'json'], ['drift', file, '--since', '1h', '--format', 'json']]) {
      const drift = JSON.parse((await ws.cli(args)).stdout) as { changes: Array<{ address: string; fields: Array<{ path: string; attribution?: { by: string } }> }> };
      expect(drift.changes.map((c) => [c.address.replace(`${ORG}/`, ''), c.fields.map((f) => [f.path, f.attribution?.by])])).toEqual([
        ['insight:3002/Weekly signups', [['description', 'sandbox@hogsync.dev']]],
        ['dashboard:3002/Growth', [['pinned', 'sandbox@hogsync.dev']]],
      ]);
    }
    await clean(['apply', file, '--auto-approve']);
  });

  it('never takes what the API made for an item, and flags hogsync creates get no usage dashboard', async () => {
    expect((await list(3001, 'dashboards')).map((d) => d.name)).toContain('Generated Dashboard: web-made Usage');
    const pruning = ws.write('prune.yaml', `${readFileSync(file, 'utf8')}\nprune: { dashboards: true, insights: true }\nfeature_flags:\n  - key: hogsync-made\n    projects: [dev]\n    filters: { groups: [ { rollout_percentage: 10 } ] }\n`);
    const planned = JSON.parse((await clean(['plan', pruning, '--format', 'json'])).stdout) as { changes: Array<{ address: string; action: string }> };
    expect(planned.changes.map((c) => `${c.action} ${c.address.replace(`${ORG}/`, '')}`)).toEqual(['create feature_flag:3001/hogsync-made']);
    await clean(['apply', pruning, '--auto-approve']);
    const flag = (await list(3001, 'feature_flags')).find((f) => f.key === 'hogsync-made') as Rec;
    expect(flag.usage_dashboard).toBeNull();
    expect((await list(3001, 'dashboards')).filter((d) => String(d.name).startsWith('Generated'))).toHaveLength(1);
  });

  it('exports queries with references by name, sql: for a HogQL chart, tiles by insight name; the export plans empty', async () => {
    const out = ws.path('exported.yaml');
    await clean(['export', '--organization', ORG, '--kind', 'insights,dashboards', '--out', out]);
    const doc = parse(readFileSync(out, 'utf8')) as { projects: Array<{ id: number; insights: Rec[]; dashboards: Rec[] }> };
    const prod = doc.projects.find((p) => p.id === 3003) as { insights: Rec[]; dashboards: Rec[] };
    const weekly = prod.insights.find((i) => i.name === 'Weekly signups') as { query: { source: { series: Rec[]; properties: Rec[] }; version?: unknown } };
    expect(weekly.query.source.series[0]?.id).toEqual({ action: 'Signed up' });
    expect(weekly.query.source.properties[0]?.value).toEqual({ cohort: 'Staff' });
    expect(weekly.query).not.toHaveProperty('version');
    expect(prod.insights.find((i) => i.name === 'Revenue by plan')).toEqual(expect.objectContaining({ sql: readFileSync(join(EXAMPLE, 'queries/revenue-by-plan.sql'), 'utf8') }));
    expect(prod.insights.map((i) => i.name)).not.toContain('Feature Flag Called Total Volume');
    const tiles = (prod.dashboards.find((d) => d.name === 'Growth') as { tiles: Rec[] }).tiles;
    expect(tiles).toEqual(expect.arrayContaining([expect.objectContaining({ insight: 'Weekly signups' }), expect.objectContaining({ text: 'Numbers exclude staff accounts (the Staff cohort).' })]));
    await clean(['validate', out]);
    const planned = await ws.cli(['plan', out, '--detailed-exitcode']);
    expect(planned.code, planned.stdout).toBe(0);
  });

  it('renaming an insight with renamed_from keeps its tiles; a tile removed from the file comes off the dashboard only', async () => {
    const before = await Promise.all(PROJECTS.map(async (p) => (await named(p, 'insights', 'Signup funnel')).id));
    const renamed = readFileSync(file, 'utf8').replace('  - name: Signup funnel\n', '  - name: Signups funnel\n    renamed_from: Signup funnel\n')
      .replace('insight: Signup funnel', 'insight: Signups funnel').replace('      - insight: Daily active users\n', '');
    ws.write('hogsync.yaml', renamed);
    const planned = JSON.parse((await clean(['plan', file, '--format', 'json'])).stdout) as { changes: Array<{ address: string; action: string; fields: Array<{ path: string }> }> };
    expect(planned.changes.map((c) => [c.action, c.address.replace(`${ORG}/`, ''), c.fields.map((f) => f.path)])).toEqual([
      ...PROJECTS.map((p) => ['update', `insight:${p}/Signups funnel`, ['name']]),
      ...PROJECTS.map((p) => ['update', `dashboard:${p}/Growth`, ['tiles']]),
    ]);
    // The text plan draws the grid before and after: the tile that comes off is in the first only.
    const text = (await clean(['plan', file])).stdout;
    expect(text).toContain('- tile Daily active users (off the dashboard; an insight stays)');
    expect(text.split('after:')[0]).toContain('+-Daily active users');
    expect(text.split('after:')[1]?.split('~ dashboard')[0]).not.toContain('Daily active users');
    await clean(['apply', file, '--auto-approve']);
    for (const [i, p] of PROJECTS.entries()) {
      expect((await named(p, 'insights', 'Signups funnel')).id).toBe(before[i]);
      const shown = (await growth(p)).map(([what]) => what);
      expect(shown).toContain('insight Signups funnel');
      expect(shown).not.toContain('insight Daily active users');
      expect(await named(p, 'insights', 'Daily active users')).toEqual(expect.objectContaining({ deleted: false, dashboard_tiles: [] }));
    }
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('an insight deleted with its tile: the tile comes off first, then the insight goes', async () => {
    const gone = readFileSync(file, 'utf8').replace('  - name: Signups funnel\n    renamed_from: Signup funnel\n', '  - name: Signups funnel\n    ensure: absent\n')
      .replace(/      - insight: Signups funnel\n        layout: \{[^}]*\}\n/, '');
    ws.write('hogsync.yaml', gone);
    const ids = await Promise.all(PROJECTS.map(async (p) => (await named(p, 'insights', 'Signups funnel')).id));
    const seen = recordRequests(sandbox.server);
    await clean(['apply', file, '--auto-approve']);
    // In each project the insight is taken off the dashboard (its own `dashboards`) before it is deleted.
    for (const [i, p] of PROJECTS.entries()) {
      const writes = seen.filter((r) => r.method === 'PATCH' && r.path === `/api/projects/${p}/insights/${String(ids[i])}/`).map((r) => r.body);
      expect(writes).toEqual([{ dashboards: [] }, { deleted: true }]);
    }
    for (const p of PROJECTS) expect((await growth(p)).map(([what]) => what)).not.toContain('insight Signups funnel');
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });
});
