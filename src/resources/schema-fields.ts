// Reads the managed fields of a kind from the JSON Schema, the one source of truth for the
// format: a kind's fields, their sensitivity (`x-sensitive`) and compare rule (`x-normalize`).
import { readFileSync } from 'node:fs';
import type { CompareRule, FieldSpec } from './kind.js';

type SchemaNode = { properties?: Record<string, SchemaNode>; $ref?: string; 'x-sensitive'?: boolean; 'x-normalize'?: CompareRule; 'x-config-only'?: boolean; type?: unknown };

let cached: { $defs: Record<string, SchemaNode> } | undefined;

export const SCHEMA_URL = new URL('../../schemas/hogsync.schema.json', import.meta.url);

export function loadSchemaText(): string {
  return readFileSync(SCHEMA_URL, 'utf8');
}

function schema(): { $defs: Record<string, SchemaNode> } {
  cached ??= JSON.parse(loadSchemaText()) as { $defs: Record<string, SchemaNode> };
  return cached;
}

/**
 * Fields of `$defs[def]` other than the identity, `ensure`, nested collections and fields that
 * only shape the configuration (`x-config-only`: an alias, a previous name, a shared flag's projects).
 */
export function fieldsFromSchema(def: string, exclude: readonly string[]): Record<string, FieldSpec> {
  const defs = schema().$defs;
  const node = defs[def];
  if (!node?.properties) throw new Error(`schema has no $defs.${def}`);
  const fields: Record<string, FieldSpec> = {};
  for (const [name, prop] of Object.entries(node.properties)) {
    if (name === 'ensure' || exclude.includes(name) || prop['x-config-only'] === true) continue;
    const target = prop.$ref ? defs[prop.$ref.replace('#/$defs/', '')] ?? prop : prop;
    fields[name] = { compare: prop['x-normalize'] ?? target['x-normalize'] ?? 'plain', sensitive: prop['x-sensitive'] === true };
  }
  return fields;
}
