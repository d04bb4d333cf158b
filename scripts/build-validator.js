// Prepares, at build time, everything the configuration loader would otherwise pay for on
// every run (`hogsync validate` must start within about twice a bare `node -e 0`):
//  1. compiles schemas/hogsync.schema.json into standalone validation code
//     (dist/config/schema-validator.cjs), so no run compiles the schema or loads ajv's compiler;
//  2. bundles the `yaml` package (72 small CommonJS files) into one file, dist/vendor/yaml.cjs,
//     so a run reads one file instead of resolving 72;
//  3. copies js-yaml's single-file build to dist/vendor/js-yaml.cjs (the loader's fast path);
//  4. records a V8 code cache of all three, after exercising them, so a run neither compiles
//     them nor interprets the parsers cold. src/config/compiled.ts loads them; a cache V8 rejects
//     (another Node version) only costs speed, and missing files fall back to plain `require`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix, relative } from 'node:path';
import { Script } from 'node:vm';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone/index.js';

const require = createRequire(import.meta.url);
const root = new URL('../', import.meta.url);
const configDir = new URL('dist/config/', root);
const vendorDir = new URL('dist/vendor/', root);
mkdirSync(configDir, { recursive: true });
mkdirSync(vendorDir, { recursive: true });

// 1. The schema validator.
const schema = JSON.parse(readFileSync(new URL('schemas/hogsync.schema.json', root), 'utf8'));
// strictRequired off: the schema requires an item's identity where the item is used (a project's
// `id` in `projects`), not in the shared definition that `defaults` narrows and reuses.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, code: { source: true } });
addFormats.default(ajv, ['uuid']);
// Annotations hogsync reads itself: sensitivity, compare rule, what a pattern means (for messages), fields the API merges,
// and fields that only shape the configuration (aliases, renames, shared flags), never sent to the API.
ajv.addVocabulary(['x-sensitive', 'x-normalize', 'x-expected', 'x-reason', 'x-config-only', 'x-merge']);
const validatorFile = new URL('schema-validator.cjs', configDir);
writeFileSync(validatorFile, standaloneCode(ajv, ajv.compile(schema)));

// 2. yaml as one file: each module becomes a function in a table, with a require that
// resolves relative paths in that table and passes Node built-ins through.
const yamlEntry = require.resolve('yaml');
const yamlRoot = dirname(yamlEntry);
const modules = new Map();
const pending = [relative(yamlRoot, yamlEntry).split('\\').join('/')];
while (pending.length > 0) {
  const id = pending.pop();
  if (modules.has(id)) continue;
  const source = readFileSync(join(yamlRoot, id), 'utf8');
  modules.set(id, source);
  for (const m of source.matchAll(/require\(['"](\.[^'"]+)['"]\)/g)) {
    let target = posix.normalize(posix.join(posix.dirname(id), m[1]));
    if (!target.endsWith('.js')) target += '.js';
    pending.push(target);
  }
}
const table = [...modules].map(([id, source]) => `${JSON.stringify(id)}: function (exports, require, module) {\n${source}\n}`).join(',\n');
const bundle = `'use strict';
// The yaml package (${JSON.stringify(require('yaml/package.json').version)}), bundled by scripts/build-validator.js. License: ISC.
const defs = {
${table}
};
const cache = {};
function load(id) {
  if (cache[id]) return cache[id].exports;
  const mod = { exports: {} };
  cache[id] = mod;
  defs[id].call(mod.exports, mod.exports, (spec) => resolveFrom(id, spec), mod);
  return mod.exports;
}
function resolveFrom(from, spec) {
  if (!spec.startsWith('.')) return require(spec);
  const parts = from.split('/').slice(0, -1);
  for (const p of spec.split('/')) {
    if (p === '..') parts.pop();
    else if (p !== '.') parts.push(p);
  }
  let id = parts.join('/');
  if (!id.endsWith('.js')) id += '.js';
  if (!defs[id]) throw new Error('yaml bundle: no module ' + id);
  return load(id);
}
module.exports = load(${JSON.stringify(relative(yamlRoot, yamlEntry).split('\\').join('/'))});
`;
const yamlFile = new URL('yaml.cjs', vendorDir);
writeFileSync(yamlFile, bundle);

// 3. js-yaml is already one file.
const jsYamlFile = new URL('js-yaml.cjs', vendorDir);
writeFileSync(jsYamlFile, readFileSync(join(dirname(require.resolve('js-yaml/package.json')), 'dist', 'js-yaml.js'), 'utf8'));

// 4. Code caches. The wrapper must match WRAPPER in src/config/compiled.ts byte for byte,
// or V8 rejects the cache (harmless, but slow).
const wrap = (source) => `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
function runAndCache(file, exercise) {
  const path = new URL(file).pathname;
  const script = new Script(wrap(readFileSync(file, 'utf8')), { filename: path });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, createRequire(path), mod, path, dirname(path));
  exercise(mod.exports);
  writeFileSync(`${path}.cache`, script.createCachedData());
}

const sample = `# a configuration touching most of the parser
organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f
projects:
  - id: 12345
    name: "Web app"
    timezone: Europe/Berlin
    anonymize_ips: true
    session_recording_sample_rate: '0.5'
    week_start_day: 1
    feature_flags:
      - key: new-checkout
        filters: { groups: [ { properties: [], rollout_percentage: 20 } ] }
        tags: [a, b]
proxy_records:
  - domain: e.example.com
roles:
  - name: Engineers
    feature_flags_access_level: 37
prune:
  proxy_records: true
`;
runAndCache(yamlFile, (yaml) => {
  const lineCounter = new yaml.LineCounter();
  for (const doc of yaml.parseAllDocuments(sample, { lineCounter, uniqueKeys: false, prettyErrors: true, strict: true })) {
    doc.toJS();
    lineCounter.linePos(10);
  }
  yaml.parseAllDocuments('a: [1\n\tb: *x\n', { lineCounter: new yaml.LineCounter(), prettyErrors: true });
});
runAndCache(validatorFile, (validate) => {
  const yaml = require('yaml');
  const data = yaml.parse(sample);
  validate(data);
  validate({ ...data, organization: 'nope', extra: 1, projects: [{ id: 'x', name: '', timezone: 'Mars/Base' }] });
});
runAndCache(jsYamlFile, (jsYaml) => {
  jsYaml.load(sample, { schema: jsYaml.CORE_SCHEMA, listener: () => {} });
});
