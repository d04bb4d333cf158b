// The sandbox keeps insights as the real API does (posthog/api/insight.py, posthog/schema_migrations/)
// and refuses what its query parser refuses: a root that must be wrapped, an unknown kind, a
// series item without kind (400 on `query`); DELETE is 405, a soft-deleted insight answers 404;
// every PATCH saves; `basic=true` lists without results; reads upgrade stored queries and the
// background job writes them back. One sandbox for the file: each case makes its own items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/sandbox/json.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';

type Rec = Record<string, unknown>;
const P = 12345;
const I = `/api/projects/${P}/insights/`;
const trends = (series: unknown[]): JsonObject => ({ kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series } }) as JsonObject;

let sandbox: SandboxHandle;
let c: Api;
beforeAll(async () => {
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{
        id: DEFAULT_ORG,
        projects: [{
          id: P,
          // Stored before the upgrade: kind-less series items, no version stamps.
          insights: [{ name: 'Legacy', query: trends([{ event: '$pageview' }, { id: 3 }]) }, { name: 'Draft', saved: false, query: trends([]) }] as JsonObject[],
        }],
      }],
    },
  });
  c = api(sandbox.baseUrl, sandbox.apiKey);
});
afterAll(stopAllSandboxes);

async function ok(method: 'post' | 'patch', path: string, body: Rec, status = method === 'post' ? 201 : 200): Promise<Rec> {
  const r = await c[method](path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body as Rec;
}
const refusal = async (body: Rec) => {
  const r = await c.post(I, body);
  return [r.status, (r.body as Rec).attr, String((r.body as Rec).detail)];
};

describe('sandbox insights', () => {
  it('refuses queries the API\'s parser refuses: a bare source, an unknown kind, a series item without kind', async () => {
    expect(await refusal({ name: 'Bare', query: { kind: 'TrendsQuery', series: [] } })).toEqual([400, 'query', expect.stringContaining('wrap it: { kind: InsightVizNode')]);
    expect(await refusal({ name: 'Bare SQL', query: { kind: 'HogQLQuery', query: 'select 1' } })).toEqual([400, 'query', expect.stringContaining('DataVisualizationNode')]);
    expect(await refusal({ name: 'Unknown', query: { kind: 'InsightVizNode', source: { kind: 'TrendzQuery' } } })).toEqual([400, 'query', expect.stringContaining('unknown query kind TrendzQuery')]);
    expect(await refusal({ name: 'Kindless', query: trends([{ event: '$pageview' }]) })).toEqual([400, 'query', expect.stringContaining('series item needs a `kind`')]);
    for (const root of ['InsightVizNode', 'DataVisualizationNode', 'DataTableNode', 'HogQuery']) {
      const query = root === 'InsightVizNode' ? trends([]) : root === 'DataVisualizationNode' ? { kind: root, source: { kind: 'HogQLQuery', query: 'select 1' } }
        : root === 'DataTableNode' ? { kind: root, source: { kind: 'EventsQuery', select: ['event'] } } : { kind: root, code: 'return 1' };
      await ok('post', I, { name: `Root ${root}`, query });
    }
  });

  it('upgrades stored queries on every read, and the background job writes them back', async () => {
    const legacy = async () => ((await c.get(`${I}?basic=true`)).body as { results: Rec[] }).results.find((r) => r.name === 'Legacy') as Rec;
    const upgraded = { kind: 'InsightVizNode', version: 1, source: { kind: 'TrendsQuery', version: 4, series: [{ event: '$pageview', kind: 'EventsNode', version: 1 }, { id: 3, kind: 'ActionsNode', version: 1 }] } };
    expect((await legacy()).query).toEqual(upgraded);
    const stored = () => sandbox.store.read((s) => JSON.parse(JSON.stringify((s.insights as Rec[]).find((r) => r.name === 'Legacy'))) as Rec);
    expect((await stored()).query).toEqual(trends([{ event: '$pageview' }, { id: 3 }]));
    const job = await fetch(new URL('/_sandbox/upgrade-queries/', sandbox.baseUrl), { method: 'POST' });
    expect(await job.json()).toEqual({ rewritten: expect.any(Number) });
    expect((await stored()).query).toEqual(upgraded);
    expect((await legacy()).query).toEqual(upgraded);
  });

  it('lists with basic=true without results, saved=true leaves unsaved ones out, and every PATCH saves', async () => {
    const basic = ((await c.get(`${I}?basic=true`)).body as { results: Rec[] }).results;
    expect(basic[0]).toEqual(expect.objectContaining({ name: expect.anything(), query: expect.anything(), dashboard_tiles: [], saved: expect.any(Boolean), tags: [], favorited: false }));
    expect(basic[0]).not.toHaveProperty('result');
    expect(basic.map((r) => r.name)).toContain('Draft');
    const saved = ((await c.get(`${I}?basic=true&saved=true`)).body as { results: Rec[] }).results;
    expect(saved.map((r) => r.name)).not.toContain('Draft');
    const draft = basic.find((r) => r.name === 'Draft') as Rec;
    expect((await ok('patch', `${I}${String(draft.id)}/`, { description: 'now saved' })).saved).toBe(true);
    expect(((await c.get(`${I}${String(draft.id)}/`)).body as Rec).result).toBeNull();
  });

  it('deletes only by PATCH deleted: DELETE is 405, then GET and PATCH answer 404 and the list leaves it out', async () => {
    const made = await ok('post', I, { name: 'Doomed', query: trends([{ kind: 'EventsNode', event: 'x' }]) });
    const item = `${I}${String(made.id)}/`;
    expect((await c.delete(item)).status).toBe(405);
    await ok('patch', item, { deleted: true });
    expect((await c.get(item)).status).toBe(404);
    expect((await c.patch(item, { name: 'Back' })).status).toBe(404);
    expect(((await c.get(I)).body as { results: Rec[] }).results.map((r) => r.name)).not.toContain('Doomed');
  });
});
