// Which reads a desired state needs, computed before any request: one paginated list per
// collection (also of kinds read one by one, for the unmanaged items), one GET per declared
// item of kinds whose lists carry only basic fields (projects), and the child collections
// (flags) only of declared, present parents. A filter of targets narrows this list.
import type { DesiredState } from '../config/model.js';
import { itemsIn, lookupScopes, plannedScopes } from '../plan/scopes.js';
import type { ResourceKind, Scope } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';

/**
 * One collection to read: `list` reads all its pages, `ids` are GET one by one (kinds whose
 * lists carry only basic fields). Listed records of those ids are left out: declared items
 * come from their own GET only (a 404 there means missing, whatever the list says).
 */
export interface CollectionRead {
  kind: ResourceKind;
  scope: Scope;
  list: boolean;
  ids: ReadonlyArray<string | number>;
  /** The list's query, for records the default list leaves out (the kind's `heldBack`). */
  query?: string;
  /** `search` kinds: identities read one list query each (the kind's `searchQuery`), never the whole list. */
  searches?: readonly string[];
  /**
   * Kinds whose lists are abridged (`abridgedList`): the declared identities (and pinned ids) whose
   * records are read again in full; undefined reads every listed record in full.
   */
  details?: ReadonlyArray<string | number>;
  /** Collections of a parent that is not a project (a role's memberships): the parent's kind, whose list names its id. */
  parentKind?: ResourceKind;
}

/** Reads of the held-back records (archived flags) of the given collections of a kind. */
export function heldBackReads(kind: ResourceKind, scopes: readonly Scope[]): CollectionRead[] {
  const query = kind.heldBack?.query;
  return query === undefined ? [] : scopes.map((scope) => ({ kind, scope, list: true, ids: [], query }));
}

/** The reads a desired state needs, in a stable order. */
export function plannedReads(desired: DesiredState, kinds: Kinds = KINDS): CollectionRead[] {
  const reads: CollectionRead[] = [];
  for (const org of desired.organizations) {
    for (const kind of kinds) {
      for (const scope of plannedScopes(kind, org, kinds)) {
        // Under a parent whose id is not known yet (a role, a project declared by name): read once its list names it.
        const parentKind = scope.parent && scope.parent.id === null ? kinds.find((k) => k.name === scope.parent?.kind) : undefined;
        if (parentKind) {
          reads.push({ kind, scope, list: true, ids: [], parentKind });
          continue;
        }
        // Items declared by name that no live item has yet are not read one by one (they are created).
        const keys = kind.read === 'list' ? [] : itemsIn(org, kind, scope).map((i) => i.key).filter((key) => kind.creatable?.(key) !== true);
        // Kinds read one GET per declared item are listed too: the list names the unmanaged ones.
        if (kind.read === 'search') reads.push({ kind, scope, list: false, ids: [], searches: keys });
        else if (kind.abridgedList) {
          const detailed = kind.detailedFields;
          const items = itemsIn(org, kind, scope).filter((i) => !detailed || detailed.some((f) => f in i.fields));
          // An item renamed_from another identity is compared with the live item of that one.
          const details = items.flatMap((i) => [kind.matchKey(i.key), ...(i.renamedFrom === undefined ? [] : [kind.matchKey(i.renamedFrom)]), ...(i.pin === undefined ? [] : [i.pin])]);
          reads.push({ kind, scope, list: true, ids: [], details });
        } else reads.push({ kind, scope, list: true, ids: keys });
      }
    }
    // Kinds the files refer to by name where they declare none: read to resolve the names.
    for (const { kind, scope } of lookupScopes(org, kinds)) reads.push({ kind, scope, list: true, ids: [] });
  }
  return reads;
}
