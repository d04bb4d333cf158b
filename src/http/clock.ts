// Time as the client sees it. Injectable so tests can run minutes of rate limiting in
// virtual time instead of waiting for it.
import { setTimeout as delay } from 'node:timers/promises';

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms) => {
    if (ms > 0) await delay(ms);
  },
};
