// Loads the configuration loader's heavy dependencies from dist/vendor/, where
// scripts/bundle-config-loader.js builds them: the yaml package and js-yaml (the fast path of
// src/config/fast-parse.ts), each bundled into one file, and the schema validator compiled from
// the JSON Schema. They ship only there (they are devDependencies). The paths go through the
// package root, so they resolve from dist/config (the CLI) and from src/config (the tests) alike.
// Each runs from the V8 code cache the build recorded beside it (FILE.cjs.cache): a run neither
// compiles nor interprets them cold, about 10 ms of `validate`'s start-up. A cache V8 rejects
// (another Node version) only costs that time.
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

/** The part of js-yaml the fast path uses. */
export interface JsYamlModule {
  CORE_SCHEMA: unknown;
  load(text: string, options: { schema: unknown; listener?: (event: 'open' | 'close', state: JsYamlState) => void }): unknown;
}
export interface JsYamlState { position: number; kind: string | null; result: unknown; anchor: string | null }

const loaded = new Map<string, unknown>();
/** Must equal the wrapper in scripts/bundle-config-loader.js byte for byte, or V8 rejects the cache. */
const wrap = (source: string) => `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
type Wrapper = (exports: object, require: NodeRequire, module: { exports: unknown }, filename: string, dirname: string) => void;

function loadCommonJs(path: string): unknown {
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

function vendor<T>(name: string): T {
  let mod = loaded.get(name);
  if (mod === undefined) {
    const file = fileURLToPath(new URL(`../../dist/vendor/${name}.cjs`, import.meta.url));
    if (!existsSync(file)) throw new HogsyncError('internal', `dist/vendor/${name}.cjs is missing; run \`npm run build\``);
    mod = loadCommonJs(file);
    loaded.set(name, mod);
  }
  return mod as T;
}

export const loadYaml = (): YamlModule => vendor<YamlModule>('yaml');
export const loadJsYaml = (): JsYamlModule => vendor<JsYamlModule>('js-yaml');
export const loadSchemaValidator = (): SchemaValidator => vendor<SchemaValidator>('schema-validator');
