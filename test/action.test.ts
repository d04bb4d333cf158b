// The GitHub Action (action.yml + scripts/github-action.js): its file keeps the key out of the
// install step and every input out of shell text; its script runs the real CLI against a
// sandbox, and posts the plan on the pull request through GitHub's API (faked with nock, which
// intercepts the global fetch): created once, then found and updated in place; a fork's
// read-only token (403) is reported without failing the plan.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from './support/nock.js';
import { parseDocument } from 'yaml';
import { MARKER, runAction, splitArgs, splitPaths } from '../scripts/github-action.js';
import { ROOT } from './support/cli.js';
import { keptOutput, type KeptOutput } from './support/output.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config } from './support/workspace.js';
import type { SandboxHandle } from '../src/sandbox/server.js';

type Step = { name?: string; uses?: string; run?: string; shell?: string; env?: Record<string, string>; with?: Record<string, unknown> };
const action = parseDocument(readFileSync(join(ROOT, 'action.yml'), 'utf8'), { uniqueKeys: true }).toJS() as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
};

describe('action.yml', () => {
  it('is a composite action with the contract inputs and outputs', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(['command', 'paths', 'args', 'api-key', 'base-url', 'comment']));
    expect(Object.keys(action.outputs).sort()).toEqual(['changes', 'exit-code']);
  });

  it('gives the key only to the step that runs hogsync, and writes no input into shell text', () => {
    const withKey = action.runs.steps.filter((s) => JSON.stringify(s).includes('inputs.api-key'));
    expect(withKey.map((s) => s.name)).toEqual(['Run hogsync']);
    expect(withKey[0]!.env!.HOGSYNC_API_KEY).toBe('${{ inputs.api-key }}');
    const install = action.runs.steps.find((s) => s.name === 'Install hogsync')!;
    expect(install.env).toBeUndefined();
    for (const step of action.runs.steps) if (step.run !== undefined) expect(step.run, step.name).not.toContain('${{');
  });

  it('pins every action it uses by commit SHA', () => {
    const uses = action.runs.steps.flatMap((s) => (s.uses ? [s.uses] : []));
    expect(uses.length).toBeGreaterThan(0);
    for (const u of uses) expect(u).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
  });
});

