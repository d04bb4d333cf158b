// Request counters of a running sandbox, read by tests and benchmarks (on the handle and at
// GET /_sandbox/stats) to check how many calls a client made and how many were refused.

export interface Stats {
  requests: number;
  /** Requests per route key, e.g. "GET /api/organizations/:org/roles/". */
  byRoute: Record<string, number>;
  throttled: number;
  faults: number;
}

export function emptyStats(): Stats {
  return { requests: 0, byRoute: {}, throttled: 0, faults: 0 };
}

export function countRequest(stats: Stats, routeKey: string): void {
  stats.requests++;
  stats.byRoute[routeKey] = (stats.byRoute[routeKey] ?? 0) + 1;
}

/** Zeroes the counters in place, so every holder of the handle sees the reset. */
export function resetStats(stats: Stats): void {
  stats.requests = 0;
  stats.byRoute = {};
  stats.throttled = 0;
  stats.faults = 0;
}
