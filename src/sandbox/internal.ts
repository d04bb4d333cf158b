// Sandbox-only endpoints under /_sandbox/ (no key needed, never faulted, throttled or counted):
// GET /_sandbox/stats answers the request counters, POST /_sandbox/reset-stats zeroes them,
// POST /_sandbox/advance?seconds=N moves the sandbox's clock forward (rate-limit windows free up,
// asynchronous deletions finish) without waiting. They let tests of a spawned sandbox process
// see how many calls a client made and what happens an hour later. (POST /_sandbox/web-edit/ and
// POST /_sandbox/accept-invite/ act as a user of the web app: web-edit.ts, invites.ts.)
import type { ServerResponse } from 'node:http';
import type { SandboxClock } from './clock.js';
import { notFound } from './errors.js';
import { sendJson } from './http.js';
import type { Json } from './json.js';
import { resetStats, type Stats } from './stats.js';

export const INTERNAL_PREFIX = '/_sandbox/';

function statsJson(stats: Stats): Json {
  return { requests: stats.requests, byRoute: { ...stats.byRoute }, throttled: stats.throttled, faults: stats.faults };
}

export function handleInternal(method: string, url: URL, stats: Stats, clock: SandboxClock, res: ServerResponse): void {
  const pathname = url.pathname;
  const path = pathname.endsWith('/') ? pathname : `${pathname}/`;
  if (path === '/_sandbox/advance/' && method === 'POST') {
    const seconds = Number(url.searchParams.get('seconds') ?? '');
    if (!Number.isFinite(seconds) || seconds < 0) return sendJson(res, 400, { detail: 'seconds must be a non-negative number' });
    clock.advance(seconds * 1000);
    return sendJson(res, 200, { advanced_seconds: seconds, now: new Date(clock.now()).toISOString() });
  }
  if (path === '/_sandbox/stats/' && method === 'GET') return sendJson(res, 200, statsJson(stats));
  if (path === '/_sandbox/reset-stats/' && method === 'POST') {
    resetStats(stats);
    return sendJson(res, 200, statsJson(stats));
  }
  const err = notFound();
  sendJson(res, err.status, err.body);
}
