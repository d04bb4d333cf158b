// Types of dist/config/schema-validator.cjs, which scripts/build-validator.js generates from
// schemas/hogsync.schema.json with ajv's standalone code (allErrors).
import type { ErrorObject } from 'ajv';

declare const validate: {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
};
export = validate;
