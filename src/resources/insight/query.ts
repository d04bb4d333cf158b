// An insight's query as the API keeps it (posthog/schema.py, posthog/schema_migrations/), shared
// by the kind (comparison, offline checks, the `sql:` shorthand) and its sandbox model:
//   - only four roots are taken (InsightVizNode, DataVisualizationNode, DataTableNode, HogQuery):
//     a bare TrendsQuery or HogQLQuery must be wrapped, and an unknown `kind` fails the parser;
//   - reads upgrade the stored query (schema_migrations/upgrade.py): every node with a kind gets a
//     `version`, and kind-less series items (and funnel exclusions) get the `kind` the parser used
//     to infer (0004_entity_node_kind.py: id without event = ActionsNode, table_name = the data
//     warehouse node, else EventsNode); a background job writes the upgraded queries back;
//   - so declared and live queries are compared after one normalisation (normalizeQuery): the
//     upgrade's additions made on both sides and its `version` stamps dropped, so an upgrade is
//     never drift and any other difference is.
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The roots the insight serializer takes. */
export const QUERY_ROOTS: readonly string[] = ['InsightVizNode', 'DataVisualizationNode', 'DataTableNode', 'HogQuery'];

/** What an InsightVizNode's `source` may be. */
export const INSIGHT_SOURCES: readonly string[] = ['TrendsQuery', 'FunnelsQuery', 'RetentionQuery', 'PathsQuery', 'StickinessQuery', 'LifecycleQuery', 'CalendarHeatmapQuery'];

/** Kinds of series items and funnel exclusions. */
export const SERIES_KINDS: readonly string[] = ['EventsNode', 'ActionsNode', 'DataWarehouseNode', 'FunnelsDataWarehouseNode', 'GroupNode'];

/** Query kinds with series that the upgrade stamps, and the data warehouse node their table-shaped items become. */
const SERIES_QUERIES: Readonly<Record<string, string>> = {
  TrendsQuery: 'DataWarehouseNode', StickinessQuery: 'DataWarehouseNode', LifecycleQuery: 'DataWarehouseNode',
  CalendarHeatmapQuery: 'DataWarehouseNode', FunnelsQuery: 'FunnelsDataWarehouseNode',
};

/** Node kinds a query may hold besides the roots, sources and series (sources of tables, sub-queries). */
const OTHER_KINDS: readonly string[] = [
  'HogQLQuery', 'EventsQuery', 'ActorsQuery', 'PersonsNode', 'GroupsQuery', 'SessionsQuery', 'InsightActorsQuery', 'FunnelsActorsQuery',
  'FunnelCorrelationQuery', 'FunnelCorrelationActorsQuery', 'StickinessActorsQuery', 'SavedInsightNode', 'WebOverviewQuery', 'WebStatsTableQuery',
  'WebExternalClicksTableQuery', 'WebGoalsQuery', 'WebVitalsQuery', 'WebVitalsPathBreakdownQuery', 'WebPageURLSearchQuery', 'WebTrendsQuery',
  'SessionAttributionExplorerQuery', 'RevenueAnalyticsOverviewQuery', 'RevenueAnalyticsGrossRevenueQuery', 'RevenueAnalyticsMetricsQuery',
  'RevenueAnalyticsMRRQuery', 'RevenueAnalyticsRevenueQuery', 'RevenueAnalyticsTopCustomersQuery', 'RevenueExampleEventsQuery',
  'RevenueExampleDataWarehouseTablesQuery', 'ErrorTrackingQuery', 'RecordingsQuery', 'TracesQuery', 'TraceQuery', 'LogsQuery',
  'MarketingAnalyticsTableQuery', 'ExperimentQuery', 'ExperimentMetric', 'ExperimentTrendsQuery', 'ExperimentFunnelsQuery',
  'ExperimentExposureQuery', 'ExperimentEventExposureConfig', 'ExperimentDataWarehouseNode', 'DatabaseSchemaQuery', 'HogQLMetadata',
  'HogQLAutocomplete', 'SuggestedQuestionsQuery', 'TeamTaxonomyQuery', 'EventTaxonomyQuery', 'ActorsPropertyTaxonomyQuery',
  'VectorSearchQuery', 'SessionBatchEventsQuery',
];

export const KNOWN_KINDS: ReadonlySet<string> = new Set([...QUERY_ROOTS, ...INSIGHT_SOURCES, ...SERIES_KINDS, ...OTHER_KINDS]);

/** The `kind` the upgrade gives a kind-less series item (0004_entity_node_kind.py). */
export function inferredSeriesKind(item: Obj, warehouseKind: string | undefined): string {
  if (warehouseKind !== undefined && 'table_name' in item) return warehouseKind;
  return 'id' in item && !('event' in item) ? 'ActionsNode' : 'EventsNode';
}

