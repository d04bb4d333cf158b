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
import type { Clock } from './clock.js';

export const WINDOW_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const GUARD_MS = 2_000;

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
  clock: Clock;
}

export interface Pause {
  /** Why: the server asked (429) or the client keeps within its own hourly cap. */
  reason: 'server' | 'hourly';
  waitMs: number;
  /** Epoch ms when requests go again. */
  until: number;
}

/** A wait beyond what the caller accepts: nothing was sent; `until` is when the API expects to be free. */
export class RateLimitWait extends Error {
  constructor(readonly reason: Pause['reason'], readonly waitMs: number, readonly until: number) {
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

export class RateLimiter {
  private readonly interval: number;
  private burstTolerance: number;
  private readonly logs: SendLog[] = [];
  private readonly hourly: SendLog | undefined;
  private readonly unlimited: boolean;
  /** GCRA's theoretical arrival time of the next request. */
  private tat = -Infinity;
  private pausedUntil = -Infinity;
  /** The end of the last pause announced, so one pause is told once. */
  private announcedUntil = -Infinity;
  /** Set once a wait was refused: every later acquire() refuses too, until that time. */
  private stopped: RateLimitWait | undefined;
  private readonly maxWaitMs: number;
  private readonly onPause: (pause: Pause) => void;
  private readonly clock: Clock;
  /** Requests sleeping in acquire(), each with the time it wakes: what progress lines say is waited for. */
  private readonly sleepers = new Map<object, number>();

  constructor(options: RateLimiterOptions) {
    const rpm = options.requestsPerMinute;
    const rph = options.requestsPerHour ?? Infinity;
    this.clock = options.clock;
    this.maxWaitMs = options.maxWaitMs ?? Infinity;
    this.onPause = options.onPause ?? (() => undefined);
    this.interval = Number.isFinite(rpm) ? WINDOW_MS / rpm : 0;
    const burst = options.burst ?? (Number.isFinite(rpm) ? Math.max(1, Math.floor(rpm)) : 1);
    this.burstTolerance = (Math.max(1, burst) - 1) * this.interval;
    if (Number.isFinite(rpm)) this.logs.push(new SendLog(Math.max(1, Math.floor(rpm)), WINDOW_MS));
    if (Number.isFinite(rph)) {
      this.hourly = new SendLog(Math.max(1, Math.floor(rph)), HOUR_MS);
      this.logs.push(this.hourly);
    }
    this.unlimited = this.logs.length === 0;
  }

  /**
   * Resolves when a request may be sent now; the caller must send it right away. Throws
   * RateLimitWait when the next slot is further away than `maxWaitMs` (nothing is sent).
   */
  async acquire(): Promise<void> {
    if (this.unlimited && this.pausedUntil === -Infinity && this.stopped === undefined) return;
    for (;;) {
      const now = this.clock.now();
      if (this.stopped && this.stopped.until > now) throw this.stopped;
      const at = this.earliest(now);
      if (at <= now) {
        this.record(now);
        return;
      }
      const waitMs = at - now;
      // The long causes: a server-requested pause, or the hourly cap. Minute spacing is never
      // more than about a minute and is waited out quietly.
      const server = this.pausedUntil;
      const hourly = this.hourly?.earliest() ?? -Infinity;
      if (Math.max(server, hourly) >= at) {
        const reason: Pause['reason'] = server >= hourly ? 'server' : 'hourly';
        if (waitMs > this.maxWaitMs) {
          this.stopped = new RateLimitWait(reason, waitMs, at);
          throw this.stopped;
        }
        if (waitMs >= QUIET_MS && this.claimAnnouncement(at)) this.onPause({ reason, waitMs, until: at });
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

  /** The server throttled us: hold every request until `ms` from now, then restart without a burst. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
    this.burstTolerance = 0;
  }

  /**
   * The server asked for a wait longer than the caller accepts: refuse every request until
   * then (they would only be throttled again) and return the refusal to throw.
   */
  stop(ms: number): RateLimitWait {
    const until = this.clock.now() + ms;
    if (!this.stopped || this.stopped.until < until) this.stopped = new RateLimitWait('server', ms, until);
    return this.stopped;
  }

  private earliest(now: number): number {
    let at = Math.max(now, this.pausedUntil, this.tat - this.burstTolerance);
    for (const log of this.logs) at = Math.max(at, log.earliest());
    return at;
  }

  private record(now: number): void {
    this.tat = Math.max(this.tat, now) + this.interval;
    for (const log of this.logs) log.record(now);
  }
}
