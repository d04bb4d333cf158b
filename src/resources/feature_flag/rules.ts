// What the real API does to a feature flag's fields on every write, as comparison rules: the
// flag kind compares a declared value and a live value only after both went through the same
// rewriting, so a flag the API took plans empty. Confirmed in PostHog's public source
// (posthog/api/feature_flag.py, FeatureFlagSerializer; see README "Feature flags"):
//   - `aggregation_group_type_index` is set at the top (null unless groups are aggregated) and
//     in every group (a group-aggregated flag's index, copied into each group, compares equal);
//   - `properties` and `groups` default to [];
//   - payload values are stored as JSON strings: a payload written as a YAML object equals the
//     JSON string the API stores ("{\"a\": 1}" = {a: 1}), whatever the spacing;
//   - the operators `min`/`max` become `gte`/`lte`; property keys are strings (a `flag`
//     property's key 12 = "12");
//   - rollout percentages are numbers (20 = 20.0 = "20");
//   - `holdout_groups` and `super_groups` are dropped on any save;
//   - `cohort_name` is computed on every answer: ignored;
//   - top-level keys are merged into what is stored, so a key that is null or absent is the same;
//   - tags come back lower-cased, without duplicates, in the API's order: a set, case-insensitively.

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Numbers and numeric strings as numbers (20 = 20.0 = "20"); anything else as is. */
function num(v: unknown): unknown {
  if (typeof v === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)\s*$/.test(v)) return Number(v);
  return v ?? null;
}

/** Null and absent are the same inside filters: drop null members of objects, deeply. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (isObj(value)) {
    const out: Obj = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = dropNulls(v);
    return out;
  }
  return value;
}

function normalizeProperty(raw: unknown): unknown {
  if (!isObj(raw)) return raw;
  const { cohort_name: _computed, ...prop } = raw;
  // A reference by name (`{ feature_flag: KEY }`) stays as written: the plan shows it by name.
  if (prop.key !== undefined && prop.key !== null && typeof prop.key !== 'string' && !isObj(prop.key)) prop.key = JSON.stringify(prop.key);
  if (prop.operator === 'min') prop.operator = 'gte';
  if (prop.operator === 'max') prop.operator = 'lte';
  return prop;
}

/** A payload as the value it holds: JSON text parsed (the API stores JSON strings), anything else as is. */
export function payloadValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Server-computed keys inside a release condition, never compared. */
const COMPUTED_GROUP_KEYS = ['sort_key', 'users_affected'];

/** `filters` as the API would store it, in a form where equal means "the API holds the same". */
export function normalizeFilters(value: unknown): unknown {
  if (!isObj(value)) return value ?? null;
  const { holdout_groups: _h, super_groups: _s, ...rest } = value;
  const aggregation = num(rest.aggregation_group_type_index);
  const groups = (Array.isArray(rest.groups) ? rest.groups : []).map((g) => {
    if (!isObj(g)) return g;
    const group: Obj = { ...g };
    for (const k of COMPUTED_GROUP_KEYS) delete group[k];
    group.properties = (Array.isArray(g.properties) ? g.properties : []).map(normalizeProperty);
    group.rollout_percentage = num(g.rollout_percentage);
    group.aggregation_group_type_index = aggregation;
    return group;
  });
  const out: Obj = { ...rest, groups, aggregation_group_type_index: aggregation };
  if (isObj(rest.multivariate) && Array.isArray(rest.multivariate.variants)) {
    out.multivariate = {
      ...rest.multivariate,
      variants: rest.multivariate.variants.map((v) => (isObj(v) ? { ...v, rollout_percentage: num(v.rollout_percentage) } : v)),
    };
  }
  if (isObj(rest.payloads)) {
    const payloads: Obj = {};
    for (const [k, v] of Object.entries(rest.payloads)) payloads[k] = payloadValue(v);
    out.payloads = Object.keys(payloads).length > 0 ? payloads : null;
  }
  if (isObj(out.multivariate) && Array.isArray(out.multivariate.variants) && out.multivariate.variants.length === 0) out.multivariate = null;
  return dropNulls(out);
}

export { normalizeTags } from '../tags.js';

/** The flag ids a flag's release conditions depend on (`type: flag` properties name them). */
export function flagDependencies(filters: unknown): number[] {
  if (!isObj(filters) || !Array.isArray(filters.groups)) return [];
  const ids = new Set<number>();
  for (const g of filters.groups) {
    if (!isObj(g) || !Array.isArray(g.properties)) continue;
    for (const p of g.properties) {
      if (isObj(p) && p.type === 'flag' && /^\d+$/.test(String(p.key))) ids.add(Number(p.key));
    }
  }
  return [...ids];
}

/** The top-level keys of `filters` the live value holds and the declared one lacks: sent as null (the API merges). */
export function removedFilterKeys(declared: unknown, live: unknown): string[] {
  if (!isObj(declared) || !isObj(live)) return [];
  const ignore = new Set(['holdout_groups', 'super_groups']);
  return Object.keys(live).filter((k) => !(k in declared) && !ignore.has(k) && live[k] !== null && !(isObj(live[k]) && Object.keys(live[k] as Obj).length === 0));
}
