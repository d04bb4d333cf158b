// --changed-since, the file side: the configuration at a git revision, read through git in the
// repository that holds the configuration (not the working directory), compared with the files
// now after expansion. Each test builds its own temporary repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changedSince, type ChangedSince } from '../src/config/changed.js';
import { filesAtRevision } from '../src/config/git.js';
import { loadConfig } from '../src/config/load.js';

const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
let repo: string;
let elsewhere: string;

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
}
function write(name: string, text: string): void {
  mkdirSync(dirname(join(repo, name)), { recursive: true });
  writeFileSync(join(repo, name), text);
}
function commit(message: string): void {
  git('add', '-A');
  git('commit', '-q', '-m', message);
}

const PROJECTS = `organization: ${ORG}
projects:
  - id: 111
    alias: dev
    feature_flags:
      - key: local
        active: true
  - id: 333
    alias: prod
defaults:
  projects:
    anonymize_ips: true
`;
const FLAGS = `organization: ${ORG}
feature_flags:
  - key: shared
    active: true
    overrides:
      prod: { active: false }
`;

beforeEach(() => {
  repo = realpathSync(mkdtempSync(join(tmpdir(), 'hogsync-git-')));
  elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'hogsync-cwd-')));
  git('init', '-q', '-b', 'main');
  write('config/projects.yaml', PROJECTS);
  write('config/flags.yaml', FLAGS);
  write('README.md', 'not configuration\n');
  commit('base');
});
afterEach(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

/** Runs from another directory, as a CI job may: the repository is the one holding the paths. */
async function changed(revision = 'main', paths = [join(repo, 'config')]): Promise<ChangedSince> {
  const now = await loadConfig(paths, {}, { cwd: elsewhere });
  return changedSince(paths, revision, now, {}, elsewhere);
}
const targets = async (revision?: string) => (await changed(revision)).targets?.map((t) => `${t.reason} ${t.address}`);

describe('--changed-since: what changed between a revision and the files now', () => {
  it('finds nothing when only the working tree moved declarations around', async () => {
    git('checkout', '-q', '-b', 'pr');
    write('config/projects.yaml', `${PROJECTS.replace('defaults:\n  projects:\n    anonymize_ips: true\n', '')}\n# moved\n`);
    write('config/defaults.yaml', `organization: ${ORG}\ndefaults:\n  projects:\n    anonymize_ips: true\n`);
    expect(await targets()).toEqual([]);
  });

  it('targets a changed flag, and only that flag', async () => {
    write('config/projects.yaml', PROJECTS.replace('        active: true', '        active: false'));
    const result = await changed();
    expect(result.commit).toBe(git('rev-parse', 'main').trim());
    expect(result.targets).toEqual([{ address: `feature_flag:${ORG}/111/local`, reason: 'changed' }]);
  });

  it('targets every project an organization-level flag reaches, and only the override\'s project when only it changes', async () => {
    write('config/flags.yaml', FLAGS.replace('active: true', 'active: true\n    name: Shared'));
    expect(await targets()).toEqual([`changed feature_flag:${ORG}/111/shared`, `changed feature_flag:${ORG}/333/shared`]);
    write('config/flags.yaml', FLAGS.replace('{ active: false }', '{ active: true }'));
    expect(await targets()).toEqual([`changed feature_flag:${ORG}/333/shared`]);
  });

  it('targets every project a default reaches', async () => {
    write('config/projects.yaml', PROJECTS.replace('anonymize_ips: true', 'anonymize_ips: false'));
    expect(await targets()).toEqual([`changed project:${ORG}/111`, `changed project:${ORG}/333`]);
  });

  it('targets added and removed items, from files added or deleted since', async () => {
    write('config/roles.yaml', `organization: ${ORG}\nroles:\n  - name: Engineers\n`);
    unlinkSync(join(repo, 'config/flags.yaml'));
    expect(await targets()).toEqual([
      `removed feature_flag:${ORG}/111/shared`, `removed feature_flag:${ORG}/333/shared`, `added role:${ORG}/Engineers`,
    ]);
  });

  it('targets the whole scope where prune owns the kind: a flag removed under prune', async () => {
    write('config/projects.yaml', `${PROJECTS}prune:\n  feature_flags: true\n`);
    commit('prune flags');
    write('config/projects.yaml', `${PROJECTS.replace('    feature_flags:\n      - key: local\n        active: true\n', '')}prune:\n  feature_flags: true\n`);
    expect(await targets()).toEqual([`pruned_scope feature_flag:${ORG}/111/*`]);
    // Turning prune on (or off) puts every scope of the kind in play.
    git('checkout', '-q', 'HEAD~1', '--', 'config/projects.yaml');
    write('config/projects.yaml', `${PROJECTS}prune:\n  feature_flags: true\n`);
    expect(await targets('HEAD~1')).toEqual([`pruned_scope feature_flag:${ORG}/*`]);
  });

  it('reads a single file argument and a revision given as a commit id or relative name', async () => {
    write('config/flags.yaml', FLAGS.replace('active: true', 'active: false'));
    const paths = [join(repo, 'config/projects.yaml'), join(repo, 'config/flags.yaml')];
    const now = await loadConfig(paths, {}, { cwd: elsewhere });
    const sha = git('rev-parse', 'HEAD').trim();
    for (const rev of [sha, 'HEAD', 'main~0']) {
      expect((await changedSince(paths, rev, now, {}, elsewhere)).targets?.map((t) => t.address)).toEqual([`feature_flag:${ORG}/111/shared`]);
    }
    const at = await filesAtRevision(['config'], 'main', repo);
    expect(at.files).toEqual(['config/flags.yaml', 'config/projects.yaml']);
  });

  it('reads a file the configuration names (an insight\'s sql_file) at the revision too: only a changed query is a change', async () => {
    write('config/insights.yaml', `organization: ${ORG}\ninsights:\n  - name: Revenue\n    projects: [prod]\n    sql_file: queries/revenue.sql\n`);
    write('config/queries/revenue.sql', 'select 1\n');
    commit('an insight from a file');
    expect(await targets()).toEqual([]);
    write('config/queries/revenue.sql', 'select 2\n');
    expect(await targets()).toEqual([`changed insight:${ORG}/333/Revenue`]);
  });

  it('plans everything, with a warning, when the files at the revision do not load', async () => {
    write('config/flags.yaml', `organization: ${ORG}\nfeature_flags:\n  - key: shared\n    projects: [staging]\n`);
    commit('broken');
    write('config/flags.yaml', FLAGS);
    const result = await changed();
    expect(result.targets).toBeNull();
    expect(result.warning).toMatch(/^--changed-since main: the configuration at that revision does not load \(.*flags\.yaml:4:16 at main: unknown project alias "staging".*\), so every item is planned$/);
  });

  it('hands git the revision as a revision only, never as an option', async () => {
    const out = join(elsewhere, 'x');
    for (const rev of ['--output=x', `--output=${out}`, '-p', '']) {
      await expect(changed(rev)).rejects.toThrow(/is not a git revision/);
    }
    await expect(changed('no-such-branch')).rejects.toThrow(`no commit "no-such-branch" in the git repository ${repo}`);
    await expect(changed('main\n--output=x')).rejects.toThrow(/is not a git revision/);
  });

  it('says so when the configuration is not in a git repository', async () => {
    writeFileSync(join(elsewhere, 'h.yaml'), PROJECTS);
    await expect(changed('main', [join(elsewhere, 'h.yaml')])).rejects.toThrow(`${join(elsewhere, 'h.yaml')} is not in a git repository`);
  });
});
