// A feature flag's `filters` as the real API keeps them, in PostHog's public source
// (products/feature_flags/backend/api/feature_flag.py, FeatureFlagSerializer, formerly
// posthog/api/feature_flag.py; see README "Feature flags as the real API keeps them"):
//
// 1. What the API does to them on every write, as comparison rules: the flag kind compares a
//    declared value and a live value only after both went through the same rewriting, so a flag
//    the API took plans empty:
//   - `aggregation_group_type_index` is set at the top (null unless groups are aggregated) and
//     in every group (a group-aggregated flag's index, copied into each group, compares equal);
//   - `properties` and `groups` default to [];
//   - payload values are stored as JSON strings: a payload written as a YAML object equals the
//     JSON string the API stores ("{\"a\": 1}" = {a: 1}), whatever the spacing;
//   - the operators `min`/`max` become `gte`/`lte`; property keys are strings (a `flag`
//     property's key 12 = "12");
//   - rollout percentages are numbers (20 = 20.0 = "20");
//   - `holdout_groups` and `super_groups` are dropped on any save; `feature_enrollment` and
//     `holdout` belong to an early access feature and an experiment: never compared;
//   - `cohort_name` (and, on newer versions, `group_key_names`) is computed on every answer: ignored;
//   - numeric comparisons (gt, gte, lt, lte) take their value as a string: 5 = "5";
//   - top-level keys are merged into what is stored, so a key that is null or absent is the same;
//   - tags come back lower-cased, without duplicates, in the API's order: a set, case-insensitively.
//
// 2. What the API knows inside `filters`, as data (property types, operators, what each
//    operator takes), each list beside the source file it comes from; the JSON Schema's enums
//    repeat the type and operator lists for editors (test/flags.rules.test.ts keeps them equal).
//
// 3. validateFlagEntry: what validate refuses that a JSON Schema cannot say: each value's shape
//    for its operator, which property types a condition set aggregated by persons or by a group
//    type takes, variants that sum to 100 with unique, well-formed keys, a condition set's
//    variant that is a variant key, payload keys and payload JSON text. Each problem says what
//    the API would do with it (refuse the flag, or store it and behave otherwise than meant),
//    from FeatureFlagSerializer.validate_filters unless a rule names another source. It runs once
//    per declared flag (and per override), one pass; the config layer places the problems at
//    file:line:col (src/config/validate-schema.ts).
import type { EntryProblem } from '../kind.js';

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

/**
 * `filters` as a request carries them: the value of a numeric comparison (gt, gte, lt, lte, and
 * the aliases min, max) as the string the API requires ("Invalid value for operator gt: 5"
 * otherwise; validate_filters), so a file may write the number; a property key written as a
 * number (a flag dependency's id) as the string the API stores. Everything else as declared.
 */
