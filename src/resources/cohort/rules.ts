// A cohort's `filters` as the real API keeps them, in PostHog's public source
// (posthog/api/cohort.py: CohortSerializer.validate_filters and the pydantic models CohortFilters,
// CohortFilterGroup, PersonFilter, CohortFilter, BehavioralFilter; posthog/models/property/
// property.py for behavioral values):
//
// 1. What the API does to them on every write, as comparison rules (normalizeCohortFilters):
//   - filters are validated by pydantic models and stored as `model_dump(exclude_none=True)`:
//     a key that is null is the same as one left out, and `negation` is stored as false on every
//     criterion that leaves it out;
//   - integers are taken from numeric strings (pydantic's lax mode): a cohort's id "5" is 5, a
//     behavioral time_value "30" is 30; an action's id (a behavioral key) compares as a number;
//   - newer versions compute `bytecode`, `bytecode_error` and `conditionHash` into each
//     criterion (realtime cohorts): never compared.
//
// 2. What validate refuses offline (validateCohortEntry), each problem saying what the API would
//    do: keys that do not belong to a criterion's type (the models forbid extra keys), a person
//    criterion without operator or value, criteria the calculation could not run (an unknown
//    behavioral value, one without the time window it needs), dates the API refuses, and filters
//    on a static cohort (its persons are data). Property types and operators are the flag kind's
//    lists (src/resources/feature_flag/rules.ts), not copies.
//
// 3. Which criteria are behavioral: the API refuses a flag that targets a cohort with behavioral
//    criteria, itself or through the cohorts it includes (static ones aside: their persons are
//    materialized), products/feature_flags/backend/api/feature_flag.py validate_filters.
import type { EntryProblem } from '../kind.js';
import { namedReference } from '../references.js';
import {
  COHORT_OPERATORS, DATE_OPERATORS, dateProblem, FLAG_DEPENDENCY_OPERATOR, FLAG_OPERATORS, LIST_OPERATORS, NUMERIC_OPERATORS,
  REGEX_OPERATORS, regexProblem, VALUELESS_OPERATORS,
} from '../feature_flag/rules.js';

type Obj = Record<string, unknown>;
type Path = Array<string | number>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Operators of a person criterion: the flag kind's, without those that compare cohorts and flags. */
export const COHORT_PERSON_OPERATORS: readonly string[] = FLAG_OPERATORS.filter((o) => !COHORT_OPERATORS.has(o) && o !== FLAG_DEPENDENCY_OPERATOR);

/** posthog/models/property/property.py BehavioralPropertyType. */
export const BEHAVIORAL_VALUES = [
  'performed_event', 'performed_event_multiple', 'performed_event_first_time', 'performed_event_sequence',
  'performed_event_regularly', 'stopped_performing_event', 'restarted_performing_event',
] as const;

/**
 * What each behavioral value needs besides key, value and event_type (property.py
 * VALIDATE_BEHAVIORAL_PROP_TYPES), and for performed_event(_multiple) one of two ways to say when
 * (VALIDATE_CONDITIONAL_BEHAVIORAL_PROP_TYPES): without them the cohort cannot be calculated.
 */
const BEHAVIORAL_NEEDS: Readonly<Record<string, readonly string[]>> = {
  performed_event: [],
  performed_event_multiple: ['operator_value'],
  performed_event_first_time: ['time_value', 'time_interval'],
  performed_event_sequence: ['time_value', 'time_interval', 'seq_event_type', 'seq_event', 'seq_time_value', 'seq_time_interval'],
  performed_event_regularly: ['time_value', 'time_interval', 'operator_value', 'min_periods', 'total_periods'],
  stopped_performing_event: ['time_value', 'time_interval', 'seq_time_value', 'seq_time_interval'],
  restarted_performing_event: ['time_value', 'time_interval', 'seq_time_value', 'seq_time_interval'],
};
const WHEN_NEEDED = new Set(['performed_event', 'performed_event_multiple']);

/** Keys the API computes into a criterion (newer versions): never the file's. */
export const COMPUTED_CRITERION_KEYS = ['bytecode', 'bytecode_error', 'conditionHash'] as const;

