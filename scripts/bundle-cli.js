// Builds dist/bundle/: the CLI as a few files instead of the ~100 modules tsc writes (`npm run
// build` runs it after tsc). Node loads each ES module on its own (resolve, read, compile,
// link): about 1 ms apiece, which was a third of `validate`'s start-up above bare Node and a
// tenth of a large plan's CPU. Commands stay separate chunks, loaded when they run; what they
// share is one chunk. The pipeline a plan runs is an entry too (`plan-pipeline.mjs`), so the
// plan benchmark runs the very code the CLI runs. Dependencies (undici, commander, diff) and the
// configuration loader's vendor files (dist/vendor/, loaded by path) stay outside. The bundle
// sits two levels below the package root, as the modules it is made of do, so the paths they
// take from import.meta.url (dist/vendor/, schemas/) resolve the same.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = join(root, 'dist');
const out = join(dist, 'bundle');
rmSync(out, { recursive: true, force: true });

await build({
  input: {
    main: join(dist, 'cli/main.js'),
    'plan-pipeline': join(dist, 'usecases/plan-pipeline.js'),
  },
  platform: 'node',
  logLevel: 'warn',
  external: [/^node:/, /^undici(\/|$)/, /^commander(\/|$)/, /^diff(\/|$)/],
  preserveEntrySignatures: 'exports-only',
  output: { dir: out, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
});
