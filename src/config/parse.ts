// YAML text → plain JSON data plus the line:col of every value and key, with guards against
// hostile input: alias bombs, cyclic or dangling aliases, deep nesting, duplicate keys,
// prototype-polluting keys, custom tags, several documents, a root that is not a mapping.
import type { CST, Document, Node as YamlNode } from 'yaml';
import { loadYaml } from './compiled.js';
import { childPointer } from './pointer.js';
import type { ConfigProblem } from './problems.js';

export interface Pos { line: number; col: number }

export interface PositionIndex { get(pointer: string): Pos | undefined }

/** Where each value (by JSON Pointer) and each mapping key (by the pointer of its value) starts. */
export interface SourceMap {
  values: PositionIndex;
  keys: PositionIndex;
}

export interface ParsedFile {
  file: string;
  data: unknown;
  map: SourceMap;
  /** Pointers whose value was dropped or replaced by null because of a reported problem. */
  poisoned: Set<string>;
}

/**
 * `parsed` is absent when the file cannot be read as data at all (syntax errors, several
 * documents, …); otherwise local problems (a duplicate key, a custom tag) come with the data,
 * so that the rest of the file is still checked.
 */
export interface ParseResult { parsed?: ParsedFile; problems: ConfigProblem[] }

/** Nodes an alias may add by expansion, in total per file: ample for sharing a few filters. */
export const MAX_ALIAS_EXPANSION = 10_000;
export const MAX_DEPTH = 64;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Keys a fast path leaves to this parser: the refused ones, and the merge key it reports. */
export const KEYS_FOR_THE_FULL_PARSER: ReadonlySet<string> = new Set([...FORBIDDEN_KEYS, '<<']);
const CORE = 'tag:yaml.org,2002:';
const ALLOWED_TAGS = new Set(['!', ...['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => CORE + t)]);

/** Syntax errors cascade; past this many in one file, the rest are counted, not listed. */
export const MAX_SYNTAX_ERRORS = 20;

const NESTED_TOO_DEEP = `values are nested more than ${MAX_DEPTH} levels deep`;

/** yaml's messages end with " at line L, column C:" and a source excerpt; we print our own position. */
function oneLine(message: string): string {
  // yaml catches its own stack overflow on absurdly deep nesting and reports it as an error.
  if (message.includes('Maximum call stack size exceeded')) return NESTED_TOO_DEEP;
  const cut = message.search(/ at line \d+, column \d+/);
  return (cut === -1 ? message.split('\n')[0]! : message.slice(0, cut)).trim();
}

function shortTag(tag: string): string {
  return tag.startsWith(CORE) ? `!!${tag.slice(CORE.length)}` : tag;
}

class Abort extends Error {}

/** Whether a quoted scalar's source ends with its closing quote. */
function closedQuote(source: string): boolean {
  if (source.startsWith('"')) {
    if (source.length < 2 || !source.endsWith('"')) return false;
    // `"…\"` is an escaped quote, `"…\\"` an escaped backslash and then the closing one.
    const backslashes = /\\*"$/.exec(source.slice(1))![0].length - 1;
    return backslashes % 2 === 0;
  }
  // Inside single quotes a quote is written twice: the closing one leaves an odd run at the end.
  const run = /'*$/.exec(source.slice(1))![0].length;
  return run % 2 === 1;
}

/** Quoted strings and inline lists or mappings that open and never close, in order: where, and what. */
function unclosed(text: string): Array<{ offset: number; what: string; fix?: string; quote?: true }> {
  const { CST, Parser } = loadYaml();
  const out: Array<{ offset: number; what: string; fix?: string; quote?: true }> = [];
  const check = (token: CST.Token | undefined): void => {
    if (!token) return;
    if (token.type === 'double-quoted-scalar' || token.type === 'single-quoted-scalar') {
      if (closedQuote(token.source)) return;
      const quote = token.type === 'double-quoted-scalar' ? 'double quote (")' : "single quote (')";
      out.push({ offset: token.offset, what: `unclosed string: the ${quote} that opens here is never closed`, fix: 'close it, or write the value without quotes', quote: true });
    } else if (token.type === 'flow-collection') {
      const close = token.start.source === '[' ? ']' : '}';
      if (token.end.some((t) => t.source === close)) return;
      const what = close === ']' ? 'list' : 'mapping';
      out.push({ offset: token.start.offset, what: `unclosed ${token.start.source}: the inline ${what} that opens here is never closed with ${close}` });
    }
  };
  try {
    for (const token of new Parser().parse(text)) {
      if (token.type !== 'document') continue;
      check(token.value);
      CST.visit(token, (item) => {
        check(item.key ?? undefined);
        check(item.value);
      });
    }
  } catch {
    // Only a better position was at stake: the parser's own errors stand.
    return [];
  }
  // An unclosed quote swallows the brackets after it: the lists and mappings around it look
  // unclosed only because of it, so it alone is said.
  const quote = out.find((u) => u.quote);
  return out.filter((u) => !quote || u.quote || u.offset > quote.offset).sort((a, b) => a.offset - b.offset);
}

export function parseYaml(file: string, text: string): ParseResult {
  const { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments } = loadYaml();
  const lineCounter = new LineCounter();
  const at = (offset: number): Pos => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, col: p.col };
  };
  const problems: ConfigProblem[] = [];
  const problem = (pos: Pos, message: string) => problems.push({ position: { file, ...pos }, message });

  let docs: Document.Parsed[];
  try {
    docs = parseAllDocuments(text, { lineCounter, uniqueKeys: false, prettyErrors: true, strict: true }) as Document.Parsed[];
  } catch (err) {
    // The parser is iterative, but be safe against any input it cannot handle.
    problem({ line: 1, col: 1 }, `cannot parse YAML: ${oneLine(err instanceof Error ? err.message : String(err))}`);
    return { problems };
  }
  if (!Array.isArray(docs)) docs = [docs];

  // Unknown tags are reported by the walk below, at the tag.
  let syntax = docs.flatMap((doc) => [...doc.errors, ...doc.warnings.filter((w) => w.code !== 'TAG_RESOLVE_FAILED')]);
  if (syntax.length > 0) {
    // The parser reports an unclosed quote or bracket where it gave up (often the end of the
    // file): say where it opens instead, and what is unclosed. Errors after it are its echoes.
    const open = unclosed(text);
    if (open.length > 0) {
      const gaveUp = at(syntax[0]!.pos[0]).line;
      for (const u of open) problem(at(u.offset), `${u.what} (the parser read on to line ${gaveUp} looking for it)${u.fix ? `; ${u.fix}` : ''}`);
      syntax = syntax.filter((e) => e.pos[0] < open[0]!.offset);
    }
  }
  let tooDeep = false;
  for (const e of syntax.slice(0, MAX_SYNTAX_ERRORS)) {
    const pos = e.linePos?.[0] ?? at(e.pos[0]);
    const message = oneLine(e.message);
    // A stack overflow may be reported more than once, where depends on the stack left: say it once.
    if (message === NESTED_TOO_DEEP) {
      if (tooDeep) continue;
      tooDeep = true;
    }
    problem({ line: pos.line, col: pos.col }, message);
  }
  if (syntax.length > MAX_SYNTAX_ERRORS) {
    const next = syntax[MAX_SYNTAX_ERRORS]!;
    problem(next.linePos?.[0] ?? at(next.pos[0]), `${syntax.length - MAX_SYNTAX_ERRORS} more YAML errors in this file not shown`);
  }
  if (problems.length > 0) return { problems };

  if (docs.length > 1) {
    problem(at(docs[1]!.range[0]), 'a file holds one YAML document, but a second one starts here (---); split it into two files');
    return { problems };
  }
  const doc = docs[0];
  const root = doc?.contents ?? null;
  if (!doc || root === null || (isScalar(root) && root.value === null)) {
    problem({ line: 1, col: 1 }, 'file is empty: expected a mapping with at least "organization"');
    return { problems };
  }
  if (!isMap(root)) {
    const what = isSeq(root) ? 'a list' : isScalar(root) ? 'a single value' : 'an alias';
    problem(at(root.range?.[0] ?? 0), `the top level must be a mapping (organization, projects, …), got ${what}`);
    return { problems };
  }

  const values = new Map<string, Pos>();
  const keys = new Map<string, Pos>();
  const map: SourceMap = { values, keys };
  const poisoned = new Set<string>();
  let expanded = 0;
  const resolving = new Set<YamlNode>();
  /** The outermost alias being expanded: where an alias bomb is reported. */
  let outerAlias: Pos | undefined;

  const nodePos = (node: YamlNode | null | undefined, fallback: Pos): Pos => (node?.range ? at(node.range[0]) : fallback);

  const tagPos = (node: YamlNode, tag: string): Pos => {
    // yaml ranges start at the value; point at the tag itself when it is written out nearby.
    const start = node.range?.[0] ?? 0;
    const written = text.lastIndexOf(shortTag(tag), start);
    return at(written !== -1 && start - written < 200 ? written : start);
  };

  const walk = (node: unknown, pointer: string, depth: number, inAlias: boolean, fallback: Pos): unknown => {
    if (inAlias && ++expanded > MAX_ALIAS_EXPANSION) {
      problem(outerAlias ?? fallback, `YAML aliases expand to more than ${MAX_ALIAS_EXPANSION} values (an alias bomb?); write the values out instead`);
      throw new Abort();
    }
    if (depth > MAX_DEPTH) {
      problem(fallback, `values are nested more than ${MAX_DEPTH} levels deep`);
      throw new Abort();
    }
    if (node === null || node === undefined) {
      values.set(pointer, fallback);
      return null;
    }
    if (isAlias(node)) {
      const target = node.resolve(doc);
      const pos = nodePos(node, fallback);
      if (!target) {
        problem(pos, `alias *${node.source} refers to no anchor (&${node.source})`);
        throw new Abort();
      }
      if (resolving.has(target)) {
        problem(pos, `alias *${node.source} refers to a value that contains it`);
        throw new Abort();
      }
      resolving.add(target);
      if (!inAlias) outerAlias = pos;
      const value = walk(target, pointer, depth, true, pos);
      resolving.delete(target);
      // Errors in an aliased value point at the alias: that is where the value is used.
      values.set(pointer, pos);
      return value;
    }
    const yamlNode = node as YamlNode;
    const pos = nodePos(yamlNode, fallback);
    if (yamlNode.tag && !ALLOWED_TAGS.has(yamlNode.tag)) {
      problem(tagPos(yamlNode, yamlNode.tag), `custom YAML tag "${shortTag(yamlNode.tag)}" is not allowed`);
      values.set(pointer, pos);
      poisoned.add(pointer);
      return null;
    }
    values.set(pointer, pos);
    if (isScalar(yamlNode)) {
      const v = yamlNode.value;
      if (typeof v === 'number' && !Number.isFinite(v)) {
        problem(pos, 'infinite and NaN numbers are not allowed');
        poisoned.add(pointer);
        return null;
      }
      if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
        problem(pos, 'integer is too large to be represented exactly');
        poisoned.add(pointer);
        return null;
      }
      if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
      problem(pos, `unsupported YAML value of type ${typeof v}`);
      poisoned.add(pointer);
      return null;
    }
    if (isSeq(yamlNode)) {
      return yamlNode.items.map((item, i) => walk(item, childPointer(pointer, i), depth + 1, inAlias, pos));
    }
    if (isMap(yamlNode)) {
      const out: Record<string, unknown> = {};
      const seen = new Map<string, Pos>();
      for (const pair of yamlNode.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as YamlNode | null;
        const keyPos = nodePos(keyNode, pos);
        let key: string;
        if (keyNode === null || keyNode === undefined) {
          key = 'null';
        } else if (isScalar(keyNode) && (keyNode.value === null || ['string', 'number', 'boolean'].includes(typeof keyNode.value))) {
          key = String(keyNode.value);
        } else {
          problem(keyPos, 'mapping keys must be plain values, not lists, mappings or aliases');
          continue;
        }
        if (FORBIDDEN_KEYS.has(key)) {
          problem(keyPos, `key "${key}" is not allowed`);
          continue;
        }
        if (key === '<<') {
          problem(keyPos, 'YAML merge keys (<<) are not supported; write the fields out');
          // The merged fields are missing now: do not also report them as missing.
          poisoned.add(pointer);
          continue;
        }
        const first = seen.get(key);
        if (first) {
          problem(keyPos, `duplicate key "${key}" (first at line ${first.line}, column ${first.col})`);
          continue;
        }
        seen.set(key, keyPos);
        const child = childPointer(pointer, key);
        keys.set(child, keyPos);
        out[key] = walk(pair.value, child, depth + 1, inAlias, keyPos);
      }
      return out;
    }
    problem(pos, 'unsupported YAML node');
    poisoned.add(pointer);
    return null;
  };

  try {
    const data = walk(root, '', 0, false, { line: 1, col: 1 });
    return { parsed: { file, data, map, poisoned }, problems };
  } catch (err) {
    if (!(err instanceof Abort)) throw err;
    return { problems };
  }
}
