// Deliberate misbehaviour for benchmarks and reliability tests: a fixed delay, random 5xx
// answers or dropped connections, and the real API's two sliding rate-limit windows (per minute
// and per hour, per key) answering 429 the way the real API does (no Retry-After; the wait is in
// the body's detail); and, on top, the windows some endpoints have of their own (the insight
// endpoints' ClickHouse throttles, posthog/rate_limit.py: 240/minute and 1200/hour), shared by
// every request to the paths they cover.

export interface FaultOptions {
  latencyMs: number;
  /** Probability in [0, 1] that a request is faulted. */
  faultRate: number;
  /** Requests allowed per sliding 60 s window and key; 0 = unlimited. */
  rateLimitPerMinute: number;
  /** Requests allowed per sliding hour and key; 0 = unlimited. */
  rateLimitPerHour?: number;
  /** Endpoints' own windows, checked after the general ones (per key, shared by the paths each covers). */
  endpointLimits?: readonly EndpointLimit[];
  random: () => number;
}

export interface EndpointLimit {
  /** Request paths it covers. */
  pattern: RegExp;
  /** Requests per sliding minute and key; 0 = unlimited. */
  perMinute: number;
  /** Requests per sliding hour and key; 0 = unlimited. */
  perHour: number;
}

/** The insight endpoints, as the real API's insight viewsets are routed (projects and environments). */
export const INSIGHT_PATHS = /^\/api\/(?:projects|environments)\/[^/]+\/insights(?:\/|$)/;

/** The real API's insight throttles, the defaults of --insight-rate-limit and --insight-rate-limit-hourly when rate limiting is on. */
export const INSIGHT_RATE_LIMIT = { perMinute: 240, perHour: 1200 } as const;

export type Fault = { kind: 'status'; status: 502 | 503 | 504 } | { kind: 'drop' };

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

export class FaultInjector {
  private readonly opts: FaultOptions;
  /** Accepted request times per key (the Authorization header; '' for none), oldest first. */
  private readonly accepted = new Map<string, number[]>();
  /** The same, per endpoint limit. */
  private readonly acceptedAt: Array<Map<string, number[]>>;

  constructor(opts: FaultOptions) {
    this.opts = opts;
    this.acceptedAt = (opts.endpointLimits ?? []).map(() => new Map());
  }

  delay(): Promise<void> {
    if (this.opts.latencyMs <= 0) return Promise.resolve();
    // Unref'd: a request still waiting out its delay must not keep a stopped sandbox alive.
    return new Promise((resolve) => setTimeout(resolve, this.opts.latencyMs).unref());
  }

  /**
   * Seconds until this key may call again when a window is full, else undefined (and the
   * request takes a slot in both windows). Throttled requests take no slot, as in DRF. A
   * request to an endpoint with windows of its own (`path`) is checked against them after the
   * general ones, as DRF checks a view's throttles one by one: one the endpoint's refuse has
   * taken its general slot already.
   */
  throttle(now = Date.now(), key = '', path = ''): number | undefined {
    const general = take(this.accepted, key, now, this.opts.rateLimitPerMinute, this.opts.rateLimitPerHour ?? 0);
    if (general !== undefined) return general;
    const limits = this.opts.endpointLimits ?? [];
    for (let i = 0; i < limits.length; i++) {
      const limit = limits[i] as EndpointLimit;
      if (!limit.pattern.test(path)) continue;
      const wait = take(this.acceptedAt[i] as Map<string, number[]>, key, now, limit.perMinute, limit.perHour);
      if (wait !== undefined) return wait;
    }
    return undefined;
  }

  /** Draws whether this request fails: about a third of faults drop the connection, the rest answer 502/503/504. */
  draw(): Fault | undefined {
    if (this.opts.faultRate <= 0 || this.opts.random() >= this.opts.faultRate) return undefined;
    const pick = this.opts.random();
    if (pick < 1 / 3) return { kind: 'drop' };
    if (pick < 5 / 9) return { kind: 'status', status: 502 };
    if (pick < 7 / 9) return { kind: 'status', status: 503 };
    return { kind: 'status', status: 504 };
  }
}

export const FAULT_BODIES = {
  502: { type: 'server_error', code: 'bad_gateway', detail: 'Bad gateway (injected by the sandbox).', attr: null },
  503: { type: 'server_error', code: 'service_unavailable', detail: 'Service temporarily unavailable (injected by the sandbox).', attr: null },
  504: { type: 'server_error', code: 'gateway_timeout', detail: 'Gateway timeout (injected by the sandbox).', attr: null },
} as const;

/** One key's minute and hour windows: seconds to wait when one is full, else undefined (and the request is counted). */
function take(accepted: Map<string, number[]>, key: string, now: number, perMinute: number, perHour: number): number | undefined {
  if (perMinute <= 0 && perHour <= 0) return undefined;
  const longest = perHour > 0 ? HOUR_MS : MINUTE_MS;
  let times = accepted.get(key);
  if (!times) {
    times = [];
    accepted.set(key, times);
  }
  while (times.length > 0 && (times[0] as number) <= now - longest) times.shift();
  let wait = 0;
  if (perMinute > 0) {
    const start = now - MINUTE_MS;
    // The minute window's requests are the newest ones: count back from the end.
    let inMinute = 0;
    for (let i = times.length - 1; i >= 0 && (times[i] as number) > start; i--) inMinute++;
    if (inMinute >= perMinute) wait = Math.max(wait, (times[times.length - perMinute] as number) + MINUTE_MS - now);
  }
  if (perHour > 0 && times.length >= perHour) wait = Math.max(wait, (times[times.length - perHour] as number) + HOUR_MS - now);
  if (wait > 0) return Math.max(1, Math.ceil(wait / 1000));
  times.push(now);
  return undefined;
}
