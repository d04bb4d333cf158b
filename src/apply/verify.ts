// Verification after a write: the API answers a write with the item as it stored it; every
// field sent that came back different was not taken (for example a setting the workspace's
// plan does not include, or a field an older API version ignores).
import type { LiveRecord, ResourceKind } from '../resources/kind.js';
import { sameValue } from '../plan/normalize.js';

export function unappliedFields(kind: ResourceKind, sent: Record<string, unknown>, stored: LiveRecord | null): string[] {
  if (!stored) return [];
  const notTaken: string[] = [];
  for (const [field, value] of Object.entries(sent)) {
    const spec = kind.fields[field];
    if (!spec) continue;
    if (!sameValue(spec.compare, value, stored[field], kind.serverAddedKeys?.[field])) notTaken.push(field);
  }
  return notTaken;
}
