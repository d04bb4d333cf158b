// Property: for generated release conditions x, the flag kind's comparison sees what the API
// stored as the same value as what was sent: normalize(apiRewrite(x)) == normalize(x), with the
// sandbox doing the rewriting (a POST, then the flag as the API answers it). Also: a change of
// meaning (another rollout, another operator) is never normalized away.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeFilters, normalizeTags } from '../src/resources/feature_flag/rules.js';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';

type Rec = Record<string, unknown>;
const P = 12345;
const F = `/api/projects/${P}/feature_flags`;

let c: Api;
let baseId = 0;
beforeAll(async () => {
  // Cohort properties name cohorts 1–99: the project holds them (the API refuses a flag on a missing cohort).
  const cohorts = Array.from({ length: 99 }, (_, i) => ({ id: i + 1, name: `Cohort ${i + 1}` }));
  const sb = await inProcessSandbox({ seed: { organizations: [{ id: DEFAULT_ORG, projects: [{ id: P, cohorts, feature_flags: [{ key: 'base', filters: { groups: [{}] } }] }] }] } });
  c = api(sb.baseUrl, sb.apiKey);
  baseId = (((await c.get(`${F}/`)).body as { results: Rec[] }).results[0] as Rec).id as number;
});
afterAll(stopAllSandboxes);

const rollout = fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(12.5, 33.3, 99.9), fc.constant(null));
const personProp = fc.record({
  key: fc.constantFrom('email', 'plan', 'age', '$browser'),
  type: fc.constant('person'),
  operator: fc.constantFrom('exact', 'is_not', 'icontains', 'regex', 'gt', 'lt', 'min', 'max', 'is_set'),
  value: fc.constantFrom('a', '18', 'x@example.com'),
});
const cohortProp = fc.record({ key: fc.constant('id'), type: fc.constant('cohort'), value: fc.integer({ min: 1, max: 99 }) });
const flagProp = fc.record({ key: fc.constantFrom('num', 'str'), type: fc.constant('flag'), operator: fc.constant('flag_evaluates_to'), value: fc.boolean() });
const VARIANT_SETS = [[], [['a', 100]], [['a', 50], ['b', 50]], [['control', 34], ['test', 33], ['other', 33]]] as const;
const payloadValue = fc.oneof(
  fc.record({ plan: fc.constantFrom('pro', 'free'), limit: fc.integer({ min: 0, max: 9 }) }),
  fc.integer({ min: -5, max: 5 }),
  fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }),
  fc.constantFrom('"text"', '{"a": 1}', '{"a":1,"b":[true,null]}', 'true'),
);

const filtersArb = fc.record({
  aggregate: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 2 })),
  variants: fc.constantFrom(...VARIANT_SETS),
  groups: fc.array(fc.record({
    props: fc.array(fc.oneof(personProp, personProp, cohortProp, flagProp), { maxLength: 3 }),
    rollout: fc.option(rollout),
    variant: fc.boolean(),
    noProperties: fc.boolean(),
  }), { minLength: 1, maxLength: 3 }),
  payloads: fc.array(payloadValue, { maxLength: 3 }),
  holdouts: fc.boolean(),
  explicitNulls: fc.boolean(),
});

type Generated = typeof filtersArb extends fc.Arbitrary<infer T> ? T : never;

/** Filters as a user might write them; every generated value is one the API accepts. */
function build(g: Generated): Rec {
  const agg = g.aggregate;
  const groups = g.groups.map((group) => {
    const props = group.props.map((p) => {
      if (agg !== null) return { key: String(p.key), type: 'group', group_type_index: agg, value: 'acme' };
      if (p.type === 'flag') return { ...p, key: p.key === 'num' ? baseId : String(baseId) };
      return p;
    });
    const out: Rec = {};
    if (!group.noProperties || props.length > 0) out.properties = props;
    if (group.rollout !== null) out.rollout_percentage = group.rollout;
    if (group.variant && g.variants.length > 0) out.variant = g.variants[0]?.[0];
    return out;
  });
  const filters: Rec = { groups };
  if (agg !== null) filters.aggregation_group_type_index = agg;
  else if (g.explicitNulls) filters.aggregation_group_type_index = null;
  if (g.variants.length > 0) filters.multivariate = { variants: g.variants.map(([key, pct]) => ({ key, rollout_percentage: pct })) };
  else if (g.explicitNulls) filters.multivariate = null;
  const keys = g.variants.length > 0 ? g.variants.map(([k]) => k) : ['true'];
  const payloads = Object.fromEntries(g.payloads.slice(0, keys.length).map((v, i) => [keys[i], v]));
  if (Object.keys(payloads).length > 0) filters.payloads = payloads;
  if (g.holdouts) {
    filters.holdout_groups = [{ properties: [], rollout_percentage: 10, variant: 'holdout-1' }];
    filters.super_groups = [{ properties: [{ key: '$feature_enrollment/x', type: 'person', value: ['true'], operator: 'exact' }], rollout_percentage: 100 }];
  }
  return filters;
}

let n = 0;
describe('flag filters: normalize(apiRewrite(x)) == normalize(x)', () => {
  it('holds for generated release conditions, the sandbox doing the rewriting', async () => {
    await fc.assert(fc.asyncProperty(filtersArb, async (g) => {
      const sent = build(g);
      const r = await c.post(`${F}/`, { key: `p${n++}`, filters: sent });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      const stored = (r.body as Rec).filters;
      expect(normalizeFilters(stored)).toEqual(normalizeFilters(sent));
      const reread = (await c.get(`${F}/${(r.body as Rec).id as number}/`)).body as Rec;
      expect(normalizeFilters(reread.filters)).toEqual(normalizeFilters(sent));
    }), { numRuns: 80 });
  });

  it('still tells apart conditions that mean different things', () => {
    const base = { groups: [{ properties: [{ key: 'age', type: 'person', operator: 'gte', value: '18' }], rollout_percentage: 20 }] };
    const other = [
      { groups: [{ properties: [{ key: 'age', type: 'person', operator: 'gt', value: '18' }], rollout_percentage: 20 }] },
      { groups: [{ properties: [{ key: 'age', type: 'person', operator: 'gte', value: '18' }], rollout_percentage: 21 }] },
      { ...base, multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] } },
      { ...base, payloads: { true: '{"a": 2}' } },
      { ...base, aggregation_group_type_index: 1 },
    ];
    for (const o of other) expect(normalizeFilters(o)).not.toEqual(normalizeFilters(base));
    expect(normalizeFilters({ ...base, payloads: { true: { a: 1 } } })).toEqual(normalizeFilters({ ...base, payloads: { true: '{"a": 1}' } }));
    expect(normalizeFilters({ groups: [{ properties: [{ key: 'age', type: 'person', operator: 'min', value: '18' }], rollout_percentage: 20.0 }] })).toEqual(normalizeFilters(base));
  });

  it('compares tags as a set, case-insensitively', () => {
    expect(normalizeTags(['Beta', 'team-A', 'beta'])).toEqual(normalizeTags(['team-a', 'beta']));
    expect(normalizeTags(['beta'])).not.toEqual(normalizeTags(['beta', 'gamma']));
  });
});
