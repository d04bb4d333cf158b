// The personal API key's scopes, asked once at the start of a run (`GET
// /api/personal_api_keys/@current/`, which a key may read whatever its scopes): a key that lacks
// some of those the run reads is told every one in one line before anything else is read, and
// the writes the planned changes need are checked before apply sends one. Where the API does not
// answer it (an older version, a proxy), the run goes on as before: each 403 names its scope.
import type { DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import type { ApiPort } from '../http/port.js';
import { MissingScopes } from '../http/advice.js';
import type { Change } from '../plan/types.js';
import type { Kinds } from '../resources/registry.js';
import type { CollectionRead } from '../state/live-state.js';

/** The key's scopes, or undefined where the API does not say (404, 403, a proxy that knows no such path: the reads will tell). */
export async function keyScopes(api: ApiPort): Promise<readonly string[] | undefined> {
  try {
    const { body } = await api.request<{ scopes?: unknown }>('GET', '/api/personal_api_keys/@current/');
    const scopes = body?.scopes;
    return Array.isArray(scopes) && scopes.every((s) => typeof s === 'string') ? scopes : undefined;
  } catch (err) {
    // A spent rate limit holds for every request: said here, as the read after would say it.
    if (err instanceof HogsyncError && err.request?.status === 429) throw err;
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

/** The write scopes of the kinds whose declared items a plan may write. */
export function writeScopesOf(desired: DesiredState, kinds: Kinds): string[] {
  const write = new Set<string>();
  for (const org of desired.organizations) {
    // An item may be written where it sets fields, is to go, or could be created (a project
    // declared by id only to hold its flags is never written).
    for (const item of org.items) {
      const kind = kinds.find((k) => k.name === item.kind);
      if (kind?.apiScope === undefined) continue;
      const writable = item.ensure === 'absent' || Object.keys(item.fields).length > 0 || (kind.canCreate && kind.creatable?.(item.key) !== false);
      if (writable) write.add(`${kind.apiScope}:write`);
    }
  }
  return sorted(write);
}

/**
 * Refuses a run whose key lacks a scope its reads need: every one of them in one line, and for a
 * plan the write scopes its files' changes may need.
 */
export function requireReadScopes(granted: readonly string[], reads: readonly CollectionRead[], desired: DesiredState, plan: boolean, kinds: Kinds): void {
  const read = new Set<string>();
  for (const r of reads) if (r.kind.apiScope !== undefined) read.add(`${r.kind.apiScope}:read`);
  // What the read kinds' declared items read besides (a Slack subscription's integrations).
  const readKinds = new Set(reads.map((r) => r.kind));
  for (const org of desired.organizations) {
    for (const item of org.items) {
      const kind = kinds.find((k) => k.name === item.kind);
      if (kind?.readScopesOf && readKinds.has(kind)) for (const scope of kind.readScopesOf(item.fields)) read.add(scope);
    }
  }
  const missing = sorted(read).filter((s) => !grants(granted, s));
  if (missing.length > 0) throw new MissingScopes(missing, plan ? writeScopesOf(desired, kinds).filter((s) => !grants(granted, s)) : []);
}

/**
 * Before the organizations are resolved (their reads need organization:read): the read scopes of
 * what the files declare, refer to and prune, and organization:read; the same line as after.
 */
export function requireDeclaredScopes(granted: readonly string[], desired: DesiredState, plan: boolean, kinds: Kinds): void {
  const read = new Set<string>(['organization:read']);
  const byName = new Map(kinds.map((k) => [k.name, k]));
  const add = (name: string) => { const scope = byName.get(name)?.apiScope; if (scope !== undefined) read.add(`${scope}:read`); };
  for (const org of desired.organizations) {
    for (const item of org.items) {
      add(item.kind);
      for (const ref of item.references ?? []) add(ref.kind);
      for (const scope of byName.get(item.kind)?.readScopesOf?.(item.fields) ?? []) read.add(scope);
    }
    for (const kind of kinds) if (kind.prunable && org.prune[kind.configKey] === true) add(kind.name);
  }
  const missing = sorted(read).filter((s) => !grants(granted, s));
  if (missing.length > 0) throw new MissingScopes(missing, plan ? writeScopesOf(desired, kinds).filter((s) => !grants(granted, s)) : []);
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
