// The export use case: read a whole organization (optionally only some of its parent items,
// the projects) and turn it into the configuration document that declares it.
import { loadSchemaValidator } from '../config/compiled.js';
import { exportDocument, type ExportResult } from '../export/document.js';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_URL } from '../resources/schema.js';
import { defaultExportKinds, readWorkspace } from '../state/workspace.js';
import { KINDS, kindsOfKeys, type Kinds } from '../resources/registry.js';
import { organizationResolver } from './organizations.js';
import { reading, withClient, type ApiSettings, type Observer } from './session.js';
import { prepareExport } from './prepare-kinds.js';

export interface ExportRequest {
  /** The organization as files write it: its UUID, its slug or @current (resolved once, first). */
  organization: string;
  /** Ids of the projects to export; none: all of them. */
  projects: number[];
  /** Declare flags several projects hold once, at the organization level. */
  shared?: boolean;
  /** Also write fields the schema marks as web-app state (--all-fields). */
  allFields?: boolean;
  /** Where the document will be written (undefined: stdout, read from the working directory). */
  outFile?: string;
  /** `--kind`: the kinds table's keys of the kinds to write (none: every kind exported by default). */
  kinds?: string[];
}

/**
 * The editor modeline's schema: this installation's schema file, by a path relative to the
 * exported file, so the reference resolves wherever hogsync is installed (no address to serve).
 */
export function schemaReference(outFile: string | undefined): string {
  const from = outFile === undefined ? process.cwd() : dirname(resolve(outFile));
  const path = relative(from, fileURLToPath(SCHEMA_URL)).split(sep).join('/');
  return path.startsWith('.') || path.startsWith('/') ? path : `./${path}`;
}

export interface ExportedWorkspace extends ExportResult {
  /** The organization exported, by its UUID. */
  organization: string;
  /** Kinds left out because export writes them only when --kind names them (none when --kind is given). */
  notExported: Kinds;
}

export async function exportWorkspace(request: ExportRequest, settings: ApiSettings, observer: Observer = {}): Promise<ExportedWorkspace> {
  const selected = request.kinds && request.kinds.length > 0 ? kindsOfKeys(request.kinds) : defaultExportKinds();
  const { organization, live } = await withClient(settings, observer, async (client) => {
    const id = await organizationResolver(client)(request.organization);
    const read = await reading(client, 'workspace', observer, () => readWorkspace(client, id, request.projects, settings.parallelism, KINDS, selected));
    await prepareExport(client, read, selected);
    return { organization: id, live: read };
  });
  const notExported = request.kinds && request.kinds.length > 0 ? [] : KINDS.filter((k) => k.exportedByDefault === false);
  const result = exportDocument(live, { organization, schemaId: schemaReference(request.outFile), validate: loadSchemaValidator(),
    shared: request.shared === true, allFields: request.allFields === true, selected });
  return { ...result, organization, notExported };
}
