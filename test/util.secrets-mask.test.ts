// The last-resort mask of bearer tokens over final output: it takes the token's own characters
// only, so what it masks keeps its structure (JSON stays JSON, a YAML line stays whole, a text
// line keeps what follows the token), and a mask already in place is left alone.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { holdsCredential, maskKey } from '../src/util/secrets.js';

describe('the bearer-token mask keeps the structure of what it masks', () => {
  it('in JSON (compact and pretty), YAML, text and Markdown', () => {
    const value = { headers: { Authorization: 'Bearer tok_9f3c1a7e+/=', 'X-Other': 'plain' }, list: ['Bearer abc.def-ghi', 'x'] };
    for (const json of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
      const masked = maskKey(json, undefined);
      expect(JSON.parse(masked)).toEqual({ headers: { Authorization: 'Bearer (redacted)', 'X-Other': 'plain' }, list: ['Bearer (redacted)', 'x'] });
    }
    expect(parse(maskKey('a:\n  Authorization: Bearer tok_123456\n  b: 1\n', undefined))).toEqual({ a: { Authorization: 'Bearer (redacted)', b: 1 } });
    expect(maskKey('inputs.headers: {"Authorization":"Bearer tok"} → (sensitive)', undefined)).toBe('inputs.headers: {"Authorization":"Bearer (redacted)"} → (sensitive)');
    expect(maskKey('| `Bearer tok` | next |', undefined)).toBe('| `Bearer (redacted)` | next |');
    // Never across a line, never over a mask already there.
    expect(maskKey('Bearer\nnext-line', undefined)).toBe('Bearer\nnext-line');
    expect(maskKey('"Bearer (sensitive)"', undefined)).toBe('"Bearer (sensitive)"');
  });

  it('knows a credential in a value (export writes a placeholder for it)', () => {
    expect([holdsCredential('Bearer tok_1'), holdsCredential('bearer x'), holdsCredential('Bearer (redacted)'), holdsCredential('no token')]).toEqual([true, true, false, false]);
  });
});
