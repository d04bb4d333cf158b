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

/** A deep copy, so stored state never aliases a request body. */
export function clone<T extends Json>(value: T): T {
  return structuredClone(value);
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