export function requestFilters(value: unknown): unknown {
  if (!isObj(value) || !Array.isArray(value.groups)) return value;
  let changed = false;
  const groups = value.groups.map((g) => {
    if (!isObj(g) || !Array.isArray(g.properties)) return g;
    let touched = false;
    const properties = g.properties.map((p) => {
      if (!isObj(p)) return p;
      const numericValue = typeof p.value === 'number' && typeof p.operator === 'string' && NUMERIC_OPERATORS.has(p.operator);
      if (!numericValue && typeof p.key !== 'number') return p;
      touched = true;
      return { ...p, ...(numericValue ? { value: String(p.value) } : {}), ...(typeof p.key === 'number' ? { key: String(p.key) } : {}) };
    });
    if (!touched) return g;
    changed = true;
    return { ...g, properties };
  });
  return changed ? { ...value, groups } : value;
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
const COMPUTED_GROUP_KEYS = new Set(['sort_key', 'users_affected']);
/** Keys other features own at the top of `filters` (dropped on any save, or server-owned): never compared. */
const OWNED_KEYS = new Set(['holdout_groups', 'super_groups', 'feature_enrollment', 'holdout']);
/** What a property holds that the API computes on every answer. */
const COMPUTED_PROPERTY_KEYS = new Set(['cohort_name', 'group_key_names']);

/** A value with its null members dropped (null and absent are the same inside filters). */
function kept(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? dropNulls(value) : value;
}

/** One property in its compared form, built in one pass (this runs for every flag of a plan). */
function comparedProperty(raw: unknown): unknown {
  if (!isObj(raw)) return kept(raw);
  const out: Obj = {};
  for (const k in raw) {
    const v = raw[k];
    if (v === null || v === undefined || COMPUTED_PROPERTY_KEYS.has(k)) continue;
    out[k] = kept(v);
  }
  // A reference by name (`{ feature_flag: KEY }`) stays as written: the plan shows it by name.
  if (out.key !== undefined && typeof out.key !== 'string' && !isObj(out.key)) out.key = JSON.stringify(out.key);
  if (out.operator === 'min') out.operator = 'gte';
  if (out.operator === 'max') out.operator = 'lte';
  if (typeof out.operator === 'string' && NUMERIC_OPERATORS.has(out.operator) && 'value' in out) {
    const n = num(out.value);
    if (n === null) delete out.value;
    else out.value = n;
  }
  return out;
}

/** One release condition in its compared form. */
function comparedGroup(raw: unknown, aggregation: unknown): unknown {
  if (!isObj(raw)) return kept(raw);
  const out: Obj = {};
  for (const k in raw) {
    if (k === 'properties' || k === 'rollout_percentage' || k === 'aggregation_group_type_index' || COMPUTED_GROUP_KEYS.has(k)) continue;
    const v = raw[k];
    if (v !== null && v !== undefined) out[k] = kept(v);
  }
  out.properties = Array.isArray(raw.properties) ? raw.properties.map(comparedProperty) : [];
  const rollout = num(raw.rollout_percentage);
  if (rollout !== null) out.rollout_percentage = rollout;
  if (aggregation !== null) out.aggregation_group_type_index = aggregation;
  return out;
}

/**
 * `filters` as the API would store it, in a form where equal means "the API holds the same"
 * (see the rules at the top of this file). Built in one pass, without null members: it runs on
 * both sides of every flag a plan compares.
 */
export function normalizeFilters(value: unknown): unknown {
  if (!isObj(value)) return value ?? null;
  const aggregation = num(value.aggregation_group_type_index);
  const out: Obj = {};
  for (const k in value) {
    if (OWNED_KEYS.has(k) || k === 'groups' || k === 'aggregation_group_type_index' || k === 'multivariate' || k === 'payloads') continue;
    const v = value[k];
    if (v !== null && v !== undefined) out[k] = kept(v);
  }
  out.groups = Array.isArray(value.groups) ? value.groups.map((g) => comparedGroup(g, aggregation)) : [];
  if (aggregation !== null) out.aggregation_group_type_index = aggregation;
  const multivariate = value.multivariate;
  if (isObj(multivariate) && Array.isArray(multivariate.variants)) {
    if (multivariate.variants.length > 0) {
      const mv = kept({ ...multivariate, variants: null }) as Obj;
      mv.variants = multivariate.variants.map((v) => {
        if (!isObj(v)) return kept(v);
        const variant = kept({ ...v, rollout_percentage: null }) as Obj;
        const rollout = num(v.rollout_percentage);
        if (rollout !== null) variant.rollout_percentage = rollout;
        return variant;
      });
      out.multivariate = mv;
    }
  } else if (multivariate !== null && multivariate !== undefined) {
    out.multivariate = kept(multivariate);
  }
  if (isObj(value.payloads)) {
    const payloads: Obj = {};
    let any = false;
    for (const [k, v] of Object.entries(value.payloads)) {
      any = true;
      const parsed = payloadValue(v);
      if (parsed !== null && parsed !== undefined) payloads[k] = kept(parsed);
    }
    if (any) out.payloads = payloads;
  } else if (value.payloads !== null && value.payloads !== undefined) {
    out.payloads = kept(value.payloads);
  }
  return out;
}

export { normalizeTags } from '../tags.js';

/** The flag ids a flag's release conditions depend on (`type: flag` properties name them). */
/** Whether a flag's filters name another flag (a `flag` property), without listing them. */
export function hasFlagDependency(filters: unknown): boolean {
  if (!isObj(filters) || !Array.isArray(filters.groups)) return false;
  for (const g of filters.groups) {
    if (!isObj(g) || !Array.isArray(g.properties)) continue;
    for (const p of g.properties) if (isObj(p) && p.type === 'flag') return true;
  }
  return false;
}

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

// ---- 2. What the API knows inside `filters` ----
/**
 * Property types a flag condition takes: products/feature_flags/backend/api/filters_schema.py
 * `FEATURE_FLAG_PROPERTY_TYPES` ("person", "cohort", "group", "flag"), the same four that
 * `FeatureFlagSerializer.validate_filters` allows (person, cohort and flag in a condition
 * aggregated by persons; group in one aggregated by a group type). A property without `type`
 * is an event property to the API's `Property` model (posthog/models/property/property.py:
 * `self.type = type if type else "event"`), which no flag takes.
 */
export const FLAG_PROPERTY_TYPES = ['person', 'cohort', 'group', 'flag'] as const;

/**
 * Operators the flag service evaluates: products/feature_flags/backend/api/feature_flag.py
 * `FEATURE_FLAG_SUPPORTED_OPERATORS` (kept in sync with `OperatorType` in
 * rust/feature-flags/src/properties/property_models.rs); an operator outside it is refused
 * ("Unsupported operator for feature flags"). No operator means `exact`.
 */
export const FLAG_OPERATORS = [
  'exact', 'is_not', 'icontains', 'not_icontains', 'icontains_multi', 'not_icontains_multi', 'regex', 'not_regex',
  'gt', 'gte', 'lt', 'lte',
  'semver_gt', 'semver_gte', 'semver_lt', 'semver_lte', 'semver_eq', 'semver_neq', 'semver_tilde', 'semver_caret', 'semver_wildcard',
  'is_set', 'is_not_set', 'is_date_exact', 'is_date_after', 'is_date_before', 'in', 'not_in', 'flag_evaluates_to',
] as const;

/**
 * Operators the API rewrites before it stores them: feature_flag.py `FEATURE_FLAG_OPERATOR_ALIASES`
 * (`min` → `gte`, `max` → `lte`).
 */
export const FLAG_OPERATOR_ALIASES: Readonly<Record<string, string>> = { min: 'gte', max: 'lte' };

/**
 * Operators whose value the API requires to be a string (validate_filters: "make sure regex,
 * icontains, gte, lte, lt, and gt properties have string values" → "Invalid value for operator").
 */
export const STRING_VALUE_OPERATORS: ReadonlySet<string> = new Set(['regex', 'icontains', 'not_regex', 'not_icontains', 'gte', 'lte', 'gt', 'lt']);

/** Numeric comparisons (and their aliases): the value is a number, written as the string the API requires. */
export const NUMERIC_OPERATORS: ReadonlySet<string> = new Set(['gt', 'gte', 'lt', 'lte', 'min', 'max']);

/** Operators that compare against a list (validate_filters: `icontains_multi` "requires a list of values"). */
export const LIST_OPERATORS: ReadonlySet<string> = new Set(['icontains_multi', 'not_icontains_multi']);

/** Operators that take a list as well as one value (property.py `lookup_q`: "exact and is_not operators can pass lists"). */
export const LIST_OR_SCALAR_OPERATORS: ReadonlySet<string> = new Set(['exact', 'is_not']);

/** Operators that ignore their value (property.py: `value` defaults to the operator's name for is_set / is_not_set). */
export const VALUELESS_OPERATORS: ReadonlySet<string> = new Set(['is_set', 'is_not_set']);

/**
 * Operators whose value is a date: validate_filters parses it with
 * posthog/models/property/relative_date.py `determine_parsed_date_for_property_matching`
 * (a relative date `-7d` = `^-?[0-9]+[hdwmy]$` below 10 000, else dateutil) → "Invalid date value".
 */
export const DATE_OPERATORS: ReadonlySet<string> = new Set(['is_date_exact', 'is_date_after', 'is_date_before']);

/** Semantic-version operators: validate_filters requires a string that `parse_semver` reads ("expected a semver string"). */
export const SEMVER_OPERATORS: ReadonlySet<string> = new Set(['semver_gt', 'semver_gte', 'semver_lt', 'semver_lte', 'semver_eq', 'semver_neq', 'semver_tilde', 'semver_caret', 'semver_wildcard']);

/** Regular expressions: the API refuses one Python's `re` cannot compile (posthog/utils.py `is_valid_regex`). */
export const REGEX_OPERATORS: ReadonlySet<string> = new Set(['regex', 'not_regex']);

/** Cohort membership (validate_filters: "The 'in' operator is only valid for cohort properties"). */
export const COHORT_OPERATORS: ReadonlySet<string> = new Set(['in', 'not_in']);

/** The one operator of a flag-dependency property (validate_filters: "Flag properties must use the 'flag_evaluates_to' operator"). */
export const FLAG_DEPENDENCY_OPERATOR = 'flag_evaluates_to';

/**
 * Group type indexes the API takes: posthog/models/filters/utils.py `validate_group_type_index`
 * (0 to GROUP_TYPES_LIMIT - 1 = 4; the sandbox refuses the same).
 */
export const MAX_GROUP_TYPE_INDEX = 4;

/** Values a property may list at most (feature_flag.py `MAX_PROPERTY_VALUES`). */
export const MAX_PROPERTY_VALUES = 1000;

/**
 * Keys of `filters` that the API owns, never a file: an early access feature's enrollment
 * (`feature_enrollment`; `super_groups` in older versions), an experiment's holdout (`holdout`;
 * `holdout_groups` before it). `super_groups` and `holdout_groups` are dropped on every save
 * (feature_flag.py: "Opportunistically strip legacy keys on save"; filters_schema.py
 * `LEGACY_UNKNOWN_FILTER_KEYS`). Never compared, never sent as removed.
 */
export const SERVER_OWNED_FILTER_KEYS: Readonly<Record<string, string>> = {
  feature_enrollment: 'the API sets it for the flag\'s early access feature',
  holdout: 'the API sets it when an experiment\'s holdout takes the flag',
  super_groups: 'the API drops it on every save (older versions kept an early access feature\'s enrollment there)',
  holdout_groups: 'the API drops it on every save (older versions kept an experiment\'s holdout there)',
};

// ---- 3. What validate refuses beyond the schema ----

type Path = Array<string | number>;

const isScalar = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const isId = (v: unknown): boolean => (typeof v === 'number' && Number.isInteger(v) && v > 0) || (typeof v === 'string' && /^\d+$/.test(v.trim()));
/** A reference by name (`{ cohort: Staff }`), resolved by the plan: one key, a non-empty name. */
const isRef = (v: unknown, kind: string): boolean => isObj(v) && Object.keys(v).length === 1 && typeof v[kind] === 'string' && (v[kind] as string) !== '';
const quoted = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 37)}…` : s);

/** The web app's rule for keys, variant keys included (letters, digits, "_" and "-"). */
const VARIANT_KEY = /^[a-zA-Z0-9_-]+$/;
/** posthog/models/property/relative_date.py `relative_date_parse_for_feature_flag_matching`. */
const RELATIVE_DATE = /^-?([0-9]+)([a-z])$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const SEMVER = /^\s*v?\d+(?:\.\d+)*(?:[-+][0-9A-Za-z.+-]*)?\s*$/;

/** Why a date value is not one the API parses, or undefined when it is. */
export function dateProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'write the date as text';
  const relative = RELATIVE_DATE.exec(value);
  if (relative) {
    if (!'hdwmy'.includes(relative[2] as string)) return `"${relative[2] as string}" is not a unit of a relative date (h, d, w, m or y)`;
    if (Number(relative[1]) >= 10_000) return 'a relative date counts fewer than 10000 units';
    return undefined;
  }
  if (/^-?\d+[A-Z]$/.test(value)) return 'relative dates are written in lower case (-7d)';
  const iso = ISO_DATE.exec(value);
  if (iso) {
    const [month, day] = [Number(iso[2]), Number(iso[3])];
    return month >= 1 && month <= 12 && day >= 1 && day <= 31 ? undefined : 'no such day';
  }
  // dateutil reads many more forms than ISO ("Jan 31 2024"); so does Date.parse, mostly alike.
  return /\d/.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : 'not a date';
}

/**
 * Why a regular expression is one Python's `re` would not compile (the API's check,
 * posthog/utils.py `is_valid_regex`), or undefined. Checked with JavaScript's RegExp after
 * rewriting Python's own syntax (inline flags `(?i)`, `(?i:…)`, `(?P<name>…)`, `(?P=name)`,
 * comments, atomic groups, possessive quantifiers) into JavaScript's; where JavaScript is
 * stricter than Python in a way this cannot rewrite (verbose mode, conditional groups), the
 * pattern is taken as valid: validate must never refuse a pattern the API takes.
 */
export function regexProblem(source: string): string | undefined {
  let pattern = source;
  let flags = '';
  const inline = /^\(\?([aiLmsux]+)\)/;
  for (let m = inline.exec(pattern); m; m = inline.exec(pattern)) {
    for (const f of m[1] as string) if ('ims'.includes(f) && !flags.includes(f)) flags += f;
    if ((m[1] as string).includes('x')) return undefined;
    pattern = pattern.slice(m[0].length);
  }
  if (pattern.includes('(?(')) return undefined;
  pattern = pattern
    .replace(/\(\?P<([A-Za-z_]\w*)>/g, '(?<$1>')
    .replace(/\(\?P=([A-Za-z_]\w*)\)/g, '\\k<$1>')
    .replace(/\(\?#[^)]*\)/g, '')
    .replace(/\(\?>/g, '(?:')
    .replace(/\(\?[aiLmsux]*(?:-[imsx]+)?:/g, '(?:')
    .replace(/([*+?}])\+/g, '$1');
  try {
    // eslint-disable-next-line no-new
    new RegExp(pattern, flags);
    return undefined;
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).split(': ').pop() ?? 'invalid';
    return reason.toLowerCase();
  }
}

interface Context {
  problems: EntryProblem[];
  /** The flag's aggregation: null for persons, a group type index, undefined when not readable. */
  aggregation: number | null | undefined;
}

function add(ctx: Context, path: Path, message: string, at: 'key' | 'value' = 'value'): void {
  ctx.problems.push({ path, message, at });
}

/** A property's value for its operator (person and group properties). */
function checkValue(ctx: Context, p: Obj, at: Path, op: string): void {
  const value = p.value;
  const v = [...at, 'value'];
  if (VALUELESS_OPERATORS.has(op)) {
    if (value !== undefined && value !== null && value !== op) {
      add(ctx, v, `${op} ignores its value, which by convention repeats the operator's name: write value: ${op}, or leave it out`);
    }
    return;
  }
  if (value === undefined || value === null) {
    add(ctx, at, `missing value for operator ${op}: the API refuses a property without one ("Value must be set")`);
    return;
  }
  if (Array.isArray(value)) {
    if (!LIST_OPERATORS.has(op) && !LIST_OR_SCALAR_OPERATORS.has(op)) {
      add(ctx, v, `operator ${op} takes one value, not a list (only exact and is_not take a list): the API refuses it`);
      return;
    }
    if (value.length > MAX_PROPERTY_VALUES) add(ctx, v, `a list of ${value.length} values: the API refuses more than ${MAX_PROPERTY_VALUES}`);
    const bad = value.findIndex((x) => (LIST_OPERATORS.has(op) ? typeof x !== 'string' : !isScalar(x)));
    if (bad >= 0) add(ctx, [...v, bad], `operator ${op} compares with ${LIST_OPERATORS.has(op) ? 'text' : 'text, numbers or booleans'}, not ${Array.isArray(value[bad]) ? 'a list' : isObj(value[bad]) ? 'a mapping' : String(value[bad])}`);
    return;
  }
  if (LIST_OPERATORS.has(op)) {
    add(ctx, v, `operator ${op} compares with a list of strings: the API refuses one value ("requires a list of values")`);
    return;
  }
  if (isObj(value)) {
    add(ctx, v, `operator ${op} compares with ${LIST_OR_SCALAR_OPERATORS.has(op) ? 'a value or a list of values' : 'one value'}, not a mapping`);
    return;
  }
  if (NUMERIC_OPERATORS.has(op)) {
    const numeric = typeof value === 'number' || (typeof value === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value));
    if (!numeric) add(ctx, v, `operator ${op} compares numbers: write a number, not ${typeof value === 'string' ? quoted(value) : String(value)} (the API would compare it as text)`);
    return;
  }
  if (STRING_VALUE_OPERATORS.has(op) && typeof value !== 'string') {
    add(ctx, v, `operator ${op} takes text: write it in quotes ("${String(value)}"); the API refuses ${typeof value === 'number' ? 'a number' : 'a boolean'} here ("Invalid value for operator ${op}")`);
    return;
  }
  if (REGEX_OPERATORS.has(op)) {
    const why = regexProblem(value as string);
    if (why) add(ctx, v, `not a valid regular expression (${why}): the API refuses it (it compiles patterns with Python's re); older versions keep it and the condition matches no one`);
    return;
  }
  if (DATE_OPERATORS.has(op)) {
    const why = dateProblem(value);
    if (why) add(ctx, v, `operator ${op} takes a date (2024-01-31, 2024-01-31T12:00:00Z) or a relative date (-24h, -7d, -2w, -1m, -1y), ${why}: the API refuses it ("Invalid date value")`);
    return;
  }
  if (SEMVER_OPERATORS.has(op) && (typeof value !== 'string' || !SEMVER.test(op === 'semver_wildcard' ? value.replace(/[.*]+$/, '') : value))) {
    add(ctx, v, `operator ${op} takes a version such as 1.2.3${op === 'semver_wildcard' ? ' or 1.2.*' : ''}: the API refuses anything else ("expected a semver string")`);
  }
}

