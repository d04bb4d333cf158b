// A change of a feature flag's `filters` in the web app's words: per condition set its
// rollout, the properties added, removed or changed (operators named as the web app names
// them), its variant override; the variant split; payloads per variant (values of sensitive
// payloads never shown); the flag-level aggregation. Condition sets are matched by position
// (sets that did not change anchor the match, so removing one set does not shift the rest);
// a pure reordering says so. Whatever it cannot describe comes back as a JSON part, which
// renderers show as the JSON diff of that part: never silence.
// Pure: no I/O, no rendering; text is raw (renderers make it printable).
import { namedReference } from '../references.js';

type Obj = Record<string, unknown>;

/** One line a reviewer reads: `+` added, `-` removed, `~` changed, ` ` a note. */
export interface FlagTextLine { kind: 'text'; sign: '+' | '-' | '~' | ' '; text: string }
/** A part it cannot describe: shown as the JSON diff of `before` → `after`, under `label`. */
export interface FlagJsonPart { kind: 'json'; label: string; before: unknown; after: unknown }
export type FlagLine = FlagTextLine | FlagJsonPart;

export interface DescribeOptions {
  /** The flag's payloads are secrets (encrypted payloads): their values are never shown. */
  sensitivePayloads?: boolean;
  /** The placeholder of a redacted value: a payload holding it is sensitive. */
  redacted?: string;
}

/**
 * Operator labels of the web app's property filters (frontend `genericOperatorMap` and its
 * siblings in posthog/posthog), without their symbol. `exact` and `is_not` with several
 * values read "is one of" / "is not one of", as the web app shows a multi-value filter.
 */
