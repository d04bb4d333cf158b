// An organization written as its slug or `@current` (the key owner's current one) is resolved to
// its UUID once per run, before anything is read: one request (`@current`: GET the organization;
// slugs: one list of the key's organizations). From then on every address carries the UUID.
// Files, `--organization` and the organization part of `show`'s addresses take the same forms.
import type { DesiredState } from '../config/model.js';
import { HogsyncError, type FilePosition } from '../errors.js';
import type { ApiPort } from '../http/port.js';
import { printable } from '../util/printable.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const CURRENT_ORGANIZATION = '@current';

/** Whether an organization is written as its UUID (nothing to resolve). */
export const isOrganizationId = (written: string): boolean => UUID.test(written);

/**
 * Resolves organizations written by UUID, slug or `@current` to their UUIDs (lower-cased),
 * asking the API at most once for `@current` and once for the list the slugs are found in.
 */
export function organizationResolver(api: ApiPort): (written: string, position?: FilePosition) => Promise<string> {
  let current: Promise<unknown> | undefined;
  let listed: Promise<Array<{ id?: unknown; slug?: unknown }>> | undefined;
  return async (written, position) => {
    if (UUID.test(written)) return written.toLowerCase();
    let id: unknown;
    if (written === CURRENT_ORGANIZATION) {
      current ??= api.request<{ id?: unknown }>('GET', `/api/organizations/${CURRENT_ORGANIZATION}/`).then((r) => r.body?.id);
      id = await current;
    } else {
      listed ??= api.listAll<{ id?: unknown; slug?: unknown }>('/api/organizations/');
      const organizations = await listed;
      id = organizations.find((o) => o.slug === written)?.id;
      if (id === undefined) {
        const slugs = organizations.map((o) => String(o.slug)).join(', ') || 'none';
        throw new HogsyncError('config', `organization "${printable(written)}": none of the key's organizations has that slug (its organizations' slugs: ${printable(slugs)}); write the slug as the web app shows it, the organization's UUID, or @current`, position ? { position } : {});
      }
    }
    if (typeof id !== 'string' || !UUID.test(id)) throw new HogsyncError('api', `the API answered organization "${printable(written)}" without a UUID id`);
    return id.toLowerCase();
  };
}

type Resolver = ReturnType<typeof organizationResolver>;

/**
 * Addresses (`KIND:ORG/KEY`, as --target and show take them) with each organization part
 * written by slug or `@current` replaced by its UUID, so that they compare with items'
 * addresses in the one spelling; globs and UUIDs are kept as written.
 */
export async function resolveAddressOrganizations(addresses: readonly string[], resolve: Resolver): Promise<string[]> {
  const out: string[] = [];
  for (const address of addresses) {
    const colon = address.indexOf(':');
    const slash = address.indexOf('/', colon + 1);
    const org = colon === -1 || slash === -1 ? '*' : address.slice(colon + 1, slash);
    out.push(org.includes('*') || UUID.test(org) ? address : `${address.slice(0, colon + 1)}${await resolve(org)}${address.slice(slash)}`);
  }
  return out;
}

/** Replaces each organization written by slug or `@current` with its UUID, in the desired state and its items. */
export async function resolveOrganizations(api: ApiPort, desired: DesiredState, resolve: Resolver = organizationResolver(api)): Promise<void> {
  const named = desired.organizations.filter((o) => !UUID.test(o.id));
  if (named.length === 0) return;
  for (const org of named) {
    const written = org.id;
    const id = await resolve(written, org.position);
    const twice = desired.organizations.find((o) => o !== org && o.id === id);
    if (twice) {
      throw new HogsyncError('config', `organization "${printable(written)}" is ${id}, which other files name as "${id}": name it one way in every file`, org.position ? { position: org.position } : {});
    }
    org.id = id;
    for (const item of org.items) item.organization = id;
  }
}
