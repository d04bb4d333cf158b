// The sandbox writes its answers with jsonPieces(): the bytes of JSON.stringify, exactly, built
// a piece at a time so that a long list never becomes one large string.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { jsonPieces } from '../src/sandbox/http.js';
import type { Json } from '../src/sandbox/json.js';

const exactly = (body: unknown) => Buffer.from(JSON.stringify(body));
const jsonBytes = (body: Json) => Buffer.concat(jsonPieces(body));

describe('sandbox answers as bytes', () => {
  it('are the bytes of JSON.stringify for any JSON value, undefined members and list entries included', () => {
    const value = fc.jsonValue().map((v) => v as Json);
    const answer = fc.record({
      count: fc.nat(),
      next: fc.option(fc.webUrl()),
      skipped: fc.constant(undefined),
      results: fc.array(fc.oneof(value, fc.constant(undefined)), { maxLength: 40 }),
      meta: value,
    }, { requiredKeys: [] });
    fc.assert(fc.property(fc.oneof(answer, value), (body) => {
      expect(jsonBytes(body as Json).equals(exactly(body))).toBe(true);
    }), { numRuns: 300 });
  });

  it('a list far longer than a piece, with text beyond ASCII, comes out whole and in order', () => {
    const results = Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `Flag ${i} — «ünïcødé» 🚩`, filters: { groups: [{ properties: [], rollout_percentage: i % 100 }] } }));
    const body = { count: results.length, next: null, previous: null, results };
    const bytes = jsonBytes(body);
    expect(bytes.length).toBeGreaterThan(100 * 1024);
    expect(bytes.equals(exactly(body))).toBe(true);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual(body);
  });

  it('an empty object, an empty list and a bare list are JSON.stringify\'s too', () => {
    for (const body of [{}, { results: [] }, [], [1, 'two', null], 'text', 7, null] as Json[]) expect(jsonBytes(body).equals(exactly(body))).toBe(true);
  });
});
