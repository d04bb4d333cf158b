// Where a declared value is, found only when something reads it: most positions are never
// shown (only those of changes and problems are), and finding one may cost a lookup in the
// record of a fast-parsed file. The getters are the object's own, so a position compares and
// serializes as the plain { file, line, col } it stands for.
import type { FilePosition } from '../errors.js';
import type { Pos, SourceMap } from './parse.js';

const FIRST: Pos = { line: 1, col: 1 };

/** `prefer`: a mapping key's position (an item's identity key), or its value's (a reference's own `{`). */
export function lazyPosition(file: string, map: SourceMap, pointer: string, prefer: 'key' | 'value' = 'key'): FilePosition {
  let found: Pos | undefined;
  const find = (): Pos => (found ??= (prefer === 'key' ? map.keys.get(pointer) ?? map.values.get(pointer) : map.values.get(pointer) ?? map.keys.get(pointer)) ?? FIRST);
  return {
    file,
    get line() { return find().line; },
    get col() { return find().col; },
  };
}
