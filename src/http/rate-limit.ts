// The client-side rate limit, shared by every request of a client. The real API allows a
// personal key R requests in any sliding minute AND H in any sliding hour; a server that counts
// so must never see more from us, even when network latency shifts arrival times, yet a long
// run should get close to R. Three rules together do that:
//   - spacing (GCRA): one request every 60000/R ms after an initial burst of up to R, the
//     server's own allowance for an idle key, so a plan of a few hundred reads never waits;
//   - a sliding log of the last R send times over a window slightly longer than 60 s (the
//     guard absorbs latency jitter), a hard cap no burst can break;
//   - the same log for the hour: at most H sends in any window slightly longer than an hour.
// The steady rate is R·60/(60+guard) ≈ 97 % of R. A 429 pauses every request of the client.
// A wait longer than the caller accepts (`maxWaitMs`) is not waited out: acquire() throws
// RateLimitWait at once, so a run stops instead of hanging for most of an hour.
// Some endpoints have a budget of their own on top (ENDPOINT_BUDGETS, a path pattern → its
// windows: the insight endpoints' 240 a minute and 1200 an hour): a request to one of them
// keeps within the general windows and its budget's, with the same three rules, the same
// pauses and the same stop; a 429 or a refused wait there holds only that budget's requests.
import type { Clock } from './clock.js';

export const WINDOW_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const GUARD_MS = 2_000;

/** An endpoint's own windows, shared by every request to the paths it covers (per key, as the API counts). */
export interface EndpointBudget {
  /** What it covers, in messages ("insight endpoints"). */
  name: string;
  /** The request paths it covers (path only, without the query). */
  pattern: RegExp;
  perMinute: number;
  perHour: number;
}

/**
 * The real API's budgets beyond the general one (posthog/rate_limit.py): the insight viewsets
 * also carry ClickHouseBurstRateThrottle (240/minute) and ClickHouseSustainedRateThrottle
 * (1200/hour), under /api/projects/{id}/insights/… and /api/environments/{id}/insights/….
 */
export const ENDPOINT_BUDGETS: readonly EndpointBudget[] = [
  { name: 'insight endpoints', pattern: /^\/api\/(?:projects|environments)\/[^/]+\/insights(?:\/|$)/, perMinute: 240, perHour: 1200 },
];

export interface RateLimiterOptions {
  requestsPerMinute: number;
  /** Requests per sliding hour; Infinity (default) = no hourly cap. */
  requestsPerHour?: number;
  /** Requests that may go at once from idle; default R (what the server allows in one window). */
  burst?: number;
  /** The longest wait acquire() takes on; a longer one throws RateLimitWait (default: no limit). */
  maxWaitMs?: number;
  /** Told once per pause longer than a moment (a server-requested wait, or the hourly cap). */
  onPause?: (pause: Pause) => void;
  /** Endpoints' own windows on top of the general ones (default none; the client passes ENDPOINT_BUDGETS). */
  budgets?: readonly EndpointBudget[];
  clock: Clock;
}

export interface Pause {
  /** Why: the server asked (429) or the client keeps within its own hourly cap. */
  reason: 'server' | 'hourly';
  waitMs: number;
  /** Epoch ms when requests go again. */
  until: number;
  /** The endpoint budget that holds the requests (absent: the general windows). */
  budget?: string;
}

/** A wait beyond what the caller accepts: nothing was sent; `until` is when the API expects to be free. */
export class RateLimitWait extends Error {
  constructor(readonly reason: Pause['reason'], readonly waitMs: number, readonly until: number, readonly budget?: EndpointBudget) {
    super(`rate limit: ${Math.ceil(waitMs / 1000)} s to wait`);
    this.name = 'RateLimitWait';
  }
}

/** A ring buffer of the last `limit` send times. */
class SendLog {
  private readonly times: number[] = [];
  private start = 0;
  constructor(readonly limit: number, readonly windowMs: number) {}

  /** Earliest time a new send keeps within the window. */
  earliest(): number {
    if (this.times.length < this.limit) return -Infinity;
    return (this.times[this.start] as number) + this.windowMs + GUARD_MS;
  }

  record(now: number): void {
    if (this.times.length < this.limit) {
      this.times.push(now);
    } else {
      this.times[this.start] = now;
      this.start = (this.start + 1) % this.limit;
    }
  }
}

/** Pauses shorter than this pass without a word (ordinary spacing of requests). */
const QUIET_MS = 1_000;

/** One set of windows (the general one, or an endpoint budget's): spacing, the minute's log, the hour's. */
class Windows {
  readonly interval: number;
  burstTolerance: number;
  readonly logs: SendLog[] = [];
  readonly hourly: SendLog | undefined;
  readonly unlimited: boolean;
  /** GCRA's theoretical arrival time of the next request. */
  tat = -Infinity;
  pausedUntil = -Infinity;
  /** Set once a wait was refused: every later request through these windows refuses too, until that time. */
  stopped: RateLimitWait | undefined;

  constructor(rpm: number, rph: number, burst: number | undefined, readonly budget?: EndpointBudget) {
    this.interval = Number.isFinite(rpm) ? WINDOW_MS / rpm : 0;
    const b = burst ?? (Number.isFinite(rpm) ? Math.max(1, Math.floor(rpm)) : 1);
    this.burstTolerance = (Math.max(1, b) - 1) * this.interval;
    if (Number.isFinite(rpm)) this.logs.push(new SendLog(Math.max(1, Math.floor(rpm)), WINDOW_MS));
    if (Number.isFinite(rph)) {
      this.hourly = new SendLog(Math.max(1, Math.floor(rph)), HOUR_MS);
      this.logs.push(this.hourly);
    }
    this.unlimited = this.logs.length === 0;
  }

