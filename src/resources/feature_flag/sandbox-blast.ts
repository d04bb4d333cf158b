// Feature flag evaluation over persons, the way PostHog evaluates release conditions: all
// property filters of a condition must match, then the person must fall inside the rollout by a
// stable hash of `${flagKey}.${distinctId}`. Used by user_blast_radius (honest counts over the
// seed's persons), evaluation_reasons and my_flags.
import { createHash } from 'node:crypto';
import { isObject, type Json, type JsonObject } from '../../sandbox/json.js';

export interface PropertyFilter { key: string; value?: Json; operator?: string; type?: string }
export interface Condition { properties?: PropertyFilter[]; rollout_percentage?: number | null; variant?: string | null }
export interface Person { distinct_id: string; properties: JsonObject }
export interface EvaluableFlag { key: string; active: boolean; filters: JsonObject }

export type Reason = 'condition_match' | 'no_condition_match' | 'out_of_rollout_bound' | 'no_group_type' | 'disabled';
export interface Evaluation { value: boolean | string; reason: Reason; condition_index: number | null }

/** A filter the sandbox cannot evaluate honestly (cohorts, groups, unknown operators). */
export class UnsupportedFilterError extends Error {}

const LONG_SCALE = Number(0xfffffffffffffffn);

/** PostHog's bucketing hash: the first 15 hex digits of sha1(`key.distinct_id` + salt) scaled to [0, 1]. */
export function flagHash(flagKey: string, distinctId: string, salt = ''): number {
  const hex = createHash('sha1').update(`${flagKey}.${distinctId}${salt}`, 'utf8').digest('hex').slice(0, 15);
  return Number(BigInt(`0x${hex}`)) / LONG_SCALE;
}

/** Inside the rollout: PostHog's own test is `hash <= rollout / 100` (null = everyone). */
export function inRollout(flagKey: string, distinctId: string, rollout: number | null | undefined): boolean {
  if (rollout === null || rollout === undefined) return true;
  return flagHash(flagKey, distinctId) <= rollout / 100;
}

