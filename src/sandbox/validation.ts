// Field rules with the real API's (Django REST framework's) error codes and wording. A rule
// takes the sent value and gives back the value to store (canonicalized, e.g. "0.5" -> "0.50")
// or throws a 400 naming the field. Types are strict on purpose: the sandbox exists to catch
// clients that send the wrong JSON type, so it does not coerce "true" or 12 into a string.
import { validationError } from './errors.js';
import { isObject, pyTypeName, type Json, type JsonObject } from './json.js';

export type Rule = (value: Json, attr: string) => Json;

interface Nullable { nullable?: boolean }

function guardNull(value: Json, attr: string, opts: Nullable): value is null {
  if (value !== null) return false;
  if (opts.nullable) return true;
  throw validationError(attr, 'This field may not be null.', 'null');
}

export function booleanRule(opts: Nullable = {}): Rule {
  return (value, attr) => {
    if (guardNull(value, attr, opts)) return null;
    if (typeof value !== 'boolean') throw validationError(attr, 'Must be a valid boolean.', 'invalid');
    return value;
  };
}

/** Like Django REST framework's CharField: surrounding whitespace trimmed, length in characters (code points). */
export function stringRule(opts: Nullable & { max?: number; allowBlank?: boolean } = {}): Rule {
  return (value, attr) => {
    if (guardNull(value, attr, opts)) return null;
    if (typeof value !== 'string') throw validationError(attr, 'Not a valid string.', 'invalid');
    const text = value.trim();
    if (!opts.allowBlank && text === '') throw validationError(attr, 'This field may not be blank.', 'blank');
    if (opts.max !== undefined && [...text].length > opts.max) {
      throw validationError(attr, `Ensure this field has no more than ${opts.max} characters.`, 'max_length');
    }
    return text;
  };
}

export function integerRule(opts: Nullable & { min?: number; max?: number } = {}): Rule {
  return (value, attr) => {
    if (guardNull(value, attr, opts)) return null;
    if (typeof value !== 'number' || !Number.isInteger(value)) throw validationError(attr, 'A valid integer is required.', 'invalid');
    if (opts.min !== undefined && value < opts.min) throw validationError(attr, `Ensure this value is greater than or equal to ${opts.min}.`, 'min_value');
    if (opts.max !== undefined && value > opts.max) throw validationError(attr, `Ensure this value is less than or equal to ${opts.max}.`, 'max_value');
    return value;
  };
}

/**
 * A decimal string with at most `places` decimals in [min, max], stored with exactly `places`
 * decimals, as Django's DecimalField answers ("0.5" is stored and answered as "0.50").
 */
export function decimalRule(opts: Nullable & { places: number; min: number; max: number }): Rule {
  return (value, attr) => {
    if (guardNull(value, attr, opts)) return null;
    let text: string;
    if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
    else if (typeof value === 'string') text = value.trim();
    else throw validationError(attr, 'A valid number is required.', 'invalid');
    const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
    if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw validationError(attr, 'A valid number is required.', 'invalid');
    const decimals = (m[3] ?? '').replace(/0+$/, '');
    if (decimals.length > opts.places) {
      throw validationError(attr, `Ensure that there are no more than ${opts.places} decimal places.`, 'max_decimal_places');
    }
    const num = Number(`${m[1]}${m[2] || '0'}.${decimals || '0'}`);
    if (num < opts.min) throw validationError(attr, `Ensure this value is greater than or equal to ${opts.min}.`, 'min_value');
    if (num > opts.max) throw validationError(attr, `Ensure this value is less than or equal to ${opts.max}.`, 'max_value');
    return num.toFixed(opts.places);
  };
}

/** One of fixed integer choices; the string form ("1") is accepted too, as DRF does. */
export function integerChoiceRule(choices: readonly number[], opts: Nullable = {}): Rule {
  return (value, attr) => {
    if (guardNull(value, attr, opts)) return null;
    const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
    if (typeof n !== 'number' || !choices.includes(n)) {
      throw validationError(attr, `"${typeof value === 'string' ? value : JSON.stringify(value)}" is not a valid choice.`, 'invalid_choice');
    }
    return n;
  };
}

let zones: Set<string> | undefined;

/**
 * IANA time zone names: every canonical name Node knows, plus "UTC", plus the backward-compatible
 * aliases (Asia/Calcutta, US/Eastern…) that the real API's list (pytz) also holds. ICU accepts
 * any case, the API does not, so an alias must be written as the tz database spells it.
 */
export function isTimeZone(name: string): boolean {
  zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  if (zones.has(name)) return true;
  if (!/^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Z][A-Za-z0-9_+-]*)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export function timeZoneRule(): Rule {
  return (value, attr) => {
    if (typeof value !== 'string' || !isTimeZone(value)) {
      throw validationError(attr, `"${typeof value === 'string' ? value : JSON.stringify(value)}" is not a valid choice.`, 'invalid_choice');
    }
    return value;
  };
}

export function stringListRule(opts: Nullable & { itemMax?: number; itemNullable?: boolean } = {}): Rule {
  return (value, attr) => {
    if (guardNull(value, attr, opts)) return null;
    if (!Array.isArray(value)) throw validationError(attr, `Expected a list of items but got type "${pyTypeName(value)}".`, 'not_a_list');
    const item = stringRule({ max: opts.itemMax, nullable: opts.itemNullable, allowBlank: true });
    return value.map((v) => item(v, attr));
  };
}

/** Any JSON value (the API's untyped fields). */
/** Tags as the real API stores them (tagify, TaggedItemSerializerMixin): trimmed, lower-cased, without duplicates, sorted by name. */
export function tagsRule(): Rule {
  const list = stringListRule();
  return (value, attr) => {
    const tags = list(value, attr) as string[];
    return [...new Set(tags.map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))].sort();
  };
}

export function untypedRule(opts: Nullable = { nullable: true }): Rule {
  return (value, attr) => {
    if (guardNull(value, attr, opts)) return null;
    return value;
  };
}

export function objectRule(opts: Nullable = {}): Rule {
  return (value, attr) => {
    if (guardNull(value, attr, opts)) return null;
    if (!isObject(value)) throw validationError(attr, `Expected a dictionary of items but got type "${pyTypeName(value)}".`, 'not_a_dict');
    return value;
  };
}

/**
 * Applies `rules` to the fields of a partial-update body. Unknown and read-only fields are
 * ignored, as DRF ignores them; the first invalid field answers 400.
 */
export function validatePartial(rules: Readonly<Record<string, Rule>>, body: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [field, value] of Object.entries(body)) {
    const rule = rules[field];
    if (rule) out[field] = rule(value, field);
  }
  return out;
}

export function requireField(body: JsonObject, field: string): Json {
  if (!Object.prototype.hasOwnProperty.call(body, field)) throw validationError(field, 'This field is required.', 'required');
  return body[field] as Json;
}

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** A DNS host name of at least two labels with an alphabetic top-level label; a trailing dot is allowed. */
export function isHostname(domain: string): boolean {
  const name = domain.endsWith('.') ? domain.slice(0, -1) : domain;
  const labels = name.split('.');
  if (labels.length < 2 || name.length > 253) return false;
  if (!labels.every((l) => LABEL.test(l))) return false;
  return /^[A-Za-z]{2,63}$/.test(labels[labels.length - 1] as string);
}
