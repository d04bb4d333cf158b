// The API client: the one place hogsync talks HTTP to the API. It authenticates every
// request, keeps the key on the base URL's origin, shares one concurrency limit and one
// rate limit across all requests, retries what is safe to retry, follows pagination, and
// turns every failure into a one-line HogsyncError that never contains the key.
import type { Dispatcher } from 'undici';
import { createAgent } from './agent.js';
import { HogsyncError, type ErrorCode, type RequestInfo } from '../errors.js';
import { VERSION } from '../version.js';
import { maskKey as redact } from '../util/secrets.js';
import { errorMessage, parseBody } from './api-error.js';
import { systemClock, type Clock } from './clock.js';
import { Semaphore } from './concurrency.js';
import { nextTurn } from '../util/turns.js';
import { displayPath, followNext, parseBaseUrl, resolveUrl, type Base } from './origin.js';
import { collectPages } from './pagination.js';
import { ENDPOINT_BUDGETS, RateLimiter, RateLimitWait, type EndpointBudget, type Pause } from './rate-limit.js';
import { DEFAULT_MAX_WAIT_MS, RETRYABLE_STATUSES, backoffMs, isIdempotent, serverWaitMs } from './retry.js';
import type { ApiPort } from './port.js';
import { TransportFailure, exchange, type HttpMethod, type RawResponse } from './transport.js';

export type { HttpMethod } from './transport.js';

/** The page size lists ask for (`limit` on a list's first request; see listAll). */
export const LIST_PAGE_SIZE = 1000;

export interface ClientEvent {
  /** `pause`: every request waits (the server asked, or the hourly cap): one event per pause. */
  type: 'request' | 'retry' | 'throttled' | 'pause';
  method: string;
  path: string;
  status?: number;
  waitMs?: number;
  /** For `pause`: why, and when requests go again (epoch ms). */
  reason?: Pause['reason'];
  until?: number;
  /** For `pause`: the endpoint budget that holds the requests ("insight endpoints"); absent: the general windows. */
  budget?: string;
}

/**
 * The run stops here: the API's rate limit asks for a wait longer than the client accepts
 * (`maxWaitMs`). Nothing was sent for the request that throws it; `until` (epoch ms) is when
 * the API expects to be available again. Every later request of the client throws it too.
 */
export class RateLimitStop extends HogsyncError {
  /** `budget`: the endpoint budget that is spent (the rest of the API may still take requests); absent: the general windows. */
  constructor(message: string, readonly until: number, request: RequestInfo, readonly budget?: string) {
    super('api', message, { request });
    this.name = 'RateLimitStop';
  }
}

export function isRateLimitStop(err: unknown): err is RateLimitStop {
  return err instanceof RateLimitStop;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  /** Requests in flight at once (default 10). */
  parallelism?: number;
  /** Client-side rate limit (default 480, the API's limit for personal keys); Infinity disables it. */
  requestsPerMinute?: number;
  /** Client-side hourly limit (default 4800, the API's hourly limit for personal keys); Infinity disables it. */
  requestsPerHour?: number;
  /** The longest rate-limit wait taken on (default 300 s); a longer one stops the run (RateLimitStop). */
  maxWaitMs?: number;
  /** Endpoints' own rate windows on top of the general ones (default ENDPOINT_BUDGETS: the insight endpoints'). */
  endpointBudgets?: readonly EndpointBudget[];
  /** Per attempt, covering headers and body (default 30000). */
  timeoutMs?: number;
  /**
   * The longest one request may take, its retries and their backoff included, rate-limit
   * waits (429) and waits for a free connection aside (`--timeout`, default 120000).
   */
  totalTimeoutMs?: number;
  /** Retries after the first attempt (default 5). */
  maxRetries?: number;
  /** Injected transport (tests pass a MockAgent); the client then leaves closing it to the caller. */
  dispatcher?: Dispatcher;
  sleep?: (ms: number) => Promise<void>;
  /** Clock for the rate limiter; pair it with `sleep` for virtual time. */
  now?: () => number;
  random?: () => number;
  onEvent?: (e: ClientEvent) => void;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number>;
  /** Statuses returned instead of thrown, besides 2xx (e.g. 404 to test for existence). */
  okStatuses?: number[];
  /** A POST that changes nothing (a computation such as user_blast_radius) may be replayed too. */
  idempotent?: boolean;
}

