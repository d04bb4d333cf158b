// Reads of a targeted plan (`--target`, `--changed-since`, `drift --since`): only the collections
// that could hold a targeted item, only the GETs and searches of targeted items, and a kind's
// list only where a target could name an item no file declares (a glob). A one-flag change
// reads one list.
import type { TargetSet } from '../plan/targeting.js';
import { parentKeyOf, type ResourceKind } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import type { CollectionRead } from './targets.js';

/** A key no declared item has: only a target with a glob in its key part matches it. */
const UNDECLARED = '\u0001';

export function scopePrefix(read: Pick<CollectionRead, 'kind' | 'scope'>): string {
  const parent = parentKeyOf(read.scope);
  return `${read.kind.name}:${read.scope.organization}/${parent === null ? '' : `${parent}/`}`;
}

/**
 * The kinds whose targeted items need a kind's collection of their scope: those that refer to its
 * items by name (to resolve the names), and those that may hold its items (`heldByKinds`: what
 * holds an item decides whether it may go).
 */
function usersOf(kind: ResourceKind, kinds: Kinds): ResourceKind[] {
  return kinds.filter((k) => k !== kind && ((k.references ?? []).some((s) => s.kind === kind.name) || (k.heldByKinds ?? []).includes(kind.name)));
}

export function restrictReads(reads: readonly CollectionRead[], targets: TargetSet, kinds: Kinds = KINDS): CollectionRead[] {
  const out: CollectionRead[] = [];
  for (const read of reads) {
    const prefix = scopePrefix(read);
    const direct = targets.couldMatchUnder(prefix);
    // Also read where a targeted item refers to this collection's items or may hold them.
    if (!direct && !usersOf(read.kind, kinds).some((k) => targets.couldMatchUnder(scopePrefix({ kind: k, scope: read.scope })))) continue;
    if (read.searches) {
      // A kind read by name: only the targeted names are searched (all of them where only its users are targeted).
      const searches = direct ? read.searches.filter((key) => targets.matches(`${prefix}${key}`)) : read.searches;
      if (searches.length > 0) out.push({ ...read, searches });
      continue;
    }
    if (read.ids.length === 0) {
      out.push(read);
      continue;
    }
    const ids = read.ids.filter((id) => targets.matches(`${prefix}${String(id)}`));
    const list = read.list && targets.matches(`${prefix}${UNDECLARED}`);
    if (list || ids.length > 0) out.push({ ...read, list, ids });
  }
  return out;
}
