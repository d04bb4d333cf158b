// `hogsync schema`: prints the JSON Schema of the configuration format.
import { schemaText } from '../resources/schema.js';

export async function run(): Promise<number> {
  process.stdout.write(schemaText());
  return 0;
}
