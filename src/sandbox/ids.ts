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
