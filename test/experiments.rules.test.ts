// The experiment kind's own rules: the lifecycle calls a planned change makes, in order; every
// refusal of its plan check (each a rule of the real API, or a move back); the record read in the
// files' terms (variants, flag key, status, shipped variant, saved metrics); all offline but the
// last, which sends each call to a sandbox and checks request and answer against the OpenAPI fixture.
import { describe, expect, it } from 'vitest';
import { experiment, lifecycleCalls } from '../src/resources/experiment/kind.js';
import type { ChangeView, LiveRecord } from '../src/resources/kind.js';
import { validateRequest, validateResponse } from './support/openapi.js';
import { TOLERATED } from './support/openapi-tolerated.js';
import { loadSandboxModels } from '../src/sandbox/models.js';
import { inProcessSandbox, api, stopAllSandboxes } from './support/sandbox.js';

const scope = { organization: 'org', project: 111 };
const path = '/api/projects/111/experiments/7/';
const live = (over: Record<string, unknown> = {}): LiveRecord => (experiment.readAs as (r: LiveRecord) => LiveRecord)({
  id: 7, name: 'Checkout', start_date: '2026-01-01T00:00:00Z', end_date: null, archived: false, holdout_id: 3,
  feature_flag_key: 'checkout', parameters: { feature_flag_variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }], minimum_detectable_effect: 5 },
  feature_flag: { key: 'checkout', active: true, filters: { multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] } } },
  saved_metrics_ids: [{ id: 4, metadata: { type: 'primary' } }, { id: 5, metadata: { type: 'secondary' } }],
  ...over,
});
const update = (values: Record<string, unknown>, record = live()): ChangeView => ({ address: 'experiment:org/111/Checkout', action: 'update', identity: 'Checkout', scope, live: record, values });
const errorOf = (change: ChangeView) => experiment.check?.({ scope, items: [], records: [], gone: [], changes: [change] }).error;
const calls = (values: Record<string, unknown>, record: LiveRecord = live()) => lifecycleCalls(path, values, record).map((c) => `${c.method} ${c.path.slice(path.length)} ${JSON.stringify(c.body ?? null)}`);

describe('experiment records in the files\' terms', () => {
  it('reads variants, the flag key, holdout, saved metrics, status and the shipped variant', () => {
    const r = live();
    expect([r.feature_flag, r.holdout, r.status, r.ship_variant]).toEqual(['checkout', 3, 'running', null]);
    expect(r.variants).toEqual([{ key: 'control', split_percent: 50 }, { key: 'test', split_percent: 50 }]);
    expect(r.saved_metrics).toEqual({ primary: [4], secondary: [5] });
    expect(live({ start_date: null }).status).toBe('draft');
    expect(live({ feature_flag: { key: 'checkout', active: false, filters: {} } }).status).toBe('paused');
    const shipped = live({ end_date: '2026-02-01T00:00:00Z', feature_flag: { key: 'checkout', active: true, filters: { multivariate: { variants: [{ key: 'control', rollout_percentage: 0 }, { key: 'test', rollout_percentage: 100 }] } } } });
    expect([shipped.status, shipped.ship_variant]).toEqual(['stopped', 'test']);
  });
});

describe('experiment lifecycle calls', () => {
  it('go forward one action at a time, conclusions riding on end/ or ship_variant/', () => {
    expect(calls({ status: 'running' }, live({ start_date: null }))).toEqual(['POST launch/ null']);
    expect(calls({ status: 'stopped', conclusion: 'won' }, live({ start_date: null }))).toEqual(['POST launch/ null', 'POST end/ {"conclusion":"won"}']);
    expect(calls({ status: 'paused' })).toEqual(['POST pause/ null']);
    expect(calls({ status: 'running' }, live({ feature_flag: { key: 'checkout', active: false } }))).toEqual(['POST resume/ null']);
    // Shipping ends a running experiment: no end/ besides.
    expect(calls({ status: 'stopped', ship_variant: 'test', conclusion: 'won' })).toEqual(['POST ship_variant/ {"variant_key":"test","conclusion":"won"}']);
    // Stopped and archived: two calls, in order.
    expect(calls({ status: 'stopped', archived: true })).toEqual(['POST end/ {}', 'POST archive/ {}']);
  });

  it('send parameters whole (the live keys hogsync does not manage kept), then the lifecycle', () => {
    const record = live({ start_date: null });
    const first = experiment.updateCall(scope, 7, { variants: [{ key: 'control' }, { key: 'b', split_percent: 30 }], status: 'running' }, record);
    expect(first).toEqual({ method: 'PATCH', path, body: { parameters: { minimum_detectable_effect: 5, feature_flag_variants: [{ key: 'control' }, { key: 'b', rollout_percentage: 30 }] } } });
    expect(experiment.followUps?.('update', scope, 7, { variants: [], status: 'running' }, record).map((c) => c.path)).toEqual([`${path}launch/`]);
    // A change of the lifecycle alone is its calls, no PATCH.
    expect(experiment.updateCall(scope, 7, { status: 'paused' }, live())).toEqual({ method: 'POST', path: `${path}pause/` });
  });
});

