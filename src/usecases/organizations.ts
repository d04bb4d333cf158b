// An organization written as its slug or `@current` (the key owner's current one) is resolved to
// its UUID once per run, before anything is read: one request (`@current`: GET the organization;
// slugs: one list of the key's organizations). From then on every address carries the UUID.
import type { DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import type { ApiPort } from '../http/port.js';
import { printable } from '../util/printable.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CURRENT_ORGANIZATION = '@current';

/** Whether an organization is written by slug or `@current`: resolving it reads the API (scope organization:read). */
export function needsResolving(desired: DesiredState): boolean {
  return desired.organizations.some((o) => !UUID.test(o.id));
}

/** Replaces each organization written by slug or `@current` with its UUID, in the desired state and its items. */
export async function resolveOrganizations(api: ApiPort, desired: DesiredState): Promise<void> {
  const named = desired.organizations.filter((o) => !UUID.test(o.id));
  if (named.length === 0) return;
  let listed: Array<{ id?: unknown; slug?: unknown }> | undefined;
  for (const org of named) {
    const written = org.id;
    let id: unknown;
    if (written === CURRENT_ORGANIZATION) {
      id = (await api.request<{ id?: unknown }>('GET', `/api/organizations/${CURRENT_ORGANIZATION}/`)).body?.id;
    } else {
      listed ??= await api.listAll<{ id?: unknown; slug?: unknown }>('/api/organizations/');
      id = listed.find((o) => o.slug === written)?.id;
      if (id === undefined) {
        const slugs = listed.map((o) => String(o.slug)).join(', ') || 'none';
        throw new HogsyncError('config', `organization "${printable(written)}": none of the key's organizations has that slug (its organizations' slugs: ${printable(slugs)}); write the slug as the web app shows it, the organization's UUID, or @current`, org.position ? { position: org.position } : {});
      }
    }
    if (typeof id !== 'string' || !UUID.test(id)) throw new HogsyncError('api', `the API answered organization "${printable(written)}" without a UUID id`);
    const twice = desired.organizations.find((o) => o !== org && o.id === id);
    if (twice) {
      throw new HogsyncError('config', `organization "${printable(written)}" is ${id}, which other files name as "${id}": name it one way in every file`, org.position ? { position: org.position } : {});
    }
    org.id = id;
    for (const item of org.items) item.organization = id;
  }
}