/** Where a query node holds series items: its `series`, and a funnel's exclusions. */
function withSeriesKinds(node: Obj, stamp: (item: Obj, warehouseKind: string | undefined) => Obj): Obj {
  const kind = node.kind;
  if (typeof kind !== 'string' || !(kind in SERIES_QUERIES)) return node;
  const warehouse = SERIES_QUERIES[kind];
  let out = node;
  if (Array.isArray(node.series)) out = { ...out, series: node.series.map((s) => (isObj(s) && !('kind' in s) ? stamp(s, warehouse) : s)) };
  const funnels = node.funnelsFilter;
  if (kind === 'FunnelsQuery' && isObj(funnels) && Array.isArray(funnels.exclusions)) {
    out = { ...out, funnelsFilter: { ...funnels, exclusions: funnels.exclusions.map((s) => (isObj(s) && !('kind' in s) ? stamp(s, undefined) : s)) } };
  }
  return out;
}

/**
 * A query as compared: kind-less series items given the kind the API's upgrade gives them, and
 * the upgrade's `version` stamps left out, at every depth. The same function runs on the
 * declared and the live query.
 */
export function normalizeQuery(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeQuery);
  if (!isObj(value)) return value;
  const node = withSeriesKinds(value, (item, warehouse) => ({ ...item, kind: inferredSeriesKind(item, warehouse) }));
  const out: Obj = {};
  const versioned = typeof node.kind === 'string';
  for (const [k, v] of Object.entries(node)) {
    if (versioned && k === 'version') continue;
    out[k] = normalizeQuery(v);
  }
  return out;
}

/** The query a `sql:` shorthand stands for: a HogQL chart. */
export function sqlQuery(sql: string): Obj {
  return { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: sql } };
}

/** The SQL of a query that is a plain HogQL chart (only the two kinds and the text), else undefined: export writes it as `sql:`. */
export function plainSql(query: unknown): string | undefined {
  const q = normalizeQuery(query);
  if (!isObj(q) || q.kind !== 'DataVisualizationNode' || Object.keys(q).some((k) => k !== 'kind' && k !== 'source')) return undefined;
  const source = q.source;
  if (!isObj(source) || source.kind !== 'HogQLQuery' || typeof source.query !== 'string') return undefined;
  return Object.keys(source).every((k) => k === 'kind' || k === 'query') ? source.query : undefined;
}

/** A problem of a query as the API's parser would find it: where below the query, and what. */
export interface QueryProblem { path: Array<string | number>; message: string; at?: 'key' | 'value' }

/**
 * What the API's query parser refuses that can be known offline: a root it does not take (and
 * the wrapper a bare source needs), an unknown `kind` at any depth, a source of the wrong kind,
 * and a series item without `kind` (the parser's union is discriminated on it).
 */
export function queryProblems(query: unknown): QueryProblem[] {
  const problems: QueryProblem[] = [];
  if (!isObj(query)) return [{ path: [], message: 'a query is a mapping with a `kind`' }];
  const root = query.kind;
  if (typeof root !== 'string') return [{ path: [], message: 'the query has no `kind` (one of InsightVizNode, DataVisualizationNode, DataTableNode, HogQuery)' }];
  if (!QUERY_ROOTS.includes(root)) {
    const wrap = INSIGHT_SOURCES.includes(root) ? `wrap it: { kind: InsightVizNode, source: { kind: ${root}, … } }`
      : root === 'HogQLQuery' ? 'wrap it: { kind: DataVisualizationNode, source: { kind: HogQLQuery, query: … } } (or write `sql:`)'
      : KNOWN_KINDS.has(root) ? 'wrap it: { kind: DataTableNode, source: … }'
      : 'an unknown kind';
    problems.push({ path: ['kind'], message: `the API takes no insight query of kind ${root}: ${wrap}` });
    if (!KNOWN_KINDS.has(root)) return problems;
  }
  const walk = (value: unknown, path: Array<string | number>): void => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, [...path, i]));
      return;
    }
    if (!isObj(value)) return;
    const kind = value.kind;
    if (typeof kind === 'string' && path.length > 0 && !KNOWN_KINDS.has(kind)) problems.push({ path: [...path, 'kind'], message: `unknown query kind ${kind}: the API's query parser refuses it` });
    if (kind === 'InsightVizNode' && isObj(value.source) && typeof value.source.kind === 'string' && KNOWN_KINDS.has(value.source.kind) && !INSIGHT_SOURCES.includes(value.source.kind)) {
      problems.push({ path: [...path, 'source', 'kind'], message: `an InsightVizNode shows one of ${INSIGHT_SOURCES.join(', ')}, not ${value.source.kind}` });
    }
    if (kind === 'DataVisualizationNode' && isObj(value.source) && value.source.kind !== 'HogQLQuery') {
      problems.push({ path: [...path, 'source', 'kind'], message: 'a DataVisualizationNode charts a HogQLQuery' });
    }
    if (typeof kind === 'string' && kind in SERIES_QUERIES && Array.isArray(value.series)) {
      value.series.forEach((s, i) => {
        if (isObj(s) && !('kind' in s)) problems.push({ path: [...path, 'series', i], message: `a series item needs a \`kind\` (${SERIES_KINDS.slice(0, 2).join(' or ')}): the API's parser refuses one without it`, at: 'value' });
      });
    }
    for (const [k, v] of Object.entries(value)) if (v !== null && typeof v === 'object') walk(v, [...path, k]);
  };
  walk(query, []);
  return problems;
}
