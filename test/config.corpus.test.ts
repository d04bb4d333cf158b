// The invalid-configuration corpus: every fixture under test/fixtures/invalid/ must fail with
// exactly the problems listed in test/fixtures/invalid/expected.yaml, in-process through
// loadConfig and through the real CLI (exit 1, the same lines, a summary, no stack trace).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigErrors, loadConfig } from '../src/config/load.js';
import { MAX_FILE_BYTES } from '../src/config/files.js';
import { ROOT, runCli } from './support/cli.js';

const DIR = 'test/fixtures/invalid';
const expected = parse(readFileSync(join(ROOT, DIR, 'expected.yaml'), 'utf8')) as Record<string, string[]>;
const fixtures = readdirSync(join(ROOT, DIR)).filter((n) => n !== 'expected.yaml').sort();

// Variables the fixtures must not find set.
const env: NodeJS.ProcessEnv = { ...process.env };
delete env.HOGSYNC_TEST_UNSET_VARIABLE;
delete env.APP_NAME;

/** The lines `hogsync validate <fixture>` must print, from the table. */
function expectedLines(name: string): string[] {
  const path = `${DIR}/${name}`;
  const isDir = statSync(join(ROOT, path)).isDirectory();
  return (expected[name] ?? []).map((line) => {
    const text = line.split('$FIXTURE').join(path);
    return isDir ? `${path}/${text}` : `${path}:${text}`;
  });
}

async function problemsOf(paths: string[], envVars: NodeJS.ProcessEnv = env): Promise<string[]> {
  try {
    await loadConfig(paths, envVars, { cwd: ROOT });
  } catch (err) {
    if (err instanceof ConfigErrors) return err.problems.map((p) => `${p.position.file}:${p.position.line}:${p.position.col}: ${p.message}`);
    throw err;
  }
  return [];
}

describe('invalid configuration corpus', () => {
  it('has at least 45 cases, each with its expected problems', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(45);
    expect(Object.keys(expected).sort()).toEqual(fixtures);
    for (const name of fixtures) expect(expected[name]!.length, name).toBeGreaterThan(0);
  });

  it.each(fixtures)('%s: loadConfig reports exactly the expected problems', async (name) => {
    expect(await problemsOf([`${DIR}/${name}`])).toEqual(expectedLines(name));
  });

  // Each fixture through the real CLI; vitest runs at most maxConcurrency (5) at once.
  it.concurrent.each(fixtures)('%s: hogsync validate exits 1 with the same lines and no stack trace', async (name) => {
    const r = await runCli(['validate', `${DIR}/${name}`], { env: { HOGSYNC_TEST_UNSET_VARIABLE: undefined, APP_NAME: undefined } });
    const lines = expectedLines(name);
    const files = new Set(lines.map((l) => l.replace(/:\d+:\d+: .*$/, '')));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).toBe(`${[...lines, `${lines.length} error${lines.length === 1 ? '' : 's'} in ${files.size} file${files.size === 1 ? '' : 's'}`].join('\n')}\n`);
  });
});

describe('hostile input generated at test time', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'hogsync-corpus-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('refuses a file larger than 5 MiB without parsing it', async () => {
    const file = join(tmp, 'huge.yaml');
    const head = 'organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nx-padding: |\n';
    writeFileSync(file, head + '  padding padding padding padding padding padding padding\n'.repeat(Math.ceil(MAX_FILE_BYTES / 56)));
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(MAX_FILE_BYTES);
    const started = Date.now();
    const r = await runCli(['validate', file]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${file}:1:1: file is too large: ${size} bytes (the limit is 5242880 bytes, 5 MiB)\n1 error in 1 file\n`);
  });

  it('turns nesting deep enough to overflow the parser\'s stack into one message', async () => {
    const file = join(tmp, 'deep.yaml');
    writeFileSync(file, `${'- '.repeat(50_000)}x\n`);
    const r = await runCli(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^${file}:1:\\d+: values are nested more than 64 levels deep\n1 error in 1 file\n$`));
  });

  it('lists the first 20 syntax errors of a file and counts the rest', async () => {
    const file = join(tmp, 'flood.yaml');
    const lines = Array.from({ length: 200 }, (_, i) => `${' '.repeat(i + 2)}- a:`);
    writeFileSync(file, `organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nlist:\n${lines.join('\n')} 1\n`);
    const problems = await problemsOf([file]);
    expect(problems).toHaveLength(21);
    expect(problems[20]).toMatch(/:\d+:\d+: \d+ more YAML errors in this file not shown$/);
  });

  it('stops a billion-laughs alias bomb quickly', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i);
      levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }
    const file = join(tmp, 'bomb.yaml');
    writeFileSync(file, `organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\n${levels.join('\n')}\n`);
    const started = Date.now();
    const problems = await problemsOf([file]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/:\d+:\d+: YAML aliases expand to more than 10000 values/);
  });
});
