// Contract checks against the real API's OpenAPI document (test/fixtures/posthog-openapi-subset.yaml,
// see test/fixtures/README.md for where it came from): validateRequest / validateResponse answer a
// list of problems for one call, schemaErrors one for a record against a named component schema
// (each empty when it fits). This is the one OpenAPI → JSON Schema converter of the tests.
// The document is OpenAPI 3.0, so its schemas are converted for ajv first:
//   - `nullable: true` becomes a JSON Schema null (also on enums, $ref and allOf wrappers);
//   - readOnly properties are not required in requests, and sending one is a problem
//     (the API ignores it: a managed field that never converges); writeOnly likewise in responses;
//   - formats ajv-formats does not know (decimal, int64) are dropped; their pattern/bounds stay.
// Path parameters are checked too, a little stricter than the document: hogsync only ever
// sends an organization UUID and an integer project id.
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { parse } from 'yaml';

export const OPENAPI_FILE = new URL('../fixtures/posthog-openapi-subset.yaml', import.meta.url);

type Schema = Record<string, unknown>;
type Direction = 'request' | 'response';

interface Parameter { name: string; in: string; required?: boolean; schema?: Schema; explode?: boolean }
interface MediaType { schema?: Schema }
interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}
interface PathItem { parameters?: Parameter[]; [method: string]: Operation | Parameter[] | undefined }
interface OpenApiDocument { paths: Record<string, PathItem>; components?: { schemas?: Record<string, Schema> } }

export interface MatchedOperation {
  template: string;
  method: string;
  operation: Operation;
  parameters: Parameter[];
  pathParams: Record<string, string>;
  query: URLSearchParams;
}

const KNOWN_FORMATS = new Set(['date-time', 'date', 'time', 'email', 'uri', 'uuid', 'ipv4', 'ipv6', 'hostname', 'byte', 'int32', 'float', 'double']);
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Stricter than the document, where it says only "string": what hogsync actually sends. */
const HOGSYNC_PATH_RULES: Record<string, Schema> = {
  organization_id: { type: 'string', format: 'uuid' },
  project_id: { type: 'integer', minimum: 1 },
};

interface Loaded {
  doc: OpenApiDocument;
  ajv: Ajv;
  templates: Array<{ template: string; names: string[]; regex: RegExp }>;
}

let loaded: Loaded | undefined;

/** Read and prepare the document once, on first use. */
function load(): Loaded {
  if (loaded !== undefined) return loaded;
  const doc = parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
  const ajv = new Ajv({ strict: false, allErrors: true });
  type FormatsPlugin = (a: Ajv) => Ajv;
  const addFormats = ((formatsModule as unknown as { default?: FormatsPlugin }).default ?? formatsModule) as unknown as FormatsPlugin;
  addFormats(ajv);
  for (const direction of ['request', 'response'] as const) {
    const definitions: Record<string, unknown> = {};
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) definitions[name] = convert(schema, direction);
    ajv.addSchema({ $id: `openapi-${direction}`, definitions });
  }
  const templates = Object.keys(doc.paths)
    .map((template) => {
      const names: string[] = [];
      const source = template.replace(/\{([^}]+)\}|[^{]+/g, (part, name: string | undefined) => {
        if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(name);
        return '([^/]+)';
      });
      return { template, names, regex: new RegExp(`^${source}$`) };
    })
    // Literal segments win over parameters: /feature_flags/my_flags/ is not /feature_flags/{id}/.
    .sort((a, b) => a.names.length - b.names.length);
  loaded = { doc, ajv, templates };
  return loaded;
}