/** Keys each type of criterion takes (the pydantic models, extra="forbid"). */
const KEYS: Readonly<Record<string, ReadonlySet<string>>> = {
  AND: new Set(['type', 'values']),
  OR: new Set(['type', 'values']),
  person: new Set(['type', 'key', 'operator', 'value', 'negation']),
  cohort: new Set(['type', 'key', 'value', 'negation']),
  behavioral: new Set([
    'type', 'key', 'value', 'event_type', 'time_value', 'time_interval', 'negation', 'operator', 'operator_value', 'seq_time_interval',
    'seq_time_value', 'seq_event', 'seq_event_type', 'total_periods', 'min_periods', 'event_filters', 'explicit_datetime', 'explicit_datetime_to',
  ]),
};

/** Behavioral fields that hold integers (pydantic takes numeric strings for them). */
const INTEGER_KEYS = ['time_value', 'operator_value', 'seq_time_value', 'total_periods', 'min_periods'];

const toInt = (v: unknown): unknown => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v);

function normalizeCriterion(raw: unknown): unknown {
  if (!isObj(raw)) return raw;
  if (raw.type === 'AND' || raw.type === 'OR') {
    return { type: raw.type, values: Array.isArray(raw.values) ? raw.values.map(normalizeCriterion) : raw.values ?? null };
  }
  const out: Obj = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === null || v === undefined || (COMPUTED_CRITERION_KEYS as readonly string[]).includes(k)) continue;
    out[k] = v;
  }
  if (out.negation === false) delete out.negation;
  // A reference by name stays as written: the plan shows it by name.
  if (out.type === 'cohort' && !isObj(out.value)) out.value = toInt(out.value);
  if (out.type === 'behavioral') {
    for (const k of INTEGER_KEYS) if (k in out) out[k] = toInt(out[k]);
    if (out.event_type === 'actions' && !isObj(out.key)) out.key = toInt(out.key);
    if (out.seq_event_type === 'actions' && !isObj(out.seq_event)) out.seq_event = toInt(out.seq_event);
  }
  return out;
}

/** `filters` as the API would store them, in a form where equal means "the API holds the same". */
export function normalizeCohortFilters(value: unknown): unknown {
  if (!isObj(value)) return value ?? null;
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = k === 'properties' ? normalizeCriterion(v) : v;
  return out;
}

// ---- 3. Behavioral criteria, and the cohorts a cohort includes ----

/** Every criterion below a cohort's filters (groups walked), with its path. */
function criteria(filters: unknown, visit: (c: Obj, at: Path) => void): void {
  const walk = (node: unknown, at: Path): void => {
    if (!isObj(node)) return;
    if (node.type === 'AND' || node.type === 'OR') {
      if (Array.isArray(node.values)) node.values.forEach((v, i) => walk(v, [...at, 'values', i]));
      return;
    }
    visit(node, at);
  };
  if (isObj(filters)) walk(filters.properties, ['filters', 'properties']);
}

/** The behavioral criteria of a cohort's filters, as `value of key` ("performed_event of $pageview"). */
export function behavioralCriteria(filters: unknown): string[] {
  const out: string[] = [];
  criteria(filters, (c) => {
    if (c.type !== 'behavioral') return;
    const ref = namedReference(c.key);
    const what = ref ? `action ${ref.name}` : c.event_type === 'actions' ? `action ${String(c.key)}` : String(c.key);
    out.push(`${String(c.value)} ${what}`);
  });
  return out;
}

/** The cohorts a cohort's filters include, as written (ids or `{ cohort: NAME }`). */
export function includedCohorts(filters: unknown): unknown[] {
  const out: unknown[] = [];
  criteria(filters, (c) => {
    if (c.type === 'cohort' && c.value !== undefined && c.value !== null) out.push(c.value);
  });
  return out;
}

/** A cohort as a reference check sees it: its name and its fields (declared over live). */
export interface CohortView { name: string; fields: Record<string, unknown> }

/**
 * Why a flag may not target this cohort, or undefined: behavioral criteria in it or in a cohort it
 * includes (static cohorts have materialized persons: their criteria are never evaluated, and the
 * API stops looking there). `find` looks up an included cohort (an id or `{ cohort: NAME }`).
 */