  earliest(now: number): number {
    let at = Math.max(now, this.pausedUntil, this.tat - this.burstTolerance);
    for (const log of this.logs) at = Math.max(at, log.earliest());
    return at;
  }

  /** The long causes of a wait: a server-requested pause, or the hourly cap. */
  longCause(): { reason: Pause['reason']; at: number } {
    const hourly = this.hourly?.earliest() ?? -Infinity;
    return this.pausedUntil >= hourly ? { reason: 'server', at: this.pausedUntil } : { reason: 'hourly', at: hourly };
  }

  record(now: number): void {
    this.tat = Math.max(this.tat, now) + this.interval;
    for (const log of this.logs) log.record(now);
  }

  pause(until: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.burstTolerance = 0;
  }
}

export class RateLimiter {
  private readonly general: Windows;
  private readonly budgets: Windows[];
  /** The end of the last pause announced, so one pause is told once. */
  private announcedUntil = -Infinity;
  private readonly maxWaitMs: number;
  private readonly onPause: (pause: Pause) => void;
  private readonly clock: Clock;
  /** Requests sleeping in acquire(), each with the time it wakes: what progress lines say is waited for. */
  private readonly sleepers = new Map<object, number>();

  constructor(options: RateLimiterOptions) {
    this.clock = options.clock;
    this.maxWaitMs = options.maxWaitMs ?? Infinity;
    this.onPause = options.onPause ?? (() => undefined);
    this.general = new Windows(options.requestsPerMinute, options.requestsPerHour ?? Infinity, options.burst);
    this.budgets = (options.budgets ?? []).map((b) => new Windows(b.perMinute, b.perHour, undefined, b));
  }

  /** The windows a request to `path` keeps within: the general ones, and its endpoint's budget. */
  private windowsFor(path: string | undefined): Windows[] {
    if (path === undefined || this.budgets.length === 0) return [this.general];
    const own = this.budgets.filter((w) => w.budget?.pattern.test(path));
    return own.length === 0 ? [this.general] : [this.general, ...own];
  }

  /**
   * Resolves when a request (to `path`, for endpoint budgets) may be sent now; the caller must
   * send it right away. Throws RateLimitWait when the next slot is further away than
   * `maxWaitMs` (nothing is sent).
   */
  async acquire(path?: string): Promise<void> {
    const windows = this.windowsFor(path);
    if (windows.every((w) => w.unlimited && w.pausedUntil === -Infinity && w.stopped === undefined)) return;
    for (;;) {
      const now = this.clock.now();
      for (const w of windows) if (w.stopped && w.stopped.until > now) throw w.stopped;
      let at = now;
      for (const w of windows) at = Math.max(at, w.earliest(now));
      if (at <= now) {
        for (const w of windows) w.record(now);
        return;
      }
      const waitMs = at - now;
      // The long causes: a server-requested pause, or an hourly cap. Minute spacing is never
      // more than about a minute and is waited out quietly.
      let cause: { reason: Pause['reason']; at: number; windows: Windows } | undefined;
      for (const w of windows) {
        const c = w.longCause();
        if (c.at >= at && (!cause || c.at > cause.at)) cause = { ...c, windows: w };
      }
      if (cause) {
        const budget = cause.windows.budget;
        if (waitMs > this.maxWaitMs) {
          cause.windows.stopped = new RateLimitWait(cause.reason, waitMs, at, budget);
          throw cause.windows.stopped;
        }
        if (waitMs >= QUIET_MS && this.claimAnnouncement(at)) this.onPause({ reason: cause.reason, waitMs, until: at, ...(budget ? { budget: budget.name } : {}) });
      }
      // Waiters re-check after sleeping: another may have taken the slot, or a 429 paused us.
      const token = {};
      this.sleepers.set(token, at);
      try {
        await this.clock.sleep(waitMs);
      } finally {
        this.sleepers.delete(token);
      }
    }
  }

  /** How long until the next request held by this limiter may go (0 when none is held). */
  heldFor(): number {
    let next = Infinity;
    for (const at of this.sleepers.values()) next = Math.min(next, at);
    return next === Infinity ? 0 : Math.max(0, next - this.clock.now());
  }

  /**
   * Whether a pause until `until` is news (not told yet): the caller that tells it calls this;
   * a pause is told once, however many requests it holds.
   */
  claimAnnouncement(until: number): boolean {
    if (until <= this.announcedUntil + QUIET_MS) return false;
    this.announcedUntil = until;
    return true;
  }

  /** The name of the endpoint budget a request to `path` counts against, if any. */
  budgetOf(path: string | undefined): EndpointBudget | undefined {
    return this.windowsFor(path).at(-1)?.budget;
  }

  /**
   * The server throttled us: hold every request until `ms` from now, then restart without a
   * burst. A 429 from an endpoint with a budget of its own holds that budget's requests only.
   */
  pause(ms: number, path?: string): void {
    this.throttled(path).pause(this.clock.now() + ms);
  }

  /**
   * The server asked for a wait longer than the caller accepts: refuse every request until
   * then (they would only be throttled again) and return the refusal to throw.
   */
  stop(ms: number, path?: string): RateLimitWait {
    const w = this.throttled(path);
    const until = this.clock.now() + ms;
    if (!w.stopped || w.stopped.until < until) w.stopped = new RateLimitWait('server', ms, until, w.budget);
    return w.stopped;
  }

  /** The windows a 429 for `path` speaks of: its endpoint's budget where it has one, else the general ones. */
  private throttled(path: string | undefined): Windows {
    return this.windowsFor(path).at(-1) as Windows;
  }
}
