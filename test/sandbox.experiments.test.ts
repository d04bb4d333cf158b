// The sandbox keeps experiments, holdouts and saved metrics as the real API does
// (ee/clickhouse/views/experiment_holdouts.py, experiment_saved_metrics.py; products/experiments/
// backend/presentation/views.py and serializers.py) and refuses what it refuses: a holdout group
// without a rollout percentage or outside 0–100, a holdout without groups, a saved metric without
// a query or of another kind, an experiment with 21 variants or none keyed control, an existing
// flag that is not eligible, every lifecycle action from the wrong place, variant keys changed
// after launch, a holdout changed while running, a flag key changed; and an organization without
// experiments answers 404 on every path. One sandbox for the file: each case makes its own items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';

type Rec = Record<string, unknown>;
const P = 12345;
const E = `/api/projects/${P}/experiments/`;
const H = `/api/projects/${P}/experiment_holdouts/`;
const M = `/api/projects/${P}/experiment_saved_metrics/`;
const F = `/api/projects/${P}/feature_flags/`;

let c: Api;
beforeAll(async () => {
  const sandbox = await inProcessSandbox({
    seed: {
      organizations: [
        { id: DEFAULT_ORG, projects: [{ id: P, name: 'Web' }] },
        { id: '01900000-0000-7000-8000-0000000000c3', name: 'Basic', features: ['tagging'], projects: [{ id: 777, name: 'Free' }] },
      ],
    },
  });
  c = api(sandbox.baseUrl, sandbox.apiKey);
});
afterAll(stopAllSandboxes);

