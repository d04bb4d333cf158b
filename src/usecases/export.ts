// The export use case: read a whole organization (optionally only some of its parent items,
// the projects) and turn it into the configuration document that declares it.
import { loadSchemaValidator } from '../config/compiled.js';
import { exportDocument, type ExportResult } from '../export/document.js';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_URL } from '../resources/schema.js';
import { defaultExportKinds, readWorkspace } from '../state/workspace.js';
import { KINDS, kindsOfKeys } from '../resources/registry.js';
import { reading, withClient, type ApiSettings, type Observer } from './session.js';
import { prepareExport } from './prepare-kinds.js';

export interface ExportRequest {
  /** The organization id, lower-cased. */
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

export async function exportWorkspace(request: ExportRequest, settings: ApiSettings, observer: Observer = {}): Promise<ExportResult> {
  const selected = request.kinds && request.kinds.length > 0 ? kindsOfKeys(request.kinds) : defaultExportKinds();
  const live = await withClient(settings, observer, async (client) => {
    const read = await reading(client, 'workspace', observer, () => readWorkspace(client, request.organization, request.projects, settings.parallelism, KINDS, selected));
    await prepareExport(client, read, selected);
    return read;
  });
  return exportDocument(live, { organization: request.organization, schemaId: schemaReference(request.outFile), validate: loadSchemaValidator(),
    shared: request.shared === true, allFields: request.allFields === true, selected });
}
