// `hogsync show ADDRESS... [--format yaml|json] [--organization ID]`: live items as the
// configuration that would declare them (src/usecases/show.ts). Every address is read in one
// organization: the UUID the addresses name, or --organization for addresses whose
// organization part is `*`. An address that matches no live item is an error (exit 1), after
// the items the others matched are printed.
import { HogsyncError } from '../errors.js';
import { showItems } from '../usecases/show.js';
import { printable, safeJson } from '../util/printable.js';
import { terminalObserver } from './context.js';
import { apiSettings, organizationOption } from './options.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organization part of an address (`KIND:ORG/…`), or `*` when the address has none. */
function organizationPart(address: string): string {
  const colon = address.indexOf(':');
  const slash = address.indexOf('/', colon + 1);
  return colon === -1 || slash === -1 ? '*' : address.slice(colon + 1, slash);
}

/** The one organization the addresses are read in. */
export function showOrganization(addresses: readonly string[], option: unknown): string {
  const named = new Set<string>();
  for (const address of addresses) {
    const org = organizationPart(address);
    if (org.includes('*')) continue;
    if (!UUID.test(org)) {
      throw new HogsyncError('usage', `show ${JSON.stringify(address)}: the organization part must be the organization's UUID (or *, with --organization), got ${JSON.stringify(org)}`);
    }
    named.add(org.toLowerCase());
  }
  if (option !== undefined) {
    const org = organizationOption(option);
    const other = [...named].find((n) => n !== org);
    if (other) throw new HogsyncError('usage', `show: an address names organization ${other}, but --organization is ${org}: show reads one organization at a time`);
    return org;
  }
  if (named.size > 1) throw new HogsyncError('usage', `show reads one organization at a time, and the addresses name ${[...named].join(' and ')}`);
  const [org] = named;
  if (org === undefined) throw new HogsyncError('usage', 'show needs the organization: write its UUID in the address (role:0190d1c4-…/Engineers), or pass --organization ID for addresses such as role:*/Engineers');
  return org;
}

export async function run(args: string[], opts: Record<string, unknown>): Promise<number> {
  const organization = showOrganization(args, opts.organization);
  const settings = apiSettings(opts);
  const result = await showItems({ organization, addresses: args }, settings, terminalObserver(opts));
  if (result.addresses.length > 0) {
    process.stdout.write(opts.format === 'json' ? `${safeJson(result.document)}\n` : result.text);
  }
  for (const warning of result.warnings) process.stderr.write(`show: warning: ${printable(warning)}\n`);
  if (result.variables.length > 0) {
    process.stderr.write(`show: secrets are written as placeholders; a file declaring them needs these environment variables: ${result.variables.map((v) => v.name).join(', ')}\n`);
  }
  for (const address of result.unmatched) process.stderr.write(`error: ${printable(address)} matches no live item in organization ${organization}\n`);
  return result.unmatched.length > 0 ? 1 : 0;
}
