// Bounded concurrency: a FIFO semaphore shared by every request of a client (the bounded
// mapper over lists is src/util/map-limit.ts).

export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
