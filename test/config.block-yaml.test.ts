// The loader's fastest path (src/config/block-yaml.ts) reads plain block YAML line by line: what
// it accepts must be the full parser's data and positions exactly; what it is unsure of, it
// must leave to the next path.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readBlockYaml } from '../src/config/block-yaml.js';
import { parseYaml } from '../src/config/parse.js';
import { yamlCorpus } from './support/yaml-corpus.js';
import { configLikeDocument, positionsBeside } from './support/yaml-positions.js';

/** The block reader's data and positions beside the full parser's; undefined when the block reader declines. */
function compare(text: string): { fast: unknown; full: unknown } | undefined {
  const read = readBlockYaml(text);
  if (read === undefined) return undefined;
  const { fast, full } = positionsBeside(text, read);
  return { fast: { data: read.data, ...fast }, full: { data: parseYaml('t.yaml', text).parsed!.data, ...full } };
}

/** Scalars YAML reads in surprising ways, or that a line reader could cut wrongly. */
const AWKWARD = ['null', 'Null', '~', 'True', 'FALSE', 'yes', 'on', '0x1F', '0o17', '0b101', '+1', '-0', '007', '1e3', '.5', '-.5', '.inf', '1_000',
  '2020-01-01', '12:30', 'a: b', 'a:b', 'a #b', 'a#b', '#x', '- x', '-x', '? x', "it's", '"q"', 'ü 🦔', '[x]', '{x}', 'x]', '', ' lead', 'trail ',
  'back\\slash', 'tab\there', 'line\nbreak', '@at', '`tick', '%pct', '&amp', '*star', '!bang', '|pipe', '>gt', 'a,b', 'http://x.example.com:8080/a#b', '9007199254740993'];

describe('block YAML, read line by line', () => {
  it('takes the files people and yaml.stringify write, and places every node where the full parser does', () => {
    let taken = 0;
    for (const file of yamlCorpus()) {
      const result = compare(readFileSync(file, 'utf8'));
      if (!result) continue;
      taken++;
      expect(result.fast, file).toEqual(result.full);
    }
    expect(taken).toBeGreaterThan(20);
  });

  it.each([
    ['comments everywhere', '# head\norganization: x # the org\nprojects: # all\n  # first\n  - id: 1 # one\n    name: A\n\n# tail\n'],
    ['empty values, nulls and empty items', 'a:\nb: ~\nc:\n  d:\n  e: null\nf:   # nothing\ng: 1\nh:\n  -\n  - 2\n  -   # none\n'],
    ['lists at their key\'s indentation', 'a:\n- 1\n- b: 2\n  c: 3\nd: 4\n'],
    ['compact mappings in lists', 'roles:\n  - name: A\n    level: 21\n  - name: B\n    members:\n      - a@example.com\n      - b@example.com\n'],
    ['quoted keys and values', '"a b": \'c\'\n\'d\'\'e\': "f\\"g\\\\h\\u00e9"\n"12345": x\nq: "a # not a comment"\nr: \'it\'\'s\'\n'],
    ['one-line lists and empty collections', 'a: [1, "two", three, null, 4.5]\nb: []\nc: {}\nd: [ ]\n'],
    ['numbers as the API writes them', 'a: 0\nb: -12\nc: 1.5\nd: -0.25\ne: 100\n'],
    ['keys repeated item after item, some spaced from their colon', 'l:\n  - key: a\n    keys: b\n  - key : c\n    kez: d\n  - key: e\n    "keyq": f\n'],
    ['words that only start like null, true and false', 'a: nil\nb: Nulls\nc: tru\nd: Falsey\ne: ~x\nf: truE\n'],
  ])('agrees with the full parser on %s', (_name, text) => {
    const result = compare(text);
    expect(result, 'the block reader should take this').toBeDefined();
    expect(result!.fast).toEqual(result!.full);
  });

  it.each([
    ['a block scalar', 'a: |\n  one\n'],
    ['a plain value over two lines', 'a: one\n  two\n'],
    ['a quoted value over two lines', 'a: "one\n  two"\n'],
    ['an anchor', 'a: &x 1\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a tab', 'a:\t1\n'],
    ['CRLF line ends', 'a: 1\r\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a key YAML reads as a number or a boolean', '1: a\n'],
    ['a __proto__ key', '__proto__: 1\n'],
    ['a quoted __proto__ key', 'a: 1\n"__proto__": 1\n'],
    ['a __proto__ key below keys read before', 'l:\n  - a: 1\n  - a: 2\n    __proto__: 3\n'],
    ['a document marker', '---\na: 1\n'],
    ['a list at the top', '- a\n'],
    ['a nested one-line collection', 'a: [[1]]\n'],
    ['a flow mapping with entries', 'a: {b: 1}\n'],
    ['a number YAML 1.2 writes otherwise', 'a: 0x1F\n'],
    ['an escape JSON does not know', 'a: "\\x41"\n'],
    ['a misindented line', 'a:\n    b: 1\n  c: 2\n'],
    ['a value after a list item\'s key on the dash line', 'a: - 1\n'],
  ])('leaves %s to the next path', (_name, text) => {
    expect(readBlockYaml(text)).toBeUndefined();
  });

  it('agrees with the full parser on any document of awkward scalars, as yaml.stringify writes it', () => {
    const key = fc.oneof(fc.constantFrom('id', 'name', 'a b', 'x:y', 'k#', ...AWKWARD), fc.string({ minLength: 1, maxLength: 6 }));
    const scalar = fc.oneof(fc.constantFrom(...AWKWARD), fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }));
    let taken = 0;
    fc.assert(fc.property(configLikeDocument(key, scalar), fc.boolean(), (value, indentSeq) => {
      const text = stringify(value, { lineWidth: 0, indentSeq });
      const result = compare(text);
      if (result === undefined) return;
      taken++;
      expect(result.fast, text).toEqual(result.full);
    }), { numRuns: 500 });
    expect(taken).toBeGreaterThan(100);
  });
});