describe('experiment plan refusals', () => {
  it('refuse a move back', () => {
    expect(errorOf(update({ status: 'draft' }))).toContain('status moves forward only');
    expect(errorOf(update({ status: 'running' }, live({ end_date: '2026-02-01T00:00:00Z' })))).toContain('status moves forward only');
    expect(errorOf(update({ status: 'paused' }))).toBeUndefined();
  });
  it('refuse what the API refuses: variant keys after launch, the holdout while running, the flag key, archiving before the end', () => {
    expect(errorOf(update({ variants: [{ key: 'control' }, { key: 'other' }] }))).toContain('variant keys cannot change after launch');
    expect(errorOf(update({ variants: [{ key: 'control', split_percent: 20 }, { key: 'test', split_percent: 80 }] }))).toBeUndefined();
    expect(errorOf(update({ holdout: null }))).toContain("a running experiment's holdout cannot change");
    expect(errorOf(update({ feature_flag: 'other' }))).toContain("an experiment's flag cannot change");
    expect(errorOf(update({ archived: true }))).toContain('archived only once stopped');
  });
  it('refuse a variant to ship that is not one, taking a shipped variant back, and a conclusion before the end', () => {
    expect(errorOf(update({ ship_variant: 'nope', status: 'stopped' }))).toContain('is not one of its variants');
    const shipped = live({ end_date: '2026-02-01T00:00:00Z', feature_flag: { key: 'checkout', active: true, filters: { multivariate: { variants: [{ key: 'control', rollout_percentage: 100 }, { key: 'test', rollout_percentage: 0 }] } } } });
    expect(errorOf(update({ ship_variant: 'test' }, shipped))).toContain('a shipped variant cannot be taken back');
    expect(errorOf(update({ conclusion: 'won' }))).toContain('a conclusion is set when the experiment stops');
  });
});

/** Problems the contract tests tolerate on purpose (test/support/openapi-tolerated.ts), left out. */
const untolerated = (method: string, path: string, problems: string[]) => problems.filter((p) => !TOLERATED.some((t) => t.where.test(`${method} ${path}`) && t.problem.test(p)));

describe('experiment requests and answers against the OpenAPI fixture', () => {
  it('every call a create or a lifecycle change sends is one the document takes, and the sandbox answers as it says', async () => {
    await loadSandboxModels();
    const sandbox = await inProcessSandbox({});
    try {
      const http = api(sandbox.baseUrl, sandbox.apiKey);
      const project = 12345;
      const s = { organization: 'org', project };
      const values = { feature_flag: 'openapi-check', variants: [{ key: 'control', split_percent: 50 }, { key: 'test', split_percent: 50 }], description: 'x', metrics: [], exposure_criteria: { filterTestAccounts: false } };
      const create = experiment.createCall(s, 'OpenAPI check', values);
      expect(validateRequest(create.method, create.path, create.body)).toEqual([]);
      const made = await http.call(create.method, create.path, create.body);
      expect(untolerated(create.method, create.path, validateResponse(create.method, create.path, made.status, made.body))).toEqual([]);
      const id = (made.body as { id: number }).id;
      const steps: Array<Record<string, unknown>> = [{ status: 'running' }, { status: 'paused' }, { status: 'stopped', conclusion: 'won', conclusion_comment: 'ok' }, { ship_variant: 'test' }, { archived: true }];
      for (const step of steps) {
        const record = (experiment.readAs as (r: LiveRecord) => LiveRecord)((await http.get(`${create.path}${id}/`)).body as LiveRecord);
        for (const call of [experiment.updateCall(s, id, step, record), ...(experiment.followUps?.('update', s, id, step, record) ?? [])]) {
          expect(validateRequest(call.method, call.path, call.body), call.path).toEqual([]);
          const r = await http.call(call.method, call.path, call.body);
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          expect(untolerated(call.method, call.path, validateResponse(call.method, call.path, r.status, r.body)), call.path).toEqual([]);
        }
      }
    } finally {
      await stopAllSandboxes();
    }
  });
});
