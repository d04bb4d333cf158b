// Turns ajv's errors into one clean, one-line message per location: the type when the type
// is wrong (not also the enum and pattern it then fails), the allowed values when there are
// few, a did-you-mean for misspelt fields and values, and never a sensitive value.
import type { ErrorObject } from 'ajv';
import { KINDS, childKinds, topKinds } from '../resources/registry.js';
import { readablePath, splitPointer } from './pointer.js';
import { defsDeclaring, resolveNode, schemaAt, type SchemaNode } from './schema-doc.js';
import { schemaDocument } from '../resources/schema.js';
import { suggest } from './suggest.js';

export interface SchemaIssue {
  pointer: string;
  /** What the position points at: the value, or the key of an unknown field. */
  at: 'value' | 'key';
  message: string;
  /** A warning, not an error (a kind's rule that says what the API will rewrite). */
  warning?: true;
}

export interface MessageContext {
  data: unknown;
  /** How to name a value that must not be shown (`the value of ${env:X}`), or undefined to show it. */
  secret(pointer: string): string | undefined;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string', integer: 'an integer', number: 'a number', boolean: 'a boolean',
  object: 'a mapping', array: 'a list', null: 'null',
};

/** Enums longer than this are not listed in messages (time zones). */
const MAX_LISTED = 8;

const RANK: Record<string, number> = { type: 0, required: 0, additionalProperties: 0, enum: 1, format: 2, pattern: 3 };

// Kinds nested in a parent's items may also be declared at the top level, for several parents at once.
const ORG_LISTS = new Set(KINDS.map((k) => k.configKey));
/** Top-level list of a parent kind → the lists nested in its items (projects → feature_flags), from the registry. */
const NESTED = new Map(topKinds().map((k) => [k.configKey, new Set(childKinds(k).map((c) => c.configKey))]));

const isIndex = (s: string | undefined) => s !== undefined && /^\d+$/.test(s);

/** Where the item around a location ends (projects/0, projects/0/feature_flags/2), or -1. */
function itemEnd(seg: readonly string[]): number {
  if (NESTED.get(seg[0] ?? '')?.has(seg[2] ?? '') && isIndex(seg[1]) && isIndex(seg[3]) && seg.length > 4) return 3;
  if (ORG_LISTS.has(seg[0] ?? '') && isIndex(seg[1]) && seg.length > 2) return 1;
  return -1;
}

/** Field path relative to its item (`filters.groups[0].rollout_percentage`), or from the top. */
export function labelOf(seg: readonly string[]): string {
  return readablePath(seg.slice(itemEnd(seg) + 1));
}

function valueAt(data: unknown, seg: readonly string[]): unknown {
  let v = data;
  for (const s of seg) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[s];
  }
  return v;
}

function quote(s: string): string {
  const short = [...s].length > 60 ? `${[...s].slice(0, 57).join('')}…` : s;
  return JSON.stringify(short);
}

function show(v: unknown): string {
  if (typeof v === 'string') return quote(v);
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return String(v);
}