/** The operation of the document that `method path` (a path or a full URL, with its query) calls. */
export function matchOperation(method: string, path: string): MatchedOperation | string {
  const { doc, templates } = load();
  const url = new URL(path, 'http://placeholder.invalid');
  for (const { template, names, regex } of templates) {
    const m = regex.exec(url.pathname);
    if (m === null) continue;
    const item = doc.paths[template] as PathItem;
    const op = item[method.toLowerCase()];
    if (op === undefined || Array.isArray(op)) {
      const documented = HTTP_METHODS.filter((k) => item[k] !== undefined).map((k) => k.toUpperCase()).sort();
      return `${method.toUpperCase()} is not documented for ${template} (documented: ${documented.join(', ')})`;
    }
    const pathParams: Record<string, string> = {};
    names.forEach((name, i) => { pathParams[name] = decodeURIComponent(m[i + 1] as string); });
    return { template, method: method.toUpperCase(), operation: op, parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])], pathParams, query: url.searchParams };
  }
  return `no path of the OpenAPI document matches ${url.pathname}`;
}

/** Problems of a request: unknown path or method, bad path/query parameters, a body that does not fit. */
export function validateRequest(method: string, path: string, body?: unknown): string[] {
  const match = matchOperation(method, path);
  if (typeof match === 'string') return [match];
  const problems = [...checkParameters(match)];
  const requestBody = match.operation.requestBody;
  if (requestBody === undefined) {
    if (body !== undefined) problems.push(`${match.method} ${match.template} takes no request body`);
    return problems;
  }
  if (body === undefined) {
    if (requestBody.required === true) problems.push(`${match.method} ${match.template} requires a request body`);
    return problems;
  }
  const schema = requestBody.content?.['application/json']?.schema;
  if (schema !== undefined) problems.push(...check(validator(schema, 'request'), body, 'request body', 'request'));
  return problems;
}

/** Problems of a response: an undocumented status, or a body that does not fit the documented schema. */
export function validateResponse(method: string, path: string, status: number, body: unknown): string[] {
  const match = matchOperation(method, path);
  if (typeof match === 'string') return [match];
  const responses = match.operation.responses ?? {};
  const response = responses[String(status)] ?? responses.default;
  if (response === undefined) {
    return [`status ${status} is not documented for ${match.method} ${match.template} (documented: ${Object.keys(responses).join(', ')})`];
  }
  const schema = response.content?.['application/json']?.schema;
  // "No response body": nothing to check the body against.
  if (schema === undefined) return [];
  return check(validator(schema, 'response'), body, 'response body', 'response');
}

/** Problems of a record the API answers, against components.schemas[name] (response direction). */
export function schemaErrors(name: string, value: unknown): string[] {
  if (load().doc.components?.schemas?.[name] === undefined) return [`no schema ${name} in the OpenAPI document`];
  return check(validator({ $ref: `#/components/schemas/${name}` }, 'response'), value, 'record', 'response');
}

function checkParameters(match: MatchedOperation): string[] {
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(match.pathParams)) {
    const declared = match.parameters.find((p) => p.in === 'path' && p.name === name)?.schema;
    for (const schema of [declared, HOGSYNC_PATH_RULES[name]]) {
      if (schema === undefined) continue;
      problems.push(...check(validator(schema, 'request'), coerce(raw, schema), `path parameter ${name} (${JSON.stringify(raw)})`, 'request'));
    }
  }
  const queryParams = match.parameters.filter((p) => p.in === 'query');
  for (const name of new Set(match.query.keys())) {
    const param = queryParams.find((p) => p.name === name);
    if (param === undefined) {
      problems.push(`unknown query parameter ${name}`);
      continue;
    }
    const schema = param.schema;
    if (schema === undefined) continue;
    // An array of the form style: repeated parameters (explode, the default) or one comma-separated value.
    if (schema.type === 'array') {
      const items = (schema.items ?? {}) as Schema;
      const values = param.explode === false ? match.query.getAll(name).flatMap((v) => v.split(',')) : match.query.getAll(name);
      problems.push(...check(validator(schema, 'request'), values.map((v) => coerce(v, items)), `query parameter ${name}`, 'request'));
      continue;
    }
    for (const raw of match.query.getAll(name)) problems.push(...check(validator(schema, 'request'), coerce(raw, schema), `query parameter ${name}`, 'request'));
  }
  for (const p of queryParams) if (p.required === true && !match.query.has(p.name)) problems.push(`missing query parameter ${p.name}`);
  return [...new Set(problems)];
}

