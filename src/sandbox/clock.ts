// The sandbox's notion of time, for what the real API does over time: rate-limit windows and
// asynchronous deletions. Tests move it forward (POST /_sandbox/advance?seconds=N) instead of
// waiting an hour for a window to free.
export class SandboxClock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
