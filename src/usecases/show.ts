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
import { HogsyncError } from '../errors.js';
import { organizationResolver, resolveAddressOrganizations } from './organizations.js';
import { reading, withClient, type ApiSettings, type Observer } from './session.js';
import { prepareExport } from './prepare-kinds.js';

export interface ShowRequest {
  /**
   * The organizations the addresses (and --organization) name, as written: UUIDs, slugs,
   * @current. They must all be one organization, which every address is read in.
   */
  organizations: string[];
  /** Addresses as --target takes them (`*` matches anything). */
  addresses: string[];
}

export interface ShowResult extends ExportResult {
  /** The organization read, by its UUID. */
  organization: string;
  /** The addresses no live item matched, as given. */
  unmatched: string[];
}

export async function showItems(request: ShowRequest, settings: ApiSettings, observer: Observer = {}): Promise<ShowResult> {
  parseTargets(request.addresses, 'show');
  const read = await withClient(settings, observer, async (client) => {
    // Resolved once, before any address is compared: an address matches in one spelling, the UUID.
    const resolve = organizationResolver(client);
    const ids = new Map<string, string>();
    for (const written of request.organizations) ids.set(written, await resolve(written));
    const distinct = [...new Set(ids.values())];
    if (distinct.length !== 1) {
      const named = [...ids].map(([written, id]) => (written === id ? id : `${written} (${id})`)).join(' and ');
      throw new HogsyncError('usage', `show reads one organization at a time, and the addresses and --organization name ${named}`);
    }
    const organization = distinct[0] as string;
    const addresses = await resolveAddressOrganizations(request.addresses, resolve);
    const targets = parseTargets(addresses, 'show');
    const live = await reading(client, 'live state', observer, () => readAddressed(client, organization, targets, settings.parallelism));
    await prepareExport(client, live, KINDS);
    return { organization, addresses, targets, live };
  });
  const { organization, targets, live } = read;
  const result = exportDocument(live, {
    organization,
    schemaId: schemaReference(undefined),
    validate: loadSchemaValidator(),
    only: (address) => targets.matches(address),
    // Every kind an address names, also those export writes only on request.
    selected: KINDS,
    header: [`Live state of ${request.addresses.join(', ')} in organization ${organization}, by \`hogsync show\`.`,
      'Every field written here would be managed once it is in a configuration file.'],
  });
  const unmatched = new Set(unmatchedPatterns(read.addresses, result.addresses, 'show'));
  return { ...result, organization, unmatched: request.addresses.filter((_, i) => unmatched.has(read.addresses[i] as string)) };
}