/**
 * Each value's shape for its operator in property filters outside flags (a hog function's
 * filters, its events' and actions'): the flag's value rules, for every property type but the
 * cohort and flag ones (which flags alone take).
 */
export function propertyValueProblems(properties: unknown, at: Path): EntryProblem[] {
  const ctx: Context = { problems: [], aggregation: undefined };
  if (!Array.isArray(properties)) return ctx.problems;
  properties.forEach((p, i) => {
    if (!isObj(p) || p.type === 'cohort' || p.type === 'flag') return;
    const raw = p.operator;
    const op = typeof raw === 'string' ? FLAG_OPERATOR_ALIASES[raw] ?? raw : 'exact';
    if (!(FLAG_OPERATORS as readonly string[]).includes(op) || COHORT_OPERATORS.has(op) || op === FLAG_DEPENDENCY_OPERATOR) return;
    checkValue(ctx, p, [...at, i], op);
  });
  return ctx.problems;
}

function checkProperty(ctx: Context, p: unknown, at: Path): void {
  if (!isObj(p)) return;
  const type = p.type;
  const raw = p.operator;
  const op = typeof raw === 'string' ? FLAG_OPERATOR_ALIASES[raw] ?? raw : undefined;
  const opAt: Path = raw === undefined ? at : [...at, 'operator'];
  // An unknown type or operator is the schema's to report (with the nearest known one).
  if (!(FLAG_PROPERTY_TYPES as readonly unknown[]).includes(type) || (op !== undefined && !(FLAG_OPERATORS as readonly string[]).includes(op))) return;
  // Which properties a condition set takes depends on what it aggregates by.
  if (ctx.aggregation === null && type === 'group') {
    add(ctx, [...at, 'type'], 'a group property in a flag that matches persons: the API refuses it ("can only use person, cohort, and flag properties"); set filters.aggregation_group_type_index to its group type');
    return;
  }
  if (typeof ctx.aggregation === 'number' && typeof type === 'string' && type !== 'group') {
    add(ctx, [...at, 'type'], `a ${type} property in a flag that matches groups of group type ${ctx.aggregation}: the API refuses it ("can only use group properties")`);
    return;
  }
  if (type === 'group') {
    const index = p.group_type_index;
    if (index === undefined || index === null) add(ctx, at, 'a group property needs group_type_index (the flag\'s aggregation_group_type_index): the API refuses it without one');
    else if (typeof ctx.aggregation === 'number' && index !== ctx.aggregation) {
      add(ctx, [...at, 'group_type_index'], `group_type_index ${String(index)} is not the flag's aggregation_group_type_index (${ctx.aggregation}): the API refuses it ("can only use group properties" of the flag's group type)`);
    }
  }
  if (op !== undefined && COHORT_OPERATORS.has(op) && type !== 'cohort' && typeof type === 'string') {
    add(ctx, opAt, `operator ${op} is for cohort properties: the API refuses it on a ${type} property`);
    return;
  }
  if (type === 'flag') {
    if (raw !== FLAG_DEPENDENCY_OPERATOR) {
      add(ctx, opAt, `a flag property (a dependency on another flag) takes operator ${FLAG_DEPENDENCY_OPERATOR}: the API refuses ${raw === undefined ? 'one without it' : `"${String(raw)}"`} ("Flag properties must use the 'flag_evaluates_to' operator")`);
    }
    if (!isId(p.key) && !isRef(p.key, 'feature_flag')) {
      add(ctx, [...at, 'key'], `a flag property's key is the id of the flag it depends on (or { feature_flag: KEY }): the API refuses ${typeof p.key === 'string' ? `the key ${quoted(p.key)}` : 'anything else'} ("Flag dependencies must reference flag IDs")`);
    }
    const value = p.value;
    if (typeof value !== 'boolean' && !(typeof value === 'string' && value !== '')) {
      add(ctx, value === undefined ? at : [...at, 'value'], 'a flag property compares the other flag\'s value: true, false or one of its variant keys');
    }
    return;
  }
  if (type === 'cohort') {
    if (op !== undefined && !COHORT_OPERATORS.has(op)) {
      add(ctx, opAt, `a cohort property is membership: operator in or not_in (none means in), not ${op}`);
    }
    if (!isId(p.value) && !isRef(p.value, 'cohort')) {
      add(ctx, p.value === undefined ? at : [...at, 'value'], 'a cohort property\'s value is the cohort\'s id (or { cohort: NAME }): the API refuses anything else ("Cohort with id … does not exist")');
    }
    return;
  }
  if (op === FLAG_DEPENDENCY_OPERATOR) {
    add(ctx, opAt, `operator ${FLAG_DEPENDENCY_OPERATOR} is for flag properties (type: flag): on a ${String(type)} property it compares nothing the API evaluates`);
    return;
  }
  if (type === 'person' || type === 'group') checkValue(ctx, p, at, op ?? 'exact');
}

