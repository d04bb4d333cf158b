// A dashboard's `tiles` as a file writes them and as the API keeps them. The file's list is the
// dashboard's whole tile list: insight tiles by insight name (a reference by name, `{ insight: NAME }`
// once loaded), text tiles by their text, each with an optional layout on the 12-column grid
// (`layout`: the API's `sm` layout; `layouts: { sm, xs }` gives both, else `xs` is derived: one
// column, each tile `w: 1`, stacked in `sm` reading order), `color` and `show_description`.
// The API keeps no order: tiles compare as a set by what they show, and only what a tile declares
// of its display is compared (a tile without a layout keeps its live one).
import type { KindPort, LiveRecord } from '../kind.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface Box { x: number; y: number; w: number; h: number }
const BOX_KEYS = ['x', 'y', 'w', 'h'] as const;

/** x, y, w and h of a layout (the API adds minW, moved, static, …). */
export function box(value: unknown): Box | undefined {
  if (!isObj(value)) return undefined;
  const out: Record<string, number> = {};
  for (const k of BOX_KEYS) out[k] = Number(value[k] ?? 0);
  return out as unknown as Box;
}

/** What a tile shows: `i:ID` (or `i:{NAME}` while its insight has no id yet) or `t:TEXT`. */
export function tileKey(tile: Obj): string {
  const insight = tile.insight;
  if (insight !== undefined && insight !== null) {
    const id = isObj(insight) && 'id' in insight ? insight.id : insight;
    return `i:${typeof id === 'object' ? JSON.stringify(id) : String(id)}`;
  }
  const text = isObj(tile.text) ? tile.text.body : tile.text;
  return `t:${String(text ?? '')}`;
}

/** The declared tiles' layouts by key: `sm` as declared, `xs` as declared or derived (one column, stacked in `sm` reading order). */
export function declaredLayouts(tiles: readonly Obj[]): Map<string, { sm: Box; xs: Box }> {
  const out = new Map<string, { sm: Box; xs: Box }>();
  const placed = tiles.flatMap((t) => {
    const layouts = isObj(t.layouts) ? t.layouts : undefined;
    const sm = box(layouts?.sm ?? t.layout);
    return sm ? [{ t, sm, xs: box(layouts?.xs) }] : [];
  });
  let y = 0;
  for (const p of [...placed].sort((a, b) => a.sm.y - b.sm.y || a.sm.x - b.sm.x)) {
    const xs = p.xs ?? { x: 0, y, w: 1, h: p.sm.h };
    y += p.sm.h;
    out.set(tileKey(p.t), { sm: p.sm, xs });
  }
  return out;
}

/** One tile as compared: what it shows, and the display fields its declaration names. */
function compared(key: string, from: Obj, declared: Obj | undefined, layouts: { sm: Box; xs: Box } | undefined, live: boolean): Obj {
  const out: Obj = { tile: key };
  if (!declared) return out;
  if (layouts) {
    if (live) {
      const l = isObj(from.layouts) ? from.layouts : {};
      out.layouts = { sm: box(l.sm) ?? null, xs: box(l.xs) ?? null };
    } else out.layouts = layouts;
  }
  for (const f of ['color', 'show_description']) if (f in declared) out[f] = from[f] ?? null;
  return out;
}

/** Both sides of `tiles` in view of each other: the live tiles not deleted, each with only the display fields declared, sorted by what they show. */
export function compareTiles(declared: unknown, live: unknown): [unknown, unknown] {
  if (!Array.isArray(declared)) return [declared, live];
  const mine = declared.filter(isObj);
  const layouts = declaredLayouts(mine);
  const byKey = new Map(mine.map((t) => [tileKey(t), t]));
  const sort = (list: Obj[]) => list.sort((a, b) => String(a.tile).localeCompare(String(b.tile)));
  const d = sort(mine.map((t) => compared(tileKey(t), t, t, layouts.get(tileKey(t)), false)));
  const l = sort((Array.isArray(live) ? live : []).filter((t): t is Obj => isObj(t) && t.deleted !== true)
    .map((t) => compared(tileKey(t), t, byKey.get(tileKey(t)), layouts.get(tileKey(t)), true)));
  return [d, l];
}

/** The insight ids an insight's record says it shows on (`dashboard_tiles` not deleted, else `dashboards`). */
function dashboardsOf(insight: Obj): number[] {
  if (Array.isArray(insight.dashboard_tiles)) return insight.dashboard_tiles.filter((t) => isObj(t) && t.deleted !== true).map((t) => Number((t as Obj).dashboard_id));
  return Array.isArray(insight.dashboards) ? insight.dashboards.map(Number) : [];
}

