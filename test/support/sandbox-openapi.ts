// Checks sandbox answers against the real API's OpenAPI response schemas
// (test/fixtures/sandbox-openapi-records.json, copied verbatim from the reference OpenAPI
// document's components.schemas so these tests need nothing outside the repository).
// OpenAPI 3.0's `nullable` and component $refs are rewritten to JSON Schema first.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Node = unknown;

function convert(node: Node): Node {
  if (Array.isArray(node)) return node.map(convert);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'nullable' || k === 'example') continue;
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', '#/$defs/') : convert(v);
  }
  if ((node as { nullable?: boolean }).nullable === true) return { anyOf: [out, { type: 'null' }] };
  return out;
}

const fixture = JSON.parse(readFileSync(new URL('../fixtures/sandbox-openapi-records.json', import.meta.url), 'utf8')) as { schemas: Record<string, Node> };
const defs = convert(fixture.schemas) as Record<string, Node>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
// drf-spectacular's format for decimal strings; the schema's own pattern does the real check.
ajv.addFormat('decimal', /^-?\d*(?:\.\d*)?$/);
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/** Validation errors of `value` against components.schemas[name] (empty when valid). */
export function schemaErrors(name: string, value: unknown): string[] {
  let validate = compiled.get(name);
  if (!validate) {
    validate = ajv.compile({ $defs: defs, $ref: `#/$defs/${name}` });
    compiled.set(name, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}
