// Sandbox-only endpoints under /_sandbox/ (no key needed, never faulted, throttled or counted):
// GET /_sandbox/stats answers the request counters, POST /_sandbox/reset-stats zeroes them.
// They let tests of a spawned sandbox process see how many calls a client made.
import type { ServerResponse } from 'node:http';
import { notFound } from './errors.js';
import { sendJson } from './http.js';
import type { Json } from './json.js';
import { resetStats, type Stats } from './stats.js';

export const INTERNAL_PREFIX = '/_sandbox/';

function statsJson(stats: Stats): Json {
  return { requests: stats.requests, byRoute: { ...stats.byRoute }, throttled: stats.throttled, faults: stats.faults };
}

export function handleInternal(method: string, pathname: string, stats: Stats, res: ServerResponse): void {
  const path = pathname.endsWith('/') ? pathname : `${pathname}/`;
  if (path === '/_sandbox/stats/' && method === 'GET') return sendJson(res, 200, statsJson(stats));
  if (path === '/_sandbox/reset-stats/' && method === 'POST') {
    resetStats(stats);
    return sendJson(res, 200, statsJson(stats));
  }
  const err = notFound();
  sendJson(res, err.status, err.body);
}
