// `hogsync schema`: prints the JSON Schema of the configuration format.
import { loadSchemaText } from '../resources/schema-fields.js';

export async function run(): Promise<number> {
  process.stdout.write(loadSchemaText());
  return 0;
}