export function flagTargetProblem(target: CohortView, find: (value: unknown) => CohortView | undefined): string | undefined {
  const seen = new Set<string>();
  const visit = (cohort: CohortView, via: string[]): string | undefined => {
    if (seen.has(cohort.name) || cohort.fields.is_static === true) return undefined;
    seen.add(cohort.name);
    const behavioral = behavioralCriteria(cohort.fields.filters);
    if (behavioral.length > 0) {
      const chain = via.length > 0 ? `includes ${via.map((n) => `cohort "${n}"`).join(', which includes ')}, which ` : '';
      const shown = behavioral.length > 2 ? `${behavioral.slice(0, 2).join(', ')} and ${behavioral.length - 2} more` : behavioral.join(', ');
      return `cohort "${target.name}" ${chain}has behavioral criteria (${shown}): the API refuses a flag that targets it `
        + `("Cohort '${cohort.name}' has an event-based condition and cannot be used in feature flags"); target a cohort of person properties, or a static cohort`;
    }
    for (const value of includedCohorts(cohort.fields.filters)) {
      const inner = find(value);
      if (!inner) continue;
      const found = visit(inner, [...via, inner.name]);
      if (found) return found;
    }
    return undefined;
  };
  return visit(target, []);
}

// ---- 2. What validate refuses beyond the schema ----