export interface ApiResponse<T> {
  status: number;
  body: T;
}

export interface ClientStats {
  /** HTTP attempts sent, retries included. */
  requests: number;
  retries: number;
  /** 429 answers received. */
  throttled: number;
}

export class ApiClient implements ApiPort {
  readonly stats: ClientStats = { requests: 0, retries: 0, throttled: 0 };
  private readonly base: Base;
  private readonly apiKey: string;
  private readonly headers: Record<string, string>;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly slots: Semaphore;
  private readonly limiter: RateLimiter;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly parallelism: number;
  private readonly timeoutMs: number;
  private readonly totalTimeoutMs: number;
  private readonly maxRetries: number;
  private readonly onEvent: (e: ClientEvent) => void;
  private readonly maxWaitMs: number;
  /** Tells the limiter's pause events which request was waiting. */
  private readonly noteRequest: (method: string, path: string) => void;

  constructor(options: ClientOptions) {
    this.apiKey = checkApiKey(options.apiKey);
    try {
      this.base = parseBaseUrl(options.baseUrl);
    } catch (err) {
      throw this.scrubbed(err);
    }
    this.parallelism = positive('parallelism', options.parallelism ?? 10, true);
    this.timeoutMs = positive('timeoutMs', options.timeoutMs ?? 30_000, true);
    this.totalTimeoutMs = positive('totalTimeoutMs', options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS, true);
    this.maxRetries = options.maxRetries ?? 5;
    if (!Number.isInteger(this.maxRetries) || this.maxRetries < 0) throw new HogsyncError('usage', `maxRetries must be a whole number ≥ 0 (got ${this.maxRetries})`);
    const rpm = positive('requests per minute', options.requestsPerMinute ?? 480, false);
    const rph = positive('requests per hour', options.requestsPerHour ?? 4800, false);
    this.maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    if (!(this.maxWaitMs >= 0)) throw new HogsyncError('usage', `maxWaitMs must be a number ≥ 0 (got ${this.maxWaitMs})`);
    this.clock = clockFrom(options);
    this.random = options.random ?? Math.random;
    this.onEvent = options.onEvent ?? (() => undefined);
    this.slots = new Semaphore(this.parallelism);
    let current = { method: '', path: '' };
    this.limiter = new RateLimiter({
      requestsPerMinute: rpm, requestsPerHour: rph, maxWaitMs: this.maxWaitMs, clock: this.clock, budgets: options.endpointBudgets ?? ENDPOINT_BUDGETS,
      onPause: (p) => this.emit({ type: 'pause', ...current, waitMs: p.waitMs, reason: p.reason, until: p.until, ...(p.budget ? { budget: p.budget } : {}) }),
    });
    this.noteRequest = (method, path) => { current = { method, path }; };
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? createAgent({
      connections: this.parallelism,
      keepAliveTimeout: 10_000,
      // Our own timer bounds each attempt; these are a backstop, late enough to never win.
      headersTimeout: this.timeoutMs + 1_000,
      bodyTimeout: this.timeoutMs + 1_000,
      connect: { timeout: Math.min(this.timeoutMs, 10_000) },
    });
    this.headers = {
      authorization: `Bearer ${this.apiKey}`,
      accept: 'application/json',
      'user-agent': `hogsync/${VERSION}`,
    };
  }

  /** How long until the next request the rate limit holds back may go (ms; 0 when none waits). */
  rateLimitWaitMs(): number {
    return this.limiter.heldFor();
  }

  /** `host:port` of the base URL, the port always written (443 for https): what a network error names. */
  get hostPort(): string {
    const url = new URL(this.base.origin);
    return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
  }

  /** The origin every request (and the key) goes to. */
  get origin(): string {
    return this.base.origin;
  }

