// The sandbox's state holder: in memory, optionally persisted to --state FILE. Writes run one at
// a time and are durable before they resolve, so a response is only sent for a write that
// survives a SIGKILL; reads wait for the writes queued before them, so nobody sees a write that
// could still be lost. Writes that queue up while the file is being written are committed
// together with one file write (group commit), which keeps a large state fast under parallel
// clients.
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../util/atomic-write.js';
import { withActivityDefaults } from './activity.js';
import { SandboxClock } from './clock.js';
import { clone, isObject } from './json.js';
import { STATE_FORMAT, type SandboxState } from './state.js';

interface PendingWrite {
  fn: (state: SandboxState) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class SandboxStore {
  private state: SandboxState;
  private readonly path: string | undefined;
  private pending: PendingWrite[] = [];
  private draining = false;
  /** Settles after the most recently queued write: what a read waits for. */
  private tail: Promise<unknown> = Promise.resolve();
  /** The content last written to the state file: the rollback point if a file write fails. */
  private committed: string | undefined;
  private writes = 0;
  /** Time as the sandbox sees it (tests advance it). */
  readonly clock = new SandboxClock();
  /** How long an asynchronous deletion (provisioned proxy records, projects) takes, in ms. */
  deletionDelayMs = 0;
  /** Runs at the start of every write: removes what finished deleting, so the file never keeps it. */
  maintain: ((state: SandboxState, now: number) => void) | undefined;

  constructor(state: SandboxState, path?: string) {
    this.state = state;
    this.path = path;
  }

  /** Number of acknowledged writes since start (tests use it to see that a faulted call changed nothing). */
  get writeCount(): number {
    return this.writes;
  }

  /** Reads a consistent view after every write queued before this read has been made durable. */
  async read<T>(fn: (state: SandboxState) => T): Promise<T> {
    await this.tail.catch(() => undefined);
    return fn(this.state);
  }

  /**
   * Runs `fn` against the state, alone, and resolves once the change is persisted. `fn` must
   * validate before it mutates: when it throws, it has changed nothing (every handler is written
   * that way), so the write is refused without touching the state or the file.
   */
  write<T>(fn: (state: SandboxState) => T): Promise<T> {
    const done = new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
    });
    this.tail = done;
    if (!this.draining) {
      this.draining = true;
      void this.drain();
    }
    return done;
  }

  /** Commits queued writes batch by batch until none is left. */
  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) await this.commitBatch(this.pending.splice(0));
    } finally {
      // Reached synchronously from the loop's last "nothing pending" check, so no write can
      // slip in between and be left without a drain.
      this.draining = false;
    }
  }

  /**
   * Applies a batch, persists it once, then settles every write of it, all after the file write,
   * so writes settle in queue order (a read waiting on the last one sees only durable state).
   */
  private async commitBatch(batch: PendingWrite[]): Promise<void> {
    const outcomes: { write: PendingWrite; ok: boolean; value: unknown }[] = [];
    for (const write of batch) {
      try {
        this.maintain?.(this.state, this.clock.now());
        outcomes.push({ write, ok: true, value: write.fn(this.state) });
      } catch (err) {
        outcomes.push({ write, ok: false, value: err });
      }
    }
    const changed = outcomes.some((o) => o.ok);
    if (changed && this.path) {
      const content = `${JSON.stringify(this.state)}\n`;
      try {
        await writeFileAtomic(this.path, content, 0o600);
        this.committed = content;
      } catch (err) {
        // Nothing of this batch reached the disk: forget it in memory too, and refuse it.
        if (this.committed !== undefined) this.state = JSON.parse(this.committed) as SandboxState;
        for (const o of outcomes) if (o.ok) Object.assign(o, { ok: false, value: err });
      }
    }
    for (const { write, ok, value } of outcomes) {
      if (ok) {
        this.writes++;
        write.resolve(value);
      } else {
        write.reject(value);
      }
    }
  }

  /** Resolves once every queued write has finished (used when stopping). */
  async flush(): Promise<void> {
    // Writes settle in order, so the last one settling means all have.
    await this.tail.catch(() => undefined);
  }

  /** Persists the current state; called once at start, before any request, so a fresh state file exists at once. */
  async save(): Promise<void> {
    if (!this.path) return;
    const content = `${JSON.stringify(this.state)}\n`;
    await writeFileAtomic(this.path, content, 0o600);
    this.committed = content;
  }

  /** A deep copy of the state, for tests. */
  snapshot(): SandboxState {
    return clone(this.state);
  }
}

/** Loads a state file; undefined when it does not exist. Throws a readable error when it is not one. */
export async function loadStateFile(path: string): Promise<SandboxState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`state file ${path} is not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(parsed) || parsed.format !== STATE_FORMAT || parsed.version !== 1) {
    throw new Error(`${path} is not a hogsync sandbox state file (expected "format": "${STATE_FORMAT}", "version": 1)`);
  }
  return withActivityDefaults(parsed as SandboxState);
}
