// --changed-since end to end: examples/environments in a temporary git repository, planned
// against a sandbox from another working directory (as a CI job may run hogsync). The plan
// covers exactly what changed since the revision: a changed flag, a flag removed under prune,
// a changed organization-level file; and costs a handful of requests.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetStats } from '../src/sandbox/stats.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { inProcessSandbox, stopAllSandboxes, ROOT } from './support/sandbox.js';
import { ORG, workspace, type Workspace } from './support/workspace.js';

const EXAMPLE = join(ROOT, 'examples/environments');

let sandbox: SandboxHandle;
let ws: Workspace;
let repo: string;
let config: string;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
}
const edit = (file: string, from: string, to: string) => {
  const path = join(config, file);
  const text = readFileSync(path, 'utf8');
  expect(text).toContain(from);
  writeFileSync(path, text.replace(from, to));
};

beforeEach(async () => {
  sandbox = await inProcessSandbox({ seed: join(EXAMPLE, 'sandbox/seed.yaml') });
  ws = workspace(sandbox);
  repo = realpathSync(mkdtempSync(join(tmpdir(), 'hogsync-repo-')));
  config = join(repo, 'config');
  mkdirSync(config);
  for (const f of ['projects.yaml', 'flags.yaml']) copyFileSync(join(EXAMPLE, f), join(config, f));
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'environments');
  // The workspace matches main: a pull request's plan shows only what it changes.
  expect((await ws.cli(['apply', config, '--auto-approve'])).code).toBe(0);
});
afterEach(async () => {
  ws.remove();
  rmSync(repo, { recursive: true, force: true });
  await stopAllSandboxes();
});

interface PlanJson {
  targets: { addresses: string[]; left_out: number; changed_since: { revision: string; commit: string; derived: { address: string; reason: string }[] } };
  changes: { address: string; action: string; declared_at: string[] }[];
}

/** Plans from the scratch workspace (not the repository): the repository is the one holding config/. */
async function plan(extra: string[] = []): Promise<PlanJson> {
  resetStats(sandbox.stats);
  const r = await ws.cli(['plan', config, '--changed-since', 'main', '--format', 'json', ...extra]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as PlanJson;
}

describe('plan --changed-since', () => {
  it('targets a changed flag of one project, with a handful of requests', async () => {
    git('checkout', '-q', '-b', 'pr');
    edit('flags.yaml', 'overrides:\n      dev: { active: true }', 'overrides:\n      dev: { active: false }');
    const p = await plan();
    // prune owns the flags of these projects: the project the change touches is targeted whole.
    expect(p.targets.changed_since).toEqual({ revision: 'main', commit: git('rev-parse', 'main').trim(), derived: [{ address: `feature_flag:${ORG}/2001/*`, reason: 'pruned_scope' }] });
    expect(p.targets.left_out).toBe(9);
    expect(p.changes.map((c) => [c.action, c.address, c.declared_at])).toEqual([
      ['update', `feature_flag:${ORG}/2001/pricing-page-v2`, [`${join(config, 'flags.yaml')}:44:5`, `${join(config, 'flags.yaml')}:52:14`]],
    ]);
    // One list of the project's flags and the change's blast radius.
    expect(sandbox.stats.requests).toBeLessThanOrEqual(5);
    expect(sandbox.stats.byRoute['GET /api/projects/:project/feature_flags/']).toBe(1);
  });

  it('targets the whole project scope when a flag is removed under prune, and plans its delete', async () => {
    const text = readFileSync(join(config, 'flags.yaml'), 'utf8');
    // The project section of flags.yaml (above its organization-level flags) declares only that flag.
    writeFileSync(join(config, 'flags.yaml'), text.slice(0, text.indexOf('# A flag that only one project has')) + text.slice(text.indexOf('\nfeature_flags:\n') + 1));
    const p = await plan();
    expect(p.targets.changed_since.derived).toEqual([{ address: `feature_flag:${ORG}/2003/*`, reason: 'pruned_scope' }]);
    expect(p.changes.map((c) => [c.action, c.address, c.declared_at])).toEqual([
      ['delete', `feature_flag:${ORG}/2003/holiday-banner`, [`${join(config, 'projects.yaml')}:28:3`]],
    ]);
  });

  it('targets every project an organization-level flag reaches when its shared value changes', async () => {
    edit('flags.yaml', '    name: New checkout flow', '    name: Checkout v2');
    const p = await plan();
    expect(p.changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual([
      `update feature_flag:${ORG}/2001/new-checkout`, `update feature_flag:${ORG}/2002/new-checkout`, `update feature_flag:${ORG}/2003/new-checkout`,
    ]);
    // A commit of the change moves nothing: the working tree equals the revision it is compared with.
    git('commit', '-q', '-am', 'rename the flag');
    const none = await plan();
    expect(none.targets.changed_since.derived).toEqual([]);
    expect(none.changes).toEqual([]);
    expect(sandbox.stats.requests).toBe(0);
  });

  it('resolves an organization written as its slug or @current before deriving targets (plan and drift)', async () => {
    // main writes the organization as its slug; the pull request as @current: both are the same UUID.
    for (const f of ['projects.yaml', 'flags.yaml']) edit(f, `organization: ${ORG}`, 'organization: shop');
    git('commit', '-q', '-am', 'by slug');
    for (const f of ['projects.yaml', 'flags.yaml']) edit(f, 'organization: shop', "organization: '@current'");
    edit('flags.yaml', 'overrides:\n      dev: { active: true }', 'overrides:\n      dev: { active: false }');
    const p = await plan();
    expect(p.targets.changed_since.derived).toEqual([{ address: `feature_flag:${ORG}/2001/*`, reason: 'pruned_scope' }]);
    expect(p.changes.map((c) => `${c.action} ${c.address}`)).toEqual([`update feature_flag:${ORG}/2001/pricing-page-v2`]);
    // A --target written with the organization as the files write it matches as its UUID.
    const targeted = await ws.cli(['plan', config, '--target', 'feature_flag:@current/2001/*', '--format', 'json']);
    expect(targeted.stderr).toBe('');
    expect((JSON.parse(targeted.stdout) as PlanJson).changes.map((c) => c.address)).toEqual([`feature_flag:${ORG}/2001/pricing-page-v2`]);
    git('commit', '-q', '-am', 'by @current');
    edit('projects.yaml', '    anonymize_ips: true', '    anonymize_ips: false');
    const drift = await ws.cli(['drift', config, '--changed-since', 'HEAD', '--format', 'json']);
    expect(drift.code).toBe(2);
    expect(JSON.parse(drift.stdout).changes.map((c: { address: string }) => c.address).sort()).toEqual([`project:${ORG}/2001`, `project:${ORG}/2002`, `project:${ORG}/2003`]);
  });

  it('works for drift too, and refuses a revision that looks like an option', async () => {
    edit('projects.yaml', '    anonymize_ips: true', '    anonymize_ips: false');
    const drift = await ws.cli(['drift', config, '--changed-since', 'main', '--format', 'json']);
    expect(drift.code).toBe(2);
    expect(JSON.parse(drift.stdout).changes.map((c: { address: string }) => c.address).sort()).toEqual([`project:${ORG}/2001`, `project:${ORG}/2002`, `project:${ORG}/2003`]);
    const hostile = await ws.cli(['plan', config, '--changed-since=--output=x']);
    expect(hostile.code).toBe(1);
    expect(hostile.stderr).toBe('error: --changed-since: "--output=x" is not a git revision (a branch, tag or commit such as origin/main; it cannot start with "-")\n');
  });
});
