// Writes schemas/hogsync.schema.json, composed from src/resources/base.schema.json and each
// registered kind's src/resources/<kind>/schema.json (src/resources/schema-compose.ts says how).
// `npm run build` runs it after tsc and before the schema validator is compiled; `--check`
// writes nothing and exits 1 when the committed file differs from what the kinds compose.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { composeSchema } from '../dist/resources/schema-compose.js';
import { KINDS } from '../dist/resources/registry.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const read = (path) => JSON.parse(readFileSync(`${root}${path}`, 'utf8'));
const schema = composeSchema(read('src/resources/base.schema.json'), KINDS, (kind) => read(`src/resources/${kind.name}/schema.json`));
const text = `${JSON.stringify(schema, null, 2)}\n`;
const target = `${root}schemas/hogsync.schema.json`;
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== text) {
    process.stderr.write('schemas/hogsync.schema.json is not what the kinds compose: run `npm run build`\n');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
