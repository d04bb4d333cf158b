// --target end to end: the real CLI against a sandbox seeded with examples/environments. A
// targeted plan reads only what its items need, says what it left out, is kept by a saved
// plan, and cannot get around the delete-share rule.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetStats } from '../src/sandbox/stats.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { inProcessSandbox, stopAllSandboxes, ROOT } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

const EXAMPLE = join(ROOT, 'examples/environments');

let sandbox: SandboxHandle;
let ws: Workspace;
afterEach(async () => {
  ws.remove();
  await stopAllSandboxes();
});

interface PlanJson {
  targets?: { addresses: string[]; left_out: number };
  changes: { address: string; action: string; declared_at?: string[] }[];
  summary: Record<string, number>;
  unmanaged: unknown[];
  fingerprint: string;
}

async function planJson(args: string[]): Promise<PlanJson> {
  const r = await ws.cli(['plan', ...args, '--format', 'json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as PlanJson;
}

describe('--target against examples/environments', () => {
  beforeEach(async () => {
    sandbox = await inProcessSandbox({ seed: join(EXAMPLE, 'sandbox/seed.yaml') });
    ws = workspace(sandbox);
  });

  it('plans only the matching items, reads only their collection, and says what it left out', async () => {
    resetStats(sandbox.stats);
    const plan = await planJson([EXAMPLE, '--target', 'feature_flag:*/2002/*']);
    expect(plan.targets).toEqual({ addresses: ['feature_flag:*/2002/*'], left_out: 9 });
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      `create feature_flag:${ORG}/2002/new-checkout`, `create feature_flag:${ORG}/2002/dark-mode`, `create feature_flag:${ORG}/2002/pricing-page-v2`,
    ]);
    // Project 2002's flags (its list, and its archived ones: the plan creates flags there), and
    // the blast radius of each create, and the key's scopes: nothing else.
    expect(sandbox.stats.byRoute).toEqual({
      'GET /api/personal_api_keys/@current/': 1,
      'GET /api/projects/:project/feature_flags/': 2,
      'POST /api/projects/:project/feature_flags/user_blast_radius/': 3,
    });
    const text = await ws.cli(['plan', EXAMPLE, '--target', 'feature_flag:*/2002/*', '--target', `project:${ORG}/2002`]);
    expect(text.stdout).toContain('Targeted plan: only items matching feature_flag:*/2002/*, project:');
    expect(text.stdout).toContain('8 declared items left out.');
    expect(text.stdout).toContain(`# declared at ${join(EXAMPLE, 'flags.yaml')}:20:5`);
  });

  it('keeps its targets in a saved plan: apply --plan changes only those, and refuses --target beside it', async () => {
    const saved = await ws.cli(['plan', EXAMPLE, '--target', 'role:*/nothing', '--target', 'project:*/2002', '--out', 'plan.json']);
    expect(saved.code).toBe(0);
    const refused = await ws.cli(['apply', '--plan', 'plan.json', '--auto-approve', '--target', 'project:*/2001']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--target cannot be given with --plan');
    const applied = await ws.cli(['apply', '--plan', 'plan.json', '--auto-approve', '--format', 'json']);
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout).changes.map((o: { address: string; status: string }) => `${o.status} ${o.address}`)).toEqual([`applied project:${ORG}/2002`]);
    // Everything else is still to do.
    const rest = await planJson([EXAMPLE]);
    expect(rest.changes.map((c) => c.address)).not.toContain(`project:${ORG}/2002`);
    expect(rest.changes.length).toBe(10);
  });

  it('says when a target matches no declared or live item: plan and drift warn, apply exits 1 and applies nothing', async () => {
    const typo = 'role:*/Enginers';
    const warning = `--target ${typo} matches no declared or live item, so nothing of it is planned: check its kind, organization and key`;
    const plan = await ws.cli(['plan', EXAMPLE, '--target', typo]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(`Warnings:\n  ! ${warning}`);
    const drift = await ws.cli(['drift', EXAMPLE, '--target', typo, '--format', 'json']);
    expect(JSON.parse(drift.stdout).warnings).toEqual([expect.stringContaining(warning)]);
    // One target that matches among them is not enough for apply: the other was meant too.
    resetStats(sandbox.stats);
    const apply = await ws.cli(['apply', EXAMPLE, '--auto-approve', '--target', 'project:*/2002', '--target', typo]);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toBe(`error: ${warning} (KIND:ORG/KEY, e.g. feature_flag:*/111/new-checkout or role:*/Engineers). Nothing was applied.\n`);
    expect(Object.keys(sandbox.stats.byRoute).filter((r) => !r.startsWith('GET '))).toEqual([]);
    // A target that matches a declared item says nothing of the kind.
    const matched = await ws.cli(['plan', EXAMPLE, '--target', 'project:*/2002']);
    expect(matched.stdout).not.toContain('matches no declared or live item');
  });

  it('refuses an address that is not one, in one line', async () => {
    const r = await ws.cli(['plan', EXAMPLE, '--target', 'flags/2001']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: --target "flags/2001": expected KIND:ORG/KEY with KIND one of project, proxy_record, member, role, role_membership, access, action, cohort, feature_flag, hog_function, insight, alert, dashboard, subscription, survey, early_access_feature, experiment_holdout, experiment_saved_metric, experiment, event_definition (`*` matches anything), e.g. feature_flag:*/111/new-checkout or role:*/Engineers\n');
  });
});

describe('the delete-share rule under --target', () => {
  const flags = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ key: `${prefix}-${i}`, name: `${prefix} ${i}`, active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }));
  beforeEach(async () => {
    // 12 live flags in the organization: 8 in project 1, 4 in project 2.
    sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [{ id: 1, name: 'One', feature_flags: flags(8, 'one') }, { id: 2, name: 'Two', feature_flags: flags(4, 'two') }] }] } });
    ws = workspace(sandbox);
  });

  it('counts every live flag of the declared projects, not only those of the targeted project', async () => {
    // Pruning keeps 4 of project 1's flags: 4 deletes of 12 live flags (33%) exceed 30%.
    const file = ws.write('h.yaml', config(`projects:
  - id: 1
    feature_flags: [ { key: one-0 }, { key: one-1 }, { key: one-2 }, { key: one-3 } ]
  - id: 2
    feature_flags: [ { key: two-0 }, { key: two-1 }, { key: two-2 }, { key: two-3 } ]
prune:
  feature_flags: true
`));
    const whole = await ws.cli(['apply', file, '--auto-approve']);
    expect(whole.code).toBe(3);
    expect(whole.stderr).toContain(`deleting 4 of the 12 live feature_flag items in the projects of organization ${ORG} that the files declare`);
    // Project 1 alone holds only 8 flags (under the rule's 10); targeting it must not get around the rule.
    const targeted = await ws.cli(['apply', file, '--auto-approve', '--target', 'feature_flag:*/1/*']);
    expect(targeted.code).toBe(3);
    expect(targeted.stderr).toContain(`deleting 4 of the 12 live feature_flag items in the projects of organization ${ORG} that the files declare`);
    const planned = await ws.cli(['plan', file, '--target', 'feature_flag:*/1/*']);
    expect(planned.stdout).toContain(`apply will refuse unless run with --max-delete-percent 34: deleting 4 of the 12 live feature_flag items in the projects of organization ${ORG} that the files declare`);
    // Nothing was deleted.
    const live = (await fetch(`${sandbox.baseUrl}/api/projects/1/feature_flags/`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } }).then((r) => r.json())) as { count: number };
    expect(live.count).toBe(8);
    // A delete the rule allows goes through, targeted.
    const one = ws.write('one.yaml', config(`projects:
  - id: 1
    feature_flags: [ { key: one-0, ensure: absent } ]
`));
    expect((await ws.cli(['apply', one, '--auto-approve', '--target', 'feature_flag:*/1/one-0'])).code).toBe(0);
  });
});