/**
 * Makes a dashboard's tiles what `declared` (references resolved to insight ids) says, after the
 * dashboard's own write answered `record`: insights put on or taken off through their own
 * `dashboards` (read, then written whole: the API's only way), then one PATCH of the dashboard
 * for layouts, colours and text tiles (text tiles no longer declared deleted).
 */
export async function syncTiles(port: KindPort, paths: { dashboard: string; insight(id: number): string }, dashboardId: number, declared: unknown, record: LiveRecord): Promise<void> {
  if (!Array.isArray(declared)) return;
  const wanted = declared.filter(isObj);
  const liveTiles = () => (Array.isArray(record.tiles) ? record.tiles : []).filter((t): t is Obj => isObj(t) && t.deleted !== true);
  const wantedInsights = new Set(wanted.filter((t) => t.insight !== undefined && t.insight !== null).map((t) => Number(t.insight)));
  const shown = new Set(liveTiles().filter((t) => isObj(t.insight)).map((t) => Number((t.insight as Obj).id)));
  const moves = [...[...wantedInsights].filter((id) => !shown.has(id)), ...[...shown].filter((id) => !wantedInsights.has(id))];
  for (const id of moves) {
    const { body } = await port.request<Obj>('GET', paths.insight(id), { okStatuses: [200, 404] });
    if (!isObj(body) || body.id === undefined) continue;
    const now = new Set(dashboardsOf(body));
    if (wantedInsights.has(id)) now.add(dashboardId);
    else now.delete(dashboardId);
    // A 404: the insight was deleted meanwhile (its tiles with it), which is what taking it off wanted.
    await port.request('PATCH', paths.insight(id), { body: { dashboards: [...now] }, okStatuses: [200, 404] });
  }
  if (moves.length > 0) record = (await port.request<LiveRecord>('GET', paths.dashboard)).body;
  const layouts = declaredLayouts(wanted);
  const byKey = new Map(liveTiles().map((t) => [tileKey(t), t]));
  const entries: Obj[] = [];
  for (const t of wanted) {
    const key = tileKey(t);
    const live = byKey.get(key);
    const display: Obj = {};
    const l = layouts.get(key);
    if (l) display.layouts = { sm: l.sm, xs: l.xs };
    for (const f of ['color', 'show_description']) if (f in t) display[f] = t[f];
    if (typeof t.text === 'string' && !live) entries.push({ text: { body: t.text }, ...display });
    else if (live && Object.keys(display).length > 0) entries.push({ id: live.id, ...display });
  }
  const declaredKeys = new Set(wanted.map(tileKey));
  for (const t of liveTiles()) if (!isObj(t.insight) && !declaredKeys.has(tileKey(t))) entries.push({ id: t.id, deleted: true });
  if (entries.length > 0) await port.request('PATCH', paths.dashboard, { body: { tiles: entries } });
}

const sameBox = (a: Box | undefined, b: Box | undefined) => a !== undefined && b !== undefined && BOX_KEYS.every((k) => a[k] === b[k]);

/**
 * Live tiles as a file writes them: insight tiles by the insight's name, text tiles by their
 * text, `layout` (the `sm` one), `layouts` only where the live `xs` is not the derived one, and
 * display fields only where set.
 */
export function writtenTiles(live: unknown): Obj[] {
  const tiles = (Array.isArray(live) ? live : []).filter((t): t is Obj => isObj(t) && t.deleted !== true);
  const out = tiles.map((t) => {
    const entry: Obj = isObj(t.insight) ? { insight: t.insight.name ?? t.insight.derived_name ?? t.insight.id } : { text: isObj(t.text) ? t.text.body : t.text };
    const layouts = isObj(t.layouts) ? t.layouts : {};
    const sm = box(layouts.sm);
    if (sm) entry.layout = sm;
    for (const f of ['color', 'show_description']) if (t[f] !== null && t[f] !== undefined) entry[f] = t[f];
    return { entry, xs: box(layouts.xs) };
  });
  const derived = declaredLayouts(out.map((o) => o.entry));
  return out.map(({ entry, xs }) => {
    const wanted = derived.get(tileKey(entry));
    if (!wanted || !xs || sameBox(wanted.xs, xs)) return entry;
    const { layout, ...rest } = entry;
    return { ...rest, layouts: { sm: layout, xs } };
  });
}
