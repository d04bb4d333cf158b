// Virtual time for rate-limit tests: sleep() schedules a timer, run() advances time to the
// next timer only once every pending promise has settled, so minutes pass in milliseconds
// and results do not depend on how fast the machine is.

import { nextTurn } from '../../src/util/turns.js';

interface Timer { at: number; seq: number; resolve: () => void }

// Turns taken in line behind the work that yields to I/O (answers are parsed in turns of their
// own, one per turn: ../../src/util/turns.ts), so that work has run before time moves on.
const settle = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) await nextTurn();
};

export class VirtualClock {
  private t = 0;
  private seq = 0;
  private timers: Timer[] = [];

  readonly now = (): number => this.t;

  readonly sleep = (ms: number): Promise<void> =>
    new Promise<void>((resolve) => {
      this.timers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, resolve });
    });

  async run<T>(work: Promise<T>): Promise<T> {
    let done = false;
    work.then(() => { done = true; }, () => { done = true; });
    for (;;) {
      await settle();
      if (done) return work;
      if (this.timers.length === 0) throw new Error('virtual clock: nothing scheduled and the work is not done');
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift() as Timer;
      this.t = Math.max(this.t, next.at);
      next.resolve();
    }
  }
}

/** A small seeded PRNG (mulberry32), so simulations are repeatable. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
