// The sandbox's state holder: in memory, optionally persisted to --state FILE. Writes run one at
// a time and are durable before they resolve, so a response is only sent for a write that
// survives a SIGKILL; reads wait for writes already under way, so nobody sees a write that
// could still be lost.
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from './atomic-file.js';
import { isObject } from './json.js';
import { STATE_FORMAT, type SandboxState } from './state.js';

export class SandboxStore {
  private state: SandboxState;
  private readonly path: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** The last content known to be on disk (or accepted in memory): the rollback point. */
  private committed: string;
  private writes = 0;

  constructor(state: SandboxState, path?: string) {
    this.state = state;
    this.path = path;
    this.committed = JSON.stringify(state);
  }

  /** Number of acknowledged writes since start (tests use it to see that a faulted call changed nothing). */
  get writeCount(): number {
    return this.writes;
  }

  /** Reads a consistent view after every write already queued has been made durable. */
  async read<T>(fn: (state: SandboxState) => T): Promise<T> {
    await this.queue.catch(() => undefined);
    return fn(this.state);
  }

  /**
   * Runs `fn` against the state, alone, then persists. If `fn` throws or persisting fails, the
   * state goes back to what it was before, so an error answer never hides a partial change.
   */
  write<T>(fn: (state: SandboxState) => T): Promise<T> {
    const run = this.queue.catch(() => undefined).then(async () => {
      let result: T;
      try {
        result = fn(this.state);
      } catch (err) {
        // Handlers validate before they mutate; restoring anyway means a bug there cannot
        // leave a half-applied change behind a 4xx answer.
        this.state = JSON.parse(this.committed) as SandboxState;
        throw err;
      }
      const content = JSON.stringify(this.state);
      try {
        if (this.path) await writeFileAtomic(this.path, `${content}\n`);
      } catch (err) {
        this.state = JSON.parse(this.committed) as SandboxState;
        throw err;
      }
      this.committed = content;
      this.writes++;
      return result;
    });
    this.queue = run;
    return run;
  }

  /** Resolves once every queued write has finished (used when stopping). */
  async flush(): Promise<void> {
    await this.queue.catch(() => undefined);
  }

  /** Persists the current state (used once at start, so a fresh state file exists at once). */
  save(): Promise<void> {
    return this.write(() => undefined);
  }

  /** A deep copy of the state, for tests and the stats endpoint's callers. */
  snapshot(): SandboxState {
    return structuredClone(this.state);
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
  return parsed as SandboxState;
}
