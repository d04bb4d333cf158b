// Insights in the sandbox, as the real API keeps them (posthog/api/insight.py InsightSerializer,
// InsightBasicSerializer and InsightViewSet; posthog/schema_migrations/):
//   - the list pages by limit/offset; `basic=true` answers without results (name, derived_name,
//     query, description, tags, favorited, saved, dashboard_tiles); `saved=true` narrows it;
//   - names are optional and not unique; every PATCH sets `saved: true`;
//   - a `query` the API's schema refuses answers 400 (only InsightVizNode, DataVisualizationNode,
//     DataTableNode and HogQuery roots; unknown kinds; series items without `kind`);
//   - reads upgrade the stored query: each node stamped with `version`, kind-less series items
//     given `kind`; POST /_sandbox/upgrade-queries/ is the background job that writes upgraded
//     queries back to the store;
//   - `dashboards` (dashboard ids) puts the insight on dashboards or takes it off (tiles made or
//     soft-deleted); reads answer it only with `include_dashboards=true` (newer versions leave it
//     out for personal keys), and always `dashboard_tiles`;
//   - DELETE answers 405; PATCH {"deleted": true} soft-deletes it and its tiles, after which a
//     GET answers 404.
// Seeded per project under `insights` (stored as given: a seed may hold queries from before an
// upgrade, which the parser would refuse today).
import { notFound, validationError } from '../../sandbox/errors.js';
import { nowIso } from '../../sandbox/ids.js';
import { clone, isObject, pyTypeName, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf, type KindContext, type SandboxModel } from '../../sandbox/kind-model.js';
import { paginate } from '../../sandbox/pagination.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';
import type { SandboxState } from '../../sandbox/state.js';
import { booleanRule, objectRule, stringRule, tagsRule, validatePartial } from '../../sandbox/validation.js';
import { DASHBOARDS, INSIGHTS, insightTiles, setInsightDashboards, tilesOf } from '../dashboard/tiles-store.js';
import { inferredSeriesKind, queryProblems } from './query.js';
import { dropAlertsOf, queryChanged } from '../alert/sandbox.js';

const RULES = {
  name: stringRule({ max: 400, nullable: true, allowBlank: true }),
  derived_name: stringRule({ max: 400, nullable: true, allowBlank: true }),
  description: stringRule({ max: 400, nullable: true, allowBlank: true }),
  tags: tagsRule(),
  favorited: booleanRule(),
  saved: booleanRule(),
  deleted: booleanRule(),
  query: objectRule({ nullable: true }),
};

/** The newest version of each node kind the upgrade knows (schema_migrations LATEST_VERSIONS); others are at 1. */
const LATEST_VERSIONS: Readonly<Record<string, number>> = {
  TrendsQuery: 4, StickinessQuery: 4, LifecycleQuery: 2, CalendarHeatmapQuery: 2, FunnelsQuery: 2, RetentionQuery: 2, DataVisualizationNode: 2,
};
const SERIES_WAREHOUSE: Readonly<Record<string, string>> = {
  TrendsQuery: 'DataWarehouseNode', StickinessQuery: 'DataWarehouseNode', LifecycleQuery: 'DataWarehouseNode',
  CalendarHeatmapQuery: 'DataWarehouseNode', FunnelsQuery: 'FunnelsDataWarehouseNode',
};

