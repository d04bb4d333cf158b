// The CI recipes of examples/ci/ stay true to the CLI: they parse, every `hogsync …` line in
// them names a real verb and only flags that verb knows (asked from the real CLI's --help),
// the exit codes they branch on are the contract's, and their scripts, run by bash with the
// real CLI against a sandbox (and a fake GitLab API), do what their comments promise.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { BIN, ROOT, collectOutput, runCli, type CliResult } from './support/cli.js';
import { api, inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config } from './support/workspace.js';
import { runAction } from '../scripts/github-action.js';
import { expectNoSecret } from './support/secrets.js';
import { keptOutput, type KeptOutput } from './support/output.js';
import type { SandboxHandle } from '../src/sandbox/server.js';

const CI = join(ROOT, 'examples/ci');
const GITHUB = ['github/hogsync-plan.yml', 'github/hogsync-apply.yml', 'github/hogsync-drift.yml', 'github/hogsync-matrix.yml'] as const;
/** The recipe for a workspace larger than one key's hour: a matrix of jobs, each with its own key. */
const MATRIX = 'github/hogsync-matrix.yml';
const GITLAB = 'gitlab/.gitlab-ci.yml';
const RECIPES = [...GITHUB, GITLAB] as const;
type Recipe = (typeof RECIPES)[number];
const CONTRACT_EXIT_CODES = [0, 1, 2, 3];

type Doc = Record<string, unknown>;
type Job = Record<string, unknown>;
type Step = { name?: string; id?: string; uses?: string; run?: string; with?: Record<string, unknown>; if?: string; env?: Record<string, string> };
/** The hogsync action, as the recipes use it (OWNER stands for where a team keeps hogsync). */
const HOGSYNC_ACTION = /^OWNER\/hogsync@v(\S+)$/;

function load(recipe: Recipe): { text: string; doc: Doc } {
  const text = readFileSync(join(CI, recipe), 'utf8');
  const parsed = parseDocument(text, { uniqueKeys: true });
  if (parsed.errors.length > 0 || parsed.warnings.length > 0) {
    throw new Error(`${recipe}: ${[...parsed.errors, ...parsed.warnings].map((e) => e.message).join('; ')}`);
  }
  return { text, doc: parsed.toJS() as Doc };
}

const GITLAB_KEYWORDS = new Set(['workflow', 'stages', 'variables', 'default', 'include', 'image', 'services', 'cache', 'before_script', 'after_script']);
const asList = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

