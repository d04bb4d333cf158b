// Launches as code end to end, through the real CLI against one sandbox: a survey declared once
// for staging and production (the flag it uses named by key: a different id in each project, an
// action by name in its conditions) converges and plans empty; a question reworded in the file
// keeps its id (and its responses' link); a running survey stopped in the file sends end_date and
// nothing else; the flags the survey makes stay out of the flag list; export writes it back so it
// plans empty; and what the API would refuse is refused first, at its line.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, inProcessSandbox, recordRequests, stopAllSandboxes, type Api } from './support/sandbox.js';
import { config, ORG, workspace, type Workspace } from './support/workspace.js';

type Rec = Record<string, unknown>;
const PROJECTS = [222, 333];

let sandbox: SandboxHandle;
let ws: Workspace;
let http: Api;

beforeAll(async () => {
  // Flags the files do not declare push the flag ids apart in each project.
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{
        id: ORG,
        projects: [
          { id: 222, name: 'Staging', feature_flags: [{ key: 'filler', active: true }] },
          { id: 333, name: 'Prod', feature_flags: [{ key: 'filler', active: true }, { key: 'filler-2', active: true }] },
        ],
        roles: [{ name: 'Engineers' }],
      }],
    },
  });
  ws = workspace(sandbox);
  http = api(sandbox.baseUrl, sandbox.apiKey);
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

async function list(project: number, kind: 'surveys' | 'feature_flags' | 'early_access_feature'): Promise<Rec[]> {
  return ((await http.get(`/api/projects/${project}/${kind}/?limit=1000`)).body as { results: Rec[] }).results;
}
const surveyOf = async (project: number, name = 'NPS') => (await list(project, 'surveys')).find((s) => s.name === name) as Rec;

const launches = (options: { question?: string; status?: string; extra?: string } = {}) => config(`projects:
  - id: 222
    alias: staging
  - id: 333
    alias: prod
actions:
  - name: Checked out
    steps: [ { event: checkout } ]
feature_flags:
  - key: new-checkout
    active: true
    filters: { groups: [ { properties: [], rollout_percentage: 20 } ] }
surveys:
  - name: NPS
    type: popover
    description: How do people like the new checkout?
    questions:
      - type: rating
        question: ${options.question ?? 'How likely are you to recommend us?'}
        scale: 10
        display: number
      - type: open
        question: Anything else?
        buttonText: Send
    linked_flag: { feature_flag: new-checkout }
    conditions: { actions: { values: [ { id: { action: Checked out } } ] } }
    targeting: { groups: [ { properties: [ { key: email, type: person, operator: icontains, value: "@example.com" } ], rollout_percentage: 100 } ] }
    status: ${options.status ?? 'running'}
${options.extra ?? ''}`);