const OPERATORS: Readonly<Record<string, string>> = {
  exact: 'equals',
  is_not: "doesn't equal",
  icontains: 'contains',
  not_icontains: "doesn't contain",
  regex: 'matches regex',
  not_regex: "doesn't match regex",
  gt: 'greater than',
  gte: 'greater than or equal',
  lt: 'less than',
  lte: 'less than or equal',
  is_set: 'is set',
  is_not_set: 'is not set',
  is_date_exact: 'on the date',
  is_date_before: 'before',
  is_date_after: 'after',
  semver_eq: 'equals (semver)',
  semver_neq: 'not equal (semver)',
  semver_gt: 'greater than (semver)',
  semver_gte: 'greater than or equal (semver)',
  semver_lt: 'less than (semver)',
  semver_lte: 'less than or equal (semver)',
  semver_tilde: 'tilde range (semver)',
  semver_caret: 'caret range (semver)',
  semver_wildcard: 'wildcard (semver)',
  in: 'user in',
  not_in: 'user not in',
  flag_evaluates_to: 'evaluates to',
};
const NO_VALUE = new Set(['is_set', 'is_not_set']);
/** Keys of a condition set this module reads; any other key that changed falls back to JSON. */
const SET_KEYS = new Set(['properties', 'rollout_percentage', 'variant', 'aggregation_group_type_index', 'description']);
/** Keys of a property it reads (the API computes cohort_name). */
const PROPERTY_KEYS = new Set(['key', 'type', 'operator', 'value', 'group_type_index', 'cohort_name', 'negation']);
const FILTER_KEYS = new Set(['groups', 'multivariate', 'payloads', 'aggregation_group_type_index']);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON with sorted keys, for comparing values regardless of key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObj(value)) {
    return `{${Object.keys(value).filter((k) => value[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

function percent(value: unknown): string {
  if (value === null || value === undefined) return '100% (unset)';
  return typeof value === 'number' ? `${Number(value.toFixed(4))}%` : `${String(value)}%`;
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** A property in the web app's words; undefined when it is a shape this module does not know. */
export function describeProperty(p: unknown): string | undefined {
  if (!isObj(p)) return undefined;
  // A flag the property depends on may be named (`key: { feature_flag: KEY }`), as may a cohort.
  const flagNamed = namedReference(p.key);
  if (typeof p.key !== 'string' && !(flagNamed && p.type === 'flag')) return undefined;
  if (Object.keys(p).some((k) => !PROPERTY_KEYS.has(k))) return undefined;
  const type = typeof p.type === 'string' ? p.type : 'person';
  const operator = typeof p.operator === 'string' ? p.operator : 'exact';
  const label = OPERATORS[operator];
  if (label === undefined || p.negation === true) return undefined;
  if (type === 'cohort') {
    if (operator !== 'in' && operator !== 'not_in' && p.operator !== undefined) return undefined;
    const named = namedReference(p.value);
    const name = named ? named.name : typeof p.cohort_name === 'string' && p.cohort_name !== '' ? `${p.cohort_name} (${scalar(p.value)})` : scalar(p.value);
    return `${OPERATORS[p.operator === undefined ? 'in' : operator]} cohort ${name}`;
  }
  if (type === 'flag') {
    if (operator !== 'flag_evaluates_to') return undefined;
    return `flag ${flagNamed ? flagNamed.name : String(p.key)} evaluates to ${scalar(p.value)}`;
  }
  if (typeof p.key !== 'string') return undefined;
  const subject = type === 'person' ? p.key : type === 'group' && typeof p.group_type_index === 'number' ? `${p.key} (group type ${p.group_type_index})` : `${p.key} (${type})`;
  if (NO_VALUE.has(operator)) return `${subject} ${label}`;
  const value = p.value;
  if (value === undefined || isObj(value) || (Array.isArray(value) && value.some((v) => isObj(v) || Array.isArray(v)))) return undefined;
  if (Array.isArray(value)) {
    const list = value.map(scalar).join(', ');
    if (value.length !== 1 && operator === 'exact') return `${subject} is one of ${list}`;
    if (value.length !== 1 && operator === 'is_not') return `${subject} is not one of ${list}`;
    return `${subject} ${label} ${list}`;
  }
  return `${subject} ${label} ${scalar(value)}`;
}

function propertiesOf(set: Obj): unknown[] {
  return Array.isArray(set.properties) ? set.properties : [];
}

/** The identity of a property for pairing a removed one with an added one: same key and type. */
function propertyIdentity(p: unknown): string {
  return isObj(p) ? `${String(p.type ?? 'person')}\u0000${String(p.key)}\u0000${String(p.group_type_index ?? '')}` : canonical(p);
}

/** Drops what the API computes inside a property (cohort_name) before comparing. */
function comparable(p: unknown): unknown {
  if (!isObj(p) || !('cohort_name' in p)) return p;
  const { cohort_name: _computed, ...rest } = p;
  return rest;
}

/** One condition set in one line: "email contains @example.com and plan equals pro, rollout 100%". */
function summarizeSet(set: Obj): string | undefined {
  const props = propertiesOf(set).map(describeProperty);
  if (props.some((p) => p === undefined)) return undefined;
  for (const k of Object.keys(set)) if (!SET_KEYS.has(k) && set[k] !== undefined && set[k] !== null) return undefined;
  const who = props.length === 0 ? 'everyone' : props.join(' and ');
  const variant = typeof set.variant === 'string' ? `, variant ${set.variant}` : '';
  const description = typeof set.description === 'string' && set.description !== '' ? ` ("${set.description}")` : '';
  return `${who}, rollout ${percent(set.rollout_percentage)}${variant}${description}`;
}

function describePropertyChanges(label: string, before: unknown[], after: unknown[]): FlagLine[] {
  const out: FlagLine[] = [];
  const left = before.map((p) => ({ p, used: false }));
  const added: unknown[] = [];
  for (const p of after) {
    const match = left.find((l) => !l.used && same(comparable(l.p), comparable(p)));
    if (match) match.used = true;
    else added.push(p);
  }
  const removed = left.filter((l) => !l.used).map((l) => l.p);
  // A removed and an added property with the same key and type read as one change.
  for (const p of added) {
    const i = removed.findIndex((r) => propertyIdentity(r) === propertyIdentity(p));
    const was = i >= 0 ? removed.splice(i, 1)[0] : undefined;
    const now = describeProperty(p);
    if (was !== undefined) {
      const then = describeProperty(was);
      if (now !== undefined && then !== undefined) out.push({ kind: 'text', sign: '~', text: `${label}: ${then} → ${now}` });
      else out.push({ kind: 'json', label: `${label}: property ${isObj(p) ? String(p.key) : ''}`.trimEnd(), before: was, after: p });
    } else if (now !== undefined) {
      out.push({ kind: 'text', sign: '+', text: `${label}: ${now}` });
    } else {
      out.push({ kind: 'json', label: `${label}: property added`, before: null, after: p });
    }
  }
  for (const p of removed) {
    const then = describeProperty(p);
    if (then !== undefined) out.push({ kind: 'text', sign: '-', text: `${label}: ${then}` });
    else out.push({ kind: 'json', label: `${label}: property removed`, before: p, after: null });
  }
  // Removed first, then changed and added, as a reviewer reads a rule being rewritten.
  return [...out.filter((l) => l.kind === 'text' && l.sign === '-'), ...out.filter((l) => !(l.kind === 'text' && l.sign === '-'))];
}

function describeSetChange(label: string, before: Obj, after: Obj, flagAggregationChanged: boolean): FlagLine[] {
  const out: FlagLine[] = [];
  if (!same(before.rollout_percentage, after.rollout_percentage)) {
    out.push({ kind: 'text', sign: '~', text: `${label}: rollout ${percent(before.rollout_percentage)} → ${percent(after.rollout_percentage)}` });
  }
  const bp = propertiesOf(before);
  const ap = propertiesOf(after);
  if ((before.properties !== undefined && !Array.isArray(before.properties)) || (after.properties !== undefined && !Array.isArray(after.properties))) {
    out.push({ kind: 'json', label: `${label}: properties`, before: before.properties, after: after.properties });
  } else if (!same(bp.map(comparable), ap.map(comparable))) {
    const lines = describePropertyChanges(label, bp, ap);
    if (lines.length === 0) out.push({ kind: 'text', sign: '~', text: `${label}: properties reordered` });
    out.push(...lines);
  }
  if (!same(before.variant ?? null, after.variant ?? null)) {
    const name = (v: unknown): string => (v === null || v === undefined ? 'none' : scalar(v));
    out.push({ kind: 'text', sign: '~', text: `${label}: variant override ${name(before.variant)} → ${name(after.variant)}` });
  }
  if (!same(before.description ?? null, after.description ?? null)) {
    out.push({ kind: 'text', sign: '~', text: `${label}: description ${JSON.stringify(before.description ?? null)} → ${JSON.stringify(after.description ?? null)}` });
  }
  // A set's aggregation follows the flag's: said once at the flag level when that changed.
  if (!flagAggregationChanged && !same(before.aggregation_group_type_index ?? null, after.aggregation_group_type_index ?? null)) {
    out.push({ kind: 'text', sign: '~', text: `${label}: match by ${matchBy(before.aggregation_group_type_index)} → ${matchBy(after.aggregation_group_type_index)}` });
  }
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (SET_KEYS.has(k) || same(before[k] ?? null, after[k] ?? null)) continue;
    out.push({ kind: 'json', label: `${label}: ${k}`, before: before[k] ?? null, after: after[k] ?? null });
  }
  return out;
}

function matchBy(index: unknown): string {
  return index === null || index === undefined ? 'users' : `group type ${scalar(index)}`;
}

/** Pairs of positions (before, after) of sets that did not change: a longest common subsequence. */
function anchors(before: string[], after: string[]): Array<[number, number]> {
  const n = before.length;
  const m = after.length;
  const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const row = table[i] as number[];
      row[j] = before[i] === after[j] ? (table[i + 1] as number[])[j + 1] as number + 1 : Math.max((table[i + 1] as number[])[j] as number, row[j + 1] as number);
    }
  }
  const out: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (before[i] === after[j]) {
      out.push([i, j]);
      i++;
      j++;
    } else if (((table[i + 1] as number[])[j] as number) >= ((table[i] as number[])[j + 1] as number)) {
      i++;
    } else {
      j++;
    }
  }
  return out;
}

function describeGroups(before: unknown, after: unknown, flagAggregationChanged: boolean): FlagLine[] {
  if ((before !== undefined && before !== null && !Array.isArray(before)) || (after !== undefined && after !== null && !Array.isArray(after))) {
    return [{ kind: 'json', label: 'condition sets', before, after }];
  }
  const b = (Array.isArray(before) ? before : []) as unknown[];
  const a = (Array.isArray(after) ? after : []) as unknown[];
  if (![...b, ...a].every(isObj)) return [{ kind: 'json', label: 'condition sets', before, after }];
  const bs = b as Obj[];
  const as = a as Obj[];
  const bKeys = bs.map((s) => canonical({ ...s, properties: propertiesOf(s).map(comparable) }));
  const aKeys = as.map((s) => canonical({ ...s, properties: propertiesOf(s).map(comparable) }));
  if (bKeys.join('\n') === aKeys.join('\n')) return [];
  if (bKeys.length === aKeys.length && [...bKeys].sort().join('\n') === [...aKeys].sort().join('\n')) {
    // The same sets in another order: say where each went (the first match wins for duplicates).
    const taken = new Set<number>();
    const from = aKeys.map((k) => {
      const i = bKeys.findIndex((x, idx) => x === k && !taken.has(idx));
      taken.add(i);
      return i + 1;
    });
    // Order matters: a user gets the first set they match (its variant override, its rollout).
    return [{ kind: 'text', sign: '~', text: `condition sets reordered: ${from.map((_, i) => i + 1).join(', ')} → ${from.join(', ')}` }];
  }
  const out: FlagLine[] = [];
  const pairs = [...anchors(bKeys, aKeys), [bs.length, as.length] as [number, number]];
  let bi = 0;
  let ai = 0;
  for (const [bEnd, aEnd] of pairs) {
    // Between two unchanged sets: pair the rest by position; the surplus was added or removed.
    while (bi < bEnd && ai < aEnd) {
      const label = bi === ai ? `condition set ${ai + 1}` : `condition set ${ai + 1} (was ${bi + 1})`;
      out.push(...describeSetChange(label, bs[bi] as Obj, as[ai] as Obj, flagAggregationChanged));
      bi++;
      ai++;
    }
    for (; bi < bEnd; bi++) {
      const text = summarizeSet(bs[bi] as Obj);
      out.push(text === undefined ? { kind: 'json', label: `condition set ${bi + 1} removed`, before: bs[bi], after: null } : { kind: 'text', sign: '-', text: `condition set ${bi + 1}: ${text}` });
    }
    for (; ai < aEnd; ai++) {
      const text = summarizeSet(as[ai] as Obj);
      out.push(text === undefined ? { kind: 'json', label: `condition set ${ai + 1} added`, before: null, after: as[ai] } : { kind: 'text', sign: '+', text: `condition set ${ai + 1}: ${text}` });
    }
    bi = bEnd + 1;
    ai = aEnd + 1;
  }
  return out;
}

function variantsOf(mv: unknown): Obj[] | undefined {
  if (mv === null || mv === undefined) return [];
  if (!isObj(mv) || !Array.isArray(mv.variants) || !mv.variants.every((v) => isObj(v) && typeof v.key === 'string')) return undefined;
  return mv.variants as Obj[];
}

function describeVariants(before: unknown, after: unknown): FlagLine[] {
  const bv = variantsOf(before);
  const av = variantsOf(after);
  if (bv === undefined || av === undefined) return [{ kind: 'json', label: 'variants', before, after }];
  const out: FlagLine[] = [];
  for (const k of new Set([...Object.keys(isObj(before) ? before : {}), ...Object.keys(isObj(after) ? after : {})])) {
    if (k === 'variants') continue;
    const was = isObj(before) ? before[k] : undefined;
    const now = isObj(after) ? after[k] : undefined;
    if (!same(was ?? null, now ?? null)) out.push({ kind: 'json', label: `variants: ${k}`, before: was ?? null, after: now ?? null });
  }
  const byKey = new Map(bv.map((v) => [v.key as string, v]));
  const afterKeys = new Set(av.map((v) => v.key as string));
  for (const v of bv) {
    if (!afterKeys.has(v.key as string)) out.push({ kind: 'text', sign: '-', text: `variant ${String(v.key)} ${percent(v.rollout_percentage)}` });
  }
  for (const v of av) {
    const key = v.key as string;
    const was = byKey.get(key);
    const name = typeof v.name === 'string' && v.name !== '' ? ` ("${v.name}")` : '';
    if (!was) {
      out.push({ kind: 'text', sign: '+', text: `variant ${key} ${percent(v.rollout_percentage)}${name}` });
      continue;
    }
    if (!same(was.rollout_percentage, v.rollout_percentage)) out.push({ kind: 'text', sign: '~', text: `variant ${key} ${percent(was.rollout_percentage)} → ${percent(v.rollout_percentage)}` });
    if (!same(was.name ?? null, v.name ?? null)) out.push({ kind: 'text', sign: '~', text: `variant ${key} name ${JSON.stringify(was.name ?? null)} → ${JSON.stringify(v.name ?? null)}` });
    for (const k of new Set([...Object.keys(was), ...Object.keys(v)])) {
      if (k === 'key' || k === 'rollout_percentage' || k === 'name' || same(was[k] ?? null, v[k] ?? null)) continue;
      out.push({ kind: 'json', label: `variant ${key}: ${k}`, before: was[k] ?? null, after: v[k] ?? null });
    }
  }
  const kept = (list: Obj[], other: Set<string>) => list.map((v) => v.key as string).filter((k) => other.has(k));
  const order = kept(bv, afterKeys);
  const now = kept(av, new Set(bv.map((v) => v.key as string)));
  if (order.join('\n') !== now.join('\n')) out.push({ kind: 'text', sign: '~', text: `variants reordered: ${order.join(', ')} → ${now.join(', ')} (the order assigns users to variants)` });
  return out;
}

/** A payload value as stored (a JSON string) shown compactly. */
function payloadText(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value));
    } catch {
      return JSON.stringify(value);
    }
  }
  return JSON.stringify(value);
}

function describePayloads(before: unknown, after: unknown, sensitiveFlag: boolean, redacted: string | undefined): FlagLine[] {
  const b = before ?? {};
  const a = after ?? {};
  if (!isObj(b) || !isObj(a)) {
    const hidden = sensitiveFlag || (redacted !== undefined && (before === redacted || after === redacted));
    return [hidden ? { kind: 'text', sign: '~', text: 'payloads changed (sensitive: values not shown)' } : { kind: 'json', label: 'payloads', before, after }];
  }
  const out: FlagLine[] = [];
  const name = (key: string): string => (key === 'true' ? 'payload' : `payload for ${key}`);
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    const was = b[key];
    const now = a[key];
    if (same(was ?? null, now ?? null)) continue;
    const unset = (v: unknown): boolean => v === undefined || v === null || v === '';
    const sign = unset(was) ? '+' : unset(now) ? '-' : '~';
    const sensitive = sensitiveFlag || (redacted !== undefined && (was === redacted || now === redacted));
    if (sensitive) {
      out.push({ kind: 'text', sign, text: `${name(key)} ${sign === '+' ? 'added' : sign === '-' ? 'removed' : 'changed'} (sensitive: value not shown)` });
    } else if (sign === '+') {
      out.push({ kind: 'text', sign, text: `${name(key)} ${payloadText(now)}` });
    } else if (sign === '-') {
      out.push({ kind: 'text', sign, text: `${name(key)} ${payloadText(was)}` });
    } else {
      out.push({ kind: 'text', sign, text: `${name(key)} ${payloadText(was)} → ${payloadText(now)}` });
    }
  }
  return out;
}

/**
 * The lines a reviewer reads for a change of `filters` from `before` to `after` (either may
 * be null or absent: a flag created or without conditions). Empty when nothing it reads
 * changed.
 */
export function describeFlagFilters(before: unknown, after: unknown, opts: DescribeOptions = {}): FlagLine[] {
  const sensitive = opts.sensitivePayloads === true;
  const b = before ?? {};
  const a = after ?? {};
  if (!isObj(b) || !isObj(a)) return [{ kind: 'json', label: 'filters', before, after }];
  const out: FlagLine[] = [];
  const aggregationChanged = !same(b.aggregation_group_type_index ?? null, a.aggregation_group_type_index ?? null);
  if (aggregationChanged) {
    out.push({ kind: 'text', sign: '~', text: `match by ${matchBy(b.aggregation_group_type_index)} → ${matchBy(a.aggregation_group_type_index)}` });
  }
  out.push(...describeGroups(b.groups, a.groups, aggregationChanged));
  if (!same(b.multivariate ?? null, a.multivariate ?? null)) out.push(...describeVariants(b.multivariate ?? null, a.multivariate ?? null));
  if (!same(b.payloads ?? {}, a.payloads ?? {})) out.push(...describePayloads(b.payloads, a.payloads, sensitive, opts.redacted));
  for (const k of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (FILTER_KEYS.has(k) || same(b[k] ?? null, a[k] ?? null)) continue;
    out.push({ kind: 'json', label: k, before: b[k] ?? null, after: a[k] ?? null });
  }
  return out;
}
