// Loads the configuration loader's heavy dependencies from dist/vendor/, where
// scripts/bundle-config-loader.js builds them: the yaml package and js-yaml (the fast path of
// src/config/fast-parse.ts), each bundled into one file, and the schema validator compiled from
// the JSON Schema. They ship only there (they are devDependencies). The paths go through the
// package root, so they resolve from dist/config (the CLI) and from src/config (the tests) alike.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
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

const require = createRequire(import.meta.url);
const loaded = new Map<string, unknown>();

function vendor<T>(name: string): T {
  let mod = loaded.get(name);
  if (mod === undefined) {
    const file = fileURLToPath(new URL(`../../dist/vendor/${name}.cjs`, import.meta.url));
    if (!existsSync(file)) throw new HogsyncError('internal', `dist/vendor/${name}.cjs is missing; run \`npm run build\``);
    mod = require(file) as unknown;
    loaded.set(name, mod);
  }
  return mod as T;
}

export const loadYaml = (): YamlModule => vendor<YamlModule>('yaml');
export const loadJsYaml = (): JsYamlModule => vendor<JsYamlModule>('js-yaml');
export const loadSchemaValidator = (): SchemaValidator => vendor<SchemaValidator>('schema-validator');
