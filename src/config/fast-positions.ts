// Positions of a fast-parsed file (see fast-parse.ts), found by a second js-yaml pass that
// records where each node starts: about ten times cheaper than the full parser, which a plan
// would otherwise run on every file holding a change, only to name the line (`declared_at`).
// The pass rebuilds the node tree from js-yaml's open/close events and pairs it with the data;
// whenever the tree and the data disagree (a shape this reading does not expect), it answers
// undefined and the caller asks the full parser, so a position is never guessed.
import { loadJsYaml } from './compiled.js';
import type { Pos, SourceMap } from './parse.js';
import { childPointer } from './pointer.js';

interface Node {
  start: number;
  kind: string;
  result: unknown;
  /** A scalar followed on its line by `: `: the key of a mapping entry. */
  isKey: boolean;
  children: Node[];
}

class Disagree extends Error {}

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

function lineIndex(text: string): (offset: number) => Pos {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - starts[lo]! + 1 };
  };
}

/** The source map parseYaml would build for `data`, read from `text`; undefined when unsure. */
export function fastPositions(text: string, data: unknown): SourceMap | undefined {
  const { load, CORE_SCHEMA } = loadJsYaml();
  const open: Node[] = [];
  let root: Node | undefined;
  try {
    load(text, {
      schema: CORE_SCHEMA,
      listener: (event, state) => {
        if (event === 'open') {
          open.push({ start: state.position, kind: '', result: undefined, isKey: false, children: [] });
          return;
        }
        const node = open.pop();
        if (!node) throw new Disagree();
        node.kind = String(state.kind);
        // An empty value (`key:` and nothing) is placed where it would have started, as the
        // full parser places its empty node: not at whatever the next line holds.
        const content = contentStart(text, node.start);
        if (state.result === null && node.kind !== 'mapping' && node.kind !== 'sequence' && content >= state.position) {
          while (text[node.start] === ' ' || text[node.start] === '\t') node.start++;
        } else {
          node.start = content;
        }
        node.result = state.result;
        node.isKey = node.kind === 'scalar' && followedByColon(text, state.position);
        // js-yaml composes a flow collection in a block list as a would-be key first: the same
        // collection, nested in itself. It is one node.
        const only = node.children[0];
        if (node.children.length === 1 && only!.result === node.result && typeof node.result === 'object' && node.result !== null) node.children = only!.children;
        const parent = open[open.length - 1];
        if (parent) parent.children.push(node);
        else root = node;
      },
    });
  } catch {
    return undefined;
  }
  if (!root) return undefined;
  const at = lineIndex(text);
  const values = new Map<string, Pos>();
  const keys = new Map<string, Pos>();
  const place = (node: Node, value: unknown, pointer: string): void => {
    values.set(pointer, at(node.start));
    if (Array.isArray(value)) {
      if (node.kind !== 'sequence' || node.children.length !== value.length) throw new Disagree();
      node.children.forEach((child, i) => place(child, value[i], childPointer(pointer, i)));
      return;
    }
    if (value !== null && typeof value === 'object') {
      if (node.kind !== 'mapping') throw new Disagree();
      const entries = value as Record<string, unknown>;
      let count = 0;
      for (let i = 0; i < node.children.length; i++) {
        const key = node.children[i]!;
        if (!key.isKey) throw new Disagree();
        const name = String(key.result);
        if (!Object.prototype.hasOwnProperty.call(entries, name)) throw new Disagree();
        const child = childPointer(pointer, name);
        const keyPos = at(key.start);
        keys.set(child, keyPos);
        count++;
        const next = node.children[i + 1];
        if (next && !next.isKey) {
          place(next, entries[name], child);
          i++;
        } else if (entries[name] === null) {
          // `key:` with nothing after it: null, placed at its key as the full parser does.
          values.set(child, keyPos);
        } else {
          throw new Disagree();
        }
      }
      if (count !== Object.keys(entries).length) throw new Disagree();
    }
  };
  try {
    place(root, data, '');
  } catch {
    return undefined;
  }
  return { values, keys };
}
