// Warnings of a configuration that loads, each at the line that causes it: declared fields the
// API no longer takes (schema `x-deprecated`), found by walking the file beside the schema, only
// into the parts of it that can hold such a field; strings written the shell's way come from
// ./interpolate.ts. Validate prints them; plan, drift and apply show them with the plan.
import { childSchema, resolveNode, type SchemaNode } from './schema-doc.js';
import { schemaDocument } from '../resources/schema.js';
import { childPointer } from './pointer.js';

export interface PointerWarning { pointer: string; message: string }

/** Whether a value of this schema can hold a deprecated field somewhere below it (memoized per node). */
const reaches = new WeakMap<SchemaNode, boolean>();
function canHoldDeprecated(node: SchemaNode, visiting = new Set<SchemaNode>()): boolean {
  const known = reaches.get(node);
  if (known !== undefined) return known;
  if (visiting.has(node)) return false;
  visiting.add(node);
  const here = resolveNode(node);
  const children = [
    ...Object.values(here.properties ?? {}), ...Object.values(here.patternProperties ?? {}),
    ...(here.items ? [here.items] : []), ...(typeof here.additionalProperties === 'object' ? [here.additionalProperties] : []),
  ];
  const found = children.some((c) => resolveNode(c)['x-deprecated'] !== undefined || c['x-deprecated'] !== undefined || canHoldDeprecated(c, visiting));
  visiting.delete(node);
  reaches.set(node, found);
  return found;
}

/** Every deprecated field a file declares, at its key. */
export function deprecatedFields(data: unknown): PointerWarning[] {
  const out: PointerWarning[] = [];
  const walk = (value: unknown, node: SchemaNode, pointer: string): void => {
    if (Array.isArray(value)) {
      const items = childSchema(node, 0);
      if (items && canHoldDeprecated(items)) value.forEach((v, i) => walk(v, items, childPointer(pointer, i)));
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value)) {
      const child = childSchema(node, key);
      if (!child) continue;
      const why = child['x-deprecated'] ?? resolveNode(child)['x-deprecated'];
      if (why !== undefined) out.push({ pointer: childPointer(pointer, key), message: `${key} is deprecated: ${why}; remove it from the file` });
      else if (canHoldDeprecated(child)) walk(v, child, childPointer(pointer, key));
    }
  };
  walk(data, schemaDocument(), '');
  return out;
}
