// `hogsync show ADDRESS...`: the live items some addresses name (globs as --target), written as
// the configuration that would declare them, by the exporter's own rules (managed fields only,
// web-app state left out, secrets as ${env:…} placeholders), reading only what the addresses
// need. Which addresses matched nothing is part of the result: the CLI decides what that means.
import { loadSchemaValidator } from '../config/compiled.js';
import { exportDocument, type ExportResult } from '../export/document.js';
import { parseTargets, unmatchedPatterns } from '../plan/targeting.js';
import { readAddressed } from '../state/addressed.js';
import { schemaReference } from './export.js';
import { KINDS } from '../resources/registry.js';
import { reading, withClient, type ApiSettings, type Observer } from './session.js';
import { prepareExport } from './prepare-kinds.js';

export interface ShowRequest {
  /** The organization id, lower-cased: every address is read in it. */
  organization: string;
  /** Addresses as --target takes them (`*` matches anything). */
  addresses: string[];
}

export interface ShowResult extends ExportResult {
  /** The addresses no live item matched. */
  unmatched: string[];
}

export async function showItems(request: ShowRequest, settings: ApiSettings, observer: Observer = {}): Promise<ShowResult> {
  const targets = parseTargets(request.addresses, 'show');
  const live = await withClient(settings, observer, async (client) => {
    const read = await reading(client, 'live state', observer, () => readAddressed(client, request.organization, targets, settings.parallelism));
    await prepareExport(client, read, KINDS);
    return read;
  });
  const result = exportDocument(live, {
    organization: request.organization,
    schemaId: schemaReference(undefined),
    validate: loadSchemaValidator(),
    only: (address) => targets.matches(address),
    // Every kind an address names, also those export writes only on request.
    selected: KINDS,
    header: [`Live state of ${request.addresses.join(', ')} in organization ${request.organization}, by \`hogsync show\`.`,
      'Every field written here would be managed once it is in a configuration file.'],
  });
  return { ...result, unmatched: unmatchedPatterns(request.addresses, result.addresses, 'show') };
}