describe('the delete-share rule proven from what a --changed-since plan read', () => {
  it('a one-flag removal in a 20-project workspace reads that project\'s list, not the other 19', async () => {
    const projects = Array.from({ length: 20 }, (_, p) => ({
      id: 101 + p, name: `P${p}`, feature_flags: Array.from({ length: 5 }, (_f, f) => ({ key: `f-${f}`, name: `F${f}`, active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } })),
    }));
    sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects }] } });
    ws = workspace(sandbox);
    const repo = ws.path('repo');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
    const file = (removed: string | null) => config(`projects:\n${projects.map((p) => `  - id: ${p.id}\n    feature_flags:\n${p.feature_flags.map((f) => `      - key: ${f.key}${p.id === 101 && f.key === removed ? '\n        ensure: absent' : ''}\n`).join('')}`).join('')}`);
    ws.write('repo/hogsync.yaml', file(null));
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'flags');
    ws.write('repo/hogsync.yaml', file('f-0'));
    resetStats(sandbox.stats);
    const r = await ws.cli(['plan', join(repo, 'hogsync.yaml'), '--changed-since', 'main', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as PlanJson).changes.map((c) => `${c.action} ${c.address}`)).toEqual([`delete feature_flag:${ORG}/101/f-0`]);
    // 1 delete of the 5 flags read (20%) is within 30% whatever the other projects hold.
    expect(sandbox.stats.byRoute['GET /api/projects/:project/feature_flags/']).toBe(1);
    expect(sandbox.stats.requests).toBeLessThanOrEqual(2);
  });
});
