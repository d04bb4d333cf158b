// The sandbox keeps dashboards and their tiles as the real API does (posthog/api/dashboards/
// dashboard.py, posthog/api/insight.py): tiles sent on create are ignored, an `insight` inside a
// tile entry is dropped (an insight's own `dashboards` is the only way on or off), `{}` never
// clears filters, a deleted dashboard takes its tiles and the project's primary dashboard with it,
// the list hides unlisted dashboards and carries no tiles, and a flag brings its usage dashboard
// unless its create says not to. One sandbox for the file: each case makes its own items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';

type Rec = Record<string, unknown>;
const P = 12345;
const D = `/api/projects/${P}/dashboards/`;
const I = `/api/projects/${P}/insights/`;
const query = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } };

let c: Api;
beforeAll(async () => {
  const sb = await inProcessSandbox({
    seed: { organizations: [{ id: DEFAULT_ORG, projects: [{ id: P, name: 'Web', dashboards: [{ name: 'Hidden', creation_mode: 'unlisted' }] }] }] },
  });
  c = api(sb.baseUrl, sb.apiKey);
});
afterAll(stopAllSandboxes);

async function ok(method: 'post' | 'patch' | 'get', path: string, body: Rec = {}, status = method === 'post' ? 201 : 200): Promise<Rec> {
  const r = method === 'get' ? await c.get(path) : await c[method](path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body as Rec;
}
const tilesOf = async (id: unknown) => (await ok('get', `${D}${String(id)}/`)).tiles as Array<{ id: number; insight: Rec | null; text: Rec | null; layouts: Rec; color: unknown }>;

describe('sandbox dashboards', () => {
  it('ignores tiles on create and drops an insight inside a tile entry: an insight goes on through its own dashboards', async () => {
    const insight = await ok('post', I, { name: 'Signups', query });
    const board = await ok('post', D, { name: 'Growth', tiles: [{ insight: insight.id }, { text: { body: 'hello' } }] });
    expect(board.tiles).toEqual([]);
    await ok('patch', `${D}${String(board.id)}/`, { tiles: [{ insight: insight.id, layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } } }] });
    expect(await tilesOf(board.id)).toEqual([]);
    // The insight's dashboards puts it on (a tile), and the tile's display changes by its id.
    await ok('patch', `${I}${String(insight.id)}/`, { dashboards: [board.id] });
    const [tile] = await tilesOf(board.id);
    expect(tile?.insight?.id).toBe(insight.id);
    await ok('patch', `${D}${String(board.id)}/`, { tiles: [{ id: tile?.id, insight: 999, layouts: { sm: { x: 6, y: 0, w: 6, h: 2, moved: false } }, color: 'blue' }, { text: { body: 'Staff excluded' } }] });
    const after = await tilesOf(board.id);
    expect(after.map((t) => [t.insight?.id ?? null, t.text?.body ?? null, (t.layouts as { sm: Rec }).sm.x, t.color])).toEqual([[insight.id, null, 6, 'blue'], [null, 'Staff excluded', 0, null]]);
    // What the insight says of its tiles: dashboard_tiles always, dashboards only when asked for.
    const read = await ok('get', `${I}${String(insight.id)}/`);
    expect(read.dashboard_tiles).toEqual([{ id: tile?.id, dashboard_id: board.id, deleted: false }]);
    expect(read).not.toHaveProperty('dashboards');
    expect((await ok('get', `${I}${String(insight.id)}/?include_dashboards=true`)).dashboards).toEqual([board.id]);
    // Taken off through dashboards too: its tile is soft-deleted.
    await ok('patch', `${I}${String(insight.id)}/`, { dashboards: [] });
    expect((await tilesOf(board.id)).map((t) => t.text?.body)).toEqual(['Staff excluded']);
    expect((await c.patch(`${I}${String(insight.id)}/`, { dashboards: [424242] })).status).toBe(400);
  });

  it('never clears filters or variables with {}: only a non-empty value is written', async () => {
    const board = await ok('post', D, { name: 'Filtered', filters: { date_from: '-30d' }, variables: { v: { code_name: 'v', value: 1 } } });
    expect((await ok('patch', `${D}${String(board.id)}/`, { filters: {}, variables: {} })).filters).toEqual({ date_from: '-30d' });
    expect((await ok('get', `${D}${String(board.id)}/`)).variables).toEqual({ v: { code_name: 'v', value: 1 } });
    expect((await ok('patch', `${D}${String(board.id)}/`, { filters: { date_from: '-7d' } })).filters).toEqual({ date_from: '-7d' });
  });

  it('deletes only by PATCH deleted, taking its tiles and the project\'s primary dashboard with it; the list hides unlisted ones and has no tiles', async () => {
    const insight = await ok('post', I, { name: 'On the doomed one', query });
    const board = await ok('post', D, { name: 'Doomed' });
    await ok('patch', `${I}${String(insight.id)}/`, { dashboards: [board.id] });
    await ok('patch', `/api/organizations/${DEFAULT_ORG}/projects/${P}/`, { primary_dashboard: board.id });
    expect((await c.delete(`${D}${String(board.id)}/`)).status).toBe(405);
    await ok('patch', `${D}${String(board.id)}/`, { deleted: true });
    expect((await c.get(`${D}${String(board.id)}/`)).status).toBe(404);
    expect((await ok('get', `${I}${String(insight.id)}/`)).dashboard_tiles).toEqual([]);
    expect((await ok('get', `/api/organizations/${DEFAULT_ORG}/projects/${P}/`)).primary_dashboard).toBeNull();
    const listed = (await ok('get', D)).results as Rec[];
    expect(listed.map((d) => d.name)).not.toContain('Hidden');
    expect(listed.map((d) => d.name)).not.toContain('Doomed');
    expect(listed[0]).not.toHaveProperty('tiles');
  });

  it('makes a usage dashboard with every new flag, unless the create says _should_create_usage_dashboard: false', async () => {
    const flags = `/api/projects/${P}/feature_flags/`;
    const made = await ok('post', flags, { key: 'with-usage', filters: { groups: [{ rollout_percentage: 10 }] } });
    const usage = await ok('get', `${D}${String(made.usage_dashboard)}/`);
    expect(usage).toEqual(expect.objectContaining({ name: 'Generated Dashboard: with-usage Usage', creation_mode: 'template' }));
    expect((usage.tiles as unknown[]).length).toBe(2);
    // Made by the flag's create, not logged as anyone's dashboard or insights.
    const log = ((await ok('get', `/api/projects/${P}/activity_log/?limit=100`)).results as Rec[]).map((e) => `${String(e.scope)} ${String(e.item_id)}`);
    expect(log).toContain(`FeatureFlag ${String(made.id)}`);
    expect(log).not.toContain(`Dashboard ${String(made.usage_dashboard)}`);
    for (const tile of usage.tiles as Array<{ insight: Rec }>) expect(log).not.toContain(`Insight ${String(tile.insight.id)}`);
    const bare = await ok('post', flags, { key: 'without-usage', filters: { groups: [{ rollout_percentage: 10 }] }, _should_create_usage_dashboard: false });
    expect(bare.usage_dashboard).toBeNull();
    expect(((await ok('get', D)).results as Rec[]).filter((d) => String(d.name).includes('without-usage'))).toEqual([]);
  });
});