/** Variants: well-formed, unique keys whose percentages sum to exactly 100 (as the API sums them). */
function checkVariants(ctx: Context, mv: unknown): Set<string> {
  const keys = new Set<string>();
  if (!isObj(mv) || !Array.isArray(mv.variants)) return keys;
  const first = new Map<string, number>();
  let sum = 0;
  let summable = true;
  mv.variants.forEach((v, i) => {
    if (!isObj(v)) return;
    const at: Path = ['filters', 'multivariate', 'variants', i];
    if (typeof v.rollout_percentage === 'number') sum += v.rollout_percentage;
    else summable = false;
    if (typeof v.key !== 'string' || v.key === '') return;
    keys.add(v.key);
    if (!VARIANT_KEY.test(v.key)) {
      add(ctx, [...at, 'key'], `variant key ${quoted(v.key)} must be letters, digits, "_" and "-" (the web app's rule for keys): the API would store it, and the web app could not edit the flag`);
    }
    const seen = first.get(v.key);
    if (seen !== undefined) {
      add(ctx, [...at, 'key'], `variant key "${v.key}" is also variant ${seen + 1}: the API would keep both, serving "${v.key}" to both shares`);
    } else {
      first.set(v.key, i);
    }
  });
  // Summed in order from 0, as Python's sum() does: 33.33 + 33.33 + 33.34 is not exactly 100.
  if (summable && mv.variants.length > 0 && sum !== 100) {
    add(ctx, ['filters', 'multivariate', 'variants'], `variant rollout percentages sum to ${sum}, not 100: the API refuses the flag ("Variant rollout percentages must sum to 100")`);
  }
  return keys;
}

