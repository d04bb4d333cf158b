// The two documented installs work on a machine with Node 20 and npm only: a global install
// from the packed tarball, and one from a git URL at a tag (`npm install -g git+…#TAG`, which
// builds through `prepare`). Both go into a temporary prefix. The tarball installs with npm
// offline: it carries its runtime dependencies, so no registry is asked. The git install needs
// the build tools, which come from the npm cache that `npm ci` filled (--prefer-offline: npm may
// still ask the registry for package metadata the cache lacks). The installed `hogsync` then
// answers --version and validates a configuration from another directory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './support/cli.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const TAG = 'v0.0.0-install-test';

interface Run { code: number; stdout: string; stderr: string }

/** The environment of a user's shell: nothing of the `npm test` that runs this file. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^npm_(package|lifecycle|config_(global|prefix|offline|prefer))/i.test(k) || k === 'INIT_CWD') continue;
    env[k] = v;
  }
  return { ...env, NO_COLOR: '1' };
}

function run(cmd: string, args: string[], cwd: string, timeoutMs = 240_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

const npm = (args: string[], cwd: string) => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], cwd);
const git = (args: string[], cwd: string) => run('git', ['-c', 'user.name=install test', '-c', 'user.email=install-test@example.invalid', '-c', 'commit.gpgsign=false', ...args], cwd);

function expectOk(r: Run, what: string): void {
  expect(r.code, `${what} failed:\n${r.stdout}\n${r.stderr}`).toBe(0);
}

let work: string;
let elsewhere: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'hogsync-install-'));
  // A directory that is not the repository and holds a configuration of its own.
  elsewhere = join(work, 'team-config');
  mkdirSync(join(elsewhere, 'config'), { recursive: true });
  for (const name of readdirSync(join(ROOT, 'examples/basic'))) {
    if (/\.ya?ml$/.test(name)) copyFileSync(join(ROOT, 'examples/basic', name), join(elsewhere, 'config', name));
  }
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

/** What a user does after installing: the installed command, run from their own directory. */
async function expectWorkingInstall(prefix: string): Promise<void> {
  const bin = join(prefix, 'bin', 'hogsync');
  const version = await run(bin, ['--version'], elsewhere, 30_000);
  expectOk(version, 'hogsync --version');
  expect(version.stdout.trim()).toBe(VERSION);

  const validate = await run(bin, ['validate', 'config'], elsewhere, 30_000);
  expectOk(validate, 'hogsync validate config');
  expect(validate.stdout).toMatch(/valid: 1 organization, 2 projects/);

  // Each library ships once: the YAML parsers and the schema validator are bundled in dist/vendor,
  // the three runtime dependencies in the package's own node_modules; nothing else is installed.
  const pkg = join(prefix, 'lib', 'node_modules', 'hogsync');
  expect(readdirSync(join(pkg, 'node_modules')).filter((n) => !n.startsWith('.')).sort()).toEqual(['commander', 'diff', 'undici']);
  expect(readdirSync(join(pkg, 'dist', 'vendor')).sort()).toEqual(['js-yaml.cjs', 'js-yaml.cjs.cache', 'schema-validator.cjs', 'schema-validator.cjs.cache', 'yaml.cjs', 'yaml.cjs.cache']);
  expect(existsSync(join(pkg, 'src'))).toBe(false);
  expect(existsSync(join(pkg, 'LICENSE'))).toBe(true);
}

describe('install', () => {
  it('from the packed tarball, globally, with npm offline (no registry at all)', async () => {
    const packed = await npm(['pack', '--ignore-scripts', '--pack-destination', work], ROOT);
    expectOk(packed, 'npm pack');
    const tarball = join(work, `hogsync-${VERSION}.tgz`);
    // The whole package, bundled dependencies included, stays small.
    expect(statSync(tarball).size).toBeLessThan(1_500_000);

    const prefix = join(work, 'prefix-tarball');
    expectOk(await npm(['install', '--global', '--prefix', prefix, '--offline', tarball], elsewhere), 'npm install -g TARBALL');
    await expectWorkingInstall(prefix);
  }, 300_000);

  it('from a git URL at a tag, globally, building through prepare', async () => {
    // A repository holding exactly this checkout (uncommitted changes included), tagged.
    const repo = join(work, 'repo');
    expectOk(await git(['clone', '--quiet', '--no-hardlinks', ROOT, repo], work), 'git clone');
    const diff = await git(['diff', 'HEAD', '--binary'], ROOT);
    if (diff.stdout.trim() !== '') {
      writeFileSync(join(work, 'changes.patch'), diff.stdout);
      expectOk(await git(['apply', '--whitespace=nowarn', join(work, 'changes.patch')], repo), 'git apply');
    }
    const untracked = (await git(['ls-files', '--others', '--exclude-standard'], ROOT)).stdout.split('\n').filter(Boolean);
    for (const file of untracked) {
      mkdirSync(dirname(join(repo, file)), { recursive: true });
      copyFileSync(join(ROOT, file), join(repo, file));
    }
    expectOk(await git(['add', '-A'], repo), 'git add');
    expectOk(await git(['commit', '--quiet', '--allow-empty', '-m', 'install test'], repo), 'git commit');
    expectOk(await git(['tag', TAG], repo), 'git tag');

    const prefix = join(work, 'prefix-git');
    const installed = await npm(['install', '--global', '--prefix', prefix, '--prefer-offline', `git+file://${repo}#${TAG}`], elsewhere);
    expectOk(installed, 'npm install -g git+file://…#TAG');
    // The old failure: the nested install of a global git install left the build tools out.
    expect(installed.stderr).not.toMatch(/tsc: not found/);
    await expectWorkingInstall(prefix);
  }, 300_000);
});