/** upgrade(query): every node with a kind brought to its latest version, kind-less series items stamped on the way. */
export function upgradeQuery(value: Json): Json {
  if (Array.isArray(value)) return value.map(upgradeQuery);
  if (!isObject(value)) return value;
  let node: JsonObject = value;
  const kind = node.kind;
  if (typeof kind === 'string') {
    const latest = LATEST_VERSIONS[kind] ?? 1;
    const version = typeof node.version === 'number' ? node.version : 1;
    if (version < latest || node.version === undefined) {
      node = { ...node };
      const warehouse = SERIES_WAREHOUSE[kind];
      const stamp = (s: Json, dw: string | undefined): Json => (isObject(s) && !('kind' in s) ? { ...s, kind: inferredSeriesKind(s, dw) } : s);
      if (warehouse !== undefined && Array.isArray(node.series)) node.series = node.series.map((s) => stamp(s, warehouse));
      const funnels = node.funnelsFilter;
      if (kind === 'FunnelsQuery' && isObject(funnels) && Array.isArray(funnels.exclusions)) node.funnelsFilter = { ...funnels, exclusions: funnels.exclusions.map((s) => stamp(s, undefined)) };
      node.version = Math.max(latest, version);
    }
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = upgradeQuery(v);
  return out;
}

/** The query as the API's parser takes it: the first problem answers 400. */
function parsedQuery(value: Json): Json {
  if (value === null) return null;
  const problem = queryProblems(value)[0];
  if (problem) throw validationError('query', `Invalid query: ${problem.path.length > 0 ? `${problem.path.join('.')}: ` : ''}${problem.message}`, 'invalid_input');
  return value;
}

const insightsOf = (state: SandboxState): JsonObject[] => recordsOf(state, { collection: INSIGHTS });

function shortId(id: number): string {
  return `sb${id.toString(36).padStart(6, '0')}`.slice(-8);
}

function dashboardIds(state: SandboxState, project: number, value: Json): number[] {
  if (!Array.isArray(value)) throw validationError('dashboards', `Expected a list of items but got type "${pyTypeName(value)}".`, 'not_a_list');
  return value.map((v) => {
    const found = recordsOf(state, { collection: DASHBOARDS }).find((d) => d.id === v && d.project === project && d.deleted !== true);
    if (!found) throw validationError('dashboards', `Invalid pk "${String(v)}" - object does not exist.`, 'does_not_exist');
    return v as number;
  });
}

export function createInsight(state: SandboxState, project: number, body: JsonObject, raw = false): JsonObject {
  const fields = validatePartial(RULES, body);
  const query = raw ? clone(body.query ?? null) : parsedQuery(fields.query ?? null);
  const ids = state.next_ids as unknown as Record<string, number>;
  const id = ids.insight ?? 1;
  const now = nowIso();
  const record: JsonObject = {
    id, short_id: shortId(id), project, name: fields.name ?? null, derived_name: fields.derived_name ?? null, description: fields.description ?? '',
    tags: fields.tags ?? [], favorited: fields.favorited ?? false, saved: fields.saved ?? false, deleted: fields.deleted === true, query,
    created_at: now, updated_at: now, last_modified_at: now,
  };
  const dashboards = body.dashboards === undefined ? [] : dashboardIds(state, project, body.dashboards);
  ids.insight = id + 1;
  insightsOf(state).push(record);
  if (dashboards.length > 0) setInsightDashboards(state, id, dashboards);
  return record;
}

function render(record: JsonObject, ctx: Pick<KindContext, 'state' | 'request'>, basic: boolean): JsonObject {
  const tiles = insightTiles(ctx.state, record.id as number);
  const query = record.query === null || record.query === undefined ? null : upgradeQuery(record.query);
  const withDashboards = ctx.request.url.searchParams.get('include_dashboards') === 'true';
  const out: JsonObject = {
    id: record.id ?? null, short_id: record.short_id ?? null, name: record.name ?? null, derived_name: record.derived_name ?? null,
    favorited: record.favorited ?? false, query, ...(withDashboards ? { dashboards: tiles.map((t) => t.dashboard_id) } : {}),
    dashboard_tiles: tiles, description: record.description ?? '', last_refresh: null, saved: record.saved ?? false, tags: clone(record.tags ?? []),
    updated_at: record.updated_at ?? null, created_by: clone(ctx.state.user), created_at: record.created_at ?? null,
    last_modified_at: record.last_modified_at ?? null, deleted: record.deleted ?? false, user_access_level: 'editor',
  };
  if (basic) return out;
  return {
    ...out, order: null, cache_target_age: null, next_allowed_client_refresh: null, result: null, hasMore: null, columns: null,
    last_modified_by: clone(ctx.state.user), is_sample: record.is_sample ?? false, effective_restriction_level: 21, effective_privilege_level: 37,
    timezone: 'UTC', is_cached: false, query_status: null, hogql: null, types: null, alerts: [], last_viewed_at: null,
  };
}

function update(record: JsonObject, ctx: KindContext): JsonObject {
  const body = ctx.request.body;
  const changes = validatePartial(RULES, body);
  if ('query' in changes) changes.query = parsedQuery(changes.query ?? null);
  // Every PATCH saves the insight (InsightSerializer.update sets saved=True).
  changes.saved = true;
  if (body.dashboards !== undefined) setInsightDashboards(ctx.state, record.id as number, dashboardIds(ctx.state, record.project as number, body.dashboards));
  if (changes.deleted === true && record.deleted !== true) {
    for (const tile of tilesOf(ctx.state)) if (tile.insight === record.id) tile.deleted = true;
    // Its alerts are hard-deleted with it, silently.
    dropAlertsOf(ctx.state, record.id as number);
  }
  // A query that can no longer carry an alert hard-deletes them too.
  if ('query' in changes) queryChanged(ctx.state, record.id as number, changes.query ?? null);
  changes.last_modified_at = nowIso();
  changes.updated_at = changes.last_modified_at;
  return changes;
}

/** The background job that writes upgraded queries back (the API runs it every few hours). */
export function rewriteStoredQueries(state: SandboxState): Json {
  let rewritten = 0;
  for (const r of insightsOf(state)) {
    if (r.query === null || r.query === undefined) continue;
    const upgraded = upgradeQuery(r.query);
    if (JSON.stringify(upgraded) !== JSON.stringify(r.query)) {
      r.query = upgraded;
      rewritten++;
    }
  }
  return { rewritten };
}

export const model: SandboxModel = {
  kind: 'insight',
  collection: INSIGHTS,
  path: '/api/projects/:project/insights/',
  aliases: ['/api/environments/:project/insights/'],
  parent: 'project',
  scopes: { read: 'insight:read', write: 'insight:write' },
  pagination: 'limit-offset',
  id: 'integer',
  create: { status: 201 },
  update: true,
  delete: 'soft',
  softDelete: 'deleted',
  fields: {},
  activity: {
    scope: 'Insight',
    name: (r) => String(r.name ?? r.derived_name ?? ''),
    ignored: ['project', 'short_id', 'last_modified_at', 'updated_at', 'derived_name', 'is_sample'],
    // A usage dashboard's sample insights are made by the flag's create, unlogged.
    silent: (r) => r.is_sample === true,
  },
  hooks: {
    listReply: (ctx) => {
      const url = ctx.request.url;
      const basic = url.searchParams.get('basic') === 'true';
      const saved = url.searchParams.get('saved');
      const records = ctx.records().filter((r) => r.deleted !== true && (saved !== 'true' || r.saved === true))
        .sort((a, b) => (b.id as number) - (a.id as number));
      return { status: 200, body: paginate(records, (r) => render(r, ctx, basic), url) };
    },
    readReply: (record, ctx) => {
      if (record.deleted === true) throw notFound();
      return { status: 200, body: render(record, ctx, false) };
    },
    createReply: (ctx) => ({ status: 201, body: render(createInsight(ctx.state, ctx.project?.id as number, ctx.request.body), ctx, false) }),
    updateReply: (record, ctx) => {
      if (record.deleted === true) throw notFound();
      Object.assign(record, update(record, ctx));
      return { status: 200, body: render(record, ctx, false) };
    },
  },
  internal: { 'upgrade-queries': rewriteStoredQueries },
  seeds: [{
    key: 'insights',
    at: 'project',
    apply: (state, { project }, value, where, fail) => {
      for (const [i, entry] of seedList(value, where, fail).entries()) {
        seedApply(`${where}[${i}]`, fail, () => createInsight(state, project?.id as number, { saved: true, ...entry }, true));
      }
    },
  }],
  contract: {
    item: { name: 'Contract signups', description: 'Weekly signups', query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } } },
    update: { tags: ['growth'] },
    drift: { description: 'Changed in the web app' },
  },
};
