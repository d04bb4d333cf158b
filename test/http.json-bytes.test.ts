// A large answer is parsed in pieces (src/http/json-bytes.ts): whatever its bytes, the value or
// the error must be exactly JSON.parse's of the decoded text.
import { describe, expect, it } from 'vitest';
import { parseJsonBytes } from '../src/http/json-bytes.js';

/** What JSON.parse answers for the text, or the error's message. */
function reference(text: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** The bytes as a socket hands them over: chunks of odd sizes, cut anywhere (inside a character too). */
function inChunks(bytes: Buffer): [Buffer[], number] {
  const chunks: Buffer[] = [];
  for (let at = 0, size = 1; at < bytes.length; at += size, size = size * 3 + 7) chunks.push(bytes.subarray(at, at + size));
  return [chunks, bytes.length];
}

function parsed(text: string): { value?: unknown; error?: string } {
  try {
    return { value: parseJsonBytes(...inChunks(Buffer.from(text, 'utf8'))) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function expectSame(text: string): void {
  const want = reference(text);
  const got = parsed(text);
  expect(got).toEqual(want);
  if (want.value !== null && typeof want.value === 'object') {
    // Key order and own "__proto__" keys too, not only deep equality.
    expect(JSON.stringify(got.value)).toBe(JSON.stringify(want.value));
  }
}

/** What `run` answers, and the longest text JSON.parse was given meanwhile. */
function parsedAtMost<T>(run: () => T): { value: T; longest: number } {
  const parse = JSON.parse;
  let longest = 0;
  JSON.parse = ((source: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    longest = Math.max(longest, source.length);
    return parse(source, reviver) as unknown;
  }) as typeof JSON.parse;
  try {
    return { value: run(), longest };
  } finally {
    JSON.parse = parse;
  }
}

/** As expectSame, and read in pieces all through: no text JSON.parse is given reaches 64 KiB (see below). */
function expectSameInPieces(text: string): void {
  expectSame(text);
  expect(text.length).toBeGreaterThan(128 * 1024);
  const { longest } = parsedAtMost(() => parseJsonBytes(...inChunks(Buffer.from(text, 'utf8'))));
  expect(longest).toBeGreaterThan(0);
  expect(longest).toBeLessThan(64 * 1024);
}

/** A list answer of `n` records shaped like the API's flags, with the awkward strings JSON allows. */
function listAnswer(n: number, extra = ''): string {
  const results = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    key: `flag-${i}`,
    name: i % 7 === 0 ? `quote " and backslash \\ and },{" and ]}, ${'é'.repeat(i % 5)} 🦔` : `Flag ${i}`,
    filters: { groups: [{ properties: [{ key: 'email', value: ['a@b.c', '[x]'], operator: 'exact' }], rollout_percentage: i % 100 }, { properties: [], rollout_percentage: null }] },
    created_by: { id: 1, uuid: '0190d1c4-6a1e-7c3d-8e4f-000000000001', email: 'sandbox@hogsync.dev', hedgehog_config: null },
    tags: [], deleted: false, active: i % 2 === 0, version: 1.5e3, ratio: -0.25,
  }));
  return JSON.stringify({ count: n, next: null, previous: null, results }) + extra;
}

describe('parseJsonBytes: a large answer parsed in pieces, exactly as JSON.parse', () => {
  it('reads a list of hundreds of records (several pieces) to the same value, key order included', () => {
    const text = listAnswer(400);
    expect(text.length).toBeGreaterThan(128 * 1024);
    expectSame(text);
    expectSame(JSON.stringify(JSON.parse(text), null, 2));
    expectSame(`\r\n\t ${text} \n`);
    expect(parseJsonBytes([Buffer.from(text)], Buffer.byteLength(text))).toEqual(JSON.parse(text));
  });

  it('never decodes a large list whole: no string it parses reaches 128 KiB (V8\'s large objects)', () => {
    const text = listAnswer(1000);
    expect(text.length).toBeGreaterThan(256 * 1024);
    const { value, longest } = parsedAtMost(() => parseJsonBytes(...inChunks(Buffer.from(text))));
    expect(value).toEqual(JSON.parse(text));
    expect(longest).toBeGreaterThan(0);
    expect(longest).toBeLessThan(64 * 1024);
  });

  it('reads a large top-level array, a small answer, an empty object and an empty list', () => {
    expectSame(JSON.stringify(JSON.parse(listAnswer(300)).results));
    expectSame('{"count":0,"next":null,"previous":null,"results":[]}');
    expectSame(`{"results":[]${' '.repeat(60_000)}}`);
    expectSame(`{${' '.repeat(60_000)}}`);
    expectSame(`[${' '.repeat(60_000)}]`);
  });

  it('keeps "__proto__" an own key and the last of duplicate keys, as JSON.parse does', () => {
    const padding = 'x'.repeat(60_000);
    const text = `{"__proto__":{"polluted":true},"a":1,"a":2,"pad":"${padding}","results":[{"__proto__":1}]}`;
    expectSame(text);
    const value = parseJsonBytes(...inChunks(Buffer.from(text))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(value.a).toBe(2);
  });

  it('refuses malformed large answers with JSON.parse\'s own error, wherever the fault is', () => {
    const good = listAnswer(200);
    const faults = [
      good.slice(0, -1), // cut short
      good.slice(0, good.length / 2), // cut inside a record
      good.replace('"results":[', '"results":[,'), // leading comma
      good.replace(/\]\}$/, ',]}'), // trailing comma
      good.replace(',{"id":150,', '{"id":150,'), // missing comma between records
      good.replace(',{"id":150,', ',,{"id":150,'), // double comma
      good.replace('"count":', '"count" '), // missing colon
      good.replace('"next":null', '"next":nul'), // bad literal
      good.replace('"version":1500', '"version":01500'), // leading zero
      `${good}x`, // trailing garbage
      `${good}{}`, // two values
      `\uFEFF${good}`, // byte order mark
      good.replace('"results":[', '"results":[{"a":1]'), // mismatched brackets
      good.replace('Flag 1"', 'Flag 1\u0001"'), // control character in a string
      good.replace('"key":"flag-3"', '"key":"flag-3\\x"'), // bad escape
      good.replace('"key":"flag-3"', '"key":"flag-3'), // unterminated string swallowing the rest
      `'${good}'`,
    ];
    for (const text of faults) {
      const want = reference(text);
      expect(want.error, `fault ${faults.indexOf(text)}`).toBeDefined();
      expect(parsed(text)).toEqual(want);
    }
  });

  it('reads records that hold lists of records alike, large records and a list that is not the last member', () => {
    // Where a piece ends is guessed from the bytes between two records (`},{"id"`): these put the
    // same bytes inside records, in every position, so guesses land inside a record and must not count.
    const records = (n: number, inner: (i: number) => unknown[]) => Array.from({ length: n }, (_, i) => ({
      id: i + 1, key: `flag-${i}`, surveys: inner(i), name: `},{"id":${i}`, description: 'd'.repeat(600) }));
    const alike = (i: number) => Array.from({ length: i % 4 }, (_, j) => ({ id: `${i}-${j}`, name: 'survey' }));
    expectSameInPieces(JSON.stringify({ count: 500, next: null, results: records(500, alike) }));
    expectSameInPieces(JSON.stringify({ results: records(500, alike), count: 500, next: 'https://example.com/?offset=500', tail: [{ id: 1 }, { id: 2 }] }));
    expectSameInPieces(JSON.stringify(records(500, alike)));
    // Every record holds them: a guess misses in every piece, and the rest of the answer is scanned.
    expectSameInPieces(JSON.stringify({ results: records(300, (i) => [{ id: i }, { id: i + 1 }, { id: i + 2 }]) }));
    // Records larger than a piece, and a list whose last record is larger than a guessed piece may be.
    const big = (i: number) => Array.from({ length: i % 50 === 0 ? 1000 : 1 }, (_, j) => ({ id: j, padding: 'x'.repeat(20) }));
    expectSameInPieces(JSON.stringify({ results: records(200, big) }));
    expectSame(JSON.stringify({ results: [...records(100, alike), { id: 0, padding: 'y'.repeat(70_000) }] }));
    // Records alike only at first: past the first two, another key comes first.
    const reordered = records(500, alike).map((r, i) => {
      const { description, ...rest } = r;
      return i < 2 ? r : { description, ...rest };
    });
    expectSameInPieces(JSON.stringify({ count: 500, results: reordered, next: null }));
    // Records written with white space between them, or of different shapes.
    expectSameInPieces(JSON.stringify({ results: records(400, alike) }, null, '\t'));
    expectSameInPieces(JSON.stringify({ results: [...records(200, alike), 1, 'two', [3], null, { other: true }, ...records(200, alike)] }));
  });

  it('refuses a fault inside a piece it guessed with JSON.parse\'s own error', () => {
    const good = JSON.stringify({ count: 400, results: Array.from({ length: 400 }, (_, i) => ({ id: i, key: `flag-${i}`, filters: { groups: [] } })) });
    const faults = [
      good.replace('{"id":300,"key":"flag-300"', '{"id":300,"key":"flag-300",'), // trailing comma deep in the list
      good.replace('},{"id":301,', '},{"id":301,,'), // double comma right after a separator
      good.replace('},{"id":302,', '}{"id":302,'), // no comma: not a separator
      good.replace(/\]\}$/, '}'), // the list never closes
      good.replace(/\]\}$/, ']]}'), // closes twice
      good.replace('"key":"flag-399"', '"key":"flag-399\u0001"'), // in the last piece
    ];
    for (const text of faults) {
      const want = reference(text);
      expect(want.error, `fault ${faults.indexOf(text)}`).toBeDefined();
      expect(parsed(text), `fault ${faults.indexOf(text)}`).toEqual(want);
    }
  });

  it('matches JSON.parse on random large answers', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const scalar = (): unknown => [null, true, false, random() * 1e6 - 5e5, Math.floor(random() * 100), `s${random()}\\"]},{[`, ''][Math.floor(random() * 7)];
    const value = (depth: number): unknown => {
      const r = random();
      if (depth > 3 || r < 0.5) return scalar();
      if (r < 0.75) return Array.from({ length: Math.floor(random() * 5) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 5) }, (_, i) => [`k${i}${random() < 0.1 ? '"' : ''}`, value(depth + 1)]));
    };
    for (let round = 0; round < 8; round++) {
      const results = Array.from({ length: 600 }, () => value(0));
      const body = round % 2 === 0 ? { count: results.length, results, next: null } : results;
      expectSame(JSON.stringify(body, null, round % 3 === 0 ? 1 : undefined));
    }
  });
});
