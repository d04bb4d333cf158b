// Compiles schemas/hogsync.schema.json ahead of time into standalone validation code
// (dist/config/schema-validator.cjs), so that no run of hogsync pays for compiling the schema.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone/index.js';

const schema = JSON.parse(readFileSync(new URL('../schemas/hogsync.schema.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, code: { source: true } });
addFormats.default(ajv, ['uuid']);
// Annotations hogsync reads itself: sensitivity, compare rule, and what a pattern means (for messages).
ajv.addVocabulary(['x-sensitive', 'x-normalize', 'x-expected']);
const validate = ajv.compile(schema);
const out = new URL('../dist/config/', import.meta.url);
mkdirSync(out, { recursive: true });
writeFileSync(new URL('schema-validator.cjs', out), standaloneCode(ajv, validate));
