// References by name, end to end through the real CLI against the sandbox: a flag that depends
// on another flag names it (`key: { feature_flag: KEY }`) instead of its id, which differs per
// project, so one shared definition works in every project; creates wait for the items they
// refer to, and a flag stops depending on another before that one is deleted.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { config, ORG, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;

beforeEach(async () => {
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{
        id: ORG,
        projects: [
          // Ids differ per project: `base` is flag 1 in one project and a later flag in the other.
          { id: 111, name: 'Dev', feature_flags: [{ key: 'base', active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }] },
          { id: 222, name: 'Prod', feature_flags: [{ key: 'filler' }, { key: 'base', active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }] },
        ],
      }],
    },
  });
  ws = workspace(sandbox);
});
afterEach(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const dependsOn = (key: string) => `{ groups: [ { rollout_percentage: 100, properties: [ { key: { feature_flag: ${key} }, type: flag, value: true, operator: flag_evaluates_to } ] } ] }`;

interface Flag { id: number; key: string; deleted: boolean; filters: { groups: Array<{ properties: Array<{ key: unknown }> }> } }

async function flags(project: number): Promise<Flag[]> {
  const r = await api(sandbox.baseUrl, sandbox.apiKey).get(`/api/projects/${project}/feature_flags/?limit=1000`);
  return (r.body as { results: Flag[] }).results;
}

describe('references by name', () => {
  it('resolve per project: one shared flag depends on `base` in both projects without overrides, shown by name, and plans empty after apply', async () => {
    const file = ws.write('flags.yaml', config(`projects:
  - id: 111
  - id: 222
feature_flags:
  - key: base
    active: true
  - key: gated
    active: true
    filters: ${dependsOn('base')}
`));
    const planned = await ws.cli(['plan', file, '--format', 'json']);
    expect(planned.stderr).toBe('');
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string; action: string; fields: Array<{ path: string; after: unknown }> }> };
    expect(plan.changes.map((c) => [c.action, c.address])).toEqual([
      ['create', `feature_flag:${ORG}/111/gated`],
      ['create', `feature_flag:${ORG}/222/gated`],
    ]);
    // The plan says which flag, by name, in every format.
    const filters = plan.changes[0]!.fields.find((f) => f.path === 'filters')!.after as { groups: Array<{ properties: Array<{ key: unknown }> }> };
    expect(filters.groups[0]!.properties[0]!.key).toEqual({ feature_flag: 'base' });
    const text = await ws.cli(['plan', file]);
    expect(text.stdout).toContain('flag base evaluates to true');

    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    for (const project of [111, 222]) {
      const live = await flags(project);
      const base = live.find((f) => f.key === 'base')!;
      const gated = live.find((f) => f.key === 'gated')!;
      expect(gated.filters.groups[0]!.properties[0]!.key).toBe(String(base.id));
    }
    const again = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(again.stdout).toContain('No changes');
    expect(again.code).toBe(0);
  });

  it('create the item referred to first, in the same apply', async () => {
    const file = ws.write('flags.yaml', config(`projects:
  - id: 111
    feature_flags:
      - key: child
        active: true
        filters: ${dependsOn('parent')}
      - key: parent
        active: true
`));
    const r = await ws.cli(['apply', file, '--auto-approve', '--format', 'json']);
    expect(r.code).toBe(0);
    const live = await flags(111);
    const parent = live.find((f) => f.key === 'parent')!;
    expect(live.find((f) => f.key === 'child')!.filters.groups[0]!.properties[0]!.key).toBe(String(parent.id));
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('order a flag\'s update that drops a dependency before the delete of the flag it depended on', async () => {
    const both = ws.write('flags.yaml', config(`projects:
  - id: 111
    feature_flags:
      - key: base
        active: true
      - key: gated
        active: true
        filters: ${dependsOn('base')}
`));
    expect((await ws.cli(['apply', both, '--auto-approve'])).code).toBe(0);
    // The API refuses to delete a flag that an active flag depends on: the update must go first.
    const dropped = ws.write('flags.yaml', config(`projects:
  - id: 111
    feature_flags:
      - key: base
        ensure: absent
      - key: gated
        active: true
        filters: { groups: [ { rollout_percentage: 100, properties: [] } ] }
`));
    const r = await ws.cli(['apply', dropped, '--auto-approve']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect((await flags(111)).find((f) => f.key === 'base')).toBeUndefined();
  });

  it('name an unresolvable reference, and one of the wrong kind, at its file:line:col', async () => {
    const unknown = ws.write('unknown.yaml', config(`projects:
  - id: 111
    feature_flags:
      - key: gated
        active: true
        filters:
          groups:
            - rollout_percentage: 100
              properties:
                - key: { feature_flag: no-such-flag }
                  type: flag
                  value: true
                  operator: flag_evaluates_to
`));
    const r = await ws.cli(['plan', unknown]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown\.yaml:11:24: .*no feature flag named "no-such-flag" in project 111/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);

    const wrong = ws.write('wrong.yaml', config(`projects:
  - id: 111
    feature_flags:
      - key: gated
        filters: { groups: [ { properties: [ { key: { role: Admins }, type: flag, value: true, operator: flag_evaluates_to } ] } ] }
`));
    const v = await ws.cli(['validate', wrong]);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/wrong\.yaml:6:\d+: filters\.groups\[0\]\.properties\[0\]\.key: \{ role: … \} names a role, but this place takes a feature flag: write \{ feature_flag: NAME \}/);
  });

  it('name every reference of the wrong kind among a flag\'s properties, flag and cohort properties alike, at its own line', async () => {
    const file = ws.write('mixed.yaml', config(`projects:
  - id: 111
    feature_flags:
      - key: gated
        filters:
          groups:
            - properties:
                - { key: { role: Admins }, type: flag, value: true, operator: flag_evaluates_to }
                - { key: cohort, type: cohort, value: { action: Signed up }, operator: in }
                - { key: { action: Bought }, type: flag, value: true, operator: flag_evaluates_to }
                - { key: email, type: person, value: { role: Admins }, operator: exact }
`));
    const v = await ws.cli(['validate', file]);
    expect(v.code).toBe(1);
    // Both sites of a flag property (its key for a flag, its value for a cohort) on the same path,
    // each reference at its own line; a person property's mapping is no reference at all.
    const named = v.stderr.trim().split('\n').filter((l) => / names /.test(l));
    expect(named).toHaveLength(3);
    expect(named[0]).toMatch(/mixed\.yaml:9:\d+: filters\.groups\[0\]\.properties\[0\]\.key: \{ role: … \} names a role, but this place takes a feature flag: write \{ feature_flag: NAME \}$/);
    expect(named[1]).toMatch(/mixed\.yaml:10:\d+: filters\.groups\[0\]\.properties\[1\]\.value: \{ action: … \} names an action, but this place takes a cohort: write \{ cohort: NAME \}$/);
    expect(named[2]).toMatch(/mixed\.yaml:11:\d+: filters\.groups\[0\]\.properties\[2\]\.key: \{ action: … \} names an action, but this place takes a feature flag/);
    expect(v.stderr).toMatch(/mixed\.yaml:12:\d+: filters\.groups\[0\]\.properties\[3\]\.value: operator exact compares with a value or a list of values, not a mapping/);
  });

  it('refuse a cycle of creates that refer to each other', async () => {
    const file = ws.write('cycle.yaml', config(`projects:
  - id: 111
    feature_flags:
      - key: a
        filters: ${dependsOn('b')}
      - key: b
        filters: ${dependsOn('a')}
`));
    const r = await ws.cli(['plan', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refer to each other by name and none exists yet/);
  });
});