function describe(v: unknown): string {
  if (typeof v === 'string') return `string ${quote(v)}`;
  if (typeof v === 'number') return `number ${v}`;
  if (typeof v === 'boolean') return `boolean ${v}`;
  return show(v);
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

function human(def: string): string {
  return def.replace(/_/g, ' ');
}

function typeList(types: readonly string[]): string[] {
  // null only means "unset"; naming it in every message adds noise, not help.
  const real = types.filter((t) => t !== 'null');
  return (real.length > 0 ? real : types).map((t) => TYPE_NAMES[t] ?? t);
}

/** Whether quoting a number would make it valid: "0.5" for a sample rate, not 12345 for a UUID. */
function quotingFits(seg: readonly string[], text: string): boolean {
  const node = schemaAt(seg)?.node;
  if (!node || node.format || node.enum) return false;
  if (node.maxLength !== undefined && text.length > node.maxLength) return false;
  return node.pattern === undefined || new RegExp(node.pattern, 'u').test(text);
}

/** The name of a mapping key that failed `propertyNames` (ajv sets it on the inner errors too). */
function failedName(e: ErrorObject): string | undefined {
  const name = (e as ErrorObject & { propertyName?: string }).propertyName ?? (e.params as { propertyName?: string }).propertyName;
  return typeof name === 'string' ? name : undefined;
}

/** A mapping key the schema refuses by name: a field that does not belong here, or a malformed key. */
function explainName(e: ErrorObject, name: string): SchemaIssue {
  const seg = splitPointer(e.instancePath);
  const label = labelOf(seg);
  const where = schemaAt(seg);
  const names = where?.node.propertyNames ? resolveNode(where.node.propertyNames) : undefined;
  const pointer = `${e.instancePath}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  if (names?.not) {
    const inWhat = where?.def ? ` in ${human(where.def)}` : '';
    // A definition's own refusal says why this name (a list's refusal of other names may apply there too).
    const own = where?.def ? resolveNode(schemaDocument().$defs[where.def]?.propertyNames ?? {}) : undefined;
    const reason = own?.not?.enum?.includes(name) ? own['x-reason'] : names['x-reason'];
    return { pointer, at: 'key', message: `field "${name}" is not allowed${inWhat}${reason ? `: ${reason}` : ''}` };
  }
  const expected = names?.['x-expected'] ?? (names?.pattern ? `a key matching ${names.pattern}` : 'a valid key');
  return { pointer, at: 'key', message: `${label === '' ? '' : `${label}: `}key ${quote(name)} must be ${expected}` };
}

function explain(e: ErrorObject, ctx: MessageContext): SchemaIssue {
  const name = failedName(e);
  if (name !== undefined) return explainName(e, name);
  const seg = splitPointer(e.instancePath);
  const label = labelOf(seg);
  const prefix = label === '' ? '' : `${label}: `;
  const value = valueAt(ctx.data, seg);
  const secret = ctx.secret(e.instancePath);
  const shown = secret ?? show(value);
  const got = secret ? `, got ${secret}` : `, got ${describe(value)}`;
  const p = e.params as Record<string, unknown>;
  const at = (message: string): SchemaIssue => ({ pointer: e.instancePath, at: 'value', message: prefix + message });

  switch (e.keyword) {
    case 'type': {
      const types = Array.isArray(p.type) ? (p.type as string[]) : String(p.type).split(',');
      let msg = `must be ${orList(typeList(types))}${got}`;
      if (!secret && types.includes('string') && typeof value === 'number' && quotingFits(seg, String(value))) {
        msg += ` (write it in quotes: "${String(value)}")`;
      }
      return at(msg);
    }
    case 'enum': {
      const allowed = ((p.allowedValues as unknown[] | undefined) ?? []).filter((v) => v !== null);
      const strings = allowed.filter((v): v is string => typeof v === 'string');
      const hint = !secret && typeof value === 'string' ? suggest(value, strings) : undefined;
      // What the API does with a value it does not know, where the schema says (x-unknown).
      const api = schemaAt(seg)?.node['x-unknown'];
      const dym = `${api ? `: ${api}` : ''}${hint ? `; did you mean ${JSON.stringify(hint)}?` : ''}`;
      if (allowed.length <= MAX_LISTED) return at(`must be ${orList(allowed.map((v) => JSON.stringify(v)))}${got}${dym}`);
      const noun = seg[seg.length - 1] === 'timezone' ? 'time zone' : `value for ${seg[seg.length - 1] ?? 'this field'}`;
      return at(`${shown} is not a known ${noun}${dym}`);
    }
    case 'format':
    case 'pattern': {
      const node = schemaAt(seg)?.node;
      const expected = node?.['x-expected'];
      const fix = !secret && node?.['x-normalize'] === 'domain' && typeof value === 'string' ? domainFix(value, String(p.pattern)) : '';
      if (expected) return at(`must be ${expected}${got}${fix}`);
      if (e.keyword === 'format') return at(`must be a valid ${String(p.format)}${got}`);
      return at(`${shown} must match ${String(p.pattern)}`);
    }
    case 'minLength': {
      const limit = Number(p.limit);
      if (limit === 1) return at('must not be empty');
      return at(`must be at least ${limit} characters long${typeof value === 'string' ? `, got ${[...value].length}` : ''}`);
    }
    case 'maxLength':
      return at(`must be at most ${String(p.limit)} characters long${typeof value === 'string' ? `, got ${[...value].length}` : ''}`);
    case 'minimum':
      return at(`must be at least ${String(p.limit)}${got}`);
    case 'maximum':
      return at(`must be at most ${String(p.limit)}${got}`);
    case 'exclusiveMinimum':
      return at(`must be greater than ${String(p.limit)}${got}`);
    case 'exclusiveMaximum':
      return at(`must be less than ${String(p.limit)}${got}`);
    case 'required': {
      const where = schemaAt(seg);
      const name = String(p.missingProperty);
      const inWhat = where?.def ? ` in ${human(where.def)}` : '';
      // What the API does without it, where the schema says (a flag property without `type`).
      const without = where?.node.properties?.[name]?.['x-if-absent'];
      return { pointer: e.instancePath, at: 'value', message: `missing required field "${name}"${inWhat}${without ? `: without it the API ${without}` : ''}` };
    }
    case 'additionalProperties': {
      const name = String(p.additionalProperty);
      const where = schemaAt(seg);
      // Names the location refuses by propertyNames (a shared flag's `projects` in a project's flag) are not offered.
      const names = where?.node.propertyNames ? resolveNode(where.node.propertyNames) : undefined;
      const refused = new Set((names?.not?.enum ?? []).map(String));
      const allowed = Object.keys(where?.node.properties ?? {}).filter((f) => !refused.has(f));
      // A typo first; then a field that exists elsewhere ("feature_flags" in a role); then a prefix.
      // What another kind calls this field (a hog function's `enabled` is a flag's `active`).
      const synonym = allowed.find((f) => where?.node.properties?.[f]?.['x-synonyms']?.includes(name));
      const typo = synonym ?? suggest(name, allowed, { prefixes: false });
      const def = where?.def ?? null;
      let msg = `unknown field "${name}" ${def === null ? 'at the top level' : `in ${human(def)}`}`;
      // prune's keys repeat the top level's list names, so "belongs at the top level" would mislead there.
      const elsewhere = def === 'prune' ? [] : defsDeclaring(name).filter((d) => d !== (def ?? 'top level') && d !== 'prune');
      const prefix = typo ?? (elsewhere.length > 0 ? undefined : suggest(name, allowed));
      msg += apiConsequence(where?.node, typo ?? prefix, value);
      if (typo ?? prefix) {
        msg += `; did you mean "${typo ?? prefix}"?`;
      } else if (elsewhere.length > 0) {
        msg += `; it belongs ${orList(elsewhere.map((d) => (d === 'top level' ? 'at the top level' : `in ${human(d)}`)))}`;
      } else if (allowed.length <= MAX_LISTED) {
        msg += `; expected ${orList(allowed.map((a) => `"${a}"`))}`;
      }
      const pointer = `${e.instancePath}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      return { pointer, at: 'key', message: msg };
    }
    default:
      return at(e.message ?? `fails ${e.keyword}`);
  }
}

