// The export use case: read a whole organization (optionally only some of its parent items,
// the projects) and turn it into the configuration document that declares it.
import { loadSchemaValidator } from '../config/compiled.js';
import { exportDocument, type ExportResult } from '../export/document.js';
import { schemaDocument } from '../resources/schema.js';
import { readWorkspace } from '../state/workspace.js';
import { reading, withClient, type ApiSettings, type Observer } from './session.js';

export interface ExportRequest {
  /** The organization id, lower-cased. */
  organization: string;
  /** Ids of the projects to export; none: all of them. */
  projects: number[];
  /** Declare flags several projects hold once, at the organization level. */
  shared?: boolean;
}

export async function exportWorkspace(request: ExportRequest, settings: ApiSettings, observer: Observer = {}): Promise<ExportResult> {
  const live = await withClient(settings, observer, (client) =>
    reading(client, 'workspace', observer, () => readWorkspace(client, request.organization, request.projects, settings.parallelism)));
  return exportDocument(live, { organization: request.organization, schemaId: schemaDocument().$id, validate: loadSchemaValidator(), shared: request.shared === true });
}
