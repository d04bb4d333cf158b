// Every rule by which a declared value and a live value are compared, in one place.
// Each rule has a test in test/plan.normalize.test.ts. Values equal after normalization
// are not a change.
import type { ComparedItem, CompareRule, MergeDepth, ResourceKind } from '../resources/kind.js';

export interface NormalizationRule {
  /** What the rule makes equal, for the README and for readers of a surprising plan. */
  readonly explains: string;
  normalize(value: unknown): unknown;
}

/** The API trims text fields (as Django REST framework does), also in lists of text. */
function plain(value: unknown): unknown {
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v.trim() : v));
  return value ?? null;
}

function decimal(value: unknown): unknown {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)\s*$/.test(value)) return String(Number(value));
  return value ?? null;
}

function integer(value: unknown): unknown {
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value);
  return value ?? null;
}

function domain(value: unknown): unknown {
  return typeof value === 'string' ? value.trim().toLowerCase().replace(/\.$/, '') : value ?? null;
}

/** Null and absent are the same inside untyped values: drop null members of objects. */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = dropNulls(v);
    return out;
  }
  return value ?? null;
}

export const RULES: Readonly<Record<CompareRule, NormalizationRule>> = {
  plain: { explains: 'absent and null are the same value; text compares without surrounding whitespace, which the API trims', normalize: plain },
  decimal: { explains: 'decimal strings compare by value: "0.5" = "0.50" = 0.5', normalize: decimal },
  integer: { explains: 'integers compare equal to their numeric strings: 1 = "1"', normalize: integer },
  domain: { explains: 'domains compare lower-cased, without a trailing dot', normalize: domain },
  untyped: { explains: 'untyped values: null equals absent, also for members of objects', normalize: dropNulls },
};

/** Keys the API puts inside an object field that files usually leave out (see ResourceKind). */
export interface ServerKeys {
  /** Defaults the server fills in: ignored while they hold nothing (null, {}, []). */
  defaults?: readonly string[];
  /** Values the server computes: always ignored. */
  computed?: readonly string[];
}

export function serverKeysOf(kind: ResourceKind, field: string): ServerKeys {
  return { defaults: kind.serverAddedKeys?.[field], computed: kind.computedKeys?.[field] };
}

/** Null, `{}` and `[]`: what a server-added default holds when it says nothing. */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

/**
 * Removes from a live value the server keys that the file does not declare: computed keys
 * always, defaults while empty (a default the user filled in, like variants, is compared, so
 * removing it from the file removes it live). Patterns are dotted paths below the field;
 * `name[]` steps into every item of a list, `[]` into every item of the value itself (a field
 * that is a list), `**` into every object at any depth (nested groups). Copy-on-write: the
 * value is returned as is when nothing goes.
 */
export function dropServerKeys(live: unknown, declared: unknown, keys: ServerKeys): unknown {
  let out = live;
  for (const pattern of keys.computed ?? []) out = dropPath(out, declared, pattern.split('.'), () => true);
  for (const pattern of keys.defaults ?? []) out = dropPath(out, declared, pattern.split('.'), isEmptyValue);
  return out;
}

function dropPath(live: unknown, declared: unknown, steps: string[], drop: (value: unknown) => boolean): unknown {
  if (steps.length === 0 || live === null || typeof live !== 'object') return live;
  const [step, ...rest] = steps as [string, ...string[]];
  if (step === '[]' || step === '**') {
    const deep = step === '**';
    const each = (value: unknown, declaredValue: unknown): unknown => (deep ? dropDeep(value, declaredValue, rest, drop) : dropPath(value, declaredValue, rest, drop));
    if (Array.isArray(live)) {
      const declaredItems = Array.isArray(declared) ? declared : [];
      const kept = live.map((item, i) => each(item, declaredItems[i]));
      return kept.every((item, i) => item === live[i]) ? live : kept;
    }
    return deep ? dropDeep(live, declared, rest, drop) : live;
  }
  if (step.endsWith('[]')) {
    const name = step.slice(0, -2);
    const obj = live as Record<string, unknown>;
    const items = obj[name];
    if (!Array.isArray(items)) return live;
    const declaredItems = isRecord(declared) && Array.isArray(declared[name]) ? (declared[name] as unknown[]) : [];
    const kept = items.map((item, i) => dropPath(item, declaredItems[i], rest, drop));
    // Copy only when something was dropped: this runs for every compared item.
    return kept.every((item, i) => item === items[i]) ? live : { ...obj, [name]: kept };
  }
  if (Array.isArray(live)) return live;
  const obj = live as Record<string, unknown>;
  if (!(step in obj)) return live;
  const declaredChild = isRecord(declared) ? declared[step] : undefined;
  if (rest.length === 0) {
    if ((isRecord(declared) && step in declared) || !drop(obj[step])) return live;
    const { [step]: _dropped, ...kept } = obj;
    return kept;
  }
  const child = dropPath(obj[step], declaredChild, rest, drop);
  return child === obj[step] ? live : { ...obj, [step]: child };
}

