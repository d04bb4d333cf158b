// Deliberate misbehaviour for benchmarks and reliability tests: a fixed delay, random 5xx
// answers or dropped connections, and a sliding-window rate limit answering 429 the way the
// real API does (no Retry-After; the wait is in the body's detail).

export interface FaultOptions {
  latencyMs: number;
  /** Probability in [0, 1] that a request is faulted. */
  faultRate: number;
  /** Requests allowed per sliding 60 s window; 0 = unlimited. */
  rateLimitPerMinute: number;
  random: () => number;
}

export type Fault = { kind: 'status'; status: 502 | 503 | 504 } | { kind: 'drop' };

const WINDOW_MS = 60_000;

export class FaultInjector {
  private readonly opts: FaultOptions;
  private readonly accepted: number[] = [];

  constructor(opts: FaultOptions) {
    this.opts = opts;
  }

  delay(): Promise<void> {
    if (this.opts.latencyMs <= 0) return Promise.resolve();
    // Unref'd: a request still waiting out its delay must not keep a stopped sandbox alive.
    return new Promise((resolve) => setTimeout(resolve, this.opts.latencyMs).unref());
  }

  /**
   * Seconds until a slot frees up when this request is over the limit, else undefined (and the
   * request takes a slot). Throttled requests take no slot, as in DRF's throttling.
   */
  throttle(now = Date.now()): number | undefined {
    const limit = this.opts.rateLimitPerMinute;
    if (limit <= 0) return undefined;
    while (this.accepted.length > 0 && (this.accepted[0] as number) <= now - WINDOW_MS) this.accepted.shift();
    if (this.accepted.length >= limit) {
      return Math.max(1, Math.ceil(((this.accepted[0] as number) + WINDOW_MS - now) / 1000));
    }
    this.accepted.push(now);
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