/**
 * What the API does with an unknown key where the schema says (`x-unknown` on a closed mapping
 * the API keeps anyway), and, when the key looks like a misspelt field that the mapping lacks,
 * what the API does without that field (its `x-if-absent`): a misspelt `rollout_percentag`
 * "would roll out to 100 % of users".
 */
function apiConsequence(node: SchemaNode | undefined, meant: string | undefined, here: unknown): string {
  const unknown = node?.['x-unknown'];
  if (!unknown) return '';
  const lacks = meant !== undefined && here !== null && typeof here === 'object' && !Array.isArray(here) && !(meant in here);
  const absent = lacks ? node.properties?.[meant]?.['x-if-absent'] : undefined;
  return `: ${unknown}${absent ? ` and, without ${meant}, ${absent}` : ''}`;
}

/** One issue per location (and per unknown or missing field), most telling first. */
export function explainErrors(all: readonly ErrorObject[], ctx: MessageContext): SchemaIssue[] {
  // A choice of required fields (a project's `id` or `name`) is one issue naming them all.
  const choices = all.filter((e) => e.keyword === 'anyOf');
  const inChoice = (e: ErrorObject) => choices.some((c) => c.instancePath === e.instancePath && e.schemaPath.startsWith(`${c.schemaPath}/`));
  const issues: SchemaIssue[] = [];
  for (const choice of choices) {
    const names = all.filter((e) => e.keyword === 'required' && inChoice(e) && e.instancePath === choice.instancePath).map((e) => String((e.params as Record<string, unknown>).missingProperty));
    if (names.length === 0) continue;
    const where = schemaAt(splitPointer(choice.instancePath));
    const inWhat = where?.def ? ` in ${human(where.def)}` : '';
    issues.push({ pointer: choice.instancePath, at: 'value', message: `missing a required field${inWhat}: ${orList(names.map((n) => `"${n}"`))}` });
  }
  const errors = all.filter((e) => e.keyword !== 'anyOf' && !(e.keyword === 'required' && inChoice(e)));
  const best = new Map<string, ErrorObject>();
  for (const e of errors) {
    const p = e.params as Record<string, unknown>;
    const name = failedName(e);
    // A refused key name is reported once, by its specific error, not also by the summary one.
    if (name !== undefined && e.keyword === 'propertyNames' && errors.some((o) => o !== e && failedName(o) === name && o.instancePath === e.instancePath)) continue;
    const key = `${e.instancePath}\0${String(p.additionalProperty ?? p.missingProperty ?? (name === undefined ? '' : `name:${name}`))}`;
    const current = best.get(key);
    if (!current || (RANK[e.keyword] ?? 4) < (RANK[current.keyword] ?? 4)) best.set(key, e);
  }
  return [...issues, ...[...best.values()].map((e) => explain(e, ctx))];
}

/**
 * What to write instead of a domain the web app's rule refuses, when that is clear: the
 * form without protocol or path, lower-cased, without a trailing dot (how live domains
 * compare); wildcards have no fix.
 */
function domainFix(value: string, pattern: string): string {
  if (value.includes('*')) return ' (wildcards are not allowed)';
  const bare = value.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/[/?#].*$/, '').toLowerCase().replace(/\.$/, '');
  return bare !== value && new RegExp(pattern, 'u').test(bare) ? `; write it as ${JSON.stringify(bare)}` : '';
}
