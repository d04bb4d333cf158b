// Re-reads what apply changed, to verify it, with the requests planning uses: one list per
// touched collection (all pages), one GET per touched item of kinds read one by one, and one
// search per touched item of kinds read by name (never their whole list, nor nothing at all), and
// of an abridged list the touched records in full.
import type { ApiPort } from '../http/port.js';
import { collectionKey, type LiveState } from '../plan/live.js';
import type { Execution } from '../plan/types.js';
import { readCollections } from './live-state.js';
import type { CollectionRead } from './targets.js';

/** `applied`: the executions of the changes apply carried out. */
export async function rereadApplied(api: ApiPort, applied: readonly Execution[], parallelism: number): Promise<LiveState> {
  const touched = new Map<string, CollectionRead & { ids: Array<string | number>; searches?: string[]; details?: Array<string | number> }>();
  const held = new Map<string, CollectionRead>();
  for (const { kind, scope, id, identity, values, live } of applied) {
    const key = collectionKey(kind, scope);
    const entry = touched.get(key) ?? { kind, scope, list: kind.read === 'list', ids: [], ...(kind.read === 'search' ? { searches: [] } : {}), ...(kind.abridgedList ? { details: [] } : {}) };
    if (kind.read === 'get' && id !== null) entry.ids.push(id);
    if (entry.searches && !entry.searches.includes(identity)) entry.searches.push(identity);
    // An abridged list: only the touched records are read again in full, as plan reads only the declared ones.
    if (entry.details) entry.details.push(kind.matchKey(identity), ...(id === null ? [] : [id]));
    touched.set(key, entry);
    // An item that was or now is held back (an archived flag) is only in the held-back list.
    const heldBack = kind.heldBack;
    if (heldBack && (heldBack.holdsAfter(values) || (live !== undefined && heldBack.holds(live)))) {
      held.set(key, { kind, scope, list: true, ids: [], query: heldBack.query });
    }
  }
  return readCollections(api, [...touched.values(), ...held.values()], parallelism);
}
