// Cohorts and actions end to end, through the real CLI against one sandbox: a shared "Staff"
// cohort (a different id in each of three projects) and a shared flag that targets it by name
// converge with no override and plan empty; export writes the references by name and plans empty;
// renaming the cohort keeps every flag on it; a targeted plan of the flag still resolves the
// cohort; under prune the flags stop targeting the cohort before it is deleted, and a cohort an
// outside flag uses is held; and what the API would refuse is refused first, at its line.
import { readFileSync } from 'node:fs';
import { expectCanonical } from './support/canonical.js';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../src/sandbox/json.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { config, ORG, workspace, type Workspace } from './support/workspace.js';

type Rec = Record<string, unknown>;
const PROJECTS = [111, 222, 333];
const anyOf = (values: string) => `{ properties: { type: OR, values: [ { type: AND, values: [ ${values} ] } ] } }`;
const STAFF = anyOf('{ key: email, type: person, operator: icontains, value: "@example.com" }');
const BUYERS = anyOf('{ key: $pageview, type: behavioral, value: performed_event, event_type: events, time_value: 30, time_interval: day }');

let sandbox: SandboxHandle;
let ws: Workspace;
let http: Api;

beforeAll(async () => {
  // Cohorts the files do not declare push Staff's id apart in each project; Buyers is behavioral.
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{
        id: ORG,
        projects: [
          { id: 111, name: 'Dev', cohorts: [{ name: 'Buyers', filters: parse(BUYERS) as JsonObject }] },
          { id: 222, name: 'Staging', cohorts: [{ name: 'Filler' }] },
          { id: 333, name: 'Prod', cohorts: [{ name: 'Filler' }, { name: 'Old list', is_static: true }] },
        ],
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

async function list(project: number, kind: 'cohorts' | 'feature_flags' | 'actions'): Promise<Rec[]> {
  return ((await http.get(`/api/projects/${project}/${kind}/?limit=1000`)).body as { results: Rec[] }).results.filter((r) => r.deleted !== true);
}
const named = async (project: number, kind: 'cohorts' | 'actions', name: string) => (await list(project, kind)).find((r) => r.name === name);
/** The cohort id a project's flag targets. */
async function targetOf(project: number, key: string): Promise<unknown> {
  const flag = (await list(project, 'feature_flags')).find((f) => f.key === key) as { filters: { groups: Array<{ properties: Rec[] }> } };
  return flag.filters.groups[0]?.properties[0]?.value;
}

/** The shared configuration: an action, the cohort (possibly renamed) and a cohort built on the action, a flag on the cohort. */
const workspaceFile = (cohort: string, options: { renamedFrom?: string; rollout?: number; action?: string } = {}) => config(`projects:
  - id: 111
  - id: 222
  - id: 333
actions:
  - name: ${options.action ?? 'Signed up'}
${options.action ? '    renamed_from: Signed up\n' : ''}    steps: [ { event: $pageview, url: /welcome } ]
cohorts:
  - name: ${cohort}
${options.renamedFrom ? `    renamed_from: ${options.renamedFrom}\n` : ''}    description: Everyone at example.com
    filters: ${STAFF}
  - name: Signers
    filters: ${anyOf(`{ key: { action: ${options.action ?? 'Signed up'} }, type: behavioral, value: performed_event, event_type: actions, time_value: 30, time_interval: day }`)}
feature_flags:
  - key: staff-preview
    active: true
    filters: { groups: [ { rollout_percentage: ${options.rollout ?? 100}, properties: [ { key: id, type: cohort, value: { cohort: ${cohort} } } ] } ] }
`);

describe('audiences as code', () => {
  it('converge in three projects from one shared cohort and one shared flag that targets it by name, without overrides', async () => {
    const file = ws.write('hogsync.yaml', workspaceFile('Staff'));
    const planned = await ws.cli(['plan', file, '--format', 'json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string; action: string; fields: Array<{ path: string; after: unknown }> }> };
    // Actions before the cohorts built on them, cohorts before the flags that target them.
    expect(plan.changes.map((c) => c.address.replace(`${ORG}/`, ''))).toEqual([
      ...PROJECTS.map((p) => `action:${p}/Signed up`),
      ...PROJECTS.flatMap((p) => [`cohort:${p}/Staff`, `cohort:${p}/Signers`]),
      ...PROJECTS.map((p) => `feature_flag:${p}/staff-preview`),
    ]);
    // The plan says which cohort by name.
    const filters = plan.changes.at(-1)?.fields.find((f) => f.path === 'filters')?.after as { groups: Array<{ properties: Rec[] }> };
    expect(filters.groups[0]?.properties[0]?.value).toEqual({ cohort: 'Staff' });

    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const ids = await Promise.all(PROJECTS.map(async (p) => (await named(p, 'cohorts', 'Staff'))?.id));
    expect(new Set(ids).size).toBe(3);
    expect(await Promise.all(PROJECTS.map((p) => targetOf(p, 'staff-preview')))).toEqual(ids);
    // Each project's Signers cohort names that project's action.
    for (const p of PROJECTS) {
      const signers = await named(p, 'cohorts', 'Signers') as { filters: { properties: { values: Array<{ values: Rec[] }> } } };
      expect(signers.filters.properties.values[0]?.values[0]?.key).toBe((await named(p, 'actions', 'Signed up'))?.id);
    }
    const again = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(again.stdout).toContain('No changes');
    expect(again.code).toBe(0);
  });

  it('export and show write references by name, once for every project with --shared, and the export plans empty', async () => {
    const out = ws.path('exported.yaml');
    const exported = await ws.cli(['export', '--organization', ORG, '--kind', 'cohorts', '--kind', 'feature_flags', '--kind', 'actions', '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    expectCanonical(readFileSync(out, 'utf8'));
    const doc = parse(readFileSync(out, 'utf8')) as { projects: Array<{ id: number; feature_flags?: Rec[]; cohorts?: Rec[] }> };
    const flag = doc.projects.find((p) => p.id === 222)?.feature_flags?.[0] as { filters: { groups: Array<{ properties: Rec[] }> } };
    expect(flag.filters.groups[0]?.properties[0]?.value).toEqual({ cohort: 'Staff' });
    const signers = doc.projects.find((p) => p.id === 333)?.cohorts?.find((c) => c.name === 'Signers') as { filters: { properties: { values: Array<{ values: Rec[] }> } } };
    expect(signers.filters.properties.values[0]?.values[0]?.key).toEqual({ action: 'Signed up' });
    expect((await ws.cli(['plan', out, '--detailed-exitcode'])).code).toBe(0);
    // show writes one flag as a file would: its cohort by name (that project's cohorts read for it).
    const shown = await ws.cli(['show', `feature_flag:${ORG}/333/staff-preview`]);
    expect(shown.code, shown.stderr).toBe(0);
    expect((parse(shown.stdout) as { projects: Array<{ feature_flags: Array<{ filters: { groups: Array<{ properties: Rec[] }> } }> }> })
      .projects[0]?.feature_flags[0]?.filters.groups[0]?.properties[0]?.value).toEqual({ cohort: 'Staff' });

    const shared = ws.path('shared.yaml');
    expect((await ws.cli(['export', '--organization', ORG, '--kind', 'cohorts', '--kind', 'feature_flags', '--shared', '--out', shared])).code).toBe(0);
    expectCanonical(readFileSync(shared, 'utf8'));
    const sharedDoc = parse(readFileSync(shared, 'utf8')) as { feature_flags: Rec[]; cohorts: Rec[] };
    expect(sharedDoc.feature_flags).toEqual([expect.objectContaining({ key: 'staff-preview' })]);
    expect(sharedDoc.feature_flags[0]).not.toHaveProperty('overrides');
    expect(sharedDoc.cohorts.map((c) => c.name)).toEqual(expect.arrayContaining(['Staff', 'Signers']));
    expect((await ws.cli(['plan', shared, '--detailed-exitcode'])).code).toBe(0);
  });

  it('renames the cohort and the action in place: every flag and cohort keeps them, and only the renamed change', async () => {
    const before = await Promise.all(PROJECTS.map((p) => targetOf(p, 'staff-preview')));
    const file = ws.write('hogsync.yaml', workspaceFile('Team', { renamedFrom: 'Staff', action: 'Registered' }));
    const planned = JSON.parse((await ws.cli(['plan', file, '--format', 'json'])).stdout) as { changes: Array<{ address: string; action: string; fields: Array<{ path: string }> }> };
    expect(planned.changes.map((c) => [c.action, c.address.replace(`${ORG}/`, ''), c.fields.map((f) => f.path)])).toEqual([
      ...PROJECTS.map((p) => ['update', `action:${p}/Registered`, ['name']]),
      ...PROJECTS.map((p) => ['update', `cohort:${p}/Team`, ['name']]),
    ]);
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    expect(await Promise.all(PROJECTS.map((p) => targetOf(p, 'staff-preview')))).toEqual(before);
    expect(await named(111, 'cohorts', 'Team')).toBeDefined();
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);

    // A plan targeted at one flag still resolves the cohort it names (its project's cohorts are read).
    ws.write('hogsync.yaml', workspaceFile('Team', { renamedFrom: 'Staff', action: 'Registered', rollout: 50 }));
    const targeted = await ws.cli(['plan', file, '--format', 'json', '--target', `feature_flag:${ORG}/222/staff-preview`]);
    expect(targeted.code, targeted.stderr).toBe(0);
    expect((JSON.parse(targeted.stdout) as { changes: Array<{ address: string }> }).changes.map((c) => c.address)).toEqual([`feature_flag:${ORG}/222/staff-preview`]);
  });

  it('refuses at its line what the API would refuse: a flag on a behavioral cohort (declared: validate; live: plan), a held cohort declared absent, cohorts in a loop', async () => {
    const behavioral = ws.write('behavioral.yaml', config(`projects:
  - id: 111
    cohorts:
      - name: Signers
        filters: ${BUYERS}
    feature_flags:
      - key: promo
        filters: { groups: [ { properties: [ { key: id, type: cohort, value: { cohort: Signers } } ] } ] }
`));
    const v = await ws.cli(['validate', behavioral]);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/behavioral\.yaml:9:78: filters\.groups\[0\]\.properties\[0\]\.value: cohort "Signers" has behavioral criteria \(performed_event \$pageview\): the API refuses a flag that targets it/m);

    const live = ws.write('live.yaml', config(`projects:
  - id: 111
    feature_flags:
      - key: promo
        filters: { groups: [ { properties: [ { key: id, type: cohort, value: { cohort: Buyers } } ] } ] }
`));
    expect((await ws.cli(['validate', live])).code).toBe(0);
    let r = await ws.cli(['plan', live]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/live\.yaml:6:78: .*cohort "Buyers" has behavioral criteria/);

    const held = ws.write('held.yaml', config(`projects:
  - id: 222
    cohorts:
      - name: Team
        ensure: absent
`));
    r = await ws.cli(['plan', held]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/held\.yaml:5:9: .*cohort "222\/Team" has ensure: absent, but it is held by feature flag "staff-preview"/);

    const loop = ws.write('loop.yaml', config(`projects:
  - id: 111
    cohorts:
      - name: Team
        filters: ${anyOf('{ key: id, type: cohort, value: { cohort: Signers } }')}
      - name: Signers
        filters: ${anyOf('{ key: id, type: cohort, value: { cohort: Team } }')}
`));
    r = await ws.cli(['plan', loop]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/loop\.yaml:5:9: .*cohorts of project 111 include each other in a loop: "Team" → "Signers" → "Team"/);
  });

  it('under prune, stops the flags targeting the cohort before deleting it, and keeps a cohort an outside flag uses', async () => {
    const filler = await named(222, 'cohorts', 'Filler');
    const outside = await http.post('/api/projects/222/feature_flags/', { key: 'outside', active: true, filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: filler?.id }] }] } });
    expect(outside.status).toBe(201);
    const file = ws.write('hogsync.yaml', config(`projects:
  - id: 111
  - id: 222
  - id: 333
feature_flags:
  - key: staff-preview
    active: true
    filters: { groups: [ { rollout_percentage: 100, properties: [] } ] }
prune: { cohorts: true }
`));
    const planned = JSON.parse((await ws.cli(['plan', file, '--format', 'json'])).stdout) as { changes: Array<{ address: string; action: string }>; unmanaged: Array<{ address: string; held_by?: unknown }> };
    const deleted = planned.changes.filter((c) => c.action === 'delete').map((c) => c.address.replace(`${ORG}/`, '')).sort();
    expect(deleted).toEqual(['cohort:111/Buyers', 'cohort:111/Signers', 'cohort:111/Team', 'cohort:222/Signers', 'cohort:222/Team', 'cohort:333/Filler', 'cohort:333/Old list', 'cohort:333/Signers', 'cohort:333/Team']);
    expect(planned.unmanaged.find((u) => u.address === `cohort:${ORG}/222/Filler`)?.held_by).toEqual([{ kind: 'feature_flag', id: (outside.body as Rec).id, name: 'outside' }]);

    // Nine of ten cohorts go: more than the delete-share rule lets through unasked.
    const applied = await ws.cli(['apply', file, '--auto-approve', '--max-delete-percent', '100', '--format', 'json']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    // The progress lines beside a JSON report say the order apply ran: each flag's update before its project's Team goes.
    const order = applied.stderr.split('\n').map((l) => /^\[\d+\/\d+\] [~+-] (\S+)/.exec(l)?.[1]).filter((a): a is string => a !== undefined);
    for (const p of PROJECTS) {
      expect(order.indexOf(`feature_flag:${ORG}/${p}/staff-preview`)).toBeLessThan(order.indexOf(`cohort:${ORG}/${p}/Team`));
    }
    expect((await list(222, 'cohorts')).map((c) => c.name)).toEqual(['Filler']);
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });
});
