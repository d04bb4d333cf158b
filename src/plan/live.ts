// Live state as the planner, the verifier and the exporter read it: the records of every
// collection that was read, by (kind, scope). src/state/ fills it from the API; tests build
// it by hand.
import type { LiveRecord, ResourceKind, Scope } from '../resources/kind.js';

export interface LiveCollection { kind: ResourceKind; scope: Scope; records: LiveRecord[] }

export interface LiveState {
  collections: LiveCollection[];
  /** Live records of `kind` in `scope`, or undefined when that collection was not read. */
  find(kind: ResourceKind, scope: Scope): LiveRecord[] | undefined;
}

export function collectionKey(kind: ResourceKind, scope: Scope): string {
  return `${kind.name}|${scope.organization}|${scope.project ?? ''}`;
}

export function liveStateOf(collections: LiveCollection[]): LiveState {
  const index = new Map(collections.map((c) => [collectionKey(c.kind, c.scope), c.records]));
  return { collections, find: (kind, scope) => index.get(collectionKey(kind, scope)) };
}
