// The fastest path of the loader: configuration as people and `yaml.stringify` write it, read
// line by line. Block mappings and lists, `- key: value` items, plain and quoted one-line
// scalars, `[]`, `{}` and one-line lists of scalars, comments: nearly every file. It reads them
// in half the time js-yaml takes (./fast-parse.ts, the next path, itself ten times faster than
// the full parser), positions included. Anything else (a block scalar, a value over several
// lines, an anchor, a tag, a tab, a duplicate key, a key or number YAML reads as something
// unusual) answers undefined and goes down the next path: this never guesses. It records where
// each node starts in the form ./fast-positions.ts reads, as the js-yaml pass does.
import { MAPPING, RecordedPositions, SCALAR, SEQUENCE, KEY, CHILDREN, type FastPositions } from './fast-positions.js';
import { KEYS_FOR_THE_FULL_PARSER, MAX_DEPTH } from './parse.js';

class NotBlock extends Error {}

const NULLS = new Set(['~', 'null', 'Null', 'NULL']);
const TRUE = new Set(['true', 'True', 'TRUE']);
const FALSE = new Set(['false', 'False', 'FALSE']);
/** What YAML 1.2's core schema reads as a number. */
const CORE_NUMBER = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** Numbers written plainly (no plus sign, leading zero or exponent): read here; other numbers are left to the next path. */
const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const DECIMAL = /^-?(?:0|[1-9][0-9]*)\.[0-9]+$/;
/** Characters YAML does not allow in a file, or that readers treat differently. */
const NOT_PRINTABLE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]/;
/** Characters a plain scalar may not start with (indicators), besides `-` and space. */
const INDICATORS = new Set(['?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`']);
/** INDICATORS by character code, asked of the first character of every key and value. */
const INDICATOR_CODES = new Uint8Array(128);
for (const c of INDICATORS) INDICATOR_CODES[c.charCodeAt(0)] = 1;
const isIndicator = (code: number): boolean => code < 128 && INDICATOR_CODES[code] === 1;

