// Shared by the tests of the loader's fast YAML paths (test/config.fast-positions.test.ts,
// test/config.block-yaml.test.ts): a fast reader's positions beside the full parser's, and the
// configuration-like documents both are checked on.
import fc from 'fast-check';
import { expect } from 'vitest';
import type { FastPositions } from '../../src/config/fast-positions.js';
import { parseYaml } from '../../src/config/parse.js';

/** A fast reader's positions and the full parser's, for every value and key the full parser places. */
export function positionsBeside(text: string, read: { positions: FastPositions }): { fast: Record<string, unknown>; full: Record<string, unknown> } {
  const full = parseYaml('t.yaml', text);
  expect(full.problems, text).toEqual([]);
  const map = full.parsed!.map as { values: Map<string, unknown>; keys: Map<string, unknown> };
  return {
    fast: {
      values: Object.fromEntries([...map.values.keys()].map((p) => [p, read.positions.value(p)])),
      keys: Object.fromEntries([...map.keys.keys()].map((p) => [p, read.positions.key(p)])),
    },
    full: { values: Object.fromEntries(map.values), keys: Object.fromEntries(map.keys) },
  };
}

/** Documents of nested mappings and lists with these keys and scalars, as configuration files hold. */
export function configLikeDocument(key: fc.Arbitrary<string>, scalar: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> {
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('tree'), { maxLength: 4 }), fc.dictionary(key, tie('tree'), { maxKeys: 4 })),
  }));
  return fc.dictionary(key, tree, { minKeys: 1, maxKeys: 5 });
}
