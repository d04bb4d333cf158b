// The collections that live records refer into by id (a flag's cohort property names a cohort of
// its project): export and show write such ids by name (src/export/references.ts), so they read,
// after what was asked for, the collections of the referred kinds in the scopes where an id was
// found, unless already read. Nothing is read where no record refers to anything.
import type { ApiPort } from '../http/port.js';
import { collectionKey, type LiveCollection } from '../plan/live.js';
import type { ResourceKind, Scope } from '../resources/kind.js';
import { hasSites, namedReference, siteHits, siteId } from '../resources/references.js';
import type { Kinds } from '../resources/registry.js';
import { mapLimit } from '../util/map-limit.js';
import { listRecords } from './live-state.js';

/** The collections of referred kinds that `collections` hold ids of and did not read. */
export function referredCollections(collections: readonly LiveCollection[], kinds: Kinds): Array<{ kind: ResourceKind; scope: Scope }> {
  const read = new Set(collections.map((c) => collectionKey(c.kind, c.scope)));
  const out = new Map<string, { kind: ResourceKind; scope: Scope }>();
  for (const c of collections) {
    if (!hasSites(c.kind) || c.scope.project === null) continue;
    for (const record of c.records) {
      for (const field of new Set((c.kind.references ?? []).map((s) => s.field))) {
        for (const hit of siteHits(c.kind, field, record[field])) {
          if (namedReference(hit.value) || siteId(hit.value) === undefined) continue;
          const kind = kinds.find((k) => k.name === hit.site.kind);
          if (!kind) continue;
          const scope: Scope = { organization: c.scope.organization, project: c.scope.project };
          const key = collectionKey(kind, scope);
          if (!read.has(key) && !out.has(key)) out.set(key, { kind, scope });
        }
      }
    }
  }
  return [...out.values()];
}

/** `collections` with the referred collections they need read beside them. */
export async function withReferred(api: ApiPort, collections: LiveCollection[], kinds: Kinds, parallelism: number): Promise<LiveCollection[]> {
  const more = referredCollections(collections, kinds);
  if (more.length === 0) return collections;
  const records = await mapLimit(more, parallelism, ({ kind, scope }) => listRecords(api, kind, scope, true));
  return [...collections, ...more.map(({ kind, scope }, i) => ({ kind, scope, records: records[i] ?? [] }))];
}