const SPACE = 0x20;
const HASH = 0x23;
const DASH = 0x2d;
const COLON = 0x3a;
/** JSON's escapes, which double-quoted YAML reads the same way; any other escape is left to the others. */
const JSON_ESCAPES = /\\(?:["\\/bfnrt]|u(?![dD][89a-fA-F][0-9a-fA-F]{2})[0-9a-fA-F]{4})/g;

interface Frame {
  sequence: boolean;
  indent: number;
  value: Record<string, unknown> | unknown[];
  /** Where the node starts, and how many child nodes it has recorded. */
  start: number;
  children: number;
  /** The nodes recorded before it opened: those recorded since are its subtree. */
  before: number;
  /** A key (or a `-`) written with nothing after it: its value is the block below, or null. */
  pending: string | true | undefined;
  /** Where an empty pending value would be placed. */
  pendingAt: number;
}

/** The data of a file of plain block YAML, with where its nodes start; undefined when another path must read it. */
export function readBlockYaml(text: string): { data: Record<string, unknown>; positions: FastPositions } | undefined {
  if (text.includes('\t') || text.includes('\r') || text.charCodeAt(0) === 0xfeff || NOT_PRINTABLE.test(text)) return undefined;
  try {
    return new BlockReader(text).read();
  } catch (err) {
    if (err instanceof NotBlock) return undefined;
    throw err;
  }
}

/**
 * An empty list already of the kind that holds strings. A list made empty by `[]` holds small
 * integers until its first string: V8's optimised `record`, made while reading one file, took
 * every reader's list to hold strings, and was thrown away and compiled again at the next file.
 */
function emptyListOfStrings(): string[] {
  const list = [''];
  list.length = 0;
  return list;
}

class BlockReader {
  // The nodes in typed arrays (grown by doubling): a configuration has hundreds of thousands of
  // nodes, kept while its positions may be asked, and these the collector neither scans nor copies.
  private starts = new Int32Array(1024);
  private info = new Int32Array(1024);
  /** Nodes in each node's subtree, itself included: known as it closes, so never worked out again for a position. */
  private sizes = new Int32Array(1024);
  private nodes = 0;
  /** Key names, and for each node the index of its name plus one (0: not a key). */
  private readonly keyNames: string[] = emptyListOfStrings();
  private keyOf = new Int32Array(1024);
  private readonly stack: Frame[] = [];
  private root: Frame | undefined;
  /**
   * Plain keys read before, by length and first character: a file repeats a few keys thousands
   * of times, and one found here is neither cut out of the text again nor looked up anew in
   * V8's table of property names.
   */
  private readonly seenKeys: Array<string | undefined> = new Array<string | undefined>(256).fill(undefined);

  constructor(private readonly text: string) {}

  read(): { data: Record<string, unknown>; positions: FastPositions } {
    const text = this.text;
    let at = 0;
    while (at < text.length) {
      let end = text.indexOf('\n', at);
      if (end === -1) end = text.length;
      let indent = at;
      while (text.charCodeAt(indent) === 0x20) indent++;
      if (indent < end && text.charCodeAt(indent) !== HASH) this.line(indent - at, indent, end);
      at = end + 1;
    }
    while (this.stack.length > 0) this.close();
    const root = this.root;
    if (!root || root.sequence) throw new NotBlock();
    const n = this.nodes;
    const { keyNames, keyOf } = this;
    const nameOf = (node: number) => (node < n && keyOf[node]! > 0 ? keyNames[keyOf[node]! - 1] : undefined);
    return { data: root.value as Record<string, unknown>, positions: new RecordedPositions(text, this.starts.subarray(0, n), this.info.subarray(0, n), nameOf, root.value, this.sizes.subarray(0, n)) };
  }

  private line(indent: number, from: number, end: number): void {
    const text = this.text;
    if (indent === 0 && from + 3 <= end && (text.startsWith('---', from) || text.startsWith('...', from))) throw new NotBlock();
    const dash = text.charCodeAt(from) === DASH && (from + 1 === end || text.charCodeAt(from + 1) === SPACE);
    let top = this.stack[this.stack.length - 1];
    while (top && (top.indent > indent || (top.indent === indent && top.sequence && !dash && top.pending === undefined))) {
      this.close();
      top = this.stack[this.stack.length - 1];
    }
    if (!top) {
      if (this.root) throw new NotBlock();
      this.open(dash, indent, from);
      top = this.stack[0] as Frame;
      this.root = top;
    } else if (top.pending !== undefined) {
      if (indent > top.indent || (indent === top.indent && dash && !top.sequence)) {
        this.open(dash, indent, from);
        top = this.stack[this.stack.length - 1] as Frame;
      } else {
        this.emptyValue(top);
        if (top.sequence && !dash) {
          this.close();
          return this.line(indent, from, end);
        }
      }
    }
    if (top.indent !== indent) throw new NotBlock();
    if (top.sequence) {
      if (!dash) throw new NotBlock();
      this.item(top, from, end);
    } else {
      if (dash) throw new NotBlock();
      this.entry(top, from, end);
    }
  }

  private open(sequence: boolean, indent: number, start: number): void {
    if (this.stack.length >= MAX_DEPTH) throw new NotBlock();
    this.stack.push({ sequence, indent, value: sequence ? [] : {}, start, children: 0, before: this.nodes, pending: undefined, pendingAt: 0 });
  }

  /** Closes the innermost node: it becomes the value its parent waits for. */
  private close(): void {
    const frame = this.stack.pop() as Frame;
    if (frame.pending !== undefined) this.emptyValue(frame);
    this.record(frame.start, (frame.sequence ? SEQUENCE : MAPPING) | (frame.children * CHILDREN), undefined, this.nodes - frame.before + 1);
    const parent = this.stack[this.stack.length - 1];
    // A list grown by push keeps room for 17 items once it has one: copied, it holds its own
    // (a flag's one condition group, held for the whole run, in tens of thousands of flags).
    if (parent) this.fill(parent, frame.sequence ? (frame.value as unknown[]).slice() : frame.value);
  }

  /** A pending key or `-` whose value is nothing: null, placed where it would have started. */
  private emptyValue(frame: Frame): void {
    let at = frame.pendingAt;
    while (this.text[at] === ' ') at++;
    this.record(at, SCALAR);
    this.fill(frame, null);
  }

  /** The pending value of a frame, whose node is recorded already. */
  private fill(frame: Frame, value: unknown): void {
    const pending = frame.pending;
    if (pending === undefined) throw new NotBlock();
    frame.pending = undefined;
    frame.children++;
    if (pending === true) (frame.value as unknown[]).push(value);
    else (frame.value as Record<string, unknown>)[pending] = value;
  }

  /** One node, in post-order; `name`: a key's; `size`: its subtree's nodes. */
  private record(start: number, info: number, name?: string, size = 1): void {
    const n = this.nodes;
    if (n === this.starts.length) {
      this.starts = grown(this.starts);
      this.info = grown(this.info);
      this.keyOf = grown(this.keyOf);
      this.sizes = grown(this.sizes);
    }
    this.starts[n] = start;
    this.info[n] = info;
    this.sizes[n] = size;
    if (name !== undefined) this.keyOf[n] = this.keyNames.push(name);
    this.nodes = n + 1;
  }

  /** `- value`, `-` alone, or `- key: value` (a mapping whose keys line up after the dash). */
  private item(frame: Frame, from: number, end: number): void {
    const text = this.text;
    let at = from + 1;
    while (text.charCodeAt(at) === SPACE) at++;
    frame.pending = true;
    frame.pendingAt = from + 1;
    if (at >= end || text.charCodeAt(at) === HASH) {
      if (at < end && text.charCodeAt(at - 1) !== SPACE) throw new NotBlock();
      return;
    }
    if (text.charCodeAt(at) === DASH && (at + 1 === end || text.charCodeAt(at + 1) === SPACE)) throw new NotBlock();
    if (this.keyEnd(at, end) !== -1) {
      const indent = at - text.lastIndexOf('\n', at) - 1;
      this.open(false, indent, at);
      this.entry(this.stack[this.stack.length - 1] as Frame, at, end);
      return;
    }
    this.inlineValue(frame, at, end);
  }

  /** `key: value` or `key:` (its value on the lines below). */
  private entry(frame: Frame, from: number, end: number): void {
    const text = this.text;
    const colon = this.keyEnd(from, end);
    if (colon === -1) throw new NotBlock();
    const key = this.key(from, colon);
    const map = frame.value as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(map, key)) throw new NotBlock();
    this.record(from, SCALAR | KEY, key);
    frame.children++;
    frame.pending = key;
    frame.pendingAt = colon + 1;
    let at = colon + 1;
    while (text.charCodeAt(at) === SPACE) at++;
    if (at >= end || text.charCodeAt(at) === HASH) {
      if (at < end && at === colon + 1) throw new NotBlock();
      return;
    }
    this.inlineValue(frame, at, end);
  }

  /**
   * Where the key that starts at `from` ends (its colon), or -1 when the line holds no key: a
   * quoted key and its colon, or a plain one up to the first `: ` (or a `:` ending the line).
   */
  private keyEnd(from: number, end: number): number {
    const text = this.text;
    const first = text[from];
    if (first === '"' || first === "'") {
      const close = this.quoteEnd(from, end);
      return text[close] === ':' && (close + 1 === end || text[close + 1] === ' ') ? close : -1;
    }
    for (let i = from; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === COLON && (i + 1 === end || text.charCodeAt(i + 1) === SPACE)) return i;
      if (c === HASH && text.charCodeAt(i - 1) === SPACE) return -1;
    }
    return -1;
  }

  /** A key's text: plain keys must read as strings (not numbers, booleans or null). */
  private key(from: number, colon: number): string {
    const text = this.text;
    const first = text[from] as string;
    if (first === '"' || first === "'") {
      const quoted = this.quoted(from, colon);
      if (KEYS_FOR_THE_FULL_PARSER.has(quoted)) throw new NotBlock();
      return quoted;
    }
    const trimmed = text.charCodeAt(colon - 1) === SPACE;
    const slot = ((colon - from) * 31 + text.charCodeAt(from)) & 255;
    const seen = this.seenKeys[slot];
    // Only keys that passed the checks below are kept; a space before the colon is left to them.
    if (!trimmed && seen !== undefined && seen.length === colon - from && text.startsWith(seen, from)) return seen;
    const raw = trimmed ? text.slice(from, colon).trimEnd() : text.slice(from, colon);
    if (raw === '' || isIndicator(first.charCodeAt(0)) || (first === '-' && (raw.length === 1 || raw[1] === ' '))) throw new NotBlock();
    if ((mayResolve(raw) && (NULLS.has(raw) || TRUE.has(raw) || FALSE.has(raw) || CORE_NUMBER.test(raw))) || raw.includes(' #')) throw new NotBlock();
    if (KEYS_FOR_THE_FULL_PARSER.has(raw)) throw new NotBlock();
    if (!trimmed) this.seenKeys[slot] = raw;
    return raw;
  }

  /** The index after the quoted scalar that opens at `from`, on this line. */
  private quoteEnd(from: number, end: number): number {
    const text = this.text;
    const quote = text[from];
    for (let i = from + 1; i < end; i++) {
      const c = text[i];
      if (quote === '"' && c === '\\') i++;
      else if (c === quote) {
        if (quote === "'" && text[i + 1] === "'") i++;
        else return i + 1;
      }
    }
    throw new NotBlock();
  }

  /** The value of the quoted scalar between `from` and `to` (its quotes included). */
  private quoted(from: number, to: number): string {
    const text = this.text;
    const inner = text.slice(from + 1, to - 1);
    if (text[from] === "'") return inner.replaceAll("''", "'");
    // Only JSON's escapes, and no control characters: then JSON reads it as YAML does.
    if (inner.includes('\\') && inner.replace(JSON_ESCAPES, '').includes('\\')) throw new NotBlock();
    for (let i = 0; i < inner.length; i++) if (inner.charCodeAt(i) < 0x20) throw new NotBlock();
    return JSON.parse(text.slice(from, to)) as string;
  }

  /** What follows `key: ` or `- ` on the line: a scalar, `[]`, `{}`, or a one-line list of scalars. */
  private inlineValue(frame: Frame, from: number, end: number): void {
    const text = this.text;
    const first = text[from] as string;
    if (first === '[' || first === '{') return this.flow(frame, from, end);
    if (first === '"' || first === "'") {
      const close = this.quoteEnd(from, end);
      this.rest(close, end);
      this.record(from, SCALAR);
      return this.fill(frame, this.quoted(from, close));
    }
    if (isIndicator(first.charCodeAt(0)) || (first === '-' && (from + 1 === end || text.charCodeAt(from + 1) === SPACE))) throw new NotBlock();
    let stop = from;
    while (stop < end && !(text.charCodeAt(stop) === HASH && text.charCodeAt(stop - 1) === SPACE)) stop++;
    // Trimmed only when it ends in a space (before a comment, or trailing).
    const raw = text.charCodeAt(stop - 1) === SPACE ? text.slice(from, stop).trimEnd() : text.slice(from, stop);
    if (raw.includes(': ') || raw.endsWith(':')) throw new NotBlock();
    this.record(from, SCALAR);
    this.fill(frame, plainValue(raw));
  }

  /** `[]`, `{}`, or `[a, "b", 3]`: scalars only, on one line. */
  private flow(frame: Frame, from: number, end: number): void {
    const text = this.text;
    const open = text[from];
    let at = from + 1;
    while (text[at] === ' ') at++;
    if (open === '{') {
      if (text[at] !== '}') throw new NotBlock();
      this.rest(at + 1, end);
      this.record(from, MAPPING);
      return this.fill(frame, {});
    }
    const items: unknown[] = [];
    if (text[at] === ']') at++;
    else {
      for (;;) {
        const c = text[at];
        if (c === undefined || at >= end) throw new NotBlock();
        let stop: number;
        if (c === '"' || c === "'") {
          stop = this.quoteEnd(at, end);
          this.record(at, SCALAR);
          items.push(this.quoted(at, stop));
        } else {
          if (isIndicator(c.charCodeAt(0)) || c === '-' && text[at + 1] === ' ') throw new NotBlock();
          stop = at;
          while (stop < end && text[stop] !== ',' && text[stop] !== ']' && text[stop] !== '[' && text[stop] !== '{' && text[stop] !== '}' && text[stop] !== '#' && text[stop] !== ':') stop++;
          const raw = text.slice(at, stop).trimEnd();
          if (raw === '') throw new NotBlock();
          this.record(at, SCALAR);
          items.push(plainValue(raw));
        }
        at = stop;
        while (text[at] === ' ') at++;
        if (text[at] === ',') {
          at++;
          while (text[at] === ' ') at++;
          continue;
        }
        if (text[at] !== ']') throw new NotBlock();
        at++;
        break;
      }
    }
    this.rest(at, end);
    this.record(from, SEQUENCE | (items.length * CHILDREN), undefined, items.length + 1);
    this.fill(frame, items);
  }

  /** After a value: nothing but spaces and a comment. */
  private rest(from: number, end: number): void {
    let at = from;
    while (at < end && this.text[at] === ' ') at++;
    if (at < end && (this.text[at] !== '#' || at === from)) throw new NotBlock();
  }
}

