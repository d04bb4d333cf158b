// `hogsync show ADDRESS... [--format yaml|json] [--organization ORG]`: live items as the
// configuration that would declare them (src/usecases/show.ts). Every address is read in one
// organization: the one the addresses name (its UUID, slug or @current, as files write it), or
// --organization (default @current) for addresses whose organization part is `*`. An address
// that matches no live item is an error (exit 1), after the items the others matched are printed.
import { showItems } from '../usecases/show.js';
import { printable, safeJson } from '../util/printable.js';
import { terminalObserver } from './context.js';
import { apiSettings, organizationForm, organizationOption } from './options.js';

/** The organization part of an address (`KIND:ORG/…`), or `*` when the address has none. */
function organizationPart(address: string): string {
  const colon = address.indexOf(':');
  const slash = address.indexOf('/', colon + 1);
  return colon === -1 || slash === -1 ? '*' : address.slice(colon + 1, slash);
}

/**
 * The organizations the addresses and --organization name, as written (each form checked before
 * any request); `@current` when none does. The use case resolves them and reads one organization.
 */
export function showOrganizations(addresses: readonly string[], option: unknown): string[] {
  const named = new Set<string>();
  for (const address of addresses) {
    const org = organizationPart(address);
    if (!org.includes('*')) named.add(organizationForm(org, `show ${JSON.stringify(address)}: the organization part`));
  }
  if (option !== undefined || named.size === 0) named.add(organizationOption(option));
  return [...named];
}

export async function run(args: string[], opts: Record<string, unknown>): Promise<number> {
  const organizations = showOrganizations(args, opts.organization);
  const settings = apiSettings(opts);
  const result = await showItems({ organizations, addresses: args }, settings, terminalObserver(opts));
  if (result.addresses.length > 0) {
    process.stdout.write(opts.format === 'json' ? `${safeJson(result.document)}\n` : result.text);
  }
  for (const warning of result.warnings) process.stderr.write(`show: warning: ${printable(warning)}\n`);
  if (result.variables.length > 0) {
    process.stderr.write(`show: secrets are written as placeholders; a file declaring them needs these environment variables: ${result.variables.map((v) => v.name).join(', ')}\n`);
  }
  for (const address of result.unmatched) process.stderr.write(`error: ${printable(address)} matches no live item in organization ${result.organization}\n`);
  return result.unmatched.length > 0 ? 1 : 0;
}
