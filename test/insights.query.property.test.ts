// Property: an insight's query compares equal to itself as the API keeps it. For generated
// queries q (series items with and without `kind`, nodes already stamped or not), the sandbox's
// model of the API's upgrade (what every read and the background rewrite do) gives a query that
// the insight kind's one normalisation makes equal to q; and any single real edit of q (a leaf
// value changed anywhere but a `version` stamp) makes it unequal, upgraded or not.
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { normalizeQuery } from '../src/resources/insight/query.js';
import { upgradeQuery } from '../src/resources/insight/sandbox.js';
import type { Json } from '../src/sandbox/json.js';

type Rec = Record<string, unknown>;
const maybeVersion = fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined });
const withVersion = (node: Rec, version: number | undefined): Rec => (version === undefined ? node : { ...node, version });

const seriesItem = fc.record({
  kind: fc.option(fc.constantFrom('EventsNode', 'ActionsNode'), { nil: undefined }),
  event: fc.option(fc.constantFrom('$pageview', 'signed_up', 'purchase'), { nil: undefined }),
  id: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
  math: fc.option(fc.constantFrom('total', 'dau', 'weekly_active'), { nil: undefined }),
  custom_name: fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
}, { requiredKeys: [] }).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)));
const cohortProperty = fc.record({ key: fc.constant('id'), type: fc.constant('cohort'), value: fc.integer({ min: 1, max: 9 }) });

const trends = fc.record({ series: fc.array(seriesItem, { maxLength: 4 }), interval: fc.constantFrom('day', 'week'), properties: fc.array(cohortProperty, { maxLength: 2 }), v: maybeVersion, display: fc.constantFrom('ActionsLineGraph', 'BoldNumber') })
  .map(({ v, display, ...q }) => withVersion({ kind: 'TrendsQuery', ...q, trendsFilter: { display } }, v));
const funnels = fc.record({ series: fc.array(seriesItem, { minLength: 2, maxLength: 3 }), exclusions: fc.array(seriesItem, { maxLength: 2 }), v: maybeVersion })
  .map(({ series, exclusions, v }) => withVersion({ kind: 'FunnelsQuery', series, funnelsFilter: { exclusions: exclusions.map((e) => ({ ...e, funnelFromStep: 0, funnelToStep: 1 })) } }, v));
const insightViz = fc.tuple(fc.oneof(trends, funnels), maybeVersion).map(([source, v]) => withVersion({ kind: 'InsightVizNode', source }, v));
const hogql = fc.tuple(fc.constantFrom('select 1', 'select count() from events', "select event from events where event = 'x'"), maybeVersion)
  .map(([query, v]) => ({ kind: 'DataVisualizationNode', source: withVersion({ kind: 'HogQLQuery', query }, v), display: 'ActionsTable' }));
const table = fc.array(fc.constantFrom('event', 'timestamp', 'person'), { minLength: 1, maxLength: 3 })
  .map((select) => ({ kind: 'DataTableNode', source: { kind: 'EventsQuery', select, limit: 100 } }));
const query = fc.oneof(insightViz, hogql, table);

/** Paths of every leaf but `version` stamps. */
function leaves(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => (k === 'version' ? [] : leaves(v, [...path, k])));
  return [path];
}
function edited(value: unknown, path: ReadonlyArray<string | number>): unknown {
  if (path.length === 0) return typeof value === 'number' ? value + 1 : typeof value === 'boolean' ? !value : `${String(value)}x`;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? edited(v, rest) : v));
  return { ...(value as Rec), [head]: edited((value as Rec)[head], rest) };
}
const same = (a: unknown, b: unknown) => isDeepStrictEqual(normalizeQuery(a), normalizeQuery(b));

describe('insight query comparison', () => {
  it('an upgraded query (versions stamped, kind-less series given kind) compares equal to its source', () => {
    fc.assert(fc.property(query, (q) => {
      const upgraded = upgradeQuery(q as Json);
      expect(same(upgraded, q)).toBe(true);
      // Upgrading again (the background rewrite of an already upgraded query) changes nothing either.
      expect(same(upgradeQuery(upgraded), q)).toBe(true);
    }), { numRuns: 300 });
  });

  it('any single-field edit compares unequal, to the source and to its upgrade', () => {
    const withEdit = query.chain((q) => fc.tuple(fc.constant(q), fc.constantFrom(...leaves(q))));
    fc.assert(fc.property(withEdit, ([q, path]) => {
      const changed = edited(q, path);
      expect(same(changed, q)).toBe(false);
      expect(same(changed, upgradeQuery(q as Json))).toBe(false);
    }), { numRuns: 300 });
  });

  it('the upgrade is visible in what the API answers: it is the normalisation that hides it', () => {
    const q: Json = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ event: '$pageview' }, { id: 7 }] } };
    expect(upgradeQuery(q)).toEqual({ kind: 'InsightVizNode', version: 1, source: { kind: 'TrendsQuery', version: 4, series: [{ event: '$pageview', kind: 'EventsNode', version: 1 }, { id: 7, kind: 'ActionsNode', version: 1 }] } });
    expect(isDeepStrictEqual(upgradeQuery(q), q)).toBe(false);
  });
});
