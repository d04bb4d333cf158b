// An organization written as its slug or `@current` (the key owner's current one) is resolved to
// its UUID once per run, before anything is read or compared: one request (`@current`: GET the
// organization; slugs: one list of the key's organizations). From then on every address carries
// the UUID, as do `--target` addresses, `show`'s addresses, `--organization` and the files at a
// `--changed-since` revision: files, flags and addresses take the same three forms.
import type { DesiredState } from '../config/model.js';
import { HogsyncError, type FilePosition } from '../errors.js';
import type { ApiPort } from '../http/port.js';
import { printable } from '../util/printable.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const CURRENT_ORGANIZATION = '@current';

/** Whether an organization is written by slug or `@current`: resolving it reads the API (scope organization:read). */
export function needsResolving(desired: DesiredState): boolean {
  return desired.organizations.some((o) => !UUID.test(o.id));
}

/** Whether an organization is written as its UUID (nothing to resolve). */
export const isOrganizationId = (written: string): boolean => UUID.test(written);

/** How the files wrote an organization (a slug, `@current`) → its UUID, for one run. */
export type ResolvedOrganizations = Map<string, string>;

type Listed = Array<{ id?: unknown; slug?: unknown }>;
type Resolver = (written: string, position?: FilePosition) => Promise<string>;

/**
 * Resolves organizations written by UUID, slug or `@current` to their UUIDs (lower-cased),
 * asking the API at most once for `@current` and once for the list the slugs are found in.
 */
export function organizationResolver(api: ApiPort): Resolver {
  let current: Promise<unknown> | undefined;
  let listed: Promise<Listed> | undefined;
  return async (written, position) => {
    if (UUID.test(written)) return written.toLowerCase();
    const at = position ? { position } : {};
    let id: unknown;
    if (written === CURRENT_ORGANIZATION) {
      current ??= api.request<{ id?: unknown }>('GET', `/api/organizations/${CURRENT_ORGANIZATION}/`).then((r) => r.body?.id);
      id = await current;
    } else {
      listed ??= api.listAll<{ id?: unknown; slug?: unknown }>('/api/organizations/');
      const organizations = await listed;
      const matching = organizations.filter((o) => o.slug === written);
      if (matching.length === 0) {
        const slugs = organizations.map((o) => String(o.slug)).join(', ') || 'none';
        throw new HogsyncError('config', `organization "${printable(written)}": none of the key's organizations has that slug (its organizations' slugs: ${printable(slugs)}); write the slug as the web app shows it, the organization's UUID, or @current`, at);
      }
      // Slugs are unique in the real API: two answers are a broken or hostile API, and either could be the wrong one.
      if (matching.length > 1) {
        const ids = matching.map((o) => printable(String(o.id))).join(' and ');
        throw new HogsyncError('api', `organization "${printable(written)}": the API lists ${matching.length} organizations with that slug (${ids}); slugs are unique, so hogsync will not guess: write the organization's UUID`, at);
      }
      id = matching[0]?.id;
    }
    if (typeof id !== 'string' || !UUID.test(id)) throw new HogsyncError('api', `the API answered organization "${printable(written)}" without a UUID id`);
    return id.toLowerCase();
  };
}

/**
 * Replaces each organization written by slug or `@current` with its UUID, in the desired state and
 * its items; returns what it resolved (with `known`'s entries), so that other spellings of the same
 * run (targets, the files at a revision) resolve without asking again.
 */
export async function resolveOrganizations(api: ApiPort, desired: DesiredState, resolve: Resolver = organizationResolver(api), known: ResolvedOrganizations = new Map()): Promise<ResolvedOrganizations> {
  const resolved = new Map(known);
  for (const org of desired.organizations.filter((o) => !UUID.test(o.id))) {
    const written = org.id;
    const id = resolved.get(written) ?? await resolve(written, org.position);
    const twice = desired.organizations.find((o) => o !== org && o.id === id);
    if (twice) {
      throw new HogsyncError('config', `organization "${printable(written)}" is ${id}, which other files name as "${id}": name it one way in every file`, org.position ? { position: org.position } : {});
    }
    resolved.set(written, id);
    org.id = id;
    for (const item of org.items) item.organization = id;
  }
  return resolved;
}

/** `--target` addresses whose organization is written as the files write it (a slug, `@current`), with its UUID instead. */
export function withResolvedOrganizations(addresses: readonly string[], resolved: ResolvedOrganizations): string[] {
  if (resolved.size === 0) return [...addresses];
  return addresses.map((address) => {
    const parts = organizationPart(address);
    const id = parts && resolved.get(parts.organization);
    return id === undefined ? address : parts!.with(id);
  });
}

/** An address's organization part (`KIND:ORG/KEY`), and the address with another in its place; none without one. */
function organizationPart(address: string): { organization: string; with(id: string): string } | undefined {
  const colon = address.indexOf(':');
  const slash = address.indexOf('/', colon + 1);
  if (colon === -1 || slash === -1) return undefined;
  return { organization: address.slice(colon + 1, slash), with: (id) => `${address.slice(0, colon + 1)}${id}${address.slice(slash)}` };
}

/**
 * Addresses (`KIND:ORG/KEY`, as --target and show take them) with each organization part
 * written by slug or `@current` replaced by its UUID, so that they compare with items'
 * addresses in the one spelling; globs and UUIDs are kept as written.
 */
export async function resolveAddressOrganizations(addresses: readonly string[], resolve: Resolver): Promise<string[]> {
  const out: string[] = [];
  for (const address of addresses) {
    const parts = organizationPart(address);
    out.push(!parts || parts.organization.includes('*') || UUID.test(parts.organization) ? address : parts.with(await resolve(parts.organization)));
  }
  return out;
}

/**
 * The files at a `--changed-since` revision, their organizations as UUIDs: a spelling the files
 * use now resolves as it did, another one is asked. One that no longer resolves (a slug since
 * renamed) stays as written: its items then match nothing live, as removed declarations.
 */
export async function resolveOrganizationsThen(api: ApiPort, then: DesiredState, known: ResolvedOrganizations): Promise<void> {
  const resolve = organizationResolver(api);
  for (const org of then.organizations.filter((o) => !UUID.test(o.id))) {
    let id = known.get(org.id);
    try {
      id ??= await resolve(org.id, org.position);
    } catch (err) {
      if (err instanceof HogsyncError && err.code === 'config') continue;
      throw err;
    }
    org.id = id;
    for (const item of org.items) item.organization = id;
  }
}