/** GitLab jobs (not templates), with before_script resolved through `extends`. */
function gitlabJobs(doc: Doc): Array<{ name: string; job: Job; before: string[]; script: string[] }> {
  const lookup = (job: Job, key: string): unknown => {
    if (job[key] !== undefined) return job[key];
    for (const parent of asList(job.extends)) {
      const found = lookup(doc[parent] as Job, key);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return Object.entries(doc)
    .filter(([name, job]) => !GITLAB_KEYWORDS.has(name) && !name.startsWith('.') && job !== null && typeof job === 'object' && 'script' in job)
    .map(([name, job]) => ({ name, job: job as Job, before: asList(lookup(job as Job, 'before_script')), script: asList((job as Job).script) }));
}

function githubSteps(doc: Doc): Array<{ job: string; step: Step }> {
  return Object.entries(doc.jobs as Record<string, Job>).flatMap(([job, j]) => (j.steps as Step[]).map((step) => ({ job, step })));
}

/** Every shell script of a recipe: GitHub `run:` steps, GitLab before_script + script. */
function shellScripts(recipe: Recipe): Array<{ where: string; text: string }> {
  const { doc } = load(recipe);
  if (recipe === GITLAB) return gitlabJobs(doc).map((j) => ({ where: `${recipe} ${j.name}`, text: [...j.before, ...j.script].join('\n') }));
  return githubSteps(doc).filter((s) => typeof s.step.run === 'string').map((s) => ({ where: `${recipe} ${s.job} › ${s.step.name ?? s.step.run}`, text: s.step.run as string }));
}

type MatrixEntry = Record<string, string>;

/** A job's matrix entries (`strategy.matrix.include`); one empty entry for a job without a matrix. */
function matrixOf(recipe: Recipe, job: string): MatrixEntry[] {
  const strategy = (load(recipe).doc.jobs as Record<string, Job>)[job]?.strategy as { matrix?: { include?: MatrixEntry[] } } | undefined;
  return strategy?.matrix?.include ?? [{}];
}

/** A value with `${{ matrix.X }}` filled in from one matrix entry (as the runner does). */
const withMatrix = (value: string, entry: MatrixEntry): string => value.replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (_m, n: string) => entry[n] ?? '');

/** The hogsync command lines of a GitHub recipe's action steps (command, paths, args), one per matrix entry. */
function actionCommandLines(recipe: Recipe): Array<{ where: string; text: string }> {
  if (recipe === GITLAB) return [];
  return githubSteps(load(recipe).doc)
    .filter((s) => HOGSYNC_ACTION.test(s.step.uses ?? ''))
    .flatMap((s) => matrixOf(recipe, s.job).map((entry) => ({
      where: `${recipe} ${s.job}${entry.name ? ` (${entry.name})` : ''} › ${s.step.name}`,
      text: withMatrix(['hogsync', s.step.with?.command ?? 'plan', s.step.with?.paths ?? '', s.step.with?.args ?? ''].join(' '), entry).replace(/\s+/g, ' ').trim(),
    })));
}

interface HogsyncCommand { where: string; line: string; verb: string; args: string[] }

/** The hogsync invocations of a shell script: at a command position, up to a redirection. */
function hogsyncCommands(where: string, script: string): HogsyncCommand[] {
  const commands: HogsyncCommand[] = [];
  for (const raw of script.replace(/\\\n/g, ' ').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#')) continue;
    const code = line.replace(/(^|\s)#.*$/, '');
    for (let segment of code.split(/&&|\|\||;|\||\$\(|`|\(|\{/)) {
      segment = segment.trim()
        .replace(/^(?:(?:if|then|else|elif|do|while|until|!|time|exec)\s+)*/, '')
        .replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*/, '')
        .replace(/^npx\s+/, '');
      if (!/^hogsync(\s|$)/.test(segment)) continue;
      const tokens = segment.split(/\s+/).slice(1);
      const end = tokens.findIndex((t) => /^(\d*>|&>|<|\))/.test(t));
      const [verb = '', ...args] = end < 0 ? tokens : tokens.slice(0, end);
      commands.push({ where, line, verb, args });
    }
  }
  return commands;
}

const allCommands = (): HogsyncCommand[] => RECIPES.flatMap((r) => [...shellScripts(r), ...actionCommandLines(r)].flatMap((s) => hogsyncCommands(s.where, s.text)));

/** The block of help text of one option: its line and the wrapped lines that follow. */
function optionHelp(help: string, flag: string): string | undefined {
  const lines = help.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^\\s+(?:-\\w, )?${flag}(?=[\\s,]|$)`).test(l));
  if (start < 0) return undefined;
  let end = start + 1;
  while (end < lines.length && /^\s{6,}\S/.test(lines[end] as string) && !/^\s+-/.test(lines[end] as string)) end++;
  return lines.slice(start, end).map((l) => l.trim()).join(' ');
}

describe('CI recipes: shape', () => {
  it.each(RECIPES)('%s parses as YAML without errors or warnings', (recipe) => {
    expect(() => load(recipe)).not.toThrow();
  });

  it.each(GITHUB)('%s is a GitHub workflow: on + jobs, each job runs on a runner with steps', (recipe) => {
    const { doc } = load(recipe);
    expect(doc).toHaveProperty('on');
    expect(doc).toHaveProperty('jobs');
    for (const [name, job] of Object.entries(doc.jobs as Record<string, Job>)) {
      expect({ name, runsOn: typeof job['runs-on'] }).toEqual({ name, runsOn: 'string' });
      expect(Array.isArray(job.steps) && job.steps.length > 0).toBe(true);
    }
  });

  it('the triggers and guards the README describes', () => {
    const plan = load('github/hogsync-plan.yml').doc;
    expect((plan.on as Doc).pull_request).toEqual({ paths: expect.arrayContaining(['config/**']) });
    const apply = load('github/hogsync-apply.yml').doc;
    expect((apply.on as Doc).push).toMatchObject({ branches: ['main'], paths: ['config/**'] });
    expect(apply.concurrency).toEqual({ group: expect.any(String), 'cancel-in-progress': false });
    const drift = load('github/hogsync-drift.yml').doc;
    // Nightly a change feed (--since 25h), weekly and by hand the full drift.
    const crons = ((drift.on as Doc).schedule as Array<{ cron: string }>).map((c) => c.cron);
    expect(crons).toEqual([expect.stringMatching(/^\S+ \S+ \S+ \S+ \S+$/), expect.stringMatching(/^\S+ \S+ \S+ \S+ \S+$/)]);
    expect(drift.on).toHaveProperty('workflow_dispatch');
    const driftSteps = githubSteps(drift).filter((s) => s.step.with?.command === 'drift').map((s) => s.step);
    expect(driftSteps.map((s) => [s.if, s.with?.args])).toEqual([
      [`github.event.schedule == '${crons[0]}'`, '--since 25h --format junit --out drift.xml'],
      [`github.event.schedule != '${crons[0]}'`, '--format junit --out drift.xml'],
    ]);
    const uploads = (doc: Doc) => githubSteps(doc).filter((s) => s.step.uses?.startsWith('actions/upload-artifact@')).map((s) => s.step.with?.path);
    expect(uploads(plan)).toEqual(['plan.json']);
    expect(uploads(apply)).toEqual([]);
    expect(uploads(drift)).toEqual(['drift.xml']);
    // The plan comment is the action's (comment: true), on the step that plans.
    const planStep = githubSteps(plan).find((s) => s.step.with?.command === 'plan');
    expect(planStep?.step).toMatchObject({ uses: expect.stringMatching(HOGSYNC_ACTION), with: { comment: true } });
    // On a pull request it plans what the pull request changes, from a checkout deep enough to hold HEAD^1.
    const prPlan = githubSteps(plan).find((s) => s.step.with?.command === 'plan' && s.step.if === "github.event_name == 'pull_request'");
    expect(String(prPlan?.step.with?.args)).toContain('--changed-since HEAD^1');
    const depth = githubSteps(plan).find((s) => s.job === prPlan?.job && s.step.uses?.startsWith('actions/checkout@'))?.step.with?.['fetch-depth'];
    expect(depth === 0 || (typeof depth === 'number' && depth >= 2), `fetch-depth ${String(depth)}`).toBe(true);

    const gitlab = gitlabJobs(load(GITLAB).doc);
    const byName = Object.fromEntries(gitlab.map((j) => [j.name, j]));
    expect(Object.keys(byName).sort()).toEqual(['hogsync:apply', 'hogsync:drift', 'hogsync:plan', 'hogsync:validate']);
    expect(byName['hogsync:apply']?.job.resource_group).toEqual(expect.any(String));
    expect(byName['hogsync:drift']?.job.artifacts).toMatchObject({ when: 'always', reports: { junit: 'drift.xml' } });
    expect(JSON.stringify(byName['hogsync:drift']?.job.rules)).toContain('schedule');
    expect(JSON.stringify(byName['hogsync:plan']?.job.rules)).toContain('merge_request_event');
    expect(byName['hogsync:plan']?.script.join('\n')).toContain('<!-- hogsync-plan -->');
  });

  it('the matrix: one job per organization or group of projects, each with its own key; nightly --since, weekly full', () => {
    const { doc } = load(MATRIX);
    const drift = (doc.jobs as Record<string, Job>).drift as Job;
    expect(drift.strategy).toMatchObject({ 'fail-fast': false });
    const entries = matrixOf(MATRIX, 'drift');
    expect(entries.length).toBeGreaterThanOrEqual(3);
    for (const e of entries) expect(Object.keys(e).sort()).toEqual(['key', 'name', 'paths', 'targets']);
    // Every entry its own key (a secret per entry), and its own name (its report's artifact).
    expect(new Set(entries.map((e) => e.key)).size).toBe(entries.length);
    expect(new Set(entries.map((e) => e.name)).size).toBe(entries.length);
    for (const e of entries) expect(e.key).toMatch(/^HOGSYNC_API_KEY_[A-Z0-9_]+$/);
    // A whole organization without targets; an organization split into groups by --target.
    const byPaths = new Map<string, MatrixEntry[]>();
    for (const e of entries) byPaths.set(e.paths as string, [...(byPaths.get(e.paths as string) ?? []), e]);
    expect([...byPaths.values()].some((g) => g.length === 1 && g[0]!.targets === '')).toBe(true);
    const split = [...byPaths.values()].find((g) => g.length > 1) ?? [];
    expect(split.length).toBeGreaterThan(1);
    for (const e of split) expect(e.targets).toMatch(/^(--target '[^']+' ?)+$/);
    const crons = ((doc.on as Doc).schedule as Array<{ cron: string }>).map((c) => c.cron);
    expect(doc.on).toHaveProperty('workflow_dispatch');
    const steps = githubSteps(doc).filter((x) => x.step.with?.command === 'drift').map((x) => x.step);
    expect(steps.map((x) => [x.if, x.with?.paths, x.with?.args, x.with?.['api-key']])).toEqual([
      [`github.event.schedule == '${crons[0]}'`, '${{ matrix.paths }}', '--since 25h ${{ matrix.targets }} --format junit --out drift.xml', '${{ secrets[matrix.key] }}'],
      [`github.event.schedule != '${crons[0]}'`, '${{ matrix.paths }}', '${{ matrix.targets }} --format junit --out drift.xml', '${{ secrets[matrix.key] }}'],
    ]);
    const upload = githubSteps(doc).find((x) => x.step.uses?.startsWith('actions/upload-artifact@'))?.step;
    expect(upload?.with).toMatchObject({ name: 'hogsync-drift-${{ matrix.name }}', path: 'drift.xml' });
    // The README's copy of the matrix is this one.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const shown = /### More than one key's hour[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect((parseDocument(shown).toJS() as { matrix?: unknown }).matrix).toEqual({ include: entries });
  });

  it('the key reaches only the hogsync action steps that need it, never an install step or shell text', () => {
    for (const recipe of GITHUB) {
      const { doc } = load(recipe);
      for (const { job, step } of githubSteps(doc)) {
        expect({ recipe, job, step: step.name, run: step.run ?? '' }).not.toMatchObject({ run: expect.stringContaining('${{') });
        const mentionsKey = /secrets(\.HOGSYNC_API_KEY|\[)/.test(JSON.stringify(step));
        if (HOGSYNC_ACTION.test(step.uses ?? '') && step.with?.command !== 'validate') {
          // The matrix recipe: each entry's own key, the secret its `key` names.
          const key = recipe === MATRIX ? '${{ secrets[matrix.key] }}' : '${{ secrets.HOGSYNC_API_KEY }}';
          expect(step.with, `${recipe} ${step.name}`).toMatchObject({ 'api-key': key, 'base-url': '${{ vars.HOGSYNC_BASE_URL }}' });
        } else {
          // validate is offline (it also runs for forks), and no other step needs the key.
          expect({ recipe, step: step.name, mentionsKey }).toEqual({ recipe, step: step.name, mentionsKey: false });
        }
      }
      for (const [name, job] of Object.entries(doc.jobs as Record<string, Job>)) expect(JSON.stringify(job.env ?? {}), `${recipe} ${name}`).not.toMatch(/HOGSYNC_API_KEY|secrets/);
    }
    // GitLab: the install command runs with the key and the GitLab token removed from its environment.
    const install = gitlabJobs(load(GITLAB).doc)[0]!.before.find((l) => /npm install/.test(l));
    expect(install).toMatch(/^env -u HOGSYNC_API_KEY -u GITLAB_API_TOKEN npm install --global /);
  });

  it('pins every third-party action by commit SHA', () => {
    for (const recipe of GITHUB) {
      for (const { step } of githubSteps(load(recipe).doc)) {
        if (step.uses === undefined || HOGSYNC_ACTION.test(step.uses)) continue;
        expect({ recipe, uses: step.uses }).toEqual({ recipe, uses: expect.stringMatching(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/) });
      }
    }
  });

  it('every script is valid bash (bash -n)', () => {
    for (const recipe of RECIPES) {
      for (const s of shellScripts(recipe)) {
        const r = spawnSync('bash', ['-n'], { input: s.text, encoding: 'utf8' });
        expect({ where: s.where, status: r.status, stderr: r.stderr }).toEqual({ where: s.where, status: 0, stderr: '' });
      }
    }
  });

  it('every recipe installs the version of this package', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const recipe of GITHUB) {
      const refs = githubSteps(load(recipe).doc).flatMap((s) => (HOGSYNC_ACTION.test(s.step.uses ?? '') ? [HOGSYNC_ACTION.exec(s.step.uses as string)?.[1]] : []));
      expect({ recipe, refs: [...new Set(refs)] }).toEqual({ recipe, refs: [version] });
    }
    expect({ recipe: GITLAB, version: /HOGSYNC_VERSION: "?([^"\s]+)"?/.exec(load(GITLAB).text)?.[1] }).toEqual({ recipe: GITLAB, version });
    expect(readFileSync(join(CI, 'README.md'), 'utf8')).toContain(`OWNER/hogsync@v${version}`);
  });
});

describe('CI recipes: every hogsync command line is one the CLI knows', () => {
  const help = new Map<string, string>();
  let verbs: string[] = [];
  let mainHelp = '';

  beforeAll(async () => {
    const main = await runCli(['--help']);
    expect(main.code).toBe(0);
    mainHelp = main.stdout;
    verbs = [...mainHelp.split(/^Commands:$/m)[1]?.matchAll(/^ {2}([a-z]+)\b/gm) ?? []].map((m) => m[1] as string).filter((v) => v !== 'help');
    const used = [...new Set(allCommands().map((c) => c.verb))].filter((v) => verbs.includes(v));
    await Promise.all(used.map(async (verb) => {
      const r = await runCli([verb, '--help']);
      expect(r.code).toBe(0);
      help.set(verb, r.stdout);
    }));
  });

  it('finds the commands each recipe is about', () => {
    const verbsOf = (recipe: Recipe) => [...new Set([...shellScripts(recipe), ...actionCommandLines(recipe)].flatMap((s) => hogsyncCommands(s.where, s.text)).map((c) => c.verb))].sort();
    expect(verbsOf('github/hogsync-plan.yml')).toEqual(['plan', 'validate']);
    expect(verbsOf('github/hogsync-apply.yml')).toEqual(['apply']);
    expect(verbsOf('github/hogsync-drift.yml')).toEqual(['drift']);
    expect(verbsOf(MATRIX)).toEqual(['drift']);
    expect(verbsOf(GITLAB)).toEqual(['apply', 'drift', 'plan', 'validate']);
    const lines = allCommands().map((c) => [c.verb, ...c.args].join(' '));
    expect(lines).toEqual(expect.arrayContaining([
      'validate config/',
      'plan config/ --out plan.json',
      'plan config/ --out plan.json --format markdown',
      'apply config/ --plan plan.json --auto-approve',
      'apply config/ --plan plan.json --auto-approve --format json',
      'drift config/ --format junit --out drift.xml',
      'drift config/ --since 25h --format junit --out drift.xml',
      'drift config/ --since "$HOGSYNC_DRIFT_SINCE" --format junit --out drift.xml',
      'drift config/acme/ --since 25h --format junit --out drift.xml',
      'drift config/acme/ --format junit --out drift.xml',
      "drift config/globex/ --target 'project:*/2002' --target '*:*/2002/*' --format junit --out drift.xml",
      "drift config/globex/ --since 25h --target 'project:*/2001' --target '*:*/2001/*' --target 'role:*' --format junit --out drift.xml",
    ]));
  });

  it('names real verbs, and only flags (and flag values) that verb lists in its --help', () => {
    expect(verbs).toEqual(expect.arrayContaining(['validate', 'plan', 'apply', 'drift', 'export', 'sandbox', 'schema']));
    const problems: string[] = [];
    for (const c of allCommands()) {
      if (!verbs.includes(c.verb)) {
        problems.push(`${c.where}: "${c.line}": unknown verb ${c.verb}`);
        continue;
      }
      const text = help.get(c.verb) as string;
      c.args.forEach((arg, i) => {
        if (!arg.startsWith('-')) return;
        const [flag = '', inline] = arg.split('=', 2);
        const block = optionHelp(text, flag);
        if (block === undefined) {
          problems.push(`${c.where}: "${c.line}": hogsync ${c.verb} --help does not list ${flag}`);
          return;
        }
        const takesValue = /^\S+(?:, \S+)? <[^>]+>/.test(block);
        const value = inline ?? (takesValue ? c.args[i + 1] : undefined);
        if (takesValue && (value === undefined || value.startsWith('--'))) problems.push(`${c.where}: "${c.line}": ${flag} needs a value`);
        const choices = /choices: ((?:"[^"]*"(?:, )?)+)/.exec(block)?.[1];
        if (choices && value !== undefined && !choices.includes(`"${value}"`)) problems.push(`${c.where}: "${c.line}": ${flag} ${value} is not one of ${choices}`);
      });
    }
    expect(problems).toEqual([]);
  });

  it('branches only on the contract exit codes, and tells them apart where it matters', () => {
    for (const s of RECIPES.flatMap(shellScripts)) {
      const codes = [...s.text.matchAll(/^\s*(\d+)\)|-(?:eq|ne)\s+(\d+)|\bexit\s+(\d+)/gm)].map((m) => Number(m[1] ?? m[2] ?? m[3]));
      for (const code of codes) expect({ where: s.where, code }).toEqual({ where: s.where, code: expect.toBeOneOf(CONTRACT_EXIT_CODES) });
      const branch = (n: number) => new RegExp(`^\\s*${n}\\)(.*)$`, 'm').exec(s.text)?.[1] ?? '';
      if (/hogsync drift /.test(s.text) || /hogsync-drift\.yml .*Explain/.test(s.where)) {
        expect(branch(0), s.where).toMatch(/No drift/);
        expect(branch(2), s.where).toMatch(/[Dd]rift detected/);
        expect(branch(1), s.where).toMatch(/not a drift result/);
      }
      if (/hogsync apply /.test(s.text) || /hogsync-apply\.yml .*Explain/.test(s.where)) {
        expect(branch(1), s.where).toMatch(/stale/);
        expect(branch(3), s.where).toMatch(/safety rule/);
      }
    }
  });

  it('the README lists the exit codes with the meanings hogsync --help gives', () => {
    const fromHelp = Object.fromEntries([...(mainHelp.split(/^Exit codes:$/m)[1] ?? '').matchAll(/^ {2}(\d) {2}(.+)$/gm)].map((m) => [m[1], m[2]]));
    const readme = readFileSync(join(CI, 'README.md'), 'utf8');
    const fromReadme = Object.fromEntries([...readme.matchAll(/^\| `(\d)` \| ([^|]+)\|/gm)].map((m) => [m[1], m[2]]));
    expect(Object.keys(fromHelp).map(Number)).toEqual(CONTRACT_EXIT_CODES);
    expect(Object.keys(fromReadme).map(Number)).toEqual(CONTRACT_EXIT_CODES);
    const words = (s: string): string[] => s.toLowerCase().match(/[a-z]+/g) ?? [];
    for (const [code, meaning] of Object.entries(fromHelp)) {
      const missing = words(meaning).filter((w) => !words(fromReadme[code] ?? '').includes(w));
      expect({ code, missing }).toEqual({ code, missing: [] });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The scripts, run: bash with `hogsync` on PATH (the real CLI), against a sandbox.
// ---------------------------------------------------------------------------------------------

const KEY = `phx_ci_canary_${randomBytes(16).toString('hex')}`;
let sandbox: SandboxHandle;
const scratch: string[] = [];

let printed: KeptOutput;

// A fresh workspace per test: an organization with a project and a role, and a key with every scope.
beforeEach(async (context) => {
  printed = keptOutput(context);
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web app', timezone: 'UTC' }], roles: [{ name: 'Support', feature_flags_access_level: 21 }] }],
      keys: [{ key: KEY, scopes: ['*'] }],
    },
  });
});
afterEach(async () => {
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
  await stopAllSandboxes();
});

/** A checkout: config/ that differs from the sandbox, and bin/hogsync running this build. */
function checkout(): string {
  const d = mkdtempSync(join(tmpdir(), 'hogsync-ci-'));
  scratch.push(d);
  mkdirSync(join(d, 'config'));
  writeFileSync(join(d, 'config/workspace.yaml'), config('projects:\n  - id: 12345\n    timezone: Europe/Berlin\nroles:\n  - name: Engineers\n    feature_flags_access_level: 37\n'));
  mkdirSync(join(d, '.bin'));
  writeFileSync(join(d, '.bin/hogsync'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(d, '.bin/hogsync'), 0o755);
  return d;
}

function bash(script: string, cwd: string, env: Record<string, string>): Promise<CliResult> {
  return collectOutput(spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
    cwd,
    env: { PATH: `${join(cwd, '.bin')}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: cwd, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
}

function githubStep(recipe: Recipe, name: string): Step {
  const found = githubSteps(load(recipe).doc).find((s) => s.step.name === name);
  if (!found) throw new Error(`${recipe}: no step "${name}"`);
  return found.step;
}

describe('GitHub recipes, run', () => {
  const outputs: Array<{ label: string; text: string }> = [];
  const actionYml = parseDocument(readFileSync(join(ROOT, 'action.yml'), 'utf8')).toJS() as { inputs: Record<string, { default?: string }>; runs: { steps: Step[] } };
  const runStepEnv = (actionYml.runs.steps.find((s) => s.name === 'Run hogsync') as Step).env as Record<string, string>;

  /**
   * Runs a recipe's hogsync action step as the runner would: its `with:` values (secrets and vars
   * filled in) become the action's inputs, which reach scripts/github-action.js through the env
   * that action.yml maps them to. Not a pull request: the comment is test/action.test.ts's.
   */
  async function actionStep(recipe: Recipe, name: string, d: string, secrets: Record<string, string> = { HOGSYNC_API_KEY: KEY }, entry: MatrixEntry = {}) {
    const step = githubStep(recipe, name);
    expect(step.uses).toMatch(HOGSYNC_ACTION);
    // A matrix entry's values and the secret its `key` names, then secrets and variables.
    const fill = (v: string) => withMatrix(v.replace(/\$\{\{\s*secrets\[matrix\.key\]\s*\}\}/g, () => secrets[entry.key ?? ''] ?? ''), entry)
      .replace(/\$\{\{\s*secrets\.(\w+)\s*\}\}/g, (_m, n: string) => secrets[n] ?? '').replace(/\$\{\{\s*vars\.HOGSYNC_BASE_URL\s*\}\}/g, sandbox.baseUrl);
    const input = (n: string) => (step.with?.[n] !== undefined ? fill(String(step.with[n])) : actionYml.inputs[n]?.default ?? '');
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', GITHUB_WORKSPACE: d, GITHUB_EVENT_NAME: 'push', GITHUB_OUTPUT: join(d, 'output.txt'), GITHUB_STEP_SUMMARY: join(d, 'summary.md'), RUNNER_TEMP: d };
    for (const [k, v] of Object.entries(runStepEnv)) env[k] = v.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_m, n: string) => input(n));
    writeFileSync(join(d, 'output.txt'), '');
    const lines: string[] = [];
    // What hogsync printed (the job's log) is kept for a failing test's log, and checked for the key.
    let echoed = '';
    const code = await runAction(env, (l) => { lines.push(l); }, (_stream, text) => { echoed += text; printed.write(text); });
    outputs.push({ label: `${recipe} ${name}${entry.name ? ` (${entry.name})` : ''}`, text: `${lines.join('\n')}\n${echoed}` });
    return { code, lines, output: readFileSync(join(d, 'output.txt'), 'utf8') };
  }

  /** A recipe's shell step, with the env it declares (its ${{ }} values given). */
  async function shellStep(recipe: Recipe, name: string, d: string, env: Record<string, string>): Promise<CliResult> {
    const r = await bash(githubStep(recipe, name).run as string, d, env);
    outputs.push({ label: `${recipe} ${name}`, text: r.stdout + r.stderr });
    return r;
  }

  it('plan (saved plan, outputs, summary) → apply the saved plan → drift, each exit code explained', async () => {
    const d = checkout();
    const plan = await actionStep('github/hogsync-plan.yml', 'Plan', d);
    expect(plan.code).toBe(0);
    expect(plan.output).toBe('exit-code=0\nchanges=2\n');
    expect(JSON.parse(readFileSync(join(d, 'plan.json'), 'utf8'))).toMatchObject({ kind: 'plan', summary: { create: 1, update: 1 } });
    expect(readFileSync(join(d, 'summary.md'), 'utf8')).toMatch(/^### hogsync plan\n/);
    expect(plan.lines).toContain('::notice title=hogsync action::not a pull request: no comment posted');

    const validate = await actionStep('github/hogsync-plan.yml', 'Validate config/', d, {});
    expect(validate.code).toBe(0);

    const apply = await actionStep('github/hogsync-apply.yml', 'Apply', d);
    expect(apply.code).toBe(0);
    expect(apply.output).toContain('exit-code=0');

    const clean = await actionStep('github/hogsync-drift.yml', 'Full drift report', d);
    expect(clean.code).toBe(0);
    expect((await shellStep('github/hogsync-drift.yml', 'Explain the exit code', d, { CODE: '0' })).stdout).toContain('No drift');
    expect((await actionStep('github/hogsync-drift.yml', 'Drift since the night before', d)).code).toBe(0);
    await api(sandbox.baseUrl, KEY).patch(`/api/organizations/${ORG}/projects/12345/`, { timezone: 'Asia/Tokyo' });
    // The nightly run finds it in the activity log, and says it is a since report.
    const nightly = await actionStep('github/hogsync-drift.yml', 'Drift since the night before', d);
    expect(nightly.code).toBe(2);
    expect(readFileSync(join(d, 'drift.xml'), 'utf8')).toMatch(/failures="1"[\s\S]*<property name="since"/);
    const drifted = await actionStep('github/hogsync-drift.yml', 'Full drift report', d);
    expect(drifted.code).toBe(2);
    expect(drifted.output).toContain('exit-code=2');
    expect(readFileSync(join(d, 'drift.xml'), 'utf8')).toMatch(/failures="1"/);
    expect((await shellStep('github/hogsync-drift.yml', 'Explain the exit code', d, { CODE: '2' })).stdout).toContain('::error title=Drift detected (exit 2)::');
    rmSync(join(d, 'drift.xml'));
    const broken = await actionStep('github/hogsync-drift.yml', 'Full drift report', d, { HOGSYNC_API_KEY: 'phx_wrong_key_for_ci_test' });
    expect(broken.code).toBe(1);
    expect((await shellStep('github/hogsync-drift.yml', 'Explain the exit code', d, { CODE: '1' })).stdout).toContain('::error title=hogsync drift failed (exit 1)::not a drift result');
    expect(existsSync(join(d, 'drift.xml'))).toBe(false);
    expectNoSecret(outputs, KEY);
  });

  it('the matrix: each organization, or group of projects, drifts with its own key; the groups cover every item once', async () => {
    const GLOBEX = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e10';
    const entries = matrixOf(MATRIX, 'drift');
    const orgOf = (e: MatrixEntry) => (e.paths === 'config/acme/' ? ORG : GLOBEX);
    // One secret per entry, each a key that reaches only its entry's organization.
    const secrets = Object.fromEntries(entries.map((e) => [e.key as string, `phx_matrix_${randomBytes(12).toString('hex')}`]));
    const flag = (key: string) => ({ key, name: key, active: true, filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    await stopAllSandboxes();
    sandbox = await inProcessSandbox({
      seed: {
        organizations: [
          { id: ORG, projects: [{ id: 12345, name: 'Web app', timezone: 'UTC' }] },
          {
            id: GLOBEX, name: 'Globex', roles: [{ name: 'Support', feature_flags_access_level: 21 }],
            projects: [{ id: 2001, name: 'Globex web', timezone: 'UTC', feature_flags: [flag('checkout')] }, { id: 2002, name: 'Globex mobile', timezone: 'UTC', feature_flags: [flag('dark-mode')] }],
          },
        ],
        keys: [{ key: KEY, scopes: ['*'] }, ...entries.map((e) => ({ key: secrets[e.key as string] as string, scopes: ['*'], organizations: [orgOf(e)] }))],
      },
    });
    const d = mkdtempSync(join(tmpdir(), 'hogsync-ci-'));
    scratch.push(d);
    mkdirSync(join(d, 'config/acme'), { recursive: true });
    mkdirSync(join(d, 'config/globex'));
    writeFileSync(join(d, 'config/acme/workspace.yaml'), config('projects:\n  - id: 12345\n    timezone: UTC\n'));
    writeFileSync(join(d, 'config/globex/organization.yaml'), `organization: ${GLOBEX}\nroles:\n  - name: Support\n    feature_flags_access_level: 21\n`);
    const flagYaml = (key: string) => `      - key: ${key}\n        name: ${key}\n        active: true\n        filters: { groups: [ { properties: [], rollout_percentage: 10 } ] }\n`;
    writeFileSync(join(d, 'config/globex/projects.yaml'), `organization: ${GLOBEX}\nprojects:\n  - id: 2001\n    timezone: UTC\n    feature_flags:\n${flagYaml('checkout')}  - id: 2002\n    timezone: UTC\n    feature_flags:\n${flagYaml('dark-mode')}`);
    const cases = () => [...readFileSync(join(d, 'drift.xml'), 'utf8').matchAll(/<testcase [^>]*name="([^"]+)"/g)].map((m) => m[1] as string).sort();
    const run = async (step: string, e: MatrixEntry) => {
      const r = await actionStep(MATRIX, step, d, secrets, e);
      expect({ entry: e.name, lines: r.lines.filter((l) => l.startsWith('::')) }).toEqual({ entry: e.name, lines: [] });
      return { code: r.code, cases: cases() };
    };

    // Weekly: every entry's full drift, clean; the groups of one organization read its items once between them.
    const full = new Map<string, string[]>();
    for (const e of entries) {
      const r = await run('Full drift report', e);
      expect({ entry: e.name, code: r.code }).toEqual({ entry: e.name, code: 0 });
      full.set(e.name as string, r.cases);
    }
    const whole = await runCli(['drift', join(d, 'config/globex/'), '--format', 'junit', '--out', join(d, 'drift.xml')], { env: { HOGSYNC_API_KEY: KEY, HOGSYNC_BASE_URL: sandbox.baseUrl } });
    expect(whole.code, whole.stderr).toBe(0);
    const globex = entries.filter((e) => orgOf(e) === GLOBEX).flatMap((e) => full.get(e.name as string) ?? []);
    expect(globex.length).toBe(new Set(globex).size);
    expect(globex.sort()).toEqual(cases());
    expect(cases()).toEqual(expect.arrayContaining([`project:${GLOBEX}/2002`, `feature_flag:${GLOBEX}/2001/checkout`, `role:${GLOBEX}/Support`]));

    // A change in one group's project: only that group's job finds it, nightly and weekly.
    await api(sandbox.baseUrl, KEY).patch(`/api/organizations/${GLOBEX}/projects/2002/`, { timezone: 'Asia/Tokyo' });
    for (const step of ['Drift since the night before', 'Full drift report']) {
      const codes: Record<string, number> = {};
      for (const e of entries) codes[e.name as string] = (await run(step, e)).code;
      expect({ step, codes }).toEqual({ step, codes: Object.fromEntries(entries.map((e) => [e.name, e.targets?.includes("'project:*/2002'") ? 2 : 0])) });
    }
    expectNoSecret(outputs, [KEY, ...Object.values(secrets)]);
  });

  it('a plan gone stale after review is refused by the Apply step (exit 1), and a failed plan says so in its outputs', async () => {
    const d = checkout();
    expect((await actionStep('github/hogsync-plan.yml', 'Plan', d)).code).toBe(0);
    await api(sandbox.baseUrl, KEY).patch(`/api/organizations/${ORG}/projects/12345/`, { timezone: 'America/Lima' });
    const apply = await actionStep('github/hogsync-apply.yml', 'Apply', d);
    expect(apply.code).toBe(1);
    expect(apply.output).toContain('exit-code=1');
    expect((await shellStep('github/hogsync-apply.yml', 'Explain the exit code', d, { CODE: '1' })).stdout).toContain('::error title=hogsync apply failed (exit 1)::');

    const failed = await actionStep('github/hogsync-plan.yml', 'Plan', d, { HOGSYNC_API_KEY: 'phx_wrong_key_for_ci_test' });
    expect(failed.code).toBe(1);
    expect(failed.output).toBe('exit-code=1\nchanges=\n');
    expectNoSecret(outputs, [KEY, 'phx_wrong_key_for_ci_test']);
  });
});

// ---------------------------------------------------------------------------------------------
// GitLab: the jobs' scripts against the sandbox and a fake GitLab API (notes, MRs, artifacts).
// ---------------------------------------------------------------------------------------------

interface Note { id: number; body: string; system: boolean }

async function fakeGitlab(token: string, artifacts: { planJson: () => string }) {
  const notes: Note[] = Array.from({ length: 120 }, (_, i) => ({ id: i + 1, body: i === 5 ? 'quoting <!-- hogsync-plan --> in a reply' : `note ${i + 1}`, system: i % 7 === 0 }));
  const log: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      log.push(`${req.method} ${url.pathname}${url.search}`);
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
      if (req.headers['private-token'] !== token) return json(401, { message: '401 Unauthorized' });
      const p = url.pathname.replace('/api/v4/projects/42/', '');
      if (p === 'merge_requests/7/notes' && req.method === 'GET') {
        const per = Number(url.searchParams.get('per_page') ?? 20);
        const page = Number(url.searchParams.get('page') ?? 1);
        const slice = notes.slice((page - 1) * per, page * per);
        return json(200, slice, { 'x-next-page': page * per < notes.length ? String(page + 1) : '' });
      }
      if (p === 'merge_requests/7/notes' && req.method === 'POST') {
        const note = { id: 1000 + notes.length, body: new URLSearchParams(body).get('body') ?? '', system: false };
        notes.push(note);
        return json(201, note);
      }
      const put = /^merge_requests\/7\/notes\/(\d+)$/.exec(p);
      if (put && req.method === 'PUT') {
        const note = notes.find((n) => n.id === Number(put[1]));
        if (!note) return json(404, { message: '404 Not found' });
        note.body = new URLSearchParams(body).get('body') ?? '';
        return json(200, note);
      }
      if (/^repository\/commits\/[0-9a-f]+\/merge_requests$/.test(p)) return json(200, [{ iid: 6, state: 'closed' }, { iid: 7, state: 'merged' }]);
      if (p === 'merge_requests/7/pipelines') return json(200, [{ id: 501 }, { id: 500 }]);
      if (p === 'pipelines/501/jobs') return json(200, [{ id: 9, name: 'hogsync:validate', status: 'success' }, { id: 10, name: 'hogsync:plan', status: 'success' }]);
      if (p === 'jobs/10/artifacts/plan.json') return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(artifacts.planJson());
      return json(404, { message: '404 Not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { notes, log, url: `http://127.0.0.1:${port}/api/v4`, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

describe('GitLab recipe, run', () => {
  const TOKEN = 'glpat-ci-test-token-0000';
  let gitlab: Awaited<ReturnType<typeof fakeGitlab>>;
  let planJson = '';
  beforeAll(async () => { gitlab = await fakeGitlab(TOKEN, { planJson: () => planJson }); });
  afterAll(async () => gitlab.close());

  /** A job's before_script (without the npm install) and script, as the runner concatenates them. */
  function job(name: string): string {
    const j = gitlabJobs(load(GITLAB).doc).find((x) => x.name === name);
    if (!j) throw new Error(`no job ${name}`);
    return [...j.before.filter((l) => !/npm install/.test(l)), ...j.script].join('\n');
  }
  const env = (extra: Record<string, string> = {}) => ({
    HOGSYNC_API_KEY: KEY, HOGSYNC_BASE_URL: sandbox.baseUrl, GITLAB_API_TOKEN: TOKEN, CI_API_V4_URL: gitlab.url, CI_PROJECT_ID: '42',
    CI_COMMIT_SHA: 'a1b2c3d4e5f6', CI_COMMIT_SHORT_SHA: 'a1b2c3d', CI_PIPELINE_URL: 'https://gitlab.example/p/1', ...extra,
  });

  it('plan posts ONE merge-request note and updates it in place (found on a later page); apply applies that plan; drift', async () => {
    const d = checkout();
    const first = await bash(job('hogsync:plan'), d, env({ CI_MERGE_REQUEST_IID: '7' }));
    expect(first.code, first.stderr).toBe(0);
    const mine = () => gitlab.notes.filter((n) => n.body.startsWith('<!-- hogsync-plan -->'));
    expect(mine()).toHaveLength(1);
    expect(mine()[0]?.body).toMatch(/^<!-- hogsync-plan -->\n### hogsync plan\n[\s\S]*Plan: 1 to create, 1 to update[\s\S]*commit a1b2c3d/);

    const second = await bash(job('hogsync:plan'), d, env({ CI_MERGE_REQUEST_IID: '7', CI_COMMIT_SHORT_SHA: 'ffff000' }));
    expect(second.code, second.stderr).toBe(0);
    expect(mine()).toHaveLength(1);
    expect(mine()[0]?.body).toContain('commit ffff000');
    expect(gitlab.log.filter((l) => !l.startsWith('GET'))).toEqual(['POST /api/v4/projects/42/merge_requests/7/notes', `PUT /api/v4/projects/42/merge_requests/7/notes/${mine()[0]?.id}`]);
    expect(gitlab.log).toContain('GET /api/v4/projects/42/merge_requests/7/notes?per_page=100&page=2');

    // After the merge: apply finds the merge request, its last pipeline's plan job, and its plan.
    planJson = readFileSync(join(d, 'plan.json'), 'utf8');
    const main = checkout();
    const applied = await bash(job('hogsync:apply'), main, env());
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Applying the plan of !7 (job 10)');
    expect(JSON.parse(readFileSync(join(main, 'apply.json'), 'utf8'))).toMatchObject({ kind: 'apply', summary: { applied: 2, failed: 0 } });

    const clean = await bash(job('hogsync:drift'), main, env({ CI_PIPELINE_SOURCE: 'schedule' }));
    expect(clean.code).toBe(0);
    await api(sandbox.baseUrl, KEY).patch(`/api/organizations/${ORG}/roles/${await roleId('Engineers')}/`, { feature_flags_access_level: 21 });
    const drifted = await bash(job('hogsync:drift'), main, env());
    expect(drifted.code).toBe(2);
    expect(drifted.stderr).toContain('Drift detected (exit 2)');
    expect(readFileSync(join(main, 'drift.xml'), 'utf8')).toContain('role:');
    // The nightly schedule's variable makes it a since report (roles are read in full: no log records them all).
    const nightly = await bash(job('hogsync:drift'), main, env({ HOGSYNC_DRIFT_SINCE: '25h' }));
    expect(nightly.code).toBe(2);
    expect(readFileSync(join(main, 'drift.xml'), 'utf8')).toMatch(/<property name="since"[\s\S]*role:/);
    expectNoSecret({ first: first.stdout + first.stderr, second: second.stdout + second.stderr, applied: applied.stdout + applied.stderr, drifted: drifted.stdout + drifted.stderr, notes: mine()[0]?.body ?? '' }, [KEY, TOKEN]);
  });

  async function roleId(name: string): Promise<number> {
    const r = await api(sandbox.baseUrl, KEY).get(`/api/organizations/${ORG}/roles/`);
    return ((r.body as { results: Array<{ id: number; name: string }> }).results.find((x) => x.name === name) as { id: number }).id;
  }
});
