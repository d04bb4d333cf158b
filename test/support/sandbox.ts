// Sandboxes for tests: spawnSandbox() runs the real CLI (`hogsync sandbox --port 0`) as a child
// process and reads the two lines it prints; inProcessSandbox() starts one in this process for
// fast tests. Call stopAllSandboxes() in afterEach so nothing outlives a failing test.
import type { ChildProcess } from 'node:child_process';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/server.js';
import type { Stats } from '../../src/sandbox/stats.js';
import { spawnCli } from './cli.js';
import { ORG } from './constants.js';

export { BIN, ROOT, SEED_EXAMPLE } from './constants.js';
export const DEFAULT_ORG = ORG;

export interface SpawnedSandbox {
  baseUrl: string;
  apiKey: string;
  process: ChildProcess;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  stats(): Promise<Stats>;
  resetStats(): Promise<void>;
  /** Sends the signal (SIGTERM by default) and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const children = new Set<ChildProcess>();
const handles = new Set<SandboxHandle>();

// Last line of defence: never leave a sandbox process behind, even if a test run is aborted.
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

export async function spawnSandbox(args: string[] = [], env: Record<string, string | undefined> = {}): Promise<SpawnedSandbox> {
  const child = spawnCli(['sandbox', '--port', '0', ...args], { env, stdin: 'ignore' });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });

  const lines = await new Promise<{ baseUrl: string; apiKey: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sandbox did not start within 15 s; stderr: ${err}`));
    }, 15_000);
    const check = (): void => {
      const base = /^HOGSYNC_BASE_URL=(\S+)$/m.exec(out);
      const key = /^HOGSYNC_API_KEY=(\S+)$/m.exec(out);
      if (base && key) {
        clearTimeout(timer);
        resolve({ baseUrl: base[1] as string, apiKey: key[1] as string });
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited with ${code} before starting; stderr: ${err}`));
    });
  });

  return {
    ...lines,
    process: child,
    stdout: () => out,
    stderr: () => err,
    stats: async () => (await (await fetch(`${lines.baseUrl}/_sandbox/stats`)).json()) as Stats,
    resetStats: async () => { await fetch(`${lines.baseUrl}/_sandbox/reset-stats`, { method: 'POST' }); },
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      const done = exited(child);
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return done;
    },
  };
}

/** A sandbox in this process (no build needed); stopped by stopAllSandboxes(). */
export async function inProcessSandbox(opts: SandboxOptions = {}): Promise<SandboxHandle> {
  const handle = await startSandbox({ port: 0, ...opts });
  handles.add(handle);
  return handle;
}

/** Stops every sandbox the tests of this file started (use in afterEach). */
export async function stopAllSandboxes(): Promise<void> {
  const waits: Promise<unknown>[] = [];
  for (const child of children) {
    waits.push(exited(child));
    child.kill('SIGKILL');
  }
  for (const handle of handles) waits.push(handle.stop());
  handles.clear();
  await Promise.all(waits);
}

export interface ApiResponse { status: number; body: unknown; headers: Headers }

/** A tiny client for tests: JSON in, JSON out, the key as a Bearer token (or none when null). */
export function api(baseUrl: string, apiKey: string | null) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> => {
    const h: Record<string, string> = { ...headers };
    if (apiKey !== null) h.authorization = `Bearer ${apiKey}`;
    let payload: string | undefined;
    if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const url = path.startsWith('http') ? path : `${baseUrl}${path}`;
    const res = await fetch(url, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    call,
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown) => call('POST', path, body ?? {}),
    patch: (path: string, body?: unknown) => call('PATCH', path, body ?? {}),
    delete: (path: string) => call('DELETE', path),
  };
}

export type Api = ReturnType<typeof api>;

/** Every request a sandbox receives from now on (method, path with query, parsed body), as it arrives. */
export function recordRequests(server: import('node:http').Server): Array<{ method: string; path: string; body: unknown }> {
  const seen: Array<{ method: string; path: string; body: unknown }> = [];
  server.on('request', (req: import('node:http').IncomingMessage) => {
    let text = '';
    req.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
    req.on('end', () => { seen.push({ method: req.method ?? '', path: req.url ?? '', body: text === '' ? undefined : JSON.parse(text) as unknown }); });
  });
  return seen;
}
