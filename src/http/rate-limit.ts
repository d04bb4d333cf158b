// The client-side rate limit, shared by every request of a client. A server that allows R
// requests in any sliding 60 s window must never see more from us, even when network latency
// shifts arrival times, yet a long run should get close to R. Two rules together do that:
//   - spacing (GCRA): one request every 60000/R ms after an initial burst of up to R, the
//     server's own allowance for an idle key, so a plan of a few hundred reads never waits;
//   - a sliding log of the last R send times over a window slightly longer than 60 s (the
//     guard absorbs latency jitter), a hard cap no burst can break.
// The steady rate is R·60/(60+guard) ≈ 97 % of R. A 429 pauses every request of the client.
import type { Clock } from './clock.js';

export const WINDOW_MS = 60_000;
export const GUARD_MS = 2_000;

export interface RateLimiterOptions {
  requestsPerMinute: number;
  /** Requests that may go at once from idle; default R (what the server allows in one window). */
  burst?: number;
  clock: Clock;
}

export class RateLimiter {
  private readonly interval: number;
  private burstTolerance: number;
  private readonly limit: number;
  /** Ring buffer of the last `limit` send times. */
  private readonly log: number[] = [];
  private logStart = 0;
  /** GCRA's theoretical arrival time of the next request. */
  private tat = -Infinity;
  private pausedUntil = -Infinity;
  private readonly clock: Clock;

  constructor(options: RateLimiterOptions) {
    const rpm = options.requestsPerMinute;
    this.clock = options.clock;
    this.limit = Number.isFinite(rpm) ? Math.max(1, Math.floor(rpm)) : Infinity;
    this.interval = Number.isFinite(rpm) ? WINDOW_MS / rpm : 0;
    const burst = options.burst ?? (Number.isFinite(rpm) ? Math.max(1, Math.floor(rpm)) : 1);
    this.burstTolerance = (Math.max(1, burst) - 1) * this.interval;
  }

  /** Resolves when a request may be sent now; the caller must send it right away. */
  async acquire(): Promise<void> {
    if (this.limit === Infinity && this.pausedUntil === -Infinity) return;
    for (;;) {
      const now = this.clock.now();
      const at = this.earliest(now);
      if (at <= now) {
        this.record(now);
        return;
      }
      // Waiters re-check after sleeping: another may have taken the slot, or a 429 paused us.
      await this.clock.sleep(at - now);
    }
  }

  /** The server throttled us: hold every request until `ms` from now, then restart without a burst. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
    this.burstTolerance = 0;
  }

  private earliest(now: number): number {
    let at = Math.max(now, this.pausedUntil, this.tat - this.burstTolerance);
    if (this.log.length >= this.limit) at = Math.max(at, (this.log[this.logStart] as number) + WINDOW_MS + GUARD_MS);
    return at;
  }

  private record(now: number): void {
    this.tat = Math.max(this.tat, now) + this.interval;
    if (this.limit === Infinity) return;
    if (this.log.length < this.limit) {
      this.log.push(now);
    } else {
      this.log[this.logStart] = now;
      this.logStart = (this.logStart + 1) % this.limit;
    }
  }
}
