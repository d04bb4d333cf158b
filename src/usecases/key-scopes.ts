// The personal API key's scopes, asked once at the start of a run (`GET
// /api/personal_api_keys/@current/`, which a key may read whatever its scopes): a key that lacks
// some of those the run reads is told every one in one line before anything else is read, and
// the writes the planned changes need are checked before apply sends one. Where the API does not
// answer it (an older version, a proxy), the run goes on as before: each 403 names its scope.
import type { DesiredState } from '../config/model.js';
import type { ApiPort } from '../http/port.js';
import { MissingScopes } from '../http/advice.js';
import type { Change } from '../plan/types.js';
import { lookupScopes, plannedScopes } from '../plan/scopes.js';
import type { Kinds } from '../resources/registry.js';

/** The key's scopes, or undefined where the API does not say (any failure: the reads will tell). */
export async function keyScopes(api: ApiPort): Promise<readonly string[] | undefined> {
  try {
    const { body } = await api.request<{ scopes?: unknown }>('GET', '/api/personal_api_keys/@current/');
    const scopes = body?.scopes;
    return Array.isArray(scopes) && scopes.every((s) => typeof s === 'string') ? scopes : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the scopes grant `scope`, as the API decides it: `*` grants all, `x:write` implies `x:read`. */
export function grants(scopes: readonly string[], scope: string): boolean {
  if (scopes.includes('*') || scopes.includes(scope)) return true;
  const [object, action] = scope.split(':');
  return action === 'read' && scopes.includes(`${object}:write`);
}

function sorted(set: ReadonlySet<string>): string[] {
  return [...set].sort();
}

/** The read scopes a plan of `desired` needs (the kinds it plans or looks names up in), and the write scopes of the kinds whose declared items a plan may write. */
export function scopesOfRun(desired: DesiredState, kinds: Kinds): { read: string[]; write: string[] } {
  const read = new Set<string>();
  const write = new Set<string>();
  for (const org of desired.organizations) {
    for (const kind of kinds) {
      if (kind.apiScope !== undefined && plannedScopes(kind, org, kinds).length > 0) read.add(`${kind.apiScope}:read`);
    }
    for (const { kind } of lookupScopes(org, kinds)) if (kind.apiScope !== undefined) read.add(`${kind.apiScope}:read`);
    // An item may be written where it sets fields, is to go, or could be created (a project
    // declared by id only to hold its flags is never written).
    for (const item of org.items) {
      const kind = kinds.find((k) => k.name === item.kind);
      if (kind?.apiScope === undefined) continue;
      const writable = item.ensure === 'absent' || Object.keys(item.fields).length > 0 || (kind.canCreate && kind.creatable?.(item.key) !== false);
      if (writable) write.add(`${kind.apiScope}:write`);
    }
  }
  return { read: sorted(read), write: sorted(write) };
}

/** Refuses a run whose key lacks a scope it reads: every one of them, and the writes it may need, in one line. */
export function requireReadScopes(granted: readonly string[], desired: DesiredState, kinds: Kinds): void {
  const { read, write } = scopesOfRun(desired, kinds);
  const missing = read.filter((s) => !grants(granted, s));
  if (missing.length > 0) throw new MissingScopes(missing, write.filter((s) => !grants(granted, s)));
}

/** The write scopes the planned changes need that the key lacks. */
export function lackingWriteScopes(granted: readonly string[], changes: readonly Change[], kinds: Kinds): string[] {
  const needed = new Set<string>();
  for (const change of changes) {
    const kind = kinds.find((k) => k.name === change.kind);
    if (kind?.apiScope !== undefined) needed.add(`${kind.apiScope}:write`);
  }
  return sorted(needed).filter((s) => !grants(granted, s));
}
