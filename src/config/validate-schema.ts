// Runs the schema validator that scripts/bundle-config-loader.js compiled ahead of time (so no
// run pays for compiling the schema) and explains its errors.
import { loadSchemaValidator } from './compiled.js';
import { splitPointer } from './pointer.js';
import { schemaAt } from './schema-doc.js';
import { explainErrors, type SchemaIssue } from './schema-messages.js';

export type { SchemaIssue } from './schema-messages.js';

/**
 * Every schema problem of one file's (interpolated) data. `envSources` maps pointers of
 * interpolated strings to their variables: such values, like x-sensitive fields, are never shown.
 */
export function checkSchema(data: unknown, envSources: ReadonlyMap<string, readonly string[]>): SchemaIssue[] {
  const validate = loadSchemaValidator();
  if (validate(data)) return [];
  const secret = (pointer: string): string | undefined => {
    const names = envSources.get(pointer);
    if (names) return `the value of ${names.map((n) => `\${env:${n}}`).join(' and ')}`;
    if (schemaAt(splitPointer(pointer))?.node['x-sensitive'] === true) return 'a sensitive value (not shown)';
    return undefined;
  };
  return explainErrors(validate.errors ?? [], { data, secret });
}
