// Work that yields to I/O: each caller of `nextTurn` resumes in a turn of the event loop of its
// own, so answers that arrive meanwhile are read between two pieces of work, not after all.

const waiting: Array<() => void> = [];
let pumping = false;

function pump(): void {
  const next = waiting.shift();
  if (waiting.length > 0) setImmediate(pump);
  else pumping = false;
  next?.();
}

/** Resolves in a later turn of the event loop, one waiter per turn, first come first served. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (pumping) return;
    pumping = true;
    setImmediate(pump);
  });
}