function grown(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const next = new Int32Array(array.length * 2);
  next.set(array);
  return next;
}

/** Whether a plain scalar may be anything but a string: only by its first character (most are names). */
function mayResolve(raw: string): boolean {
  const c = raw.charCodeAt(0);
  // 0-9 + - . ~ and the first letters of null, true, false (any case), .inf and .nan.
  return (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e || c === 0x7e
    || c === 0x6e || c === 0x4e || c === 0x74 || c === 0x54 || c === 0x66 || c === 0x46;
}

/** A plain scalar as YAML 1.2's core schema reads it; anything a reader might read otherwise is refused. */
function plainValue(raw: string): unknown {
  if (!mayResolve(raw)) return raw;
  const c = raw.charCodeAt(0);
  // By the first character, only the words it may begin (n, t, f in any case; ~ is null).
  if (c === 0x6e || c === 0x4e || c === 0x7e) return NULLS.has(raw) ? null : raw;
  if (c === 0x74 || c === 0x54) return TRUE.has(raw) ? true : raw;
  if (c === 0x66 || c === 0x46) return FALSE.has(raw) ? false : raw;
  if (!CORE_NUMBER.test(raw)) return raw;
  const n = Number(raw);
  if (INTEGER.test(raw) && Number.isSafeInteger(n) && raw !== '-0') return n;
  if (DECIMAL.test(raw) && Number.isFinite(n) && !Object.is(n, -0)) return n;
  throw new NotBlock();
}
