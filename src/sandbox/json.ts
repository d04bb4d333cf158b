// JSON value types and small guards shared by the sandbox: request bodies, stored state and
// seed documents are all plain JSON, so the sandbox never needs `any`.

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject { [key: string]: Json }

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function has(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/**
 * A deep copy of JSON data, so stored state never aliases a request or response body.
 * Written out rather than structuredClone: list answers copy thousands of records, and this
 * is several times faster on plain JSON.
 */
export function clone<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copy = clone((value as Record<string, unknown>)[key]);
    // JSON may carry a "__proto__" key; keep it a plain own property.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out as T;
}

/** The JSON type name a Python/DRF error message would use ("str", "list", …). */
export function pyTypeName(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}