function checkPayloads(ctx: Context, filters: Obj, variantKeys: Set<string>): void {
  const payloads = filters.payloads;
  if (!isObj(payloads)) return;
  // The API's test is Python's truthiness of `multivariate`: a mapping with any key.
  const multivariate = isObj(filters.multivariate) && Object.keys(filters.multivariate).length > 0;
  const keys = [...variantKeys];
  for (const [key, value] of Object.entries(payloads)) {
    const at: Path = ['filters', 'payloads', key];
    if (multivariate && !variantKeys.has(key)) {
      add(ctx, at, `payload key ${quoted(key)} is not a variant key of this flag (${keys.length > 0 ? keys.join(', ') : 'it has none'}): the API refuses the flag ("Payload keys must match a variant key for multivariate flags")`, 'key');
    } else if (!multivariate && key !== 'true') {
      add(ctx, at, `payload key ${quoted(key)}: a boolean flag has one payload, under "true" (served while the flag is on); the API refuses the flag ("Payload keys must be 'true' for boolean flags")`, 'key');
    }
    if (typeof value === 'string') {
      try {
        JSON.parse(value);
      } catch {
        add(ctx, at, `the payload for ${quoted(key)} is text that is not JSON: the API refuses the flag ("Payload value is not valid JSON"); write the value itself (a mapping, a list, a number), or JSON text such as '"hello"'`);
      }
    }
  }
}