const SUPPORTED = new Set(['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'is_set', 'is_not_set', 'gt', 'gte', 'lt', 'lte']);
/** Operators that hold for a person who lacks the property (as PostHog's query for them does). */
const MATCH_WHEN_MISSING = new Set(['is_not', 'not_icontains', 'not_regex', 'is_not_set']);

function str(value: Json | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

function exact(expected: Json | undefined, actual: Json): boolean {
  const a = str(actual).toLowerCase();
  if (Array.isArray(expected)) return expected.some((v) => str(v).toLowerCase() === a);
  return str(expected).toLowerCase() === a;
}

function regex(pattern: Json | undefined, actual: Json): boolean {
  try {
    return new RegExp(str(pattern)).test(str(actual));
  } catch {
    return false; // an invalid pattern matches nobody, as on the real API
  }
}

/** Numeric comparison when both sides are numbers (or numeric strings), else string comparison. */
function compare(actual: Json, expected: Json | undefined, op: string): boolean {
  const a = typeof actual === 'number' ? actual : Number(str(actual));
  const e = typeof expected === 'number' ? expected : Number(str(expected));
  const numeric = str(actual).trim() !== '' && str(expected).trim() !== '' && Number.isFinite(a) && Number.isFinite(e);
  const [l, r]: [number | string, number | string] = numeric ? [a, e] : [str(actual), str(expected)];
  switch (op) {
    case 'gt': return l > r;
    case 'gte': return l >= r;
    case 'lt': return l < r;
    default: return l <= r;
  }
}

/** Whether one person property filter holds. Throws UnsupportedFilterError for what cannot be evaluated. */
export function matchesProperty(filter: PropertyFilter, properties: JsonObject): boolean {
  const op = filter.operator ?? 'exact';
  const type = filter.type ?? 'person';
  if (type !== 'person') throw new UnsupportedFilterError(`property filters of type "${type}" are not supported by the sandbox`);
  if (!SUPPORTED.has(op)) throw new UnsupportedFilterError(`operator "${op}" is not supported by the sandbox`);
  if (!Object.prototype.hasOwnProperty.call(properties, filter.key) || properties[filter.key] === undefined) {
    return MATCH_WHEN_MISSING.has(op);
  }
  const actual = properties[filter.key] as Json;
  switch (op) {
    case 'exact': return exact(filter.value, actual);
    case 'is_not': return !exact(filter.value, actual);
    case 'icontains': return str(actual).toLowerCase().includes(str(filter.value).toLowerCase());
    case 'not_icontains': return !str(actual).toLowerCase().includes(str(filter.value).toLowerCase());
    case 'regex': return regex(filter.value, actual);
    case 'not_regex': return !regex(filter.value, actual);
    case 'is_set': return true;
    case 'is_not_set': return false;
    default: return compare(actual, filter.value, op);
  }
}

/** Reads a condition object leniently (stored filters are kept as sent). */
export function toCondition(value: Json | undefined): Condition {
  if (!isObject(value)) return {};
  const props = Array.isArray(value.properties) ? value.properties.filter(isObject) : [];
  return {
    properties: props.map((p) => ({
      key: typeof p.key === 'string' ? p.key : str(p.key),
      value: p.value,
      operator: typeof p.operator === 'string' ? p.operator : undefined,
      type: typeof p.type === 'string' ? p.type : undefined,
    })),
    rollout_percentage: typeof value.rollout_percentage === 'number' ? value.rollout_percentage : null,
    variant: typeof value.variant === 'string' ? value.variant : null,
  };
}

export function matchesFilters(condition: Condition, person: Person): boolean {
  return (condition.properties ?? []).every((f) => matchesProperty(f, person.properties));
}

/** user_blast_radius: persons who match every filter of the condition and fall inside its rollout. */
export function blastRadius(flagKey: string, condition: Condition, persons: readonly Person[]): { affected: number; total: number } {
  let affected = 0;
  for (const person of persons) {
    if (matchesFilters(condition, person) && inRollout(flagKey, person.distinct_id, condition.rollout_percentage)) affected++;
  }
  return { affected, total: persons.length };
}

interface Variant { key: string; rollout_percentage: number }

function variants(filters: JsonObject): Variant[] {
  const mv = filters.multivariate;
  if (!isObject(mv) || !Array.isArray(mv.variants)) return [];
  return mv.variants.filter(isObject).map((v) => ({ key: str(v.key), rollout_percentage: typeof v.rollout_percentage === 'number' ? v.rollout_percentage : 0 }));
}

/** The variant a person gets: buckets by a second hash (salt "variant") over cumulative percentages. */
function pickVariant(flagKey: string, distinctId: string, list: Variant[]): string | undefined {
  const h = flagHash(flagKey, distinctId, 'variant');
  let start = 0;
  for (const v of list) {
    const end = start + v.rollout_percentage / 100;
    if (h >= start && h < end) return v.key;
    start = end;
  }
  return undefined;
}

/** Evaluates a flag for one person: the value and why, like the real evaluation_reasons. */
export function evaluateFlag(flag: EvaluableFlag, person: Person): Evaluation {
  if (!flag.active) return { value: false, reason: 'disabled', condition_index: null };
  if (typeof flag.filters.aggregation_group_type_index === 'number') return { value: false, reason: 'no_group_type', condition_index: null };
  const groups = Array.isArray(flag.filters.groups) ? flag.filters.groups : [];
  const list = variants(flag.filters);
  let outOfRollout: number | null = null;
  for (const [index, raw] of groups.entries()) {
    const condition = toCondition(raw);
    let matched: boolean;
    try {
      matched = matchesFilters(condition, person);
    } catch (err) {
      if (err instanceof UnsupportedFilterError) continue; // cannot be evaluated here: treated as not matching
      throw err;
    }
    if (!matched) continue;
    if (!inRollout(flag.key, person.distinct_id, condition.rollout_percentage)) {
      outOfRollout ??= index;
      continue;
    }
    if (list.length === 0) return { value: true, reason: 'condition_match', condition_index: index };
    const override = condition.variant && list.some((v) => v.key === condition.variant) ? condition.variant : undefined;
    const variant = override ?? pickVariant(flag.key, person.distinct_id, list);
    return { value: variant ?? false, reason: 'condition_match', condition_index: index };
  }
  if (outOfRollout !== null) return { value: false, reason: 'out_of_rollout_bound', condition_index: outOfRollout };
  return { value: false, reason: 'no_condition_match', condition_index: null };
}
