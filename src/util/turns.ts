// Work that yields to I/O: each caller of `nextTurn` resumes in a turn of the event loop of its
// own, so answers that arrive meanwhile are read between two pieces of work, not after all.

const waiting: Array<() => void> = [];
/** Waiters that go before those in `waiting` (see nextTurnAhead). */
const ahead: Array<() => void> = [];
let pumping = false;

function pump(): void {
  const next = ahead.shift() ?? waiting.shift();
  if (ahead.length > 0 || waiting.length > 0) setImmediate(pump);
  else pumping = false;
  next?.();
}

function enqueue(queue: Array<() => void>): Promise<void> {
  return new Promise<void>((resolve) => {
    queue.push(resolve);
    if (pumping) return;
    pumping = true;
    setImmediate(pump);
  });
}

/** Resolves in a later turn of the event loop, one waiter per turn, first come first served. */
export function nextTurn(): Promise<void> {
  return enqueue(waiting);
}

/**
 * As nextTurn, but ahead of every waiter of nextTurn (first come first served among its own):
 * for work that lets go of memory (a comparison, after which its records are garbage) before
 * work that makes more (parsing the next answer).
 */
export function nextTurnAhead(): Promise<void> {
  return enqueue(ahead);
}
