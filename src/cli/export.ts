// `hogsync export`: reads the live workspace of one organization (optionally only some of
// its projects; src/api/read-workspace.ts) and writes it as configuration YAML, to stdout or
// atomically to --out, with the variables to set for its secrets on stderr.
import type { LiveState } from '../api/live-state.js';
import { readWorkspace } from '../api/read-workspace.js';
import { loadSchemaValidator } from '../config/compiled.js';
import { HogsyncError } from '../errors.js';
import { exportDocument } from '../export/document.js';
import { loadSchemaText } from '../resources/schema-fields.js';
import { printable } from '../render/printable.js';
import { writeOutFile } from '../util/out-file.js';
import { apiSettings, openClient, positiveInt, progressLine } from './context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function organizationOption(raw: unknown): string {
  const id = String(raw ?? '').trim();
  if (!UUID.test(id)) throw new HogsyncError('usage', `--organization must be an organization id (a UUID such as 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f), got ${JSON.stringify(raw ?? '')}`);
  return id.toLowerCase();
}

function projectOptions(raw: unknown): number[] {
  const list = Array.isArray(raw) ? raw : [];
  return [...new Set(list.map((v) => positiveInt(v, '--project')))].sort((a, b) => a - b);
}

function plural(n: number, kind: string): string {
  const name = kind.replace(/_/g, ' ');
  return `${n} ${n === 1 ? name : `${name}s`}`;
}

export async function run(_args: string[], opts: Record<string, unknown>): Promise<number> {
  const organization = organizationOption(opts.organization);
  const named = projectOptions(opts.project);
  const settings = apiSettings(opts);
  const client = openClient(settings);
  const progress = progressLine();
  const timer = setInterval(() => progress.update(`export: reading the workspace: ${client.stats.requests} requests`), 200);
  let live: LiveState;
  try {
    live = await readWorkspace(client, organization, named, settings.parallelism);
  } finally {
    clearInterval(timer);
    progress.done();
    await client.close();
  }

  const schemaId = (JSON.parse(loadSchemaText()) as { $id: string }).$id;
  const result = exportDocument(live, { organization, schemaId, validate: loadSchemaValidator() });
  const out = typeof opts.out === 'string' ? opts.out : undefined;
  if (out) await writeOutFile(out, result.text);
  else process.stdout.write(result.text);

  for (const warning of result.warnings) process.stderr.write(`export: warning: ${printable(warning)}\n`);
  if (result.variables.length > 0) {
    process.stderr.write(`export: set these environment variables before plan: ${result.variables.map((v) => v.name).join(', ')}\n`);
  }
  if (out) {
    const counts = result.counts.map((c) => plural(c.count, c.kind)).join(', ');
    process.stderr.write(`Exported ${counts} to ${printable(out)}\n`);
  }
  return 0;
}
