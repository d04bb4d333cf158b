// Positions of fast-parsed files (what `declared_at` and every message name) come from a cheap
// second pass; they must be the full parser's, position for position, or not given at all.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readFileSync } from 'node:fs';
import { fastRead } from '../src/config/fast-parse.js';
import { yamlCorpus } from './support/yaml-corpus.js';
import { configLikeDocument, positionsBeside } from './support/yaml-positions.js';

/**
 * The recorded positions and the full parser's, for every pointer the full parser places:
 * the recorded ones must be the same, never "unsure".
 */
function compare(text: string, name = 'text'): { fast: Record<string, unknown>; full: Record<string, unknown> } | undefined {
  const read = fastRead(text);
  if (read === undefined) return undefined;
  const result = positionsBeside(text, read);
  expect(JSON.stringify(result.fast), `the recorded positions are unsure somewhere in ${name}`).not.toContain('"unsure"');
  return result;
}

describe('fast positions', () => {
  const files = yamlCorpus();

  it('places every value and key of every fast-parsed file where the full parser does', () => {
    let compared = 0;
    for (const file of files) {
      const result = compare(readFileSync(file, 'utf8'), file);
      if (!result) continue;
      compared++;
      expect(result.fast, file).toEqual(result.full);
    }
    expect(compared).toBeGreaterThan(20);
  });

  it.each([
    ['comments between a key and its value', 'organization: x # the org\nprojects: # all of them\n  # first\n  - id: 1 # one\n    name: A\n'],
    ['empty values and nulls', 'a:\nb: ~\nc:\n  d:\n  e: null\nf:   # nothing\ng: 1\n'],
    ['flow collections on one line', 'a: [1, 2]\nb: {c: 1, d: [x, {e: f}]}\ng: {}\nh: []\n'],
    ['quoted keys and values, block scalars', '"a b": \'c\'\nd: |\n  one\n  two\ne: >-\n  folded\nf: "x: y"\n'],
    ['numeric keys, in an order JavaScript sorts', 'overrides:\n  "12346": {active: true}\n  12345: {active: false}\n  z: 1\n'],
    ['lists of lists and compact mappings', 'a:\n- - 1\n  - 2\n- b: 1\n  c: [3]\n-\n  - d\n'],
    ['values with colons and hashes', 'url: http://x.example.com:8080/a#b\ntime: 12:30\nq: "a # not a comment"\n'],
    ['flow mappings as list items', 'a:\n  - { key: n, f: { g: [ { p: [], r: 50 } ] } }\n  - [1, {b: c}]\n'],
    ['CRLF line ends', 'a: 1\r\nb:\r\n  - c\r\n  - d: e\r\n'],
  ])('agrees with the full parser on %s', (_name, text) => {
    const result = compare(text);
    expect(result).toBeDefined();
    expect(result!.fast).toEqual(result!.full);
  });

  it('says "unsure", rather than guess, where the data no longer matches the text, and "absent" where the data has nothing', () => {
    const text = 'a: 1\nb: [1, 2]\nc: {d: x}\n';
    const read = fastRead(text)!;
    expect(read.positions.value('/b/1')).toEqual({ line: 2, col: 8 });
    expect(read.positions.key('/c/d')).toEqual({ line: 3, col: 5 });
    expect(read.positions.key('/b/1')).toBe('absent');
    expect(read.positions.value('/x')).toBe('absent');
    expect(read.positions.value('/b/7')).toBe('absent');
    read.data.e = 1; // a key the text does not have: the mapping no longer matches
    expect(read.positions.value('/a')).toBe('unsure');
    delete read.data.e;
    (read.data.b as number[]).push(3);
    expect(read.positions.value('/b/0')).toBe('unsure');
    expect(read.positions.value('/a')).toEqual({ line: 1, col: 4 });
  });

  it('agrees with the full parser on any configuration-like document, in block and in flow style', () => {
    const key = fc.oneof(fc.constantFrom('id', 'name', 'a b', '12345', 'x:y', '#k', 'filters'), fc.string({ minLength: 1, maxLength: 6 }));
    const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }));
    fc.assert(fc.property(configLikeDocument(key, scalar), fc.boolean(), (value, flow) => {
      const text = stringify(value, flow ? { collectionStyle: 'flow', lineWidth: 0 } : { lineWidth: 0 });
      const result = compare(text);
      if (result === undefined) return;
      expect(result.fast, text).toEqual(result.full);
    }), { numRuns: 400 });
  });
});
