// The JSON Schema of the configuration format, the one source of truth for it: read once,
// on first use (never at import time), and shared by the kinds (their managed fields, their
// sensitivity `x-sensitive` and compare rule `x-normalize`), the loader's messages
// (src/config/schema-doc.ts), `hogsync schema` and the exporter's modeline.
import { readFileSync } from 'node:fs';
import type { CompareRule, FieldSpec } from './kind.js';

export interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  $ref?: string;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  maxLength?: number;
  description?: string;
  additionalProperties?: boolean | SchemaNode;
  propertyNames?: SchemaNode;
  not?: SchemaNode;
  'x-sensitive'?: boolean;
  'x-normalize'?: CompareRule;
  /** A field that only shapes the configuration (an alias, a previous name): never a managed field. */
  'x-config-only'?: boolean;
  /** What a value must look like, for messages about a failed pattern or format. */
  'x-expected'?: string;
  /** Why the names a `propertyNames` refuses are refused, for messages. */
  'x-reason'?: string;
  /** The API merges what is sent into what it stores: true = top-level keys, "nested" = one level deeper too. */
  'x-merge'?: boolean | 'nested';
  /** State of the web app (onboarding progress, the dashboard it opens): export leaves it out unless --all-fields. */
  'x-ui-state'?: boolean;
  /** Names other kinds give this field (a flag's `active` is a hog function's `enabled`): an unknown one of them suggests it. */
  'x-synonyms'?: string[];
  /** Sent on create only and never read back (a hog function's template_id): never compared, never exported. */
  'x-create-only'?: boolean;
  /** Why a field the API still returns may no longer be written: validate warns, export leaves it out. */
  'x-deprecated'?: string;
  /** The items of another kind, written some other way than a list of items with `ensure` (a role's members). */
  'x-kind'?: string;
  /** What the API does with a key this (closed) mapping does not know, for the message about it. */
  'x-unknown'?: string;
  /** What the API does when this field is left out (`would roll out to 100 % of users`), said beside a misspelt key. */
  'x-if-absent'?: string;
  /** How to write a value of another type (`write {key}: { value: … }`, {key} the mapping key), said after the type error. */
  'x-hint'?: string;
}

export interface SchemaDocument extends SchemaNode { $id: string; $defs: Record<string, SchemaNode> }

export const SCHEMA_URL = new URL('../../schemas/hogsync.schema.json', import.meta.url);

let text: string | undefined;
let document: SchemaDocument | undefined;

/** The schema file's text, as `hogsync schema` prints it. */
export function schemaText(): string {
  text ??= readFileSync(SCHEMA_URL, 'utf8');
  return text;
}

/** The schema, parsed once. */
export function schemaDocument(): SchemaDocument {
  document ??= JSON.parse(schemaText()) as SchemaDocument;
  return document;
}

const refName = (ref: string | undefined) => ref?.replace('#/$defs/', '');

/**
 * Managed fields of `$defs[def]`: every property but the identity (`exclude`), `ensure`,
 * fields that only shape the configuration (`x-config-only`: an alias, a previous name, a
 * shared flag's projects) and nested collections of other items (a list whose items are a
 * definition with `ensure`, such as a project's feature_flags): those are kinds of their own.
 */
export function fieldsFromSchema(def: string, exclude: readonly string[]): Record<string, FieldSpec> {
  const defs = schemaDocument().$defs;
  const node = defs[def];
  if (!node?.properties) throw new Error(`schema has no $defs.${def}`);
  const fields: Record<string, FieldSpec> = {};
  for (const [name, prop] of Object.entries(node.properties)) {
    // A list written another way than items with `ensure` (a role's members) names its kind.
    if (name === 'ensure' || exclude.includes(name) || prop['x-config-only'] === true || prop['x-kind'] !== undefined) continue;
    const itemDef = defs[refName(prop.items?.$ref) ?? ''];
    if (itemDef?.properties && 'ensure' in itemDef.properties) continue;
    const target = prop.$ref ? defs[refName(prop.$ref) ?? ''] ?? prop : prop;
    const merge = prop['x-merge'] ?? target['x-merge'];
    fields[name] = {
      compare: prop['x-normalize'] ?? target['x-normalize'] ?? 'plain',
      sensitive: prop['x-sensitive'] === true,
      ...(prop['x-ui-state'] === true ? { uiState: true } : {}),
      ...(prop['x-create-only'] === true ? { createOnly: true } : {}),
      ...(typeof prop['x-deprecated'] === 'string' ? { deprecated: prop['x-deprecated'] } : {}),
      ...(merge === 'nested' ? { merge: 'nested' as const } : merge === true ? { merge: 'top' as const } : {}),
    };
  }
  return fields;
}

/** A value computed on first use: a kind's fields are read from the schema only when needed. */
export function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}
