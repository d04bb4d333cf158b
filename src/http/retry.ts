// The retry policy: which failures are worth another attempt, how long to wait before it,
// and which methods may be replayed when we cannot know whether the server acted.
import type { HttpMethod } from './transport.js';

/** Statuses that mean "not now": throttled, or a gateway/upstream that could not serve us. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** The longest server-requested wait honoured by default (--max-wait); beyond it, the run stops. */
export const DEFAULT_MAX_WAIT_MS = 300_000;

const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 30_000;

/**
 * Methods that are safe to send twice. PATCH is on the list because every PATCH hogsync
 * sends sets absolute field values (including `{"deleted": true}`), so a replay converges to
 * the same state. POST creates: a replay could create twice, so it is never replayed when
 * the first attempt may have reached the server.
 */
export function isIdempotent(method: HttpMethod): boolean {
  return method !== 'POST';
}

/** Exponential backoff with full jitter: uniform in [0, min(cap, base·2^attempt)). */
export function backoffMs(attempt: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/**
 * How long the server asked us to wait: the `Retry-After` header (seconds or an HTTP date),
 * else the "Expected available in N seconds" of a throttling body (the real API sends only that).
 */
export function serverWaitMs(retryAfter: string | undefined, body: string, now: number): number | undefined {
  if (retryAfter !== undefined && retryAfter.trim() !== '') {
    const value = retryAfter.trim();
    if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const match = /expected available in (\d+(?:\.\d+)?) seconds?/i.exec(body);
  return match?.[1] === undefined ? undefined : Math.ceil(Number(match[1]) * 1000);
}
