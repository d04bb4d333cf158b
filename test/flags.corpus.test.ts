// The flag corpus (test/fixtures/flags-corpus/): every file under refuse/ is refused by validate
// where its `# expect: LINE:COL TEXT` comment says (the API's source that refuses or rewrites it is
// named in its `# source:` comment), and every file under accept/ loads. loadConfig runs in
// process: the whole corpus takes well under a second. The accepted files are applied to a
// sandbox in test/flags.corpus.e2e.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigErrors, loadConfig } from '../src/config/load.js';

const CORPUS = fileURLToPath(new URL('./fixtures/flags-corpus/', import.meta.url));
const files = (dir: string) => readdirSync(join(CORPUS, dir)).filter((f) => f.endsWith('.yaml')).sort();

async function problemsOf(file: string): Promise<string[]> {
  try {
    await loadConfig([file], {});
    return [];
  } catch (err) {
    if (!(err instanceof ConfigErrors)) throw err;
    return err.problems.map((p) => `${p.position.line}:${p.position.col} ${p.message}`);
  }
}

describe('flag corpus: what the API refuses or rewrites, validate refuses at file:line:col', () => {
  it('holds at least 40 files, each half at least 20', () => {
    expect(files('refuse').length).toBeGreaterThanOrEqual(20);
    expect(files('accept').length).toBeGreaterThanOrEqual(20);
    expect(files('refuse').length + files('accept').length).toBeGreaterThanOrEqual(40);
  });

  it.each(files('refuse'))('%s is refused where its comment says, in the API\'s terms', async (name) => {
    const file = join(CORPUS, 'refuse', name);
    const text = readFileSync(file, 'utf8');
    expect(text, 'each case names the source that refuses it').toMatch(/^# source: \S/m);
    const expected = /^# expect: (\d+:\d+) (.+)$/m.exec(text);
    expect(expected, 'each case says where and what').not.toBeNull();
    const [, at, words] = expected as RegExpExecArray;
    const problems = await problemsOf(file);
    expect(problems.some((p) => p.startsWith(`${at as string} `) && p.includes(words as string)), problems.join('\n')).toBe(true);
    // One line per problem, nothing that looks like a stack trace.
    for (const p of problems) expect(p).not.toMatch(/\n|\bat .+\.(ts|js):\d+/);
  });

  it.each(files('accept'))('%s is accepted', async (name) => {
    expect(await problemsOf(join(CORPUS, 'accept', name))).toEqual([]);
  });
});
