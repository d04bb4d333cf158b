// What every use case that talks to the API shares: its settings, the progress events it
// emits, and the client, whose whole lifetime a use case owns (opened on entry, closed on
// every way out).
import { createClient, type ApiClient, type ClientEvent } from '../http/client.js';
import type { Change } from '../plan/types.js';
import type { ChangeOutcome } from '../apply/execute.js';

export interface ApiSettings {
  baseUrl: string;
  apiKey: string;
  parallelism: number;
  requestsPerMinute: number;
  /** `--timeout`: the longest one request may take, its retries included (ms; default the client's). */
  timeoutMs?: number;
  /** Absent: the client's default (4800, the API's hourly limit). */
  requestsPerHour?: number;
  /** The longest rate-limit wait sat out; absent: the client's default (300 s). */
  maxWaitMs?: number;
}

/** What a use case reports while it works; the CLI shows it on a terminal (or not at all). */
export type ProgressEvent =
  | { type: 'reading'; what: 'live state' | 'workspace'; requests: number }
  | { type: 'read' }
  /** Previews running (a flag's blast radius): how many are done, and how long the rate limit holds the next (ms). */
  | { type: 'previewing'; name: string; done: number; total: number; waitMs: number }
  | { type: 'previewed' }
  | { type: 'change-started'; change: Change; started: number; total: number }
  | { type: 'change-done'; outcome: ChangeOutcome; done: number; total: number }
  | { type: 'executed' }
  | { type: 'verifying' }
  | { type: 'verified' };

export interface Observer {
  onProgress?(event: ProgressEvent): void;
  /** Every request, retry, throttle and pause of the client (pauses are always shown; the rest with --verbose). */
  onRequest?(event: ClientEvent): void;
}

/** How often a read in progress reports its request count. */
const READING_TICK_MS = 200;

export async function withClient<T>(settings: ApiSettings, observer: Observer, use: (client: ApiClient) => Promise<T>): Promise<T> {
  const client = createClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    parallelism: settings.parallelism,
    requestsPerMinute: settings.requestsPerMinute,
    totalTimeoutMs: settings.timeoutMs,
    ...(settings.requestsPerHour === undefined ? {} : { requestsPerHour: settings.requestsPerHour }),
    ...(settings.maxWaitMs === undefined ? {} : { maxWaitMs: settings.maxWaitMs }),
    onEvent: observer.onRequest,
  });
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** Runs the previews, reporting every tick how many are done and what the rate limit holds back. */
export async function previewing<T>(client: Pick<ApiClient, 'rateLimitWaitMs'>, observer: Observer, run: (onProgress: (done: number, total: number, name: string) => void) => Promise<T>): Promise<T> {
  const report = observer.onProgress;
  let state: { name: string; done: number; total: number } | undefined;
  const tell = () => { if (state && report) report({ type: 'previewing', ...state, waitMs: client.rateLimitWaitMs() }); };
  const timer = report ? setInterval(tell, READING_TICK_MS) : undefined;
  try {
    return await run((done, total, name) => { state = { name, done, total }; });
  } finally {
    if (timer) clearInterval(timer);
    report?.({ type: 'previewed' });
  }
}

/** Runs a read, reporting its request count every tick. */
export async function reading<T>(client: ApiClient, what: 'live state' | 'workspace', observer: Observer, read: () => Promise<T>): Promise<T> {
  const report = observer.onProgress;
  const timer = report ? setInterval(() => report({ type: 'reading', what, requests: client.stats.requests }), READING_TICK_MS) : undefined;
  try {
    return await read();
  } finally {
    if (timer) clearInterval(timer);
    report?.({ type: 'read' });
  }
}