describe('argument splitting', () => {
  it('splits args like a shell splits words, and never runs anything', () => {
    expect(splitArgs(`--target 'role:*/Platform engineers' --target "feature_flag:*/111/*"`)).toEqual(['--target', 'role:*/Platform engineers', '--target', 'feature_flag:*/111/*']);
    expect(splitArgs('--out x.json; rm -rf / $(id) `id`')).toEqual(['--out', 'x.json;', 'rm', '-rf', '/', '$(id)', '`id`']);
    expect(() => splitArgs('--target "unterminated')).toThrow(/unterminated " quote/);
    expect(splitPaths('config/\nmore config/\n')).toEqual(['config/', 'more config/']);
    expect(splitPaths('a.yaml b.yaml')).toEqual(['a.yaml', 'b.yaml']);
  });
});

describe('the action against a sandbox and a fake GitHub', () => {
  const GITHUB = 'https://api.github.com';
  const REPO = 'acme/workspace-config';
  let sandbox: SandboxHandle;
  let dir: string;
  let lines: string[];
  let printed: KeptOutput;

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect((host) => host.startsWith('127.0.0.1'));
  });
  afterAll(() => {
    nock.enableNetConnect();
    // Test files share their worker (vitest.config.ts: isolate off): unhook http and fetch.
    nock.restore();
  });

  beforeEach(async (context) => {
    printed = keptOutput(context);
    sandbox = await inProcessSandbox();
    dir = mkdtempSync(join(tmpdir(), 'hogsync-action-'));
    writeFileSync(join(dir, 'hogsync.yaml'), config('roles:\n  - name: Engineers\n    feature_flags_access_level: 37\n'));
    writeFileSync(join(dir, 'event.json'), JSON.stringify({ pull_request: { number: 7 } }));
    writeFileSync(join(dir, 'output'), '');
    writeFileSync(join(dir, 'summary'), '');
    lines = [];
  });
  afterEach(async () => {
    nock.cleanAll();
    await stopAllSandboxes();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (inputs: Record<string, string>) => ({
    PATH: process.env.PATH,
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: join(dir, 'event.json'),
    GITHUB_REPOSITORY: REPO,
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
    RUNNER_TEMP: dir,
    GITHUB_TOKEN: 'ghs_faketoken0123456789',
    HOGSYNC_API_KEY: sandbox.apiKey,
    HOGSYNC_BASE_URL: sandbox.baseUrl,
    INPUT_PATHS: join(dir, 'hogsync.yaml'),
    INPUT_ARGS: '',
    ...inputs,
  });
  const outputs = () => readFileSync(join(dir, 'output'), 'utf8');
  const log = (line: string) => { lines.push(line); };
  // What hogsync printed goes to the job's log; here, to the test's log only if it fails.
  const echo = (_stream: 'stdout' | 'stderr', text: string) => { printed.write(text); };

  it('creates the plan comment on the pull request, and sets exit-code and changes', async () => {
    let posted = '';
    const github = nock(GITHUB)
      .get(`/repos/${REPO}/issues/7/comments`).query({ per_page: '100', page: '1' })
      .reply(200, [{ id: 1, body: 'LGTM' }])
      .post(`/repos/${REPO}/issues/7/comments`, (body: { body: string }) => { posted = body.body; return true; })
      .matchHeader('authorization', 'Bearer ghs_faketoken0123456789')
      .reply(201, { id: 99 });
    const code = await runAction(env({ INPUT_COMMAND: 'plan', INPUT_COMMENT: 'true', GITHUB_WORKSPACE: dir }), log, echo);
    expect(code).toBe(0);
    // The plan reaches the job's log, as hogsync printed it.
    expect(printed.text()).toMatch(/^### hogsync plan\n/);
    expect(github.isDone(), lines.join('\n')).toBe(true);
    // The planned change, as a notice on the line that declares it (the path as the repository names it).
    expect(lines).toContain(`::notice file=hogsync.yaml,line=3,col=5::create role:${ORG}/Engineers`);
    expect(posted.startsWith(MARKER)).toBe(true);
    expect(posted).toContain('### hogsync plan');
    expect(posted).toContain(`role:${ORG}/Engineers`);
    expect(outputs()).toContain('exit-code=0\nchanges=1\n');
    expect(readFileSync(join(dir, 'summary'), 'utf8')).toContain(`role:${ORG}/Engineers`);
    expect(lines).toContain('Posted the plan comment on pull request #7.');
    expect(JSON.stringify(lines) + posted).not.toContain(sandbox.apiKey);
  });

  it('finds its comment by the marker and updates it in place', async () => {
    let patched = '';
    const github = nock(GITHUB)
      .get(`/repos/${REPO}/issues/7/comments`).query(true)
      .reply(200, [{ id: 5, body: 'first!' }, { id: 6, body: `${MARKER}\n### hogsync plan\n\nold plan` }])
      .patch(`/repos/${REPO}/issues/comments/6`, (body: { body: string }) => { patched = body.body; return true; })
      .reply(200, { id: 6 });
    const code = await runAction(env({ INPUT_COMMAND: 'plan', INPUT_COMMENT: 'true' }), log, echo);
    expect(code).toBe(0);
    expect(github.isDone()).toBe(true);
    expect(patched).toContain(`role:${ORG}/Engineers`);
    expect(lines).toContain('Updated the plan comment on pull request #7.');
  });

  it('reports a 403 from a fork\'s read-only token as a warning, without failing the plan', async () => {
    nock(GITHUB)
      .get(`/repos/${REPO}/issues/7/comments`).query(true).reply(200, [])
      .post(`/repos/${REPO}/issues/7/comments`).reply(403, { message: 'Resource not accessible by integration' });
    const code = await runAction(env({ INPUT_COMMAND: 'plan', INPUT_COMMENT: 'true' }), log, echo);
    expect(code).toBe(0);
    expect(outputs()).toContain('exit-code=0');
    const warning = lines.find((l) => l.startsWith('::warning'));
    expect(warning).toContain('403: Resource not accessible by integration');
    expect(warning).toContain('read-only token');
  });

  it('posts the error instead of a plan when hogsync fails, and passes exit code 1 on', async () => {
    let posted = '';
    nock(GITHUB)
      .get(`/repos/${REPO}/issues/7/comments`).query(true).reply(200, [])
      .post(`/repos/${REPO}/issues/7/comments`, (body: { body: string }) => { posted = body.body; return true; }).reply(201, { id: 1 });
    writeFileSync(join(dir, 'hogsync.yaml'), config('roles:\n  - name: Engineers\n    feature_flags_access_level: nope\n'));
    const code = await runAction(env({ INPUT_COMMAND: 'plan', INPUT_COMMENT: 'true' }), log, echo);
    expect(code).toBe(1);
    expect(outputs()).toContain('exit-code=1');
    expect(posted).toContain('hogsync plan failed (exit 1)');
    expect(posted).toMatch(/hogsync\.yaml:4:\d+: feature_flags_access_level: must be 21 or 37/);
  });

  it('shows each error of the files as an annotation at its line, and keeps them out of the comment', async () => {
    let posted = '';
    nock(GITHUB)
      .get(`/repos/${REPO}/issues/7/comments`).query(true).reply(200, [])
      .post(`/repos/${REPO}/issues/7/comments`, (body: { body: string }) => { posted = body.body; return true; }).reply(201, { id: 1 });
    writeFileSync(join(dir, 'hogsync.yaml'), config('roles:\n  - name: Engineers\n    feature_flags_access_level: nope\n    members: [ $SLACK_WEBHOOK ]\n'));
    const code = await runAction(env({ INPUT_COMMAND: 'plan', INPUT_COMMENT: 'true', INPUT_PATHS: 'hogsync.yaml', GITHUB_WORKSPACE: dir }), log);
    expect(code).toBe(1);
    const commands = lines.filter((l) => l.startsWith('::'));
    expect(commands).toContainEqual(expect.stringMatching(/^::error file=hogsync\.yaml,line=4,col=\d+::feature_flags_access_level: must be 21 or 37/));
    expect(commands).toContainEqual(expect.stringMatching(/^::warning file=hogsync\.yaml,line=5,col=\d+::.*\$\{env:SLACK_WEBHOOK\}/));
    expect(posted).toMatch(/hogsync\.yaml:4:\d+: feature_flags_access_level: must be 21 or 37/);
    expect(posted).not.toContain('::error');
  });

  it('hands args to hogsync as words, never to a shell', async () => {
    const marker = join(dir, 'pwned');
    const code = await runAction(env({ INPUT_COMMAND: 'validate', INPUT_ARGS: `; touch ${marker} $(touch ${marker})` }), log, echo);
    expect(code).toBe(1);
    expect(() => readFileSync(marker)).toThrow();
  });

  it('plans only what the pull request changed with args "--changed-since HEAD^1" in the checkout (GITHUB_WORKSPACE)', async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
    // The base commit already asks for a role change and a new proxy record; the pull request
    // changes only the role. A full plan would show both.
    writeFileSync(join(dir, 'hogsync.yaml'), config('proxy_records:\n  - domain: base.example.com\nroles:\n  - name: Engineers\n    feature_flags_access_level: 21\n'));
    git('init', '-q', '-b', 'main');
    git('add', 'hogsync.yaml');
    git('commit', '-q', '-m', 'base');
    writeFileSync(join(dir, 'hogsync.yaml'), config('proxy_records:\n  - domain: base.example.com\nroles:\n  - name: Engineers\n    feature_flags_access_level: 37\n'));
    git('commit', '-q', '-am', 'pull request');
    const code = await runAction(env({ INPUT_COMMAND: 'plan', INPUT_PATHS: 'hogsync.yaml', INPUT_ARGS: '--changed-since HEAD^1', GITHUB_WORKSPACE: dir }), log, echo);
    expect(code, lines.join('\n')).toBe(0);
    expect(outputs()).toContain('exit-code=0\nchanges=1\n');
    const summary = readFileSync(join(dir, 'summary'), 'utf8');
    expect(summary).toContain(`role:${ORG}/Engineers`);
    expect(summary).not.toContain('base.example.com');
  });

  it('refuses a command outside the contract, and runs drift with its exit code 2', async () => {
    expect(await runAction(env({ INPUT_COMMAND: 'sandbox' }), log, echo)).toBe(1);
    expect(lines.join('\n')).toMatch(/::error title=hogsync action::command must be one of validate, plan, apply, drift/);
    const code = await runAction(env({ INPUT_COMMAND: 'drift', INPUT_ARGS: '--format json' }), log, echo);
    expect(code).toBe(2);
    expect(outputs()).toContain('exit-code=2\nchanges=1\n');
  });
});
