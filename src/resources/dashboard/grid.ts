// A dashboard's tiles in a reviewer's words: which tiles come on, go off or move, and the
// 12-column grid drawn before and after (each tile a box, its name in its top edge), since
// nobody can review `x: 6, y: 0, w: 6, h: 2` in a pull request. Text and Markdown plans show it;
// the JSON plan keeps the numbers. Pure: no I/O; text is raw (renderers make it printable).
import type { DescribedLine } from '../describe.js';
import { namedReference } from '../references.js';
import { box, type Box } from './tiles.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

interface Placed { name: string; box: Box | undefined }

const COLUMN = 4;
const MAX_ROWS = 60;

/** A tile's name: its insight's (by name, or `#id`), or its text's first words. */
function tileName(tile: Obj): string {
  const insight = tile.insight;
  if (insight !== undefined && insight !== null) {
    const ref = namedReference(insight);
    if (ref) return ref.name;
    if (isObj(insight)) return String(insight.name ?? insight.derived_name ?? `#${String(insight.id)}`);
    return `#${String(insight)}`;
  }
  const text = isObj(tile.text) ? tile.text.body : tile.text;
  const words = String(text ?? '').replace(/\s+/g, ' ').trim();
  return `“${words.length > 24 ? `${words.slice(0, 23)}…` : words}”`;
}

function placed(tiles: unknown): Placed[] {
  return (Array.isArray(tiles) ? tiles : []).filter((t): t is Obj => isObj(t) && t.deleted !== true).map((t) => {
    const layouts = isObj(t.layouts) ? t.layouts : undefined;
    return { name: tileName(t), box: box(layouts?.sm ?? t.layout) };
  });
}

/** The grid after: declared tiles without a layout keep their live one; new ones go below the others, in file order. */
function afterPlaced(before: Placed[], after: Placed[]): Placed[] {
  const live = new Map(before.map((p) => [p.name, p.box]));
  let bottom = Math.max(0, ...after.map((p) => p.box ?? live.get(p.name)).filter((b): b is Box => b !== undefined).map((b) => b.y + b.h));
  return after.map((p) => {
    if (p.box) return p;
    const kept = live.get(p.name);
    if (kept) return { ...p, box: kept };
    const made = { x: 0, y: bottom, w: 6, h: 5 };
    bottom += 5;
    return { ...p, box: made };
  });
}

/** The 12-column grid as text: a box per tile, its name in its top edge. */
export function drawGrid(tiles: readonly Placed[]): string[] {
  const boxes = tiles.filter((t): t is { name: string; box: Box } => t.box !== undefined && t.box.w > 0 && t.box.h > 0);
  if (boxes.length === 0) return ['(no tiles)'];
  const width = 12 * COLUMN + 1;
  const height = Math.min(MAX_ROWS, Math.max(...boxes.map((b) => b.box.y + b.box.h))) + 1;
  const canvas = Array.from({ length: height }, () => Array<string>(width).fill(' '));
  const put = (row: number, col: number, ch: string): void => {
    if (row < 0 || row >= height || col < 0 || col >= width) return;
    const was = canvas[row]![col]!;
    canvas[row]![col] = (ch === '-' && (was === '|' || was === '+')) || (ch === '|' && (was === '-' || was === '+')) ? '+' : ch;
  };
  for (const { box: b } of boxes) {
    const [x0, x1, y0, y1] = [Math.min(b.x, 11) * COLUMN, Math.min(b.x + b.w, 12) * COLUMN, b.y, b.y + b.h];
    for (let c = x0; c <= x1; c++) { put(y0, c, '-'); put(y1, c, '-'); }
    for (let r = y0; r <= y1; r++) { put(r, x0, '|'); put(r, x1, '|'); }
    for (const [r, c] of [[y0, x0], [y0, x1], [y1, x0], [y1, x1]] as const) if (r < height) canvas[r]![c] = '+';
  }
  for (const { name, box: b } of boxes) {
    const x0 = Math.min(b.x, 11) * COLUMN;
    const room = Math.min(b.x + b.w, 12) * COLUMN - x0 - 3;
    if (room < 1 || b.y >= height) continue;
    const label = name.length > room ? `${name.slice(0, Math.max(0, room - 1))}…` : name;
    for (let i = 0; i < label.length; i++) canvas[b.y]![x0 + 2 + i] = label[i]!;
  }
  const lines = canvas.map((row) => row.join('').trimEnd());
  if (Math.max(...boxes.map((b) => b.box.y + b.box.h)) + 1 > height) lines.push(`(cut at ${MAX_ROWS} rows)`);
  return lines;
}

const where = (b: Box | undefined) => (b ? `x ${b.x}, y ${b.y}, ${b.w}×${b.h}` : 'no layout');

/** A change of `tiles`: tiles on and off, tiles moved, and the grid before and after. */
export function describeTiles(before: unknown, after: unknown): DescribedLine[] {
  const was = placed(before);
  const will = afterPlaced(was, placed(after));
  const lines: DescribedLine[] = [];
  const names = (list: Placed[]) => new Map(list.map((p) => [p.name, p]));
  const wasBy = names(was);
  const willBy = names(will);
  for (const p of will) {
    const old = wasBy.get(p.name);
    if (!old) lines.push({ kind: 'text', sign: '+', text: `tile ${p.name} (${where(p.box)})` });
    else if (where(old.box) !== where(p.box)) lines.push({ kind: 'text', sign: '~', text: `tile ${p.name}: ${where(old.box)} → ${where(p.box)}` });
  }
  for (const p of was) if (!willBy.has(p.name)) lines.push({ kind: 'text', sign: '-', text: `tile ${p.name} (off the dashboard; an insight stays)` });
  if (lines.length === 0) return [];
  lines.push({ kind: 'text', sign: ' ', text: 'before:' }, ...drawGrid(was).map((text) => ({ kind: 'text' as const, sign: ' ' as const, text: `  ${text}` })));
  lines.push({ kind: 'text', sign: ' ', text: 'after:' }, ...drawGrid(will).map((text) => ({ kind: 'text' as const, sign: ' ' as const, text: `  ${text}` })));
  return lines;
}
