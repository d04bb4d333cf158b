// How a live value becomes a value in an exported file: keys the server adds inside objects
// are left out where they carry nothing (or are computed by the server anyway), and every
// `${` in a string is escaped, so that the loader's ${env:…} interpolation gives back the
// live text. Pure functions.
import type { ResourceKind } from '../resources/kind.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Null, `{}` and `[]`: what a server-added key holds when it says nothing. */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObj(value) && Object.keys(value).length === 0;
}

/**
 * Removes the key a dotted pattern names (`payloads`, `groups[].variant`) where `drop` says so.
 * `[]` steps into every item of an array. Returns a new value; the input is not changed.
 */
export function dropKeys(value: unknown, pattern: string, drop: (v: unknown) => boolean): unknown {
  return dropSteps(value, pattern.split('.'), drop);
}

function dropSteps(value: unknown, steps: readonly string[], drop: (v: unknown) => boolean): unknown {
  const [step, ...rest] = steps;
  if (step === undefined || !isObj(value)) return value;
  if (step.endsWith('[]')) {
    const name = step.slice(0, -2);
    const items = value[name];
    if (!Array.isArray(items)) return value;
    return { ...value, [name]: items.map((item) => dropSteps(item, rest, drop)) };
  }
  if (!(step in value)) return value;
  if (rest.length > 0) return { ...value, [step]: dropSteps(value[step], rest, drop) };
  if (!drop(value[step])) return value;
  const { [step]: _dropped, ...kept } = value;
  return kept;
}

/** Escapes `${` as `$${` in every string, so interpolation restores the text unchanged. */
export function escapeInterpolation(value: unknown): unknown {
  if (typeof value === 'string') return value.split('${').join('$${');
  if (Array.isArray(value)) return value.map(escapeInterpolation);
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeInterpolation(v)]));
  return value;
}

/** The value of a managed field as the file should declare it (not yet escaped). */
export function exportedValue(kind: ResourceKind, field: string, live: unknown): unknown {
  let out: unknown = structuredClone(live);
  for (const pattern of kind.computedKeys?.[field] ?? []) out = dropKeys(out, pattern, () => true);
  for (const pattern of kind.serverAddedKeys?.[field] ?? []) out = dropKeys(out, pattern, isEmptyValue);
  return out;
}
