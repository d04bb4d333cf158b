// References by name in what export and show write: where a kind's fields hold the id of another
// item (a flag's cohort property, a cohort's action), the live id becomes `{ KIND: NAME }` when the
// item's scope holds one live item of that id and no other of its name, so the file reads as
// people name things and one shared definition fits every project (ids differ per project). An
// id that names nothing live, or a name that repeats, stays the id. Generic over the kinds'
// reference sites (ReferenceSite); the collections of referred kinds are read beside the
// exported ones (src/state/workspace.ts, src/state/addressed.ts).
import type { LiveState } from '../plan/live.js';
import type { LiveRecord, ResourceKind, Scope } from '../resources/kind.js';
import { hasSites, namedReference, replaceAtSites, siteId } from '../resources/references.js';
import type { Kinds } from '../resources/registry.js';
import { identityOf } from '../resources/kind.js';

interface Index { byId: Map<string, LiveRecord>; names: Map<string, number> }

export class ExportNames {
  private readonly indexes = new Map<string, Index | null>();

  constructor(private readonly live: LiveState, private readonly kinds: Kinds) {}

  private indexOf(kind: ResourceKind, scope: Scope): Index | null {
    const key = `${kind.name}|${scope.organization}|${scope.project ?? ''}`;
    let index = this.indexes.get(key);
    if (index === undefined) {
      const records = this.live.find(kind, { organization: scope.organization, project: scope.project })?.filter((r) => !kind.isGone(r));
      index = records ? { byId: new Map(), names: new Map() } : null;
      for (const r of records ?? []) {
        (index as Index).byId.set(String(kind.liveId(r)), r);
        const name = kind.matchKey(kind.displayKey(identityOf(kind, r)));
        (index as Index).names.set(name, ((index as Index).names.get(name) ?? 0) + 1);
      }
      this.indexes.set(key, index);
    }
    return index;
  }

  /** A field's value with the ids at the kind's sites written by name, where the name is known and unique. */
  byName(kind: ResourceKind, scope: Scope, field: string, value: unknown): unknown {
    if (!hasSites(kind) || !kind.references?.some((s) => s.field === field)) return value;
    return replaceAtSites(kind, field, value, (hit) => {
      if (namedReference(hit.value)) return undefined;
      const id = siteId(hit.value);
      const target = this.kinds.find((k) => k.name === hit.site.kind);
      const index = id === undefined || !target ? null : this.indexOf(target, scope);
      const record = index?.byId.get(String(id));
      if (!target || !index || !record) return undefined;
      const name = target.displayKey(identityOf(target, record));
      return index.names.get(target.matchKey(name)) === 1 ? { [target.name]: name } : undefined;
    });
  }
}
