// What a kind's model needs to read its section of a seed document: the shared helpers of the
// seed loader, kept apart from it (seed.ts) so a kind's model imports them without importing
// the loader, which reads every kind's model through the registry.
import { ApiError } from './errors.js';
import { isObject, type JsonObject } from './json.js';
import type { SandboxState } from './state.js';

export type SeedFail = (where: string, msg: string) => never;

/** A seed section that is a list of mappings (absent: none). */
export function seedList(value: unknown, where: string, fail: SeedFail): JsonObject[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isObject)) fail(where, 'must be a list of mappings');
  return value as JsonObject[];
}

/** Runs an API-level operation of a seed, turning its 400 into a seed error at `where`. */
export function seedApply<T>(where: string, fail: SeedFail, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ApiError) return fail(err.body.attr ? `${where}.${err.body.attr}` : where, err.body.detail);
    throw err;
  }
}

/** The id of the seed user (or the sandbox user) with this email; a seed error otherwise. */
export function seedUserByEmail(state: SandboxState, email: unknown, where: string, fail: SeedFail): number {
  const found = typeof email === 'string' ? [state.user, ...state.users].find((u) => u.email.toLowerCase() === email.toLowerCase()) : undefined;
  if (!found) return fail(where, `unknown user ${JSON.stringify(email)} (name it under users)`);
  return found.id;
}
