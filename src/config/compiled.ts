// Loads the loader's heavy dependencies fast: the yaml package, bundled into one file,
// js-yaml (the fast path of src/config/fast-parse.ts), and the schema validator compiled from the JSON Schema, each with the V8 code cache that
// scripts/build-validator.js recorded (see there for why). Both live in dist/; the paths go
// through the package root so that they resolve from dist/config (the CLI) and from
// src/config (the tests) alike. Without the bundle, yaml comes from node_modules as usual.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import type { ErrorObject } from 'ajv';
import type * as Yaml from 'yaml';
import { HogsyncError } from '../errors.js';

export type YamlModule = typeof Yaml;
export interface SchemaValidator { (data: unknown): boolean; errors?: ErrorObject[] | null }

const DIST = new URL('../../dist/', import.meta.url);
/** Must equal the wrapper in scripts/build-validator.js byte for byte, or V8 rejects the cache. */
const wrap = (source: string) => `(function (exports, require, module, __filename, __dirname) {${source}\n})`;

type Wrapper = (exports: object, require: NodeRequire, module: { exports: unknown }, filename: string, dirname: string) => void;

/** Runs a CommonJS file from its code cache when V8 accepts it (it compiles normally otherwise). */
function loadCommonJs(url: URL): unknown {
  const path = fileURLToPath(url);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(`${path}.cache`);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(wrap(readFileSync(path, 'utf8')), { filename: path, cachedData });
  const mod: { exports: unknown } = { exports: {} };
  (script.runInThisContext() as Wrapper)(mod.exports as object, createRequire(path), mod, path, dirname(path));
  return mod.exports;
}

/** The part of js-yaml the fast path uses. */
export interface JsYamlModule {
  CORE_SCHEMA: unknown;
  load(text: string, options: { schema: unknown; listener?: (event: 'open' | 'close', state: JsYamlState) => void }): unknown;
}
export interface JsYamlState { position: number; kind: string | null; result: unknown; anchor: string | null }

let yaml: YamlModule | undefined;
let jsYaml: JsYamlModule | undefined;
let validator: SchemaValidator | undefined;

export function loadYaml(): YamlModule {
  if (!yaml) {
    const bundle = new URL('vendor/yaml.cjs', DIST);
    yaml = (existsSync(bundle) ? loadCommonJs(bundle) : createRequire(import.meta.url)('yaml')) as YamlModule;
  }
  return yaml;
}

export function loadJsYaml(): JsYamlModule {
  if (!jsYaml) {
    const bundle = new URL('vendor/js-yaml.cjs', DIST);
    jsYaml = (existsSync(bundle) ? loadCommonJs(bundle) : createRequire(import.meta.url)('js-yaml')) as JsYamlModule;
  }
  return jsYaml;
}

export function loadSchemaValidator(): SchemaValidator {
  if (!validator) {
    const file = new URL('config/schema-validator.cjs', DIST);
    if (!existsSync(file)) throw new HogsyncError('internal', 'dist/config/schema-validator.cjs is missing; run `npm run build`');
    validator = loadCommonJs(file) as SchemaValidator;
  }
  return validator;
}
