// How a live value becomes a value in an exported file: keys the server adds inside objects
// are left out where they carry nothing (or are computed by the server anyway), and every
// `${` in a string is escaped, so that the loader's ${env:…} interpolation gives back the
// live text. Pure functions.
import { dropServerKeys, serverKeysOf } from '../plan/normalize.js';
import type { ResourceKind } from '../resources/kind.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Escapes `${` as `$${` in every string, so interpolation restores the text unchanged. */
export function escapeInterpolation(value: unknown): unknown {
  if (typeof value === 'string') return value.split('${').join('$${');
  if (Array.isArray(value)) return value.map(escapeInterpolation);
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeInterpolation(v)]));
  return value;
}

/** The value of a managed field as the file should declare it (not yet escaped). */
export function exportedValue(kind: ResourceKind, field: string, live: unknown): unknown {
  return structuredClone(dropServerKeys(live, undefined, serverKeysOf(kind, field)));
}
