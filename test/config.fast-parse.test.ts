// The loader's fast path (js-yaml) must read every file it accepts exactly as the full parser
// does, and hand every file it is unsure of to the full parser.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fastParse } from '../src/config/fast-parse.js';
import { yamlCorpus } from './support/yaml-corpus.js';
import { parseYaml } from '../src/config/parse.js';

describe('fast path', () => {
  const files = yamlCorpus();

  it('reads every file it accepts exactly like the full parser', () => {
    let accepted = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const fast = fastParse(text);
      if (fast === undefined) continue;
      accepted++;
      const full = parseYaml(file, text);
      expect(full.problems, file).toEqual([]);
      expect(fast, file).toEqual(full.parsed?.data);
    }
    // The examples and most fixtures are plain YAML: the fast path must take them.
    expect(accepted).toBeGreaterThan(20);
  });

  it.each([
    ['an anchor and an alias', 'a: &x {b: 1}\nc: *x\n'],
    ['a tag', 'a: !!str 12\n'],
    ['a custom tag', 'a: !custom 12\n'],
    ['a complex key', '? [a, b]\n: 1\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a __proto__ key', '__proto__: {x: 1}\n'],
    ['a merge key', 'a: {b: 1}\nc: {<<: {d: 1}}\n'],
    ['an infinite number', 'a: .inf\n'],
    ['a number beyond 2^53', 'a: 9007199254740993\n'],
    ['a number too big for a double', 'a: 1e400\n'],
    ['negative zero', 'a: -0\n'],
    ['two documents', 'a: 1\n---\nb: 2\n'],
    ['a syntax error', 'a: [1, 2\n'],
    ['a list at the top', '- a\n'],
    ['an empty file', ''],
    ['nesting deeper than allowed', `${'['.repeat(80)}${']'.repeat(80)}`],
    ['a quoted value continued on a less indented line', 'roles:\n  - name: "Support\n team"\n'],
    ['a plain value over two lines', 'a:\n  b: one\n   two\n'],
    ['a flow list over two lines', 'a: [1,\n2]\n'],
  ])('leaves %s to the full parser', (_name, text) => {
    expect(fastParse(text)).toBeUndefined();
  });

  it('reads what js-yaml would take for numbers (0b101, +0x1) as the strings YAML 1.2 makes them, or not at all', () => {
    for (const text of ['a: 0b101\n', 'a: +0x1\n', 'a: [0b101, +0x1]\n']) {
      const fast = fastParse(text);
      if (fast !== undefined) expect(fast).toEqual(parseYaml('t.yaml', text).parsed?.data);
    }
    expect(fastParse('a: 0b101\n')).toEqual({ a: '0b101' });
  });

  it('takes flow collections written on one line', () => {
    const text = 'a: [1, 2]\nb: {c: 1, d: [x]}\nfilters: { groups: [ { properties: [], rollout_percentage: 20 } ] }\n';
    expect(fastParse(text)).toEqual(parseYaml('t.yaml', text).parsed?.data);
    expect(fastParse(text)).toBeDefined();
  });

  it('takes block scalars, which both parsers read alike', () => {
    const text = 'a: |\n  line one\n  line two\nb: >\n  folded\n  text\n';
    expect(fastParse(text)).toEqual(parseYaml('t.yaml', text).parsed?.data);
    expect(fastParse(text)).toEqual({ a: 'line one\nline two\n', b: 'folded text\n' });
  });

  it('reads YAML 1.2 core scalars like the full parser', () => {
    const text = 'a: 0o17\nb: 0x1F\nc: 1e3\nd: .5\nf: ~\ng: yes\nh: "0.50"\ni: 2020-01-01\nj: 1_000\nk: TRUE\nl: null\n';
    expect(fastParse(text)).toEqual(parseYaml('t.yaml', text).parsed?.data);
  });
});