describe('surveys as code', () => {
  it('converge in staging and production from one declaration, the flag and action by name, and plan empty', async () => {
    const file = ws.write('hogsync.yaml', launches());
    const planned = await ws.cli(['plan', file, '--format', 'json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string; fields: Array<{ path: string; after: unknown }> }> };
    expect(plan.changes.map((c) => c.address.replace(`${ORG}/`, ''))).toEqual([
      ...PROJECTS.map((p) => `action:${p}/Checked out`),
      ...PROJECTS.map((p) => `feature_flag:${p}/new-checkout`),
      ...PROJECTS.map((p) => `survey:${p}/NPS`),
    ]);
    expect(plan.changes.at(-1)?.fields.find((f) => f.path === 'linked_flag')?.after).toEqual({ feature_flag: 'new-checkout' });

    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const flags = await Promise.all(PROJECTS.map(async (p) => (await list(p, 'feature_flags')).find((f) => f.key === 'new-checkout')));
    expect(flags[0]?.id).not.toEqual(flags[1]?.id);
    for (const [i, p] of PROJECTS.entries()) {
      const s = await surveyOf(p);
      expect((s.linked_flag as Rec).id).toBe(flags[i]?.id);
      expect(s.start_date).not.toBeNull();
      expect(((s.conditions as { actions: { values: Rec[] } }).actions.values[0] as Rec).name).toBe('Checked out');
      // The flag is held by the survey, and the survey's own flags stay out of the flag list.
      expect(flags[i]?.surveys).toEqual([expect.objectContaining({ name: 'NPS' })]);
      expect((await list(p, 'feature_flags')).map((f) => f.key)).not.toContain((s.targeting_flag as Rec).key);
    }
    const again = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(again.stdout + again.stderr).toContain('No changes');
    expect(again.code).toBe(0);
  });

  it('keeps a reworded question\'s id, and says so', async () => {
    const before = (await surveyOf(222)).questions as Rec[];
    const file = ws.write('hogsync.yaml', launches({ question: 'Would you recommend us to a friend?' }));
    const planned = await ws.cli(['plan', file, '--format', 'json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string; fields: Array<{ path: string; after: unknown }> }>; warnings: string[] };
    expect(plan.changes.map((c) => c.address.replace(`${ORG}/`, ''))).toEqual(PROJECTS.map((p) => `survey:${p}/NPS`));
    // The plan shows the questions as they will be sent: each with the live id it keeps.
    const shownAfter = plan.changes[0]?.fields.find((f) => f.path === 'questions')?.after as Rec[];
    expect(shownAfter.map((q) => q.id)).toEqual(before.map((q) => q.id));
    expect(plan.warnings.join('\n')).toContain(`survey:${ORG}/222/NPS: questions[0] is declared without an id and takes the live question's id ${String(before[0]?.id)}`);
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    const after = (await surveyOf(222)).questions as Rec[];
    expect(after.map((q) => q.id)).toEqual(before.map((q) => q.id));
    expect(after[0]?.question).toBe('Would you recommend us to a friend?');
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('stops a running survey with end_date and nothing else; running → draft is a plan error', async () => {
    const requests = recordRequests(sandbox.server);
    const file = ws.write('hogsync.yaml', launches({ question: 'Would you recommend us to a friend?', status: 'stopped' }));
    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const patches = requests.filter((r) => r.method === 'PATCH' && r.path.includes('/surveys/'));
    expect(patches).toHaveLength(2);
    for (const p of patches) expect(Object.keys(p.body as Rec)).toEqual(['end_date']);
    expect((await surveyOf(333)).end_date).not.toBeNull();
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);

    const draft = ws.write('hogsync.yaml', launches({ question: 'Would you recommend us to a friend?', status: 'draft' }));
    const r = await ws.cli(['plan', draft]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/hogsync\.yaml:\d+:\d+: .*survey:.*\/NPS: status draft, but the survey has started \(stopped\): the API cannot take a survey back to draft/);
  });

  it('exports surveys with their question ids and references by name; the export plans empty', async () => {
    const out = ws.path('exported.yaml');
    const exported = await ws.cli(['export', '--organization', ORG, '--kind', 'surveys', '--kind', 'feature_flags', '--kind', 'actions', '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = parse(readFileSync(out, 'utf8')) as { projects: Array<{ id: number; surveys?: Rec[] }> };
    const nps = doc.projects.find((p) => p.id === 333)?.surveys?.[0] as Rec;
    expect(nps.linked_flag).toEqual({ feature_flag: 'new-checkout' });
    expect(nps.conditions).toEqual({ actions: { values: [{ id: { action: 'Checked out' } }] } });
    expect(nps.status).toBe('stopped');
    expect((nps.questions as Rec[]).every((q) => typeof q.id === 'string')).toBe(true);
    expect((await ws.cli(['validate', out])).code).toBe(0);
    const plan = await ws.cli(['plan', out, '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const shown = await ws.cli(['show', `survey:${ORG}/222/NPS`]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('feature_flag: new-checkout');
  });

  it('a survey delete says it deletes the survey\'s flags; the flag a survey links is held, never pruned', async () => {
    const nps = await surveyOf(222);
    const internal = (nps.internal_targeting_flag as Rec).key as string;
    const file = ws.write('absent.yaml', config(`projects:
  - id: 222
    surveys:
      - name: NPS
        ensure: absent
  - id: 333
prune: { feature_flags: true }
`));
    const planned = await ws.cli(['plan', file, '--format', 'json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string; action: string }>; unmanaged: Array<{ address: string; held_by?: Rec[] }>; warnings: string[] };
    expect(plan.warnings.join('\n')).toContain(`survey:${ORG}/222/NPS: deleting a survey also deletes its internal flags (`);
    expect(plan.warnings.join('\n')).toContain(internal);
    expect(plan.changes.filter((c) => c.address.includes('new-checkout'))).toEqual([]);
    expect(plan.unmanaged.find((u) => u.address === `feature_flag:${ORG}/333/new-checkout`)?.held_by).toEqual([expect.objectContaining({ kind: 'survey', name: 'NPS' })]);
  });

  it('a text the API sanitises is a validate warning, applies, and plans empty (never endless drift)', async () => {
    const file = ws.write('html.yaml', config(`projects:
  - id: 222
    surveys:
      - name: Styled
        type: popover
        questions:
          - type: open
            question: "<b onclick='x()'>Bold</b> <blink>question</blink>"
`));
    const v = await ws.cli(['validate', file]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stderr).toMatch(/html\.yaml:9:23: warning: questions\[0\]\.question: the API sanitises this HTML and stores "<b>Bold<\/b> question"/);
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    expect(((await surveyOf(222, 'Styled')).questions as Rec[])[0]?.question).toBe('<b>Bold</b> question');
    const again = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
  });

  it('a sampling start date once passed is never sent again; a linked insight is sent as linked_insight_id', async () => {
    const late = (date: string) => config(`projects:
  - id: 222
    surveys:
      - name: Sampled
        type: popover
        questions: [ { type: open, question: Why? } ]
        response_sampling_start_date: "${date}"
        linked_insight: 7
`);
    const file = ws.write('sampled.yaml', late('2099-01-01T00:00:00Z'));
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    expect((await surveyOf(222, 'Sampled')).response_sampling_start_date).toBe('2099-01-01T00:00:00Z');
    expect((await surveyOf(222, 'Sampled')).linked_insight_id).toBe(7);
    // The file now holds a date in the past (the API would refuse it): no change is planned.
    ws.write('sampled.yaml', late('2020-01-01T00:00:00Z'));
    const plan = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it('refuses offline, at its line, what the API would refuse', async () => {
    const file = ws.write('bad.yaml', config(`projects:
  - id: 222
    surveys:
      - name: Everyone
        type: popover
        questions: [ { type: open, question: Why? } ]
        targeting: { groups: [ { properties: [], rollout_percentage: 100 } ] }
      - name: Misspelt
        type: popover
        questions: [ { type: open, question: Why? } ]
        targeting: { groups: [ { properties: [ { key: email, type: person, value: x } ], rollout_percentag: 10 } ] }
      - name: Hosted
        type: external_survey
        questions: [ { type: link, question: Go, link: "http://example.com" } ]
        linked_flag: { feature_flag: new-checkout }
      - name: Choices
        type: popover
        questions: [ { type: single_choice, question: Pick, choices: [ a, " " ] } ]
`));
    const v = await ws.cli(['validate', file]);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/bad\.yaml:8:\d+: targeting\.groups\[0\]: rolls out to everyone: the API refuses it/);
    expect(v.stderr).toMatch(/bad\.yaml:12:\d+: .*rollout_percentag.*did you mean .*rollout_percentage/);
    expect(v.stderr).toMatch(/bad\.yaml:15:\d+: .*https:\/\/ URL or a mailto: address/);
    expect(v.stderr).toMatch(/bad\.yaml:16:\d+: linked_flag: is not allowed for external surveys/);
    expect(v.stderr).toMatch(/bad\.yaml:19:\d+: questions\[0\]\.choices\[1\]: must be a choice that is not blank/);
    // A sampling start date once passed is never sent again: a warning, not an error.
    const late = ws.write('late.yaml', config(`projects:
  - id: 222
    surveys:
      - name: Late
        type: popover
        questions: [ { type: open, question: Why? } ]
        response_sampling_start_date: "2020-01-01T00:00:00Z"
`));
    const w = await ws.cli(['validate', late]);
    expect(w.code, w.stderr).toBe(0);
    expect(w.stderr).toMatch(/late\.yaml:8:\d+: warning: response_sampling_start_date: is in the past: the API refuses a past date, so hogsync never sends it again/);
  });
});

const features = (stage: string, extra = '') => config(`projects:
  - id: 222
  - id: 333
feature_flags:
  - key: dark-mode
    active: true
    filters: { groups: [ { properties: [ { key: email, type: person, operator: icontains, value: "@example.com" } ], rollout_percentage: 100 } ] }
early_access_features:
  - feature_flag: dark-mode
    name: Dark mode
    description: Easier on the eyes
    stage: ${stage}
    documentation_url: https://example.com/docs/dark-mode
    payload: { theme: dark }
${extra}`);

describe('early access features as code', () => {
  it('converge on the flag named by key in staging and production (different flag ids), and plan empty', async () => {
    const file = ws.write('features.yaml', features('draft'));
    const planned = await ws.cli(['plan', file, '--format', 'json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string }> };
    expect(plan.changes.map((c) => c.address.replace(`${ORG}/`, ''))).toEqual([
      ...PROJECTS.map((p) => `feature_flag:${p}/dark-mode`),
      ...PROJECTS.map((p) => `early_access_feature:${p}/dark-mode`),
    ]);
    const requests = recordRequests(sandbox.server);
    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const flagIds: unknown[] = [];
    for (const p of PROJECTS) {
      const flag = (await list(p, 'feature_flags')).find((f) => f.key === 'dark-mode') as Rec;
      flagIds.push(flag.id);
      const [feature] = await list(p, 'early_access_feature');
      expect((feature?.feature_flag as Rec).id).toBe(flag.id);
      expect(flag.features).toEqual([expect.objectContaining({ name: 'Dark mode' })]);
    }
    expect(flagIds[0]).not.toEqual(flagIds[1]);
    // The flag was named on create: the API made no flag of its own.
    const posts = requests.filter((r) => r.method === 'POST' && r.path.includes('/early_access_feature/'));
    expect(posts.map((r) => (r.body as Rec).feature_flag_id).sort()).toEqual([...flagIds].sort());
    const again = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  it('moves to general availability: the flag\'s enrollment keys are the API\'s, never drift in the flag', async () => {
    const file = ws.write('features.yaml', features('general-availability'));
    const planned = JSON.parse((await ws.cli(['plan', file, '--format', 'json'])).stdout) as { changes: Array<{ address: string; fields: Array<{ path: string }> }> };
    expect(planned.changes.map((c) => [c.address.replace(`${ORG}/`, ''), c.fields.map((f) => f.path)])).toEqual(PROJECTS.map((p) => [`early_access_feature:${p}/dark-mode`, ['stage']]));
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    const flag = (await list(222, 'feature_flags')).find((f) => f.key === 'dark-mode') as { filters: Rec };
    expect(flag.filters.feature_enrollment).toBe(true);
    const drift = await ws.cli(['drift', file]);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('exports features by flag key without the flag id, show names them, the export plans empty', async () => {
    const out = ws.path('features-exported.yaml');
    const exported = await ws.cli(['export', '--organization', ORG, '--kind', 'early_access_features', '--kind', 'feature_flags', '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const doc = parse(readFileSync(out, 'utf8')) as { projects: Array<{ id: number; early_access_features?: Rec[] }> };
    expect(doc.projects.find((p) => p.id === 333)?.early_access_features).toEqual([{
      feature_flag: 'dark-mode', name: 'Dark mode', description: 'Easier on the eyes', stage: 'general-availability',
      documentation_url: 'https://example.com/docs/dark-mode', payload: { theme: 'dark' },
      // The API assigns a new feature to its creator: the key's owner, by email.
      assignee: ((await http.get('/api/users/@me/')).body as { email: string }).email,
    }]);
    const plan = await ws.cli(['plan', out, '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const shown = await ws.cli(['show', `early_access_feature:${ORG}/222/dark-mode`]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('feature_flag: dark-mode');
  });

  it('a concept feature\'s waitlist survey is the API\'s: kept in the payload, never compared, never pruned', async () => {
    const file = ws.write('features.yaml', features('concept', `prune: { surveys: true }
`));
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    const [feature] = await list(222, 'early_access_feature');
    const surveyId = (feature?.payload as Rec).survey_id;
    expect(surveyId).toEqual(expect.any(String));
    // Prune of surveys leaves the waitlist (held by the feature), deletes the others.
    const planned = JSON.parse((await ws.cli(['plan', file, '--format', 'json'])).stdout) as { changes: Array<{ address: string; action: string }>; unmanaged: Array<{ key: string; held_by?: Rec[] }> };
    expect(planned.changes.filter((c) => c.action === 'delete').map((c) => c.address)).not.toEqual(expect.arrayContaining([expect.stringContaining('waitlist')]));
    expect(planned.unmanaged.find((u) => u.key.includes('waitlist'))?.held_by).toEqual([expect.objectContaining({ kind: 'early_access_feature', name: 'Dark mode' })]);
    // A payload change keeps the survey id.
    ws.write('features.yaml', features('concept', '').replace('payload: { theme: dark }', 'payload: { theme: light }'));
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    const [after] = await list(222, 'early_access_feature');
    expect(after?.payload).toEqual({ theme: 'light', survey_id: surveyId });
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('assigns the feature to a role by name or a member by email (the API\'s {type, id}), and refuses one outside the organization', async () => {
    const me = ((await http.get('/api/users/@me/')).body as { id: number; email: string });
    const roles = ((await http.get(`/api/organizations/${ORG}/roles/`)).body as { results: Rec[] }).results;
    const engineers = roles.find((r) => r.name === 'Engineers') as Rec;
    const file = ws.write('features.yaml', features('general-availability', '').replace('payload: { theme: dark }', 'payload: { theme: dark }\n    assignee: { role: Engineers }'));
    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect((await list(333, 'early_access_feature'))[0]?.assignee).toEqual({ type: 'role', id: engineers.id });
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    ws.write('features.yaml', features('general-availability', '').replace('payload: { theme: dark }', `payload: { theme: dark }\n    assignee: ${me.email.toUpperCase()}`));
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    expect((await list(222, 'early_access_feature'))[0]?.assignee).toEqual({ type: 'user', id: me.id });
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    ws.write('features.yaml', features('general-availability', '').replace('payload: { theme: dark }', 'payload: { theme: dark }\n    assignee: nobody@example.org'));
    const r = await ws.cli(['plan', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/features\.yaml:10:\d+: .*assignee: no member of the organization has the email nobody@example\.org/);
  });

  it('refuses a multivariate or group-based flag offline where the files declare it, and in the sandbox where they do not', async () => {
    const file = ws.write('bad-features.yaml', config(`projects:
  - id: 222
    feature_flags:
      - key: colours
        filters:
          groups: [ { properties: [], rollout_percentage: 100 } ]
          multivariate: { variants: [ { key: red, rollout_percentage: 50 }, { key: blue, rollout_percentage: 50 } ] }
    early_access_features:
      - feature_flag: colours
        name: Colours
        stage: beta
`));
    const v = await ws.cli(['validate', file]);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/bad-features\.yaml:10:\d+: .*flag "colours" is multivariate: the API refuses it for an early access feature/);
    // A live group-based flag the files do not declare: the plan asks with the live flag.
    await http.post('/api/projects/222/feature_flags/', { key: 'orgs-only', filters: { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 10 }] } });
    const live = ws.write('live-features.yaml', config(`projects:
  - id: 222
    early_access_features:
      - feature_flag: orgs-only
        name: For organizations
        stage: beta
`));
    const r = await ws.cli(['plan', live]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/live-features\.yaml:5:\d+: .*flag "orgs-only" is group-based/);
    // An unknown flag key is an error at the identity's line.
    const missing = ws.write('missing.yaml', config(`projects:
  - id: 222
    early_access_features:
      - feature_flag: no-such-flag
        name: Nothing
        stage: beta
`));
    const m = await ws.cli(['plan', missing]);
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(/missing\.yaml:5:\d+: .*no feature flag named "no-such-flag" in project 222/);
  });
});

