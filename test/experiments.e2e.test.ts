// Experiments end to end, through the real CLI against one sandbox: an experiment with a shared
// holdout and a saved metric declared by name converges in draft, launches when the file says
// `running`, pauses, ends with a conclusion and ships a variant, each step planned and applied
// alone with the plan empty after; a backward move, a variant key change after launch and a
// holdout change while running are refused with nothing sent; a holdout change names the
// experiments whose flags it rewrites; the experiment's flag is held from prune and from
// `feature_flags`; export round trip; a create that launches and a stop-and-archive are
// ordered changes each reported, and one that fails between them resumes; and where the organization has no experiments, the plan says so first.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { faultyProxy } from './support/faulty-proxy.js';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { ORG, workspace, type Workspace } from './support/workspace.js';

type Rec = Record<string, unknown>;
const BASIC_ORG = '01900000-0000-7000-8000-0000000000b2';
const PROJECT = 111;
/** A key with every scope but the experiments' (seeded). */
const NO_EXPERIMENT_SCOPE = 'phx_no_experiment_scope_0000000000000000000000000000000';

let sandbox: SandboxHandle;
let ws: Workspace;
let http: Api;

beforeAll(async () => {
  sandbox = await inProcessSandbox({
    seed: {
      users: [{ first_name: 'Alice', email: 'alice@example.com' }],
      keys: [{ key: NO_EXPERIMENT_SCOPE, scopes: ['project:read', 'action:read', 'action:write', 'feature_flag:read', 'organization:read', 'activity_log:read'] }],
      organizations: [
        { id: ORG, projects: [{ id: PROJECT, name: 'Web' }, { id: 112, name: 'Mobile' }] },
        { id: BASIC_ORG, name: 'Basic', features: ['tagging'], projects: [{ id: 222, name: 'Free' }] },
      ],
    },
  });
  ws = workspace(sandbox);
  http = api(sandbox.baseUrl, sandbox.apiKey);
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

interface Step { status?: string; extra?: string; holdout?: number; variants?: string; flags?: string; prune?: string }

const file = (s: Step = {}) => `organization: ${ORG}
projects:
  - id: ${PROJECT}
    actions:
      - name: Purchased
        steps: [ { event: purchase } ]
    experiment_holdouts:
      - name: Global holdout
        filters: [ { properties: [], rollout_percentage: ${s.holdout ?? 5} } ]
    experiment_saved_metrics:
      - name: Pageviews
        query: { kind: ExperimentMetric, metric_type: mean, source: { kind: EventsNode, event: $pageview } }
        tags: [core]
    experiments:
      - name: Checkout redesign
        description: New checkout
        feature_flag: checkout-redesign
        variants: ${s.variants ?? '[ { key: control, split_percent: 50 }, { key: test, split_percent: 50 } ]'}
        holdout: { experiment_holdout: Global holdout }
        saved_metrics: { primary: [ { experiment_saved_metric: Pageviews } ] }
        metrics: [ { kind: ExperimentMetric, metric_type: funnel, series: [ { kind: EventsNode, event: checkout_started }, { kind: ActionsNode, id: { action: Purchased } } ] } ]
        exposure_criteria: { exposure_config: { kind: ExperimentEventExposureConfig, event: $feature_flag_called, properties: [] } }
        status: ${s.status ?? 'draft'}
${s.extra ?? ''}${s.flags ?? ''}${s.prune ?? ''}`;

async function experimentNamed(name: string): Promise<Rec | undefined> {
  const read = async (q: string) => ((await http.get(`/api/projects/${PROJECT}/experiments/${q}`)).body as { results: Rec[] }).results;
  return [...await read(''), ...await read('?archived=true')].find((e) => e.name === name);
}
async function flagOf(key: string): Promise<Rec> {
  return ((await http.get(`/api/projects/${PROJECT}/feature_flags/?limit=1000`)).body as { results: Rec[] }).results.find((f) => f.key === key) as Rec;
}
const variantsOf = (flag: Rec) => ((flag.filters as Rec).multivariate as { variants: Rec[] }).variants.map((v) => [v.key, v.rollout_percentage]);

interface PlanJson { changes: Array<{ address: string; action: string; fields: Array<{ path: string; before?: unknown; after?: unknown }> }>; unmanaged?: Array<{ address: string; held_by?: Rec[] }>; warnings?: string[] }

/** Plans the file (JSON), applies it, and checks the plan is empty after. */
async function step(content: string): Promise<PlanJson> {
  const path = ws.write('hogsync.yaml', content);
  const planned = await ws.cli(['plan', path, '--format', 'json']);
  expect(planned.code, planned.stderr).toBe(0);
  const applied = await ws.cli(['apply', path, '--auto-approve']);
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
  const again = await ws.cli(['plan', path, '--detailed-exitcode']);
  expect(again.code, again.stdout + again.stderr).toBe(0);
  return JSON.parse(planned.stdout) as PlanJson;
}

/** A plan that is an error: its message, and the experiment as it was (nothing sent by apply either). */
async function refused(content: string): Promise<string> {
  const before = await experimentNamed('Checkout redesign');
  const path = ws.write('refused.yaml', content);
  const planned = await ws.cli(['plan', path]);
  expect(planned.code).toBe(1);
  const applied = await ws.cli(['apply', path, '--auto-approve']);
  expect(applied.code).toBe(1);
  expect(await experimentNamed('Checkout redesign')).toEqual(before);
  return planned.stderr;
}

const changeOf = (plan: PlanJson, kind: string) => plan.changes.find((c) => c.address.startsWith(`${kind}:`));

describe('experiments as code', () => {
  it('converges in draft: the holdout, saved metric and action first, the experiment by their names, its flag made off', async () => {
    const plan = await step(file());
    expect(plan.changes.map((c) => `${c.action} ${c.address.replace(`${ORG}/`, '')}`)).toEqual([
      `create action:${PROJECT}/Purchased`,
      `create experiment_holdout:${PROJECT}/Global holdout`,
      `create experiment_saved_metric:${PROJECT}/Pageviews`,
      `create experiment:${PROJECT}/Checkout redesign`,
    ]);
    // The plan shows the references by name.
    const created = changeOf(plan, 'experiment');
    expect(created?.fields.find((f) => f.path === 'holdout')?.after).toEqual({ experiment_holdout: 'Global holdout' });
    const e = await experimentNamed('Checkout redesign') as Rec;
    expect(e.start_date).toBeNull();
    expect((e.holdout as Rec).name).toBe('Global holdout');
    expect((e.saved_metrics as Rec[]).map((m) => m.name)).toEqual(['Pageviews']);
    // The API stamped the metric: never drift (the plan after apply was empty).
    expect((e.metrics as Rec[])[0]).toHaveProperty('fingerprint');
    expect((e.exposure_criteria as Rec).filterTestAccounts).toBe(true);
    const flag = await flagOf('checkout-redesign');
    expect(flag.active).toBe(false);
    expect(flag.experiment_set).toEqual([e.id]);
    expect(variantsOf(flag)).toEqual([['control', 50], ['test', 50]]);
  });

  it('launches when the file says running, and pauses', async () => {
    const launched = await step(file({ status: 'running' }));
    expect(launched.changes.map((c) => [c.address.split('/').at(-1), c.fields.map((f) => f.path)])).toEqual([['Checkout redesign', ['status']]]);
    expect((await flagOf('checkout-redesign')).active).toBe(true);
    expect((await experimentNamed('Checkout redesign'))?.start_date).not.toBeNull();
    await step(file({ status: 'paused' }));
    expect((await flagOf('checkout-redesign')).active).toBe(false);
  });

  it('refuses a backward move, a variant key change after launch and a holdout change while running, with nothing sent', async () => {
    expect(await refused(file({ status: 'draft' }))).toContain('status moves forward only');
    expect(await refused(file({ status: 'paused', variants: '[ { key: control }, { key: bigger-button } ]' }))).toContain('variant keys cannot change after launch');
    const noHoldout = file({ status: 'paused' }).replace('        holdout: { experiment_holdout: Global holdout }\n', '        holdout: null\n');
    expect(await refused(noHoldout)).toContain("a running experiment's holdout cannot change");
    expect(await refused(file({ status: 'paused', extra: '        archived: true\n' }))).toContain('archived only once stopped');
  });

  it('names the experiments whose flags a holdout change rewrites (previews or not), and rewrites them', async () => {
    const path = ws.write('hogsync.yaml', file({ status: 'paused', holdout: 10 }));
    // Named with --no-preview too: the API rewrites the flags without a word.
    const planned = await ws.cli(['plan', path, '--no-preview']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout + planned.stderr).toContain('rewrites the holdout groups in the flags of experiment "Checkout redesign"');
    await step(file({ status: 'paused', holdout: 10 }));
    expect(((await flagOf('checkout-redesign')).filters as Rec).holdout).toMatchObject({ exclusion_percentage: 10 });
  });

  it('holds the experiment\'s flag from prune and from feature_flags', async () => {
    const path = ws.write('prune.yaml', file({ status: 'paused', holdout: 10, prune: 'prune: { feature_flags: true }\n' }));
    const planned = await ws.cli(['plan', path, '--format', 'json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as PlanJson;
    expect(plan.changes).toEqual([]);
    expect(plan.unmanaged?.find((u) => u.address.endsWith('/checkout-redesign'))?.held_by).toEqual([expect.objectContaining({ kind: 'experiment' })]);
    const declared = file({ status: 'paused', holdout: 10, flags: '    feature_flags:\n      - key: checkout-redesign\n        active: true\n' });
    // Declared beside the experiment in the files: a validate error at the flag's line, naming its owner.
    const validated = await ws.cli(['validate', ws.write('refused.yaml', declared)]);
    expect(validated.code).toBe(1);
    expect(validated.stderr).toMatch(/refused\.yaml:\d+:\d+: .*checkout-redesign is owned by experiment "Checkout redesign"/);
    // Declared alone: the live flag's experiment holds it from the edit.
    const alone = `organization: ${ORG}\nprojects:\n  - id: ${PROJECT}\n    feature_flags:\n      - key: checkout-redesign\n        active: true\n`;
    expect(await refused(alone)).toContain('the flag is owned by experiment');
  });

  it('ends with a conclusion, then ships a variant: shown as rewriting the flag for everyone', async () => {
    const ended = await step(file({ status: 'stopped', holdout: 10, extra: '        conclusion: won\n        conclusion_comment: Clear winner\n' }));
    expect(changeOf(ended, 'experiment')?.fields.map((f) => f.path).sort()).toEqual(['conclusion', 'conclusion_comment', 'status']);
    const e = await experimentNamed('Checkout redesign') as Rec;
    expect([e.conclusion, e.conclusion_comment, e.end_date !== null]).toEqual(['won', 'Clear winner', true]);

    const shipFile = file({ status: 'stopped', holdout: 10, extra: '        conclusion: won\n        conclusion_comment: Clear winner\n        ship_variant: test\n' });
    const text = await ws.cli(['plan', ws.write('hogsync.yaml', shipFile)]);
    expect(text.stdout).toContain('rewrites the flag for everyone it serves to this variant');
    await step(shipFile);
    expect(variantsOf(await flagOf('checkout-redesign'))).toEqual([['control', 0], ['test', 100]]);
    expect(await refused(file({ status: 'running', holdout: 10 }))).toContain('status moves forward only');
    // Drift of such a file is drift (the experiment moved on), with the rule beside it, not an error.
    const drift = await ws.cli(['drift', ws.write('refused.yaml', file({ status: 'running', holdout: 10 }))]);
    expect(drift.code, drift.stderr).toBe(2);
    expect(drift.stdout + drift.stderr).toContain('status moves forward only');
  });

  it('exports the three kinds with references by name, and the export plans empty', async () => {
    const out = ws.path('exported.yaml');
    const exported = await ws.cli(['export', '--organization', ORG, '--kind', 'experiments,experiment_holdouts,experiment_saved_metrics', '--kind', 'actions', '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = parse(readFileSync(out, 'utf8')) as { projects: Array<{ experiments: Rec[]; experiment_holdouts: Rec[]; experiment_saved_metrics: Rec[] }> };
    const e = doc.projects[0]?.experiments[0] as Rec;
    expect(e).toMatchObject({ name: 'Checkout redesign', feature_flag: 'checkout-redesign', status: 'stopped', ship_variant: 'test', holdout: { experiment_holdout: 'Global holdout' }, saved_metrics: { primary: [{ experiment_saved_metric: 'Pageviews' }] } });
    expect(JSON.stringify(e.metrics)).toContain('{"action":"Purchased"}');
    expect(JSON.stringify(doc)).not.toContain('fingerprint');
    expect(doc.projects[0]?.experiment_holdouts[0]?.filters).toEqual([{ properties: [], rollout_percentage: 10 }]);
    const replanned = await ws.cli(['plan', out, '--detailed-exitcode']);
    expect(replanned.code, replanned.stdout + replanned.stderr).toBe(0);
    // show writes one experiment as a file would.
    const shown = await ws.cli(['show', `experiment:${ORG}/${PROJECT}/Checkout redesign`]);
    expect(shown.code, shown.stderr).toBe(0);
    expect((parse(shown.stdout) as { projects: Array<{ experiments: Rec[] }> }).projects[0]?.experiments[0]).toMatchObject({ holdout: { experiment_holdout: 'Global holdout' }, status: 'stopped' });
  });

  it('drift --since names an experiment changed in the web app, and who changed it', async () => {
    const e = await experimentNamed('Checkout redesign') as Rec;
    const res = await fetch(`${sandbox.baseUrl}/_sandbox/web-edit/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'alice@example.com', method: 'PATCH', path: `/api/projects/${PROJECT}/experiments/${String(e.id)}/`, body: { description: 'Edited in the web app' } }) });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    // The API logs holdouts under the experiments' scope, with their own ids: a newer holdout entry
    // of the same id (the first of each) is not the experiment's.
    const holdout = ((await http.get(`/api/projects/${PROJECT}/experiment_holdouts/`)).body as { results: Rec[] }).results[0] as Rec;
    expect(holdout.id).toBe(e.id);
    expect((await http.patch(`/api/projects/${PROJECT}/experiment_holdouts/${String(holdout.id)}/`, { description: 'Edited by the key' })).status).toBe(200);
    const path = ws.write('hogsync.yaml', file({ status: 'stopped', holdout: 10, extra: '        conclusion: won\n        conclusion_comment: Clear winner\n        ship_variant: test\n' }));
    const drift = await ws.cli(['drift', path, '--since', '1h']);
    expect(drift.code, drift.stderr).toBe(2);
    expect(drift.stdout).toContain(`~ experiment:${ORG}/${PROJECT}/Checkout redesign`);
    expect(drift.stdout).toContain('changed by alice@example.com');
    await step(file({ status: 'stopped', holdout: 10, extra: '        conclusion: won\n        conclusion_comment: Clear winner\n        ship_variant: test\n' }));
  });

  it('creates then launches, and stops then archives, as ordered changes each reported; a failure between them leaves a plan with what is left', async () => {
    const second = (status: string, extra = '', other = 'running', otherExtra = '') => `organization: ${ORG}
projects:
  - id: ${PROJECT}
    experiments:
      - name: Pricing page
        feature_flag: pricing-page
        variants: [ { key: control }, { key: cheaper } ]
        status: ${status}
${extra}      - name: Signup flow
        feature_flag: signup-flow
        variants: [ { key: control }, { key: shorter } ]
        status: ${other}
${otherExtra}`;
    const nameOf = (c: { address: string }) => c.address.split('/').at(-1);
    const stepsOf = (plan: PlanJson) => (plan.changes as Array<PlanJson['changes'][number] & { step?: unknown }>).map((c) => [c.action, nameOf(c), c.step ?? null, c.fields.map((f) => f.path)]);
    // Created, then launched: two changes of each item, in order.
    const made = await step(second('running'));
    expect(stepsOf(made)).toEqual([
      ['create', 'Pricing page', { number: 1, of: 2 }, ['feature_flag', 'variants']],
      ['update', 'Pricing page', { number: 2, of: 2 }, ['status']],
      ['create', 'Signup flow', { number: 1, of: 2 }, ['feature_flag', 'variants']],
      ['update', 'Signup flow', { number: 2, of: 2 }, ['status']],
    ]);
    expect((await experimentNamed('Pricing page'))?.start_date).not.toBeNull();

    const concluded = '        conclusion: won\n        archived: true\n';
    const name = (n: string) => `experiment:${ORG}/${PROJECT}/${n}`;
    const archiveFails = await faultyProxy(sandbox.baseUrl, (req) => (req.method === 'POST' && /\/archive\/$/.test(req.url ?? '') ? { status: 500, body: '{"type":"server_error","code":"error","detail":"A server error occurred.","attr":null}' } : undefined));
    const through = workspace({ baseUrl: archiveFails.baseUrl, apiKey: sandbox.apiKey });
    try {
      const path = through.write('hogsync.yaml', second('stopped', concluded));
      // Stopped with its conclusion, then archived: two changes of one address, the stop first.
      const planned = await through.cli(['plan', path, '--format', 'json']);
      const plan = JSON.parse(planned.stdout) as PlanJson & { summary: Rec };
      expect(stepsOf(plan)).toEqual([
        ['update', 'Pricing page', { number: 1, of: 2 }, ['status', 'conclusion']],
        ['update', 'Pricing page', { number: 2, of: 2 }, ['archived']],
      ]);
      expect(plan.changes.map((c) => c.address)).toEqual([name('Pricing page'), name('Pricing page')]);
      expect(plan.summary.update).toBe(2);
      const failed = await through.cli(['apply', path, '--auto-approve']);
      expect(failed.code).toBe(1);
      // Each reported on its own line and in the counts.
      expect(failed.stdout).toContain(`~ ${name('Pricing page')} (step 1 of 2) applied`);
      expect(failed.stdout).toMatch(new RegExp(`~ ${name('Pricing page')} \\(step 2 of 2\\) failed: POST /api/projects/111/experiments/\\d+/archive/ → 500`));
      expect(failed.stdout).toContain('1 applied, 1 failed, 0 skipped');
    } finally {
      await archiveFails.close();
      through.remove();
    }
    const half = await experimentNamed('Pricing page') as Rec;
    expect([half.end_date !== null, half.conclusion, half.archived]).toEqual([true, 'won', false]);
    // The next plan has only the archive, as a change of its own; applied, the plan is empty after.
    const resumed = await step(second('stopped', concluded));
    expect(stepsOf(resumed)).toEqual([['update', 'Pricing page', null, ['archived']]]);
    expect((await experimentNamed('Pricing page'))?.archived).toBe(true);

    // The stop failing, the archive is not tried, and says so; `--target` takes both steps.
    const endFails = await faultyProxy(sandbox.baseUrl, (req) => (req.method === 'POST' && /\/end\/$/.test(req.url ?? '') ? { status: 500, body: '{"type":"server_error","code":"error","detail":"A server error occurred.","attr":null}' } : undefined));
    const viaEnd = workspace({ baseUrl: endFails.baseUrl, apiKey: sandbox.apiKey });
    try {
      const path = viaEnd.write('hogsync.yaml', second('stopped', concluded, 'stopped', concluded));
      const failed = await viaEnd.cli(['apply', path, '--auto-approve', '--target', name('Signup flow'), '--format', 'json']);
      expect(failed.code).toBe(1);
      const report = JSON.parse(failed.stdout) as { summary: Rec; changes: Array<Rec> };
      expect(report.summary).toEqual({ applied: 0, failed: 1, skipped: 1 });
      expect(report.changes.map((o) => [o.address, o.step, o.status])).toEqual([
        [name('Signup flow'), { number: 1, of: 2 }, 'failed'],
        [name('Signup flow'), { number: 2, of: 2 }, 'skipped'],
      ]);
      expect(report.changes[1]?.error).toBe('not started: step 1 of this change was not applied (failed)');
    } finally {
      await endFails.close();
      viaEnd.remove();
    }
    expect((await experimentNamed('Signup flow'))?.end_date).toBeNull();
    // A saved plan of both steps (targeted) applies as planned.
    const path = ws.write('hogsync.yaml', second('stopped', concluded, 'stopped', concluded));
    const saved = await ws.cli(['plan', path, '--target', name('Signup flow'), '--out', 'steps.json', '--format', 'json']);
    expect(stepsOf(JSON.parse(saved.stdout) as PlanJson).map((s) => [nameOf({ address: String(s[1]) }), s[2]])).toEqual([['Signup flow', { number: 1, of: 2 }], ['Signup flow', { number: 2, of: 2 }]]);
    const applied = await ws.cli(['apply', '--plan', 'steps.json', '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`~ ${name('Signup flow')} (step 2 of 2) applied`);
    expect(applied.stdout).toContain('2 applied, 0 failed, 0 skipped');
    expect((await ws.cli(['plan', path, '--detailed-exitcode'])).code).toBe(0);
    expect(await experimentNamed('Signup flow')).toMatchObject({ conclusion: 'won', archived: true });

    // Archived: read from the archived list, matched by name, never created again.
    expect((await ws.cli(['plan', ws.write('hogsync.yaml', second('stopped', concluded, 'stopped', concluded)), '--detailed-exitcode'])).code).toBe(0);
    // Declared absent, the archived experiment is found in the archived list and deleted.
    const gone = await step(second('stopped', '        ensure: absent\n', 'stopped', concluded));
    expect(gone.changes.map((c) => c.action)).toEqual(['delete']);
    expect(await experimentNamed('Pricing page')).toBeUndefined();
  });

  it('validate refuses what the API would, at file:line:col: a holdout share over 100, a saved metric of another kind, variants without one control', async () => {
    const bad = ws.write('bad.yaml', `organization: ${ORG}
projects:
  - id: ${PROJECT}
    experiment_holdouts:
      - name: Too big
        filters: [ { rollout_percentage: 150 } ]
    experiment_saved_metrics:
      - name: Wrong kind
        query: { kind: TrendsQuery }
    experiments:
      - name: One variant
        feature_flag: one
        variants: [ { key: control } ]
      - name: No control
        feature_flag: no-control
        variants: [ { key: a }, { key: b } ]
`);
    const r = await ws.cli(['validate', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bad.yaml:6:42: filters[0].rollout_percentage: must be at most 100');
    expect(r.stderr).toContain('bad.yaml:9:24: query.kind: must be "ExperimentMetric", "ExperimentTrendsQuery" or "ExperimentFunnelsQuery"');
    expect(r.stderr).toContain('bad.yaml:13:19: variants: must NOT have fewer than 2 items');
    expect(r.stderr).toMatch(/bad\.yaml:16:\d+: variants: exactly one must be keyed control/);
  });

  it('shares holdouts and saved metrics across projects with projects: and overrides:', async () => {
    const path = ws.write('shared.yaml', `organization: ${ORG}
projects:
  - id: 112
    alias: mobile
experiment_saved_metrics:
  - name: Sessions
    projects: [mobile]
    query: { kind: ExperimentMetric, metric_type: mean, source: { kind: EventsNode, event: $pageview } }
experiment_holdouts:
  - name: Mobile holdout
    projects: [mobile]
    filters: [ { rollout_percentage: 5 } ]
    overrides: { mobile: { filters: [ { rollout_percentage: 15 } ] } }
`);
    const applied = await ws.cli(['apply', path, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const holdouts = ((await http.get('/api/projects/112/experiment_holdouts/')).body as { results: Rec[] }).results;
    expect(holdouts.map((h) => [h.name, (h.filters as Rec[])[0]?.rollout_percentage])).toEqual([['Mobile holdout', 15]]);
    expect((await ws.cli(['plan', path, '--detailed-exitcode'])).code).toBe(0);
  });

  it('takes an existing flag only as the API allows, and says why when it does not', async () => {
    expect((await http.post(`/api/projects/${PROJECT}/feature_flags/`, { key: 'plain-flag', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } })).status).toBe(201);
    const path = ws.write('adopt.yaml', `organization: ${ORG}
projects:
  - id: ${PROJECT}
    experiments:
      - name: On a plain flag
        feature_flag: plain-flag
        variants: [ { key: control }, { key: test } ]
`);
    const applied = await ws.cli(['apply', path, '--auto-approve']);
    expect(applied.code).toBe(1);
    expect(applied.stdout + applied.stderr).toContain('an experiment takes an existing flag only when it is multivariate with control as the first');
    expect(await experimentNamed('On a plain flag')).toBeUndefined();
  });

  it('where the organization has no experiments, a file declaring them is one plan error naming the kind, before anything is sent', async () => {
    const path = ws.write('basic.yaml', `organization: ${BASIC_ORG}
projects:
  - id: 222
    experiments:
      - name: Nope
        feature_flag: nope
        variants: [ { key: control }, { key: test } ]
`);
    const planned = await ws.cli(['plan', path]);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain('experiments are not available here');
    expect(planned.stderr.split('\n').filter((l) => l.startsWith('error')).length).toBeLessThanOrEqual(1);
    // A key without the experiment scope is told so, not that the organization lacks experiments.
    const withoutScope = await ws.cli(['plan', ws.write('scoped.yaml', file())], { HOGSYNC_API_KEY: NO_EXPERIMENT_SCOPE });
    expect(withoutScope.code).toBe(1);
    expect(withoutScope.stderr).toContain("experiment:read");
    expect(withoutScope.stderr).not.toContain('not available here');
    // Exporting that organization's every kind still works: there is no experiment to write.
    const exported = await ws.cli(['export', '--organization', BASIC_ORG]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).not.toContain('experiments:');
  });
});