function coerce(raw: string, schema: Schema): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (schema.type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

const compiled = new Map<string, ValidateFunction>();

function validator(schema: Schema, direction: Direction): ValidateFunction {
  const key = `${direction}:${JSON.stringify(schema)}`;
  let fn = compiled.get(key);
  if (fn === undefined) {
    fn = load().ajv.compile(convert(schema, direction) as Schema);
    compiled.set(key, fn);
  }
  return fn;
}

function check(fn: ValidateFunction, value: unknown, what: string, direction: Direction): string[] {
  if (fn(value)) return [];
  return [...new Set(simplify(fn.errors ?? []).map((e) => `${what}${e.instancePath === '' ? '' : ` ${e.instancePath}`}: ${describe(e, direction)}`))];
}

/** Drop the noise of the null alternative that `nullable` adds: keep the errors of the real branch. */
function simplify(errors: ErrorObject[]): ErrorObject[] {
  const kept = errors.filter((e) => !(e.keyword === 'type' && e.params.type === 'null') && e.keyword !== 'anyOf');
  return kept.length > 0 ? kept : errors;
}

function describe(e: ErrorObject, direction: Direction): string {
  if (e.keyword === 'false schema') return direction === 'request' ? 'is read-only (the API ignores it)' : 'is write-only (the API should not answer it)';
  if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues) && e.params.allowedValues.length <= 12) {
    return `must be one of ${e.params.allowedValues.map((v: unknown) => JSON.stringify(v)).join(', ')}`;
  }
  return e.message ?? e.keyword;
}

// ---- OpenAPI 3.0 schema → JSON Schema (draft-07) ----

/** Keywords whose value is a map of name → schema. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions']);
/** Keywords whose value is a schema or an array of schemas. */
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf']);
/** Keywords that only document; they go. */
const DROPPED = new Set(['nullable', 'readOnly', 'writeOnly', 'example', 'examples', 'xml', 'externalDocs', 'discriminator', 'deprecated']);

function convert(node: unknown, direction: Direction): unknown {
  if (Array.isArray(node)) return node.map((n) => convert(n, direction));
  if (!isRecord(node)) return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (key === '$ref' && typeof value === 'string') {
      out.$ref = value.replace(/^#\/components\/schemas\//, `openapi-${direction}#/definitions/`);
    } else if (key === 'format') {
      if (typeof value === 'string' && KNOWN_FORMATS.has(value) && !['int32', 'float', 'double', 'byte'].includes(value)) out.format = value;
    } else if (key === 'properties' && isRecord(value)) {
      const props: Schema = {};
      for (const [name, prop] of Object.entries(value)) props[name] = hidden(prop, direction) ? false : convert(prop, direction);
      out.properties = props;
    } else if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, convert(v, direction)]));
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = convert(value, direction);
    } else {
      out[key] = value; // enum, required, bounds, pattern, type, default…: data, copied as is
    }
  }
  if (Array.isArray(out.required) && isRecord(node.properties)) {
    const props = node.properties;
    out.required = out.required.filter((name) => !hidden(props[String(name)], direction));
  }
  return node.nullable === true ? nullable(out) : out;
}

/** A property the other direction owns: readOnly in a request, writeOnly in a response. */
function hidden(prop: unknown, direction: Direction): boolean {
  return isRecord(prop) && (direction === 'request' ? prop.readOnly === true : prop.writeOnly === true);
}

function nullable(schema: Schema): Schema {
  const out = { ...schema };
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (out.type !== undefined) {
    const types = Array.isArray(out.type) ? out.type : [out.type];
    if (!types.includes('null')) out.type = [...types, 'null'];
    return out;
  }
  // $ref and allOf cannot be widened in place (a $ref's siblings are ignored): offer null beside them.
  if (out.$ref !== undefined || out.allOf !== undefined || out.oneOf !== undefined || out.anyOf !== undefined) {
    return { anyOf: [{ type: 'null' }, out] };
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
