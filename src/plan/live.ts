// Live state as the planner, the verifier and the exporter read it: the records of every
// collection that was read, by (kind, scope). src/state/ fills it from the API; tests build
// it by hand.
import { parentKeyOf, type LiveRecord, type ResourceKind, type Scope } from '../resources/kind.js';

export interface LiveCollection {
  kind: ResourceKind;
  scope: Scope;
  records: LiveRecord[];
  /** What the list's answer said besides its records (an organization's limit), when it said anything. */
  meta?: Record<string, unknown>;
}

export interface LiveState {
  collections: LiveCollection[];
  /** Live records of `kind` in `scope`, or undefined when that collection was not read. */
  find(kind: ResourceKind, scope: Scope): LiveRecord[] | undefined;
  /** What the collection's list said besides its records, if anything. */
  metaOf?(kind: ResourceKind, scope: Scope): Record<string, unknown> | undefined;
  /** The scope the collection was read in: with its parent's id where the reader found it (a role's memberships). */
  scopeOf?(kind: ResourceKind, scope: Scope): Scope | undefined;
}

export function collectionKey(kind: ResourceKind, scope: Scope): string {
  return `${kind.name}|${scope.organization}|${parentKeyOf(scope) ?? ''}`;
}

/** Collections read more than once (a default list and a held-back one) hold the records of every read. */
export function liveStateOf(collections: LiveCollection[]): LiveState {
  const index = new Map<string, LiveRecord[]>();
  const metas = new Map<string, Record<string, unknown>>();
  const scopes = new Map<string, Scope>();
  for (const c of collections) {
    const key = collectionKey(c.kind, c.scope);
    if (c.scope.parent?.id != null || !scopes.has(key)) scopes.set(key, c.scope);
    if (c.meta && !metas.has(key)) metas.set(key, c.meta);
    const known = index.get(key);
    if (!known) {
      index.set(key, c.records);
      continue;
    }
    const ids = new Set(known.map((r) => String(c.kind.liveId(r))));
    index.set(key, [...known, ...c.records.filter((r) => !ids.has(String(c.kind.liveId(r))))]);
  }
  return {
    collections,
    find: (kind, scope) => index.get(collectionKey(kind, scope)),
    metaOf: (kind, scope) => metas.get(collectionKey(kind, scope)),
    scopeOf: (kind, scope) => scopes.get(collectionKey(kind, scope)),
  };
}

/** Live state with more collections read. */
export function withCollections(live: LiveState, more: readonly LiveCollection[]): LiveState {
  return liveStateOf([...live.collections, ...more]);
}
