// `hogsync export`: reads the live workspace of one organization (optionally only some of
// its projects) and writes it as configuration YAML, to stdout or atomically to --out.
// Reading is generic over the resource kinds: one paginated list per collection, one GET per
// item of kinds whose lists carry only basic fields (projects), child collections (flags) of
// every exported parent.
import type { ApiClient } from '../api/client.js';
import { liveStateOf, type LiveCollection, type LiveState } from '../api/live-state.js';
import { loadSchemaValidator } from '../config/compiled.js';
import { HogsyncError } from '../errors.js';
import { exportDocument } from '../export/document.js';
import type { LiveRecord, ResourceKind, Scope } from '../resources/kind.js';
import { KINDS, kindByName } from '../resources/registry.js';
import { loadSchemaText } from '../resources/schema-fields.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { mapLimit } from '../util/map-limit.js';
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

const is404 = (err: unknown) => err instanceof HogsyncError && err.request?.status === 404;

async function getOrNull(api: ApiClient, path: string): Promise<LiveRecord | null> {
  try {
    const { body } = await api.request<unknown>('GET', path);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new HogsyncError('api', 'the API answered with a body that is not a record', { request: { method: 'GET', path, status: 200 } });
    }
    return body as LiveRecord;
  } catch (err) {
    if (is404(err)) return null;
    throw err;
  }
}

/** A list's items must be records; anything else is refused rather than guessed at. */
async function listRecords(api: ApiClient, kind: ResourceKind, path: string): Promise<LiveRecord[]> {
  const items = await api.listAll<unknown>(path);
  items.forEach((item, index) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new HogsyncError('api', `the API answered with a malformed ${kind.name} (item ${index + 1}): not an object`, { request: { method: 'GET', path, status: 200 } });
    }
  });
  return items as LiveRecord[];
}

/** Everything the export writes. `named`: the --project ids (none = every project). */
async function readWorkspace(api: ApiClient, organization: string, named: number[], parallelism: number): Promise<LiveState> {
  const orgScope: Scope = { organization, project: null };
  const projectKind = kindByName('project');
  const top = KINDS.filter((k) => k.parent === 'organization');

  // 1. Organization-level lists; for kinds read one by one, the list only names the items.
  const lists = await mapLimit(top, parallelism, async (kind) =>
    kind === projectKind && named.length > 0 ? [] : listRecords(api, kind, kind.collectionPath(orgScope)));
  const records = new Map<ResourceKind, LiveRecord[]>(top.map((kind, i) => [kind, lists[i] ?? []]));

  // 2. Full records of kinds whose list answers only basic fields.
  const gets = top.filter((k) => k.read === 'get').flatMap((kind) => {
    const ids = kind === projectKind && named.length > 0 ? named : (records.get(kind) ?? []).map((r) => kind.liveId(r));
    return ids.map((id) => ({ kind, id }));
  });
  const fetched = await mapLimit(gets, parallelism, ({ kind, id }) => getOrNull(api, kind.itemPath(orgScope, id)));
  for (const kind of top.filter((k) => k.read === 'get')) {
    records.set(kind, fetched.filter((r, i): r is LiveRecord => r !== null && gets[i]?.kind === kind));
  }
  const missing = named.filter((id) => !(records.get(projectKind) ?? []).some((r) => Number(projectKind.liveId(r)) === id));
  if (missing.length > 0) {
    throw new HogsyncError('usage', `project ${missing.join(', ')} not found in organization ${organization}`);
  }

  // 3. Child collections (feature flags) of every exported parent.
  const children = KINDS.filter((k) => k.parent !== 'organization').flatMap((kind) => {
    const parent = top.find((k) => k.name === kind.parent);
    if (!parent) throw new HogsyncError('internal', `no organization-level kind ${kind.parent} for ${kind.name}`);
    const ids = (records.get(parent) ?? []).map((r) => Number(parent.liveId(r))).filter((id) => Number.isSafeInteger(id));
    return ids.map((project) => ({ kind, scope: { organization, project } }));
  });
  const childRecords = await mapLimit(children, parallelism, async ({ kind, scope }) => {
    try {
      return await listRecords(api, kind, kind.collectionPath(scope));
    } catch (err) {
      if (is404(err)) return []; // deleted since it was listed
      throw err;
    }
  });

  const collections: LiveCollection[] = [
    ...top.map((kind) => ({ kind, scope: orgScope, records: records.get(kind) ?? [] })),
    ...children.map(({ kind, scope }, i) => ({ kind, scope, records: childRecords[i] ?? [] })),
  ];
  return liveStateOf(collections);
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
  if (out) writeFileAtomic(out, result.text);
  else process.stdout.write(result.text);

  for (const warning of result.warnings) process.stderr.write(`export: warning: ${warning}\n`);
  if (result.variables.length > 0) {
    process.stderr.write(`export: set these environment variables before plan: ${result.variables.map((v) => v.name).join(', ')}\n`);
  }
  if (out) {
    const counts = result.counts.map((c) => plural(c.count, c.kind)).join(', ');
    process.stderr.write(`Exported ${counts} to ${out}\n`);
  }
  return 0;
}
