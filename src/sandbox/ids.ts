// Identifiers and secrets the sandbox mints: UUIDv7 ids (as the real API uses), API keys and
// project tokens, deterministic proxy CNAME targets, and timestamps.
import { createHash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  // Rejection sampling keeps the alphabet uniform (248 = 4 * 62).
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    const b = bytes[i] as number;
    if (b < 248) out += BASE62[b % 62];
  }
  return out.length === length ? out : out + base62(length - out.length);
}

/** A time-ordered UUID (version 7), like the ids of the real API's records. */
export function uuidv7(now = Date.now()): string {
  const bytes = randomBytes(16);
  const ms = BigInt(now);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The next integer id of a kind. The real API never gives an id twice (its sequences only go
 * up): an id is past every one the kind ever gave (its counter in `next_ids`, which never goes
 * back, so a record removed does not free its id) and past every one its records hold now
 * (`held`: records seeded with their own ids). An old `--allow-delete project/ID` never names a
 * new project.
 */
export function nextIntegerId(counters: Record<string, number>, kind: string, floor = 1, held: Iterable<number> = []): number {
  let id = Math.max(counters[kind] ?? 1, floor);
  for (const h of held) if (h >= id) id = h + 1;
  counters[kind] = id + 1;
  return id;
}

/** Records an id given outside nextIntegerId (a seeded record's own id): it is never given again. */
export function takeIntegerId(counters: Record<string, number>, kind: string, id: number): void {
  counters[kind] = Math.max(counters[kind] ?? 1, id + 1);
}

export function personalApiKey(): string {
  return `phx_${base62(47)}`;
}

export function projectApiToken(): string {
  return `phc_${base62(43)}`;
}

export function liveEventsToken(): string {
  return `phe_${base62(43)}`;
}

/**
 * The CNAME target of a proxy domain, derived as the real API does: from the organization and
 * the exact string (so it is stable across runs, and a differently written domain gets another).
 */
export function proxyTarget(organization: string, domain: string): string {
  const digest = createHash('sha256').update(organization).update(domain).digest('hex');
  return `${digest.slice(0, 20)}.proxy-sandbox.hogsync.dev`;
}

export function nowIso(): string {
  return new Date().toISOString();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
