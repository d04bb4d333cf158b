// `hogsync fmt`: one canonical layout of a configuration file, through the yaml package's
// document model (never text surgery): the keys of every mapping the schema describes in the
// schema's property order (keys it does not name after them, as written), two-space indents,
// and everything else as written: comments, blank lines, anchors and aliases, quoting, flow
// or block style, `${env:…}`. A flow collection is kept on its one line where it fits; one
// written over several lines, or wider than FLOW_WIDTH, is written in block style (the
// writer would otherwise join its lines into one). A key is never moved before the anchor one
// of its aliases needs. What the file says is checked to be unchanged before the layout is given back.
import { isDeepStrictEqual } from 'node:util';
import type { Node as YamlNode, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { schemaDocument } from '../resources/schema.js';
import { loadYaml } from './compiled.js';
import { parseYaml } from './parse.js';
import type { ConfigProblem } from './problems.js';
import { childSchema, resolveNode, type SchemaNode } from './schema-doc.js';

export interface FormatResult {
  /** The file in the canonical layout (absent when it does not parse: see problems). */
  text?: string;
  problems: ConfigProblem[];
}

/** How the document is written: two-space indents, lists indented under their key, no folding. */
const LAYOUT = { indent: 2, indentSeq: true, lineWidth: 0, minContentWidth: 0 } as const;

export function formatConfigText(file: string, text: string): FormatResult {
  // The loader's own reading first: a file it refuses is not rewritten (its problems are said as validate says them).
  const read = parseYaml(file, text);
  if (!read.parsed || read.problems.length > 0) return { problems: read.problems };
  const yaml = loadYaml();
  const doc = yaml.parseDocument(text, { uniqueKeys: false, strict: true });
  let aliases = false;
  yaml.visit(doc, { Alias: () => { aliases = true; return yaml.visit.BREAK; } });
  orderNode(doc.contents as YamlNode | null, schemaDocument(), { root: true, aliases });
  blockWhereLong(doc.contents as YamlNode | null, text);
  const out = doc.toString(LAYOUT);
  // The layout may change how a value is spelled (0x1F as 0x1f), never the value itself.
  const again = parseYaml(file, out);
  if (!again.parsed || again.problems.length > 0 || !isDeepStrictEqual(again.parsed.data, read.parsed.data)) {
    return { problems: [{ position: { file, line: 1, col: 1 }, message: 'fmt cannot lay this file out without changing what it says (an alias that depends on key order?); it is left as it is' }] };
  }
  return { text: out, problems: [] };
}

/** The widest line a flow collection keeps (its indent and key included); a wider one is written in block style. */
export const FLOW_WIDTH = 100;

/** A flow collection on one line, as the layout writes it. */
function oneLine(node: YamlNode): string {
  const { Document } = loadYaml();
  const alone = new Document();
  alone.contents = node;
  return alone.toString({ ...LAYOUT, verifyAliasOrder: false }).trimEnd();
}

/**
 * Block style for the flow collections (below block ones) that were written over several lines
 * of `text` or would not fit in FLOW_WIDTH columns: `column` is where the block collection
 * `node`'s keys (or dashes) start in the layout (two-space indents, lists indented under their key).
 */
function blockWhereLong(node: YamlNode | null, text: string, column = 0): void {
  const { isMap, isSeq, isCollection, isScalar } = loadYaml();
  /** A value that starts at `at`: a flow collection too long or over several lines becomes block; block ones are followed down. */
  const visit = (value: unknown, at: number, indent: number): void => {
    if (!isCollection(value)) return;
    if (value.flow) {
      if (value.items.length === 0) return;
      const range = value.range;
      const lines = range ? text.slice(range[0], range[1]).includes('\n') : false;
      if (!lines && at + oneLine(value).length <= FLOW_WIDTH) return;
      value.flow = false;
    }
    blockWhereLong(value, text, indent);
  };
  if (isMap(node)) {
    for (const pair of (node as YAMLMap).items) {
      const key = isScalar(pair.key) ? (pair.key.source ?? String(pair.key.value)) : '';
      // A mapping's value starts after `key: `; a block value below it, two columns in.
      visit(pair.value, column + key.length + 2, column + 2);
    }
  } else if (isSeq(node)) {
    // Items start after `- `: a mapping item's keys line up there, as do a nested list's dashes.
    for (const item of (node as YAMLSeq).items) visit(item, column + 2, column + 2);
  }
}

interface Named { anchors: Set<string>; aliases: Set<string> }

/** A schema node with its $ref followed, and the rank of each property it names (kept: an export orders every mapping of a workspace). */
const RESOLVED = new WeakMap<SchemaNode, { node: SchemaNode; order: Map<string, number> }>();
function resolved(schema: SchemaNode | undefined): { node: SchemaNode; order: Map<string, number> } {
  const from = schema ?? {};
  let known = RESOLVED.get(from);
  if (!known) {
    const node = resolveNode(from);
    known = { node, order: new Map(Object.keys(node.properties ?? {}).map((key, i) => [key, i])) };
    if (schema) RESOLVED.set(schema, known);
  }
  return known;
}

/** Anchors a node defines and aliases it uses, anywhere below it. */
function namesIn(node: unknown): Named {
  const { isAlias, visit } = loadYaml();
  const named: Named = { anchors: new Set(), aliases: new Set() };
  if (node === null || node === undefined) return named;
  const note = (n: unknown) => {
    if (isAlias(n)) named.aliases.add(n.source);
    else if (n && typeof n === 'object' && typeof (n as { anchor?: unknown }).anchor === 'string') named.anchors.add((n as { anchor: string }).anchor);
  };
  note(node);
  visit(node as YamlNode, { Node: (_key, n) => { note(n); } });
  return named;
}

/**
 * The pairs of a mapping in the schema's order, stable, each placed only after the pairs that
 * define an anchor it refers to (the original order always satisfies that, so one is free).
 */
function ordered(map: YAMLMap, schema: SchemaNode | undefined, aliases: boolean): Pair[] {
  const { order } = resolved(schema);
  const pairs = map.items as Pair[];
  const rank = (p: Pair) => {
    const key = (p.key as { value?: unknown } | null)?.value;
    return (typeof key === 'string' ? order.get(key) : undefined) ?? order.size;
  };
  // Most files use no alias (and export never does): no pair then waits for another, and a
  // stable sort by rank is the order (an exported workspace has hundreds of thousands of mappings).
  if (!aliases) return pairs.map((pair, index) => ({ pair, index, rank: rank(pair) })).sort((a, b) => a.rank - b.rank || a.index - b.index).map((c) => c.pair);
  const none: Named = { anchors: new Set(), aliases: new Set() };
  const names = pairs.map((p) => ({ pair: p, rank: rank(p), ...(aliases ? namesIn(p.value) : none) }));
  type Candidate = (typeof names)[number] & { index: number };
  const first = (list: Candidate[]) => [...list].sort((a, b) => a.rank - b.rank || a.index - b.index)[0]!;
  const left: Candidate[] = names.map((n, index) => ({ ...n, index }));
  /** The pairs still to place that define an anchor `c` refers to. */
  const blockers = (c: Candidate) => left.filter((o) => o !== c && [...c.aliases].some((a) => o.anchors.has(a) && !c.anchors.has(a)));
  const out: Pair[] = [];
  while (left.length > 0) {
    // The pair the schema puts first; if it needs an anchor another pair defines, that pair just before it.
    let next = first(left);
    for (let hops = 0, wait = blockers(next); wait.length > 0 && hops < left.length; hops++, wait = blockers(next)) next = first(wait);
    out.push(next.pair);
    left.splice(left.indexOf(next), 1);
  }
  return out;
}

/**
 * The keys of every mapping of a document without aliases in the schema's order: what fmt does
 * to keys, for writers of new files (export, show), so what they write is what fmt would.
 */
export function orderBySchema(contents: YamlNode | null): void {
  orderNode(contents, schemaDocument(), { root: true, aliases: false });
}

/** Puts the keys of `node` and of every mapping below it in order, following the schema down. */
function orderNode(node: YamlNode | null, schema: SchemaNode | undefined, where: { root: boolean; aliases: boolean }): void {
  const { isMap, isPair, isScalar, isSeq } = loadYaml();
  if (node === null || node === undefined) return;
  if (isSeq(node)) {
    const items = schema ? childSchema(schema, 0) : undefined;
    for (const item of node.items) orderNode(item as YamlNode, items, { ...where, root: false });
    return;
  }
  if (!isMap(node)) return;
  const pairs = node.items.filter((p): p is Pair => isPair(p));
  const first = pairs[0];
  const sorted = ordered(node, schema, where.aliases);
  const lead = sorted[0]?.key;
  if (first && sorted[0] !== first && isScalar(first.key) && isScalar(lead)) {
    // What sits above a mapping's first key stays above it: the comment above a file's first
    // key is its header (the modeline), and a blank line never opens a mapping.
    const leading = first.key.commentBefore;
    first.key.commentBefore = undefined;
    if (leading) lead.commentBefore = lead.commentBefore ? `${leading}\n${lead.commentBefore}` : leading;
    lead.spaceBefore = first.key.spaceBefore;
    first.key.spaceBefore = undefined;
  }
  // Inside a mapping, the parser keeps a comment above the first key on the mapping (shown
  // above it, or above its `- `): put one there that a move brought to the first key.
  if (!where.root && isScalar(lead) && lead.commentBefore) {
    node.commentBefore = node.commentBefore ? `${node.commentBefore}\n${lead.commentBefore}` : lead.commentBefore;
    lead.commentBefore = undefined;
  }
  node.items = sorted;
  for (const pair of sorted) {
    const key = isScalar(pair.key) ? pair.key.value : undefined;
    const child = schema && (typeof key === 'string' || typeof key === 'number') ? childSchema(resolved(schema).node, String(key)) : undefined;
    orderNode(pair.value as YamlNode | null, child, { ...where, root: false });
  }
}