  /**
   * One API call; `path` starts at the base URL's root (`/api/…`). The body
   * type is the caller's assertion: it is parsed JSON (`null` for an empty body), unchecked.
   */
  async request<T = unknown>(method: HttpMethod, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const url = this.resolve(path, 'send a request to');
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, String(value));
    return this.send<T>(method, url, options);
  }

  /**
   * Every item of a list, following pagination (see pagination.ts). The first request asks
   * for pages of LIST_PAGE_SIZE (unless `path` names its own `limit`): the API pages by 100 by
   * default and caps nothing, and every page of a flag list read with a personal key is
   * metered as a billable local-evaluation request. `next` links are followed as the server
   * gives them, never rewritten: its links carry the page size it applied.
   */
  async listAll<T = Record<string, unknown>>(path: string): Promise<T[]> {
    const first = this.resolve(path, 'send a request to');
    if (!first.searchParams.has('limit')) first.searchParams.set('limit', String(LIST_PAGE_SIZE));
    return collectPages<T>(first, {
      parallelism: this.parallelism,
      follow: (next, from) => {
        try {
          return followNext(first, next);
        } catch (err) {
          throw this.scrubbed(err, { method: 'GET', path: from.path });
        }
      },
      fetch: async (url) => {
        const res = await this.send<unknown>('GET', url, {});
        return { status: res.status, body: res.body, path: displayPath(url) };
      },
    });
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** `request`: the request that carried the URL (a list page for a next link). */
  private resolve(pathOrUrl: string, what: string, request?: RequestInfo): URL {
    try {
      return resolveUrl(this.base, pathOrUrl, what);
    } catch (err) {
      throw this.scrubbed(err, request);
    }
  }

  private async send<T>(method: HttpMethod, url: URL, options: RequestOptions): Promise<ApiResponse<T>> {
    const path = redact(displayPath(url), this.apiKey);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers = body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' };
    const okStatuses = options.okStatuses ?? [];

    // --timeout: time spent in attempts and in backoff between them; 429 waits and waiting
    // for a free connection do not count (they are the rate limit's, not this request's).
    let spent = 0;
    const left = () => this.totalTimeoutMs - spent;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.slots.run(async (): Promise<RawResponse | TransportFailure> => {
        this.noteRequest(method, path);
        try {
          await this.limiter.acquire(url.pathname);
        } catch (err) {
          if (err instanceof RateLimitWait) throw this.stopFor(err, { method, path });
          throw err;
        }
        this.stats.requests += 1;
        const started = Date.now();
        try {
          return await exchange({ dispatcher: this.dispatcher, url, method, headers, body, timeoutMs: Math.max(1, Math.min(this.timeoutMs, left())) });
        } catch (err) {
          if (err instanceof TransportFailure) return err;
          throw err;
        } finally {
          spent += Date.now() - started;
        }
      });
      const retriesLeft = attempt < this.maxRetries;

      if (outcome instanceof TransportFailure) {
        this.emit({ type: 'request', method, path });
        // Every line about a network failure names where it went (the first one and the hundredth).
        const detail = outcome.detail.replace(/^(.*?)(: |$)/, (_all, what: string, rest: string) => `${what} at ${this.hostPort}${rest}`);
        // Not reached at all (DNS, refused, TLS): a later request would not reach it either.
        const unreachable = outcome.kind === 'unsent' || outcome.kind === 'unresolved' || /^TLS failure/.test(outcome.detail);
        // Only a request that may have reached the API can have changed anything there.
        const mayHaveArrived = outcome.kind === 'interrupted' || outcome.kind === 'timeout';
        const idempotent = options.idempotent ?? isIdempotent(method);
        const replayable = outcome.kind === 'unsent' || (mayHaveArrived && idempotent);
        const notReplayed = mayHaveArrived && !idempotent ? `; not retried: ${method} is not idempotent; the change may or may not have been applied` : '';
        if (replayable && retriesLeft) {
          const wait = backoffMs(attempt, this.random);
          if (!this.roomFor(wait, left())) throw this.fail('network', this.overTime(detail, attempt + 1, unreachable), { method, path }, unreachable, this.hostPort);
          spent += wait;
          await this.backoff(method, path, undefined, wait);
          continue;
        }
        if (left() <= 0) throw this.fail('network', this.overTime(detail, attempt + 1, unreachable) + notReplayed, { method, path }, unreachable, this.hostPort);
        let message = detail + notReplayed;
        if (replayable) message += gaveUp(attempt + 1);
        throw this.fail('network', message, { method, path }, unreachable, this.hostPort);
      }

      const { status } = outcome;
      this.emit({ type: 'request', method, path, status });
      const accepted = (status >= 200 && status < 300) || okStatuses.includes(status);
      if (accepted) {
        const bytes = outcome.bytes;
        // Parsed in a turn of its own (../util/turns.ts), once the answers that came in with this
        // one have let out their next requests: parsed at once, an answer of a wave of ten held
        // back the nine others' next requests (and their round trips) by its parse.
        if (bytes) await nextTurn();
        const parsed = parseBody(status, outcome.headers['content-type'], bytes ?? outcome.text);
        if (!parsed.ok) throw this.fail('api', parsed.problem, { method, path, status });
        return { status, body: parsed.value as T };
      }

      if (RETRYABLE_STATUSES.has(status)) {
        const asked = status === 429 || status === 503 ? serverWaitMs(outcome.headers['retry-after'], outcome.text, this.clock.now()) : undefined;
        const waitMs = asked ?? backoffMs(attempt, this.random);
        if (status === 429) {
          this.stats.throttled += 1;
          this.emit({ type: 'throttled', method, path, status, waitMs });
          if (asked !== undefined && asked > this.maxWaitMs) {
            // Longer than we wait: stop at once, and refuse every later request until then.
            throw this.stopFor(this.limiter.stop(asked, url.pathname), { method, path, status });
          }
          if (asked !== undefined) {
            // Every request of this client would hit the same wall (every request to the same
            // endpoint budget, for an endpoint with one): hold them all, and say so once per
            // pause (requests held by it in acquire() do not say it again).
            this.limiter.pause(asked, url.pathname);
            const until = this.clock.now() + asked;
            const budget = this.limiter.budgetOf(url.pathname)?.name;
            if (asked >= 1000 && this.limiter.claimAnnouncement(until)) this.emit({ type: 'pause', method, path, waitMs: asked, reason: 'server', until, ...(budget ? { budget } : {}) });
          }
        }
        if (asked !== undefined && asked > this.maxWaitMs) {
          throw this.fail('api', `${errorMessage(status, outcome.headers['content-type'], outcome.text)} (the API asks to wait ${Math.ceil(asked / 1000)} s; try again later)`, { method, path, status });
        }
        if (retriesLeft) {
          if (status !== 429) {
            if (!this.roomFor(waitMs, left())) throw this.fail('api', this.overTime(errorMessage(status, outcome.headers['content-type'], outcome.text), attempt + 1), { method, path, status });
            spent += waitMs;
          }
          await this.backoff(method, path, status, waitMs);
          continue;
        }
        throw this.fail('api', `${errorMessage(status, outcome.headers['content-type'], outcome.text)}${gaveUp(attempt + 1)}`, { method, path, status });
      }
      throw this.fail('api', errorMessage(status, outcome.headers['content-type'], outcome.text), { method, path, status });
    }
  }

  /**
   * Whether a retry after `waitMs` still has time to be answered: a tenth of --timeout (at most
   * 100 ms) must be left after the wait. An attempt given a few milliseconds only times out,
   * and its timeout would hide what the API last answered.
   */
  private roomFor(waitMs: number, leftMs: number): boolean {
    return leftMs - waitMs >= Math.min(100, this.totalTimeoutMs / 10);
  }

  /**
   * The message of a request stopped by --timeout: what the last attempt met, and what to do.
   * `unreachable`: no attempt reached the API (nothing to wait for: the address or the network is wrong).
   */
  private overTime(last: string, attempts: number, unreachable = false): string {
    const seconds = Math.round(this.totalTimeoutMs / 100) / 10;
    const tried = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
    if (unreachable) return `${last}: the API could not be reached (${tried} within --timeout ${seconds} s)`;
    return `no complete answer within --timeout ${seconds} s (${tried}; the last: ${last}); the API or the network is slow: raise --timeout, or try again later`;
  }

  private async backoff(method: string, path: string, status: number | undefined, waitMs: number): Promise<void> {
    this.stats.retries += 1;
    this.emit({ type: 'retry', method, path, status, waitMs });
    await this.clock.sleep(waitMs);
  }

  /** The error that ends a run on a rate-limit wait longer than `maxWaitMs`. */
  private stopFor(wait: RateLimitWait, request: RequestInfo): RateLimitStop {
    const when = new Date(wait.until).toISOString().replace(/\.\d+Z$/, 'Z');
    const inWait = formatWait(wait.until - this.clock.now());
    const limit = `longer than --max-wait ${Math.round(this.maxWaitMs / 1000)} s`;
    const budget = wait.budget;
    const message = wait.reason === 'hourly' && budget
      ? `this run has sent as many requests to ${budget.name} as the API allows them in an hour (${budget.perHour}): it may send again at ${when} (in ${inWait}), ${limit}`
      : wait.reason === 'hourly'
      ? `this run has sent as many requests as --max-hourly allows in an hour: it may send again at ${when} (in ${inWait}), ${limit}`
      : `the API's rate limit${budget ? ` for ${budget.name}` : ''} is spent: the API expects to be available again at ${when} (in ${inWait}), ${limit}`;
    return new RateLimitStop(redact(message, this.apiKey), wait.until, { ...request, path: redact(request.path, this.apiKey) }, budget?.name);
  }

  private emit(e: ClientEvent): void {
    if (e.status === undefined) delete e.status;
    this.onEvent(e);
  }

  private fail(code: ErrorCode, message: string, request: RequestInfo, unreachable = false, host?: string): HogsyncError {
    return new HogsyncError(code, redact(message, this.apiKey), { request: { ...request, path: redact(request.path, this.apiKey) }, unreachable, ...(host === undefined ? {} : { host }) });
  }

  private scrubbed(err: unknown, request?: RequestInfo): unknown {
    if (!(err instanceof HogsyncError)) return err;
    const where = request ?? err.request;
    return where === undefined
      ? new HogsyncError(err.code, redact(err.message, this.apiKey))
      : this.fail(err.code, err.message, where, err.unreachable);
  }
}

