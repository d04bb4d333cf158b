// An organization written as its slug or `@current` (the key owner's current one) is resolved to
// its UUID once per run, before anything is read or compared: one request (`@current`: GET the
// organization; slugs: one list of the key's organizations). From then on every address carries
// the UUID, as do `--target` addresses and the files at a `--changed-since` revision.
import type { DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import type { ApiPort } from '../http/port.js';
import { printable } from '../util/printable.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CURRENT_ORGANIZATION = '@current';

/** How the files wrote an organization (a slug, `@current`) → its UUID, for one run. */
export type ResolvedOrganizations = Map<string, string>;

/**
 * Replaces each organization written by slug or `@current` with its UUID, in the desired state and
 * its items; returns what it resolved (with `known`'s entries), so that other spellings of the same
 * run (targets, the files at a revision) resolve without asking again.
 */
export async function resolveOrganizations(api: ApiPort, desired: DesiredState, known: ResolvedOrganizations = new Map()): Promise<ResolvedOrganizations> {
  const resolved = new Map(known);
  const listing: { organizations?: Array<{ id?: unknown; slug?: unknown }> } = {};
  for (const org of desired.organizations.filter((o) => !UUID.test(o.id))) {
    const written = org.id;
    const id = resolved.get(written) ?? await resolveOne(api, written, org.position, listing);
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

async function resolveOne(api: ApiPort, written: string, position: DesiredState['organizations'][number]['position'],
  listing: { organizations?: Array<{ id?: unknown; slug?: unknown }> }): Promise<string> {
  const at = position ? { position } : {};
  let id: unknown;
  if (written === CURRENT_ORGANIZATION) {
    id = (await api.request<{ id?: unknown }>('GET', `/api/organizations/${CURRENT_ORGANIZATION}/`)).body?.id;
  } else {
    listing.organizations ??= await api.listAll<{ id?: unknown; slug?: unknown }>('/api/organizations/');
    const listed = listing.organizations;
    const matching = listed.filter((o) => o.slug === written);
    if (matching.length === 0) {
      const slugs = listed.map((o) => String(o.slug)).join(', ') || 'none';
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
  return id;
}

/** `--target` addresses whose organization is written as the files write it (a slug, `@current`), with its UUID instead. */
export function withResolvedOrganizations(addresses: readonly string[], resolved: ResolvedOrganizations): string[] {
  if (resolved.size === 0) return [...addresses];
  return addresses.map((address) => {
    const colon = address.indexOf(':');
    const slash = address.indexOf('/', colon + 1);
    if (colon === -1 || slash === -1) return address;
    const id = resolved.get(address.slice(colon + 1, slash));
    return id === undefined ? address : `${address.slice(0, colon + 1)}${id}${address.slice(slash)}`;
  });
}

/**
 * The files at a `--changed-since` revision, their organizations as UUIDs: a spelling the files
 * use now resolves as it did, another one is asked. One that no longer resolves (a slug since
 * renamed) stays as written: its items then match nothing live, as removed declarations.
 */
export async function resolveOrganizationsThen(api: ApiPort, then: DesiredState, known: ResolvedOrganizations): Promise<void> {
  const listing: { organizations?: Array<{ id?: unknown; slug?: unknown }> } = {};
  for (const org of then.organizations.filter((o) => !UUID.test(o.id))) {
    let id = known.get(org.id);
    try {
      id ??= await resolveOne(api, org.id, org.position, listing);
    } catch (err) {
      if (err instanceof HogsyncError && err.code === 'config') continue;
      throw err;
    }
    org.id = id;
    for (const item of org.items) item.organization = id;
  }
}