/** `**`: the rest of the path at this object and at every object below it. */
function dropDeep(live: unknown, declared: unknown, rest: string[], drop: (value: unknown) => boolean): unknown {
  if (live === null || typeof live !== 'object') return live;
  if (Array.isArray(live)) {
    const declaredItems = Array.isArray(declared) ? declared : [];
    const kept = live.map((item, i) => dropDeep(item, declaredItems[i], rest, drop));
    return kept.every((item, i) => item === live[i]) ? live : kept;
  }
  const here = dropPath(live, declared, rest, drop) as Record<string, unknown>;
  let out = here;
  for (const [k, v] of Object.entries(here)) {
    if (v === null || typeof v !== 'object') continue;
    const child = dropDeep(v, isRecord(declared) ? declared[k] : undefined, rest, drop);
    if (child !== v) out = { ...out, [k]: child };
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Deep equality that ignores the order of object keys (not of array items). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // Loops rather than Object.keys and every(): this compares every declared field of every item.
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (isRecord(a) && isRecord(b)) {
    let keys = 0;
    for (const k in a) {
      if (!hasOwn(a, k)) continue;
      keys++;
      if (!hasOwn(b, k) || !deepEqual(a[k], b[k])) return false;
    }
    for (const k in b) if (hasOwn(b, k)) keys--;
    return keys === 0;
  }
  return false;
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * Merged fields (FieldSpec.merge): the API merges what is sent into what it stores, so a key
 * can only be removed by sending it as null, and stays stored as null. Inside such a field a
 * key that is null compares equal to one that is absent: null members are dropped, down to
 * the merge depth, before the field's own rule compares.
 */
export function withoutNullKeys(value: unknown, depth: MergeDepth): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    out[k] = depth === 'nested' ? withoutNullKeys(v, 'top') : v;
  }
  return out;
}

/**
 * The value to send for a merged field: the declared value, plus null for every key the live
 * value holds (not null) that the file no longer declares, down to the merge depth, so the
 * API removes it instead of keeping it.
 */
export function mergedUpdate(declared: unknown, live: unknown, depth: MergeDepth): unknown {
  if (!isRecord(declared) || !isRecord(live)) return declared;
  const out: Record<string, unknown> = { ...declared };
  for (const [k, v] of Object.entries(live)) {
    if (v === null || v === undefined) continue;
    if (!(k in declared)) out[k] = null;
    else if (depth === 'nested' && isRecord(declared[k]) && isRecord(v)) out[k] = mergedUpdate(declared[k], v, 'top');
  }
  return out;
}

/** Whether a declared value and a live value are the same under the field's rule (and merge depth). */
export function sameValue(rule: CompareRule, declared: unknown, live: unknown, keys: ServerKeys = {}, merge?: MergeDepth): boolean {
  const normalize = RULES[rule].normalize;
  const liveValue = dropServerKeys(live, declared, keys);
  if (merge) return deepEqual(normalize(withoutNullKeys(declared, merge)), normalize(withoutNullKeys(liveValue, merge)));
  return deepEqual(normalize(declared), normalize(liveValue));
}

/**
 * Whether a declared value and a live value of a kind's field are the same: by the kind's own
 * normalizer for the field when it has one (the API's rewriting, applied to both sides), else
 * by the field's rule.
 */
export function sameField(kind: ResourceKind, field: string, declared: unknown, live: unknown, item?: ComparedItem): boolean {
  const together = kind.comparedTogether?.[field];
  if (together) [declared, live] = together(declared, live, item);
  const normalize = kind.normalizers?.[field];
  if (normalize) return deepEqual(normalize(declared), normalize(live));
  const spec = kind.fields[field];
  return spec ? sameValue(spec.compare, declared, live, serverKeysOf(kind, field), spec.merge) : deepEqual(declared, live);
}

const quotedKeys = new Map<string, string>();

function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    // Field names repeat across thousands of items; arbitrary user keys should not grow this forever.
    if (quotedKeys.size < 4096) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * Keys in the order Array.prototype.sort puts them (UTF-16 code units), sorted in place. Objects
 * have a handful of keys, and the built-in sort allocates a work area on every call: a plan's
 * digests sort hundreds of thousands of key lists.
 */
export function sortKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}

/** JSON with sorted object keys: stable input for digests (written by hand: it runs per item). */
export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string': return JSON.stringify(value);
    case 'number': return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean': return value ? 'true' : 'false';
    case 'object': break;
    default: return 'null';
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) sortKeys(keys);
  let out = '{';
  let first = true;
  for (const key of keys) {
    if (record[key] === undefined) continue;
    out += `${first ? '' : ','}${quoteKey(key)}:${canonicalJson(record[key])}`;
    first = false;
  }
  return `${out}}`;
}
