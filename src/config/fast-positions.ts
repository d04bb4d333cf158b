// Positions of a fast-parsed file (see fast-parse.ts). The fast pass hands every node it
// composes to a NodeRecorder: where it starts, what it is, how many children it has, in
// post-order, in flat arrays (a few bytes a node, kept while the file may need a message).
// A position is looked up by walking that record along the pointer, beside the data; wherever
// the record and the data disagree (a shape this reading does not expect), the answer is
// "unsure" and the caller asks the full parser, so a position is never guessed. A plan needs
// one position per changed item (`declared_at`): this costs no second parse at all.
import type { Pos } from './parse.js';
import { splitPointer } from './pointer.js';

export const SCALAR = 0;
export const MAPPING = 1;
export const SEQUENCE = 2;
const OTHER = 3;
export const KEY = 4;
export const CHILDREN = 8;

/** The part of js-yaml's parser state a listener sees. */
export interface ComposeState { position: number; kind: string | null; result: unknown }

/** What a lookup found: a position, nothing there (a pointer the data does not have), or a shape it cannot read. */
export type Lookup = Pos | 'absent' | 'unsure';

export interface FastPositions {
  value(pointer: string): Lookup;
  key(pointer: string): Lookup;
}

/** The first character at or after `from` that is not white space or a comment. */
function contentStart(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
    else if (c === '#') while (i < text.length && text[i] !== '\n') i++;
    else break;
  }
  return i;
}

function followedByColon(text: string, end: number): boolean {
  let i = end;
  while (text[i] === ' ' || text[i] === '\t') i++;
  const next = text[i + 1];
  return text[i] === ':' && (next === undefined || next === ' ' || next === '\t' || next === '\n' || next === '\r' || next === ',' || next === '}');
}

/** Records the nodes of one js-yaml pass: call open and close from its listener. */
export class NodeRecorder {
  private readonly starts: number[] = [];
  private readonly info: number[] = [];
  /** Key names, at the index of each key node. */
  private readonly names: Array<string | undefined> = [];
  // The nodes open now, as three stacks (no object per node): where each opened, how many
  // children it has so far, and the result of its last child.
  private readonly openAt: number[] = [];
  private readonly openChildren: number[] = [];
  private readonly openLast: unknown[] = [];

  constructor(private readonly text: string) {}

  onOpen(state: ComposeState): void {
    this.openAt.push(state.position);
    this.openChildren.push(0);
    this.openLast.push(undefined);
  }

  /** Records the node that closes; returns where it opened (js-yaml's position before any separation). */
  onClose(state: ComposeState): number {
    const depth = this.openAt.length - 1;
    if (depth < 0) return 0;
    const at = this.openAt.pop()!;
    const children = this.openChildren.pop()!;
    const last = this.openLast.pop();
    const result = state.result;
    if (depth > 0) {
      this.openChildren[depth - 1]!++;
      this.openLast[depth - 1] = result;
    }
    // js-yaml composes a flow collection in a block list as a would-be key first: the same
    // collection, nested in itself. The inner record stands for both.
    if (children === 1 && last === result && typeof result === 'object' && result !== null) return at;
    const kind = state.kind === 'scalar' ? SCALAR : state.kind === 'mapping' ? MAPPING : state.kind === 'sequence' ? SEQUENCE : OTHER;
    const text = this.text;
    let start = contentStart(text, at);
    if (result === null && kind !== MAPPING && kind !== SEQUENCE && start >= state.position) {
      // An empty value (`key:` and nothing) is placed where it would have started, as the full
      // parser places its empty node: not at whatever the next line holds.
      start = at;
      while (text[start] === ' ' || text[start] === '\t') start++;
    }
    const isKey = kind === SCALAR && followedByColon(text, state.position);
    if (isKey) this.names[this.starts.length] = String(result);
    this.starts.push(start);
    this.info.push(kind | (isKey ? KEY : 0) | (children * CHILDREN));
    return at;
  }

  /** Lookups over what was recorded, beside the data the pass returned. */
  positions(data: unknown): FastPositions {
    const names = this.names;
    return new RecordedPositions(this.text, this.starts, this.info, (node) => names[node], data);
  }
}

class Unsure extends Error {}

/** Lookups over nodes recorded in post-order: where each starts, its kind, key flag and child count, and key names. */
export class RecordedPositions implements FastPositions {
  /** Where each line starts, as far into the text as a lookup has needed (positions are mostly near the top of a file). */
  private readonly lines: number[] = [0];
  private linesEnd = false;
  private readonly children = new Map<number, number[]>();
  private readonly mappings = new Map<number, { byName: Map<string, { key: number; value: number | undefined }>; count: number }>();