/** `--timeout`'s default: the longest one request may take, its retries included. */
export const DEFAULT_TOTAL_TIMEOUT_MS = 120_000;

export function createClient(options: ClientOptions): ApiClient {
  return new ApiClient(options);
}

/**
 * The clock from the options. A `sleep` injected without `now` (a test that only records
 * waits) gets a clock that moves on by what was slept, else a rate-limit pause would never
 * end in its eyes.
 */
function clockFrom(options: ClientOptions): Clock {
  const { now, sleep } = options;
  if (sleep === undefined) return { now: now ?? systemClock.now, sleep: systemClock.sleep };
  if (now !== undefined) return { now, sleep };
  let slept = 0;
  return {
    now: () => Date.now() + slept,
    sleep: async (ms) => {
      slept += Math.max(0, ms);
      await sleep(ms);
    },
  };
}

/** "42 s", "7 min", "1 h 5 min". */
export function formatWait(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  if (s < 120) return `${s} s`;
  const min = Math.ceil(s / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

function gaveUp(attempts: number): string {
  return attempts > 1 ? ` (gave up after ${attempts} attempts)` : '';
}

/** Personal API keys are about 50 characters; servers refuse headers of a few kilobytes. */
const MAX_KEY_LENGTH = 1000;

function checkApiKey(raw: string | undefined): string {
  const key = (raw ?? '').trim();
  if (key === '') throw new HogsyncError('usage', 'no API key: set HOGSYNC_API_KEY to a personal API key (phx_…)');
  // No server takes a header this long (it answers 431): say what is wrong before sending it.
  if (key.length > MAX_KEY_LENGTH) {
    throw new HogsyncError('usage', `HOGSYNC_API_KEY holds ${key.length} characters, but a personal API key is about 50 (phx_…): check what the variable is set to`);
  }
  // Anything outside visible ASCII cannot go in a header, and undici's complaint could echo it.
  if (!/^[\x21-\x7e]+$/.test(key)) throw new HogsyncError('usage', 'HOGSYNC_API_KEY contains spaces or characters that cannot be sent in a header');
  return key;
}

function positive(name: string, value: number, integer: boolean): number {
  const ok = value > 0 && (integer ? Number.isInteger(value) : !Number.isNaN(value));
  if (!ok) throw new HogsyncError('usage', `${name} must be a positive ${integer ? 'whole ' : ''}number (got ${value})`);
  return value;
}
