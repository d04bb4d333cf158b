// The JSON Schema as a document, read only when an error needs explaining: which fields a
// mapping allows, the hint for a pattern, the name of the definition a value belongs to.
import { schemaDocument, type SchemaNode } from '../resources/schema.js';

export { schemaDocument, type SchemaNode } from '../resources/schema.js';

export interface ResolvedSchema {
  node: SchemaNode;
  /** The $defs entry the node belongs to (`project`, `feature_flag`, …), or null at the top level. */
  def: string | null;
}

function deref(node: SchemaNode, def: string | null): ResolvedSchema {
  const doc = schemaDocument();
  let current = node;
  let name = def;
  // Siblings of $ref (a description, x-sensitive, a narrower propertyNames) stay visible on the
  // merged node. A definition that only narrows another (project_defaults narrows project)
  // keeps its own name: that is what the user wrote.
  for (let hops = 0; current.$ref && hops < 10; hops++) {
    const target = current.$ref.replace(/^#\/\$defs\//, '');
    const resolved = doc.$defs[target];
    if (!resolved) break;
    const { $ref: _ref, ...siblings } = current;
    current = { ...resolved, ...siblings };
    if (hops === 0) name = target;
  }
  return { node: current, def: name };
}

/** A node with its $ref followed (for subschemas such as propertyNames). */
export function resolveNode(node: SchemaNode): SchemaNode {
  return deref(node, null).node;
}

/** The schema that applies at an instance location (property names and list indexes). */
export function schemaAt(segments: readonly string[]): ResolvedSchema | undefined {
  let here: ResolvedSchema = { node: schemaDocument(), def: null };
  for (const segment of segments) {
    const { node, def } = deref(here.node, here.def);
    const additional = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
    const next = node.properties?.[segment] ?? (/^\d+$/.test(segment) ? node.items : undefined) ?? additional;
    if (!next) return undefined;
    here = { node: next, def };
  }
  return deref(here.node, here.def);
}

/** Names of every $defs entry that declares a property, for "belongs in project" hints. */
export function defsDeclaring(property: string): string[] {
  const doc = schemaDocument();
  const out = Object.entries(doc.$defs).filter(([, n]) => n.properties && property in n.properties).map(([name]) => name);
  if (doc.properties && property in doc.properties) out.unshift('top level');
  return out;
}

/**
 * The schema of a mapping's value under `key`, or of a list's items (`key` a number), where the
 * schema says (properties, then patternProperties, then additionalProperties); `node` resolved.
 */
export function childSchema(node: SchemaNode, key: string | number): SchemaNode | undefined {
  const here = resolveNode(node);
  if (typeof key === 'number') return here.items;
  const named = here.properties?.[key];
  if (named) return named;
  for (const [pattern, schema] of Object.entries(here.patternProperties ?? {})) if (new RegExp(pattern, 'u').test(key)) return schema;
  return typeof here.additionalProperties === 'object' ? here.additionalProperties : undefined;
}