async function ok(method: 'post' | 'patch', path: string, body: Rec, status = method === 'post' && !/\/\d+\/[a-z_]+\/\d+\/[a-z_]+\/$/.test(path) ? 201 : 200): Promise<Rec> {
  const r = await c[method](path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body as Rec;
}
async function refused(method: 'post' | 'patch', path: string, body: Rec, detail: string | RegExp): Promise<void> {
  const r = await c[method](path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect((r.body as Rec).detail).toMatch(detail);
}
const variants = (...keys: string[]) => ({ feature_flag_variants: keys.map((key) => ({ key, rollout_percentage: Math.floor(100 / keys.length) })) });
let n = 0;
const experiment = (extra: Rec = {}) => ok('post', E, { name: `E${++n}`, feature_flag_key: `e-${n}`, parameters: variants('control', 'test'), ...extra });
const flagOf = async (key: string) => ((await c.get(`${F}?limit=1000`)).body as { results: Rec[] }).results.find((f) => f.key === key) as Rec;

describe('sandbox experiment holdouts and saved metrics', () => {
  it('need a rollout percentage 0–100 in each holdout group, and at least one group; the API writes variant holdout-ID', async () => {
    await refused('post', H, { name: 'No pct', filters: [{ properties: [] }] }, 'Rollout percentage must be present.');
    await refused('post', H, { name: 'Too much', filters: [{ rollout_percentage: 101 }] }, 'Rollout percentage must be between 0 and 100.');
    await refused('post', H, { name: 'Empty', filters: [] }, 'Filters are required to create an holdout group');
    const h = await ok('post', H, { name: 'Five', filters: [{ properties: [], rollout_percentage: 5 }] });
    expect(h.filters).toEqual([{ properties: [], rollout_percentage: 5, variant: `holdout-${String(h.id)}` }]);
    expect((await c.delete(`${H}${String(h.id)}/`)).status).toBe(204);
  });

  it('need a saved metric query of an experiment kind; an ExperimentMetric gets a uuid and a fingerprint', async () => {
    await refused('post', M, { name: 'None' }, 'Query is required to create a saved metric');
    await refused('post', M, { name: 'Trends', query: { kind: 'TrendsQuery' } }, /Metric query kind must be/);
    const m = await ok('post', M, { name: 'Views', query: { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: '$pageview' } } });
    expect(m.query).toMatchObject({ uuid: expect.any(String), fingerprint: expect.any(String) });
  });
});

describe('sandbox experiments', () => {
  it('make their flag inactive and held by them; refuse 21 variants, none keyed control, and a flag that is not eligible', async () => {
    const e = await experiment();
    const flag = await flagOf(String(e.feature_flag_key));
    expect([flag.active, flag.experiment_set]).toEqual([false, [e.id]]);
    await refused('post', E, { name: 'Many', feature_flag_key: 'many', parameters: variants('control', ...Array.from({ length: 20 }, (_, i) => `v${i}`)) }, 'Feature flag variants must be less than 21');
    await refused('post', E, { name: 'No control', feature_flag_key: 'no-control', parameters: variants('a', 'b') }, 'Feature flag variants must contain a control variant');
    await ok('post', F, { key: 'plain', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
    await refused('post', E, { name: 'Plain', feature_flag_key: 'plain', parameters: variants('control', 'test') }, 'Feature flag is not eligible for experiments.');
  });

  it('move along the lifecycle by actions, each refused from the wrong place', async () => {
    const e = await experiment();
    const at = (action: string) => `${E}${String(e.id)}/${action}/`;
    await refused('post', at('pause'), {}, 'Experiment has not been launched.');
    await refused('post', at('end'), {}, 'Experiment has not been launched.');
    await refused('post', at('archive'), {}, 'Experiment must be ended before it can be archived.');
    await ok('post', at('launch'), {});
    await refused('post', at('launch'), {}, 'Experiment has already been launched.');
    await refused('post', at('resume'), {}, 'Experiment is not paused.');
    await ok('post', at('pause'), {});
    expect((await flagOf(String(e.feature_flag_key))).active).toBe(false);
    await refused('post', at('pause'), {}, 'Experiment is already paused.');
    await ok('post', at('resume'), {});
    await refused('post', at('ship_variant'), { variant_key: 'nope' }, /is not a variant/);
    const shipped = await ok('post', at('ship_variant'), { variant_key: 'test', conclusion: 'won' });
    expect([shipped.end_date !== null, shipped.conclusion]).toEqual([true, 'won']);
    await refused('post', at('end'), {}, 'Experiment has already ended.');
    await ok('post', at('archive'), {});
    await refused('post', at('archive'), {}, 'Experiment is already archived.');
    // Archived: only the archived list shows it.
    const listed = async (q: string) => ((await c.get(`${E}${q}`)).body as { results: Rec[] }).results.map((r) => r.id);
    expect(await listed('')).not.toContain(e.id);
    expect(await listed('?archived=true')).toContain(e.id);
    expect((await c.delete(`${E}${String(e.id)}/`)).status).toBe(405);
  });

  it('refuse variant keys changed after launch, a holdout changed while running, and a flag key changed', async () => {
    const h = await ok('post', H, { name: 'Ten', filters: [{ rollout_percentage: 10 }] });
    const e = await experiment();
    const item = `${E}${String(e.id)}/`;
    await refused('patch', item, { feature_flag_key: 'other' }, "Can't update keys: feature_flag_key on Experiment");
    // In draft the variants and holdout may change; the flag follows.
    await ok('patch', item, { parameters: variants('control', 'b'), holdout_id: h.id });
    expect(((await flagOf(String(e.feature_flag_key))).filters as Rec).holdout).toEqual({ id: h.id, exclusion_percentage: 10 });
    await ok('post', `${item}launch/`, {});
    await refused('patch', item, { parameters: variants('control', 'c') }, "Can't update feature_flag_variants on Experiment");
    await refused('patch', item, { holdout_id: null }, "Can't update holdout on running Experiment");
    // A holdout write rewrites the flags of the experiments using it.
    await ok('patch', `${H}${String(h.id)}/`, { filters: [{ rollout_percentage: 20 }] });
    expect(((await flagOf(String(e.feature_flag_key))).filters as Rec).holdout).toEqual({ id: h.id, exclusion_percentage: 20 });
  });

  it('exist only where the organization has experiments: 404 on every path elsewhere', async () => {
    for (const path of ['/api/projects/777/experiments/', '/api/projects/777/experiment_holdouts/', '/api/projects/777/experiment_saved_metrics/']) {
      expect((await c.get(path)).status, path).toBe(404);
    }
  });
});
