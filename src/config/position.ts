// Where a declared value is, found only when something reads it: most positions are never
// shown (only those of changes and problems are), and finding one may cost a lookup in the
// record of a fast-parsed file. `line` and `col` are the object's own getters, so a position
// compares and serializes as the plain { file, line, col } it stands for.
import type { FilePosition } from '../errors.js';
import type { Pos, SourceMap } from './parse.js';

const FIRST: Pos = { line: 1, col: 1 };

/** `line` and `col`, defined on every position: the same two getters (and descriptors) for all of them. */
let LINE: PropertyDescriptor;
let COL: PropertyDescriptor;

/**
 * One per declared item, tens of thousands in a large workspace. Its getters are shared, not
 * closures made per position: an object literal with getters of its own is a dictionary in V8,
 * which with its closures held about 550 bytes a position, a quarter of a flag's desired state.
 */
class LazyPosition {
  declare readonly line: number;
  declare readonly col: number;
  readonly #map: SourceMap;
  readonly #pointer: string;
  readonly #prefer: 'key' | 'value';
  #found: Pos | undefined;

  constructor(readonly file: string, map: SourceMap, pointer: string, prefer: 'key' | 'value') {
    this.#map = map;
    this.#pointer = pointer;
    this.#prefer = prefer;
    // One defineProperty each: defineProperties reads its descriptor map anew every time (twice the cost).
    Object.defineProperty(this, 'line', LINE);
    Object.defineProperty(this, 'col', COL);
  }

  #find(): Pos {
    const map = this.#map;
    const pointer = this.#pointer;
    return (this.#found ??= (this.#prefer === 'key' ? map.keys.get(pointer) ?? map.values.get(pointer) : map.values.get(pointer) ?? map.keys.get(pointer)) ?? FIRST);
  }

  static {
    LINE = { get(this: LazyPosition) { return this.#find().line; }, enumerable: true, configurable: true };
    COL = { get(this: LazyPosition) { return this.#find().col; }, enumerable: true, configurable: true };
  }
}

/** `prefer`: a mapping key's position (an item's identity key), or its value's (a reference's own `{`). */
export function lazyPosition(file: string, map: SourceMap, pointer: string, prefer: 'key' | 'value' = 'key'): FilePosition {
  return new LazyPosition(file, map, pointer, prefer);
}