  constructor(
    private readonly text: string,
    private readonly starts: ArrayLike<number>,
    private readonly info: ArrayLike<number>,
    /** A key node's name (undefined for any other node). */
    private readonly nameOf: (node: number) => string | undefined,
    private readonly data: unknown,
    /** Nodes in each node's subtree, when the pass that recorded them knew them; else worked out at the first lookup. */
    private sizes?: ArrayLike<number>,
  ) {}

  value(pointer: string): Lookup {
    return this.find(pointer, false);
  }

  key(pointer: string): Lookup {
    return this.find(pointer, true);
  }

  private find(pointer: string, wantKey: boolean): Lookup {
    try {
      const segments = splitPointer(pointer);
      let node = this.starts.length - 1;
      let value = this.data;
      if (node < 0) return 'unsure';
      let keyAt: number | undefined;
      // An empty value has no node: its position is its key's.
      let empty = false;
      for (const segment of segments) {
        if (empty) return 'absent';
        keyAt = undefined;
        if (Array.isArray(value)) {
          const children = this.childrenOf(node, SEQUENCE);
          if (children.length !== value.length) throw new Unsure();
          if (!/^\d+$/.test(segment) || Number(segment) >= value.length) return 'absent';
          node = children[Number(segment)]!;
          value = value[Number(segment)];
          continue;
        }
        if (value === null || typeof value !== 'object') return 'absent';
        const entries = value as Record<string, unknown>;
        const mapping = this.mappingOf(node);
        if (mapping.count !== Object.keys(entries).length) throw new Unsure();
        const found = mapping.byName.get(segment);
        if (!Object.prototype.hasOwnProperty.call(entries, segment)) return 'absent';
        if (!found) throw new Unsure();
        keyAt = found.key;
        value = entries[segment];
        if (found.value === undefined) {
          if (value !== null) throw new Unsure();
          empty = true;
          node = found.key;
        } else {
          node = found.value;
        }
      }
      if (wantKey) return keyAt === undefined ? 'absent' : this.pos(this.starts[keyAt]!);
      return this.pos(this.starts[node]!);
    } catch (err) {
      if (err instanceof Unsure) return 'unsure';
      throw err;
    }
  }

  /**
   * A mapping node's entries by key name (its key node and value node, in document order),
   * built once per node: messages look up thousands of positions below one list.
   */
  private mappingOf(node: number): { byName: Map<string, { key: number; value: number | undefined }>; count: number } {
    let mapping = this.mappings.get(node);
    if (mapping) return mapping;
    const children = this.childrenOf(node, MAPPING);
    const byName = new Map<string, { key: number; value: number | undefined }>();
    let count = 0;
    for (let i = 0; i < children.length; i++) {
      const key = children[i]!;
      if (!((this.info[key] ?? 0) & KEY)) throw new Unsure();
      const next = children[i + 1];
      const valueNode = next !== undefined && !((this.info[next] ?? 0) & KEY) ? next : undefined;
      if (valueNode !== undefined) i++;
      count++;
      const name = this.nameOf(key);
      // The last of a repeated key wins, as in the data.
      if (name !== undefined) byName.set(name, { key, value: valueNode });
    }
    mapping = { byName, count };
    this.mappings.set(node, mapping);
    return mapping;
  }

  /** The children of a node, which must be of `kind`, in document order (built once per node). */
  private childrenOf(node: number, kind: number): number[] {
    const cached = this.children.get(node);
    if (cached && ((this.info[node] ?? 0) & 3) === kind) return cached;
    const info = this.info[node] ?? 0;
    if ((info & 3) !== kind) throw new Unsure();
    const count = Math.floor(info / CHILDREN);
    const sizes = this.subtreeSizes();
    const children: number[] = new Array<number>(count);
    let at = node - 1;
    for (let c = count - 1; c >= 0; c--) {
      if (at < 0) throw new Unsure();
      children[c] = at;
      at -= sizes[at]!;
    }
    this.children.set(node, children);
    return children;
  }

  /** Nodes in each node's subtree, itself included (post-order: its children come right before it). */
  private subtreeSizes(): ArrayLike<number> {
    if (this.sizes) return this.sizes;
    const sizes = new Int32Array(this.info.length);
    for (let i = 0; i < this.info.length; i++) {
      let size = 1;
      let at = i - 1;
      for (let c = Math.floor((this.info[i] ?? 0) / CHILDREN); c > 0; c--) {
        if (at < 0) throw new Unsure();
        size += sizes[at]!;
        at -= sizes[at]!;
      }
      sizes[i] = size;
    }
    this.sizes = sizes;
    return sizes;
  }

  private pos(offset: number): Pos {
    const starts = this.lines;
    // Lines are found up to the one the offset is on (at most a line past it), no further.
    while (!this.linesEnd && (starts[starts.length - 1] as number) <= offset) {
      const next = this.text.indexOf('\n', (starts[starts.length - 1] as number));
      if (next === -1) this.linesEnd = true;
      else starts.push(next + 1);
    }
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - starts[lo]! + 1 };
  }
}
