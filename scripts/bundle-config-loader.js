// Builds what the configuration loader loads at run time, each as one self-contained file in
// dist/vendor/ (`npm run build` runs it after tsc):
//  - schema-validator.cjs: schemas/hogsync.schema.json compiled by ajv into standalone code, so
//    no run compiles the schema (ajv's compiler alone takes longer to load than a whole validate);
//  - yaml.cjs (YAML with source positions, for file:line:col) and js-yaml.cjs (the loader's fast
//    path, see src/config/fast-parse.ts): one file each instead of the packages' many, which
//    saves 10 ms of `validate`'s start-up CPU, a sixth of what it costs above bare Node (README);
// and beside each, the V8 code cache of it (FILE.cjs.cache), which saves about 10 ms more.
// The bundler is rolldown (Vite's). These libraries ship only here, bundled: they are
// devDependencies, so an install never downloads them a second time.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { build } from 'rolldown';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone/index.js';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../', import.meta.url));
const vendor = join(root, 'dist/vendor');
const scratch = join(root, 'dist/.vendor-src');
rmSync(vendor, { recursive: true, force: true });
mkdirSync(vendor, { recursive: true });
mkdirSync(scratch, { recursive: true });

// The schema validator, as ajv writes it (it still requires a few ajv runtime helpers).
const schema = JSON.parse(readFileSync(join(root, 'schemas/hogsync.schema.json'), 'utf8'));
// strictRequired off: the schema requires an item's identity where the item is used (a project's
// `id` in `projects`), not in the shared definition that `defaults` narrows and reuses.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, code: { source: true } });
addFormats.default(ajv, ['uuid']);
// Annotations hogsync reads itself: sensitivity, compare rule, what a pattern means (for messages),
// fields the API merges, fields that only shape the configuration (aliases, renames, shared flags), never sent to the
// API, fields that are UI state (left out of exports unless --all-fields), and what the API does with a key it does
// not know (x-unknown) or a field left out (x-if-absent), for the messages about misspelt keys.
ajv.addVocabulary(['x-sensitive', 'x-normalize', 'x-expected', 'x-reason', 'x-config-only', 'x-merge', 'x-ui-state', 'x-deprecated', 'x-unknown', 'x-if-absent', 'x-create-only', 'x-synonyms', 'x-kind', 'x-hint']);
// ajv's generated code gathers the errors of a list's items with `vErrors.concat(…)` per item,
// which copies every error so far each time: a file of 20 000 items with one error each takes
// seconds (quadratic). The same errors are appended in place instead (each callee answers a
// fresh array per call, so the array taken over is never shared).
const concatErrors = /vErrors = vErrors === null \? ([\w.]+)\.errors : vErrors\.concat\(\1\.errors\);/g;
const code = standaloneCode(ajv, ajv.compile(schema));
const appended = code.replace(concatErrors, (_m, callee) => `if (vErrors === null) vErrors = ${callee}.errors; else for (const e of ${callee}.errors) vErrors.push(e);`);
if (appended === code || /vErrors\.concat/.test(appended)) throw new Error('bundle-config-loader: the validator no longer gathers errors by vErrors.concat; review the rewrite');
writeFileSync(join(scratch, 'schema-validator.cjs'), appended);

const bundles = [
  { name: 'schema-validator', input: join(scratch, 'schema-validator.cjs'), packages: ['ajv', 'ajv-formats', 'fast-deep-equal'] },
  { name: 'yaml', input: require.resolve('yaml'), packages: ['yaml'] },
  { name: 'js-yaml', input: require.resolve('js-yaml'), packages: ['js-yaml'] },
];
for (const b of bundles) {
  await build({
    input: b.input,
    platform: 'node',
    logLevel: 'warn',
    output: { file: join(vendor, `${b.name}.cjs`), format: 'cjs', exports: 'auto', banner: licenseBanner(b.packages) },
  });
}
rmSync(scratch, { recursive: true, force: true });

// V8 code caches, recorded after exercising each bundle, so a run neither compiles nor interprets
// them cold (src/config/compiled.ts loads them). The wrapper must match the one there byte for byte.
const wrap = (source) => `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
function runAndCache(name, exercise) {
  const path = join(vendor, `${name}.cjs`);
  const script = new Script(wrap(readFileSync(path, 'utf8')), { filename: path });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, createRequire(path), mod, path, dirname(path));
  exercise(mod.exports);
  writeFileSync(`${path}.cache`, script.createCachedData());
}
const sample = readFileSync(join(root, 'examples/basic/hogsync.yaml'), 'utf8');
runAndCache('js-yaml', (jsYaml) => jsYaml.load(sample, { schema: jsYaml.CORE_SCHEMA, listener: () => {} }));
runAndCache('yaml', (yaml) => {
  const lineCounter = new yaml.LineCounter();
  for (const doc of yaml.parseAllDocuments(sample, { lineCounter, uniqueKeys: false, prettyErrors: true, strict: true })) doc.toJS();
  lineCounter.linePos(10);
  yaml.parseAllDocuments('a: [1\n\tb: *x\n', { lineCounter: new yaml.LineCounter(), prettyErrors: true });
});
runAndCache('schema-validator', (validate) => {
  const data = require('yaml').parse(sample);
  validate(data);
  validate({ ...data, organization: 'nope', extra: 1, projects: [{ id: 'x', name: '', timezone: 'Mars/Base' }] });
});

/** Names, versions and licences of what a bundle holds (the full texts are in their packages). */
function licenseBanner(packages) {
  const lines = packages.map((name) => {
    const pkg = JSON.parse(readFileSync(join(dirname(require.resolve(`${name}/package.json`)), 'package.json'), 'utf8'));
    return ` * ${name} ${pkg.version}, licence ${pkg.license}${pkg.author ? `, by ${typeof pkg.author === 'string' ? pkg.author : pkg.author.name}` : ''}`;
  });
  return `/*!\n * Bundled by scripts/bundle-config-loader.js from:\n${lines.join('\n')}\n */`;
}