const quoted = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 37)}…` : s);
const isId = (v: unknown): boolean => (typeof v === 'number' && Number.isInteger(v) && v > 0) || (typeof v === 'string' && /^\d+$/.test(v.trim()));
const isRef = (v: unknown, kind: string): boolean => isObj(v) && Object.keys(v).length === 1 && typeof v[kind] === 'string' && (v[kind] as string) !== '';

function checkPerson(c: Obj, at: Path, add: (path: Path, message: string, where?: 'key' | 'value') => void): void {
  const op = c.operator;
  if (op === undefined || op === null) {
    add(at, 'a person criterion needs an operator (exact, icontains, is_set, …): the API refuses one without it ("Missing required keys for person filter: operator")');
    return;
  }
  if (typeof op !== 'string' || !COHORT_PERSON_OPERATORS.includes(op)) return; // the schema's to report
  const value = c.value;
  const v = [...at, 'value'];
  if (VALUELESS_OPERATORS.has(op)) return;
  if (value === undefined || value === null) {
    add(at, `missing value for operator ${op}: the API refuses a person criterion without one ("Missing required keys for person filter: value")`);
    return;
  }
  if (LIST_OPERATORS.has(op) && !Array.isArray(value)) {
    add(v, `operator ${op} compares with a list of strings, not one value`);
    return;
  }
  if (Array.isArray(value) && op !== 'exact' && op !== 'is_not' && !LIST_OPERATORS.has(op)) {
    add(v, `operator ${op} takes one value, not a list (only exact and is_not take a list): calculating the cohort would fail`);
    return;
  }
  if (NUMERIC_OPERATORS.has(op) && !(typeof value === 'number' || (typeof value === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)\s*$/.test(value)))) {
    add(v, `operator ${op} compares numbers: write a number, not ${typeof value === 'string' ? quoted(value) : JSON.stringify(value)}`);
    return;
  }
  if (REGEX_OPERATORS.has(op) && typeof value === 'string') {
    const why = regexProblem(value);
    if (why) add(v, `not a valid regular expression (${why}): calculating the cohort would fail`);
    return;
  }
  // The API parses dates of is_date_after and is_date_before (PersonValueValidationMixin).
  if (DATE_OPERATORS.has(op) && op !== 'is_date_exact') {
    const why = dateProblem(value);
    if (why) add(v, `operator ${op} takes a date (2024-01-31) or a relative date (-7d, 30d), ${why}: the API refuses it ("Invalid date value")`);
  }
}

function checkBehavioral(c: Obj, at: Path, add: (path: Path, message: string, where?: 'key' | 'value') => void): void {
  for (const required of ['key', 'value', 'event_type']) {
    if (c[required] === undefined || c[required] === null) {
      add(at, `a behavioral criterion needs ${required}: the API refuses one without it ("Missing required keys for behavioral filter: ${required}")`);
      return;
    }
  }
  const value = c.value;
  if (typeof value !== 'string' || !(BEHAVIORAL_VALUES as readonly string[]).includes(value)) {
    add([...at, 'value'], `${typeof value === 'string' ? quoted(value) : 'this'} is not something a person can have done (${BEHAVIORAL_VALUES.join(', ')}): the API would store it, and calculating the cohort would fail`);
    return;
  }
  if (c.event_type === 'actions' && !isId(c.key) && !isRef(c.key, 'action')) {
    add([...at, 'key'], 'with event_type actions, key is the action\'s id (or { action: NAME }): the API would look for an action that is not there');
  } else if (c.event_type === 'events' && typeof c.key !== 'string') {
    add([...at, 'key'], 'with event_type events, key is the event\'s name (for an action, set event_type: actions)');
  }
  const missing = (BEHAVIORAL_NEEDS[value] ?? []).filter((k) => c[k] === undefined || c[k] === null);
  if (missing.length > 0) {
    add(at, `${value} needs ${missing.join(', ')}: the API would store the criterion, and calculating the cohort would fail`);
    return;
  }
  if (WHEN_NEEDED.has(value) && !((c.time_value != null && c.time_interval != null) || c.explicit_datetime != null)) {
    add(at, `${value} needs a window: time_value and time_interval (in the last 30 days: 30, day), or explicit_datetime; calculating the cohort would fail without one`);
  }
  if (c.seq_event !== undefined && c.seq_event_type === 'actions' && !isId(c.seq_event) && !isRef(c.seq_event, 'action')) {
    add([...at, 'seq_event'], 'with seq_event_type actions, seq_event is the action\'s id (or { action: NAME })');
  }
}

/**
 * Problems of one declared cohort (or one project's override of a shared one) as written, with
 * paths below the entry. Defensive: a value of the wrong type is the schema's to report.
 */
export function validateCohortEntry(entry: Record<string, unknown>): EntryProblem[] {
  const problems: EntryProblem[] = [];
  const add = (path: Path, message: string, at: 'key' | 'value' = 'value') => problems.push({ path, message, at });
  const filters = entry.filters;
  if (entry.is_static === true && filters !== undefined && filters !== null) {
    add(['filters'], 'a static cohort\'s persons are uploaded data, not criteria: it declares a name and description only (the API refuses to change the criteria of a static cohort); remove filters, or is_static', 'key');
    return problems;
  }
  if (!isObj(filters)) return problems;
  const walk = (node: unknown, at: Path): void => {
    if (!isObj(node)) return;
    const type = node.type;
    if (typeof type !== 'string' || !(type in KEYS)) return; // the schema's to report
    for (const key of Object.keys(node)) {
      if ((COMPUTED_CRITERION_KEYS as readonly string[]).includes(key)) {
        add([...at, key], 'the API\'s, not the file\'s: it computes it on every write; remove it (hogsync never compares it)', 'key');
      } else if (!(KEYS[type] as ReadonlySet<string>).has(key)) {
        const what = type === 'AND' || type === 'OR' ? 'an AND / OR group takes type and values' : `a ${type} criterion takes ${[...(KEYS[type] as ReadonlySet<string>)].join(', ')}`;
        add([...at, key], `${key} does not belong here: ${what}; the API refuses the cohort (extra keys are not permitted)`, 'key');
      }
    }
    if (type === 'AND' || type === 'OR') {
      if (!Array.isArray(node.values)) add(at, `an ${type} group needs values (its criteria): the API refuses one without them`);
      else node.values.forEach((v, i) => walk(v, [...at, 'values', i]));
      return;
    }
    if (type === 'person') {
      if (typeof node.key !== 'string' || node.key === '') add(node.key === undefined ? at : [...at, 'key'], 'a person criterion\'s key is the property\'s name (email, $browser)');
      else checkPerson(node, at, add);
    } else if (type === 'cohort') {
      if (node.key !== 'id') add(node.key === undefined ? at : [...at, 'key'], 'a cohort criterion\'s key is "id": the API refuses anything else');
      if (!isId(node.value) && !isRef(node.value, 'cohort')) {
        add(node.value === undefined ? at : [...at, 'value'], 'a cohort criterion\'s value is the cohort\'s id (or { cohort: NAME }): the API refuses anything else');
      }
    } else {
      checkBehavioral(node, at, add);
    }
  };
  const root = filters.properties;
  if (isObj(root)) {
    for (const key of Object.keys(root)) {
      if (key !== 'type' && key !== 'values') add(['filters', 'properties', key], `${key} does not belong here: the outermost group takes type (AND or OR) and values; the API refuses the cohort`, 'key');
    }
    if (Array.isArray(root.values)) root.values.forEach((v, i) => walk(v, ['filters', 'properties', 'values', i]));
  }
  return problems;
}