/**
 * Problems of one declared flag (or one project's override of a shared flag) as written, with
 * paths below the entry. Defensive: a value of the wrong type is the schema's to report.
 */
const SERVER_OWNED_ENTRIES = Object.entries(SERVER_OWNED_FILTER_KEYS);

export function validateFlagEntry(entry: Record<string, unknown>): EntryProblem[] {
  const filters = entry.filters;
  if (!isObj(filters)) return [];
  const agg = filters.aggregation_group_type_index;
  const ctx: Context = { problems: [], aggregation: agg === undefined || agg === null ? null : typeof agg === 'number' && Number.isInteger(agg) ? agg : undefined };
  for (const [key, reason] of SERVER_OWNED_ENTRIES) {
    if (key in filters) add(ctx, ['filters', key], `the API's, not the file's: ${reason}; remove it (hogsync never compares or removes it)`, 'key');
  }
  const variantKeys = checkVariants(ctx, filters.multivariate);
  if (Array.isArray(filters.groups)) {
    filters.groups.forEach((g, i) => {
      if (!isObj(g)) return;
      const at: Path = ['filters', 'groups', i];
      const variant = g.variant;
      if (typeof variant === 'string' && variant !== '' && !variantKeys.has(variant)) {
        const known = [...variantKeys];
        add(ctx, [...at, 'variant'], `variant "${variant}" is not a variant key of this flag (${known.length > 0 ? known.join(', ') : 'it has no variants'}): the API refuses the flag ("variant override does not exist")`);
      }
      const own = g.aggregation_group_type_index;
      if (own !== undefined && own !== null && ctx.aggregation !== undefined && own !== ctx.aggregation) {
        add(ctx, [...at, 'aggregation_group_type_index'], `${String(own)} is not the flag's aggregation_group_type_index (${ctx.aggregation === null ? 'none: persons' : ctx.aggregation}): the API replaces a condition set's with the flag's; set filters.aggregation_group_type_index instead`);
      }
      if (Array.isArray(g.properties)) g.properties.forEach((p, j) => checkProperty(ctx, p, [...at, 'properties', j]));
    });
  }
  checkPayloads(ctx, filters, variantKeys);
  return ctx.problems;
}
