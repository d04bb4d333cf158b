// Dashboard tiles in the sandbox, shared by the dashboard's model (layouts, colours, text tiles,
// deletes) and the insight's (its `dashboards` field, the API's only way to put an insight on a
// dashboard or take it off). A tile belongs to one dashboard and shows an insight or a text;
// deleting it marks it deleted (posthog/models/dashboard_tile.py: DashboardTile.deleted).
import { nowIso } from '../../sandbox/ids.js';
import { clone, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf } from '../../sandbox/kind-model.js';
import type { SandboxState } from '../../sandbox/state.js';

export const TILES = 'dashboard_tiles';
export const DASHBOARDS = 'dashboards';
export const INSIGHTS = 'insights';

export const tilesOf = (state: SandboxState): JsonObject[] => recordsOf(state, { collection: TILES });

function nextId(state: SandboxState, kind: string): number {
  const ids = state.next_ids as unknown as Record<string, number>;
  const id = ids[kind] ?? 1;
  ids[kind] = id + 1;
  return id;
}

/** A new tile below the dashboard's others (the web app's default: full width at the bottom). */
export function addTile(state: SandboxState, dashboard: number, content: { insight?: number; text?: string }): JsonObject {
  const bottom = tilesOf(state).filter((t) => t.dashboard === dashboard && t.deleted !== true)
    .reduce((max, t) => Math.max(max, layoutBottom(t.layouts)), 0);
  const tile: JsonObject = {
    id: nextId(state, 'dashboard_tile'),
    dashboard,
    insight: content.insight ?? null,
    text: content.text === undefined ? null : { id: nextId(state, 'text'), body: content.text, last_modified_at: nowIso() },
    layouts: { sm: { x: 0, y: bottom, w: 6, h: 5 }, xs: { x: 0, y: bottom, w: 1, h: 5 } },
    color: null,
    show_description: null,
    deleted: false,
  };
  tilesOf(state).push(tile);
  return tile;
}

function layoutBottom(layouts: Json | undefined): number {
  const sm = layouts !== null && typeof layouts === 'object' && !Array.isArray(layouts) ? layouts.sm : undefined;
  if (sm === null || typeof sm !== 'object' || Array.isArray(sm)) return 0;
  return Number(sm.y ?? 0) + Number(sm.h ?? 0);
}

/** The tiles an insight shows on, as the insight answers them (`dashboard_tiles`): those not deleted, on dashboards not deleted. */
export function insightTiles(state: SandboxState, insight: number): JsonObject[] {
  const live = new Set(recordsOf(state, { collection: DASHBOARDS }).filter((d) => d.deleted !== true).map((d) => d.id));
  return tilesOf(state).filter((t) => t.insight === insight && t.deleted !== true && live.has(t.dashboard))
    .map((t) => ({ id: t.id, dashboard_id: t.dashboard, deleted: false }));
}

/**
 * An insight's `dashboards` written (posthog/api/insight.py, _update_insight_dashboards): tiles
 * on dashboards it no longer names are soft-deleted, a tile is made (or restored) on each new one.
 */
export function setInsightDashboards(state: SandboxState, insight: number, dashboards: readonly number[]): void {
  const wanted = new Set(dashboards);
  for (const tile of tilesOf(state)) {
    if (tile.insight !== insight) continue;
    if (!wanted.has(tile.dashboard as number)) tile.deleted = true;
  }
  for (const dashboard of wanted) {
    const tile = tilesOf(state).find((t) => t.insight === insight && t.dashboard === dashboard);
    if (tile) tile.deleted = false;
    else addTile(state, dashboard, { insight });
  }
}

/** A tile as a dashboard's GET answers it: its insight in full (`insightOf`), its text, layouts and display fields. */
export function renderTile(tile: JsonObject, insightOf: (id: number) => JsonObject | null): JsonObject {
  return {
    id: tile.id ?? null,
    insight: typeof tile.insight === 'number' ? insightOf(tile.insight) : null,
    text: clone(tile.text ?? null),
    layouts: clone(tile.layouts ?? {}),
    color: tile.color ?? null,
    show_description: tile.show_description ?? null,
    is_cached: false,
    deleted: tile.deleted ?? false,
  };
}
