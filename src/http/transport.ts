// One HTTP exchange over undici, bounded by a timeout that covers the headers and the whole
// body. It answers with the status, the headers and the body (a success's as its bytes, any
// other's as text), or throws a TransportFailure that says whether the request can have
// reached the server (which decides if it may be replayed).
import type { Dispatcher } from 'undici';
import { parseHeaders } from './agent.js';
import type { Body } from './api-error.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /**
   * A success's body, as it came: the client parses it (./json-bytes.ts) once the exchange has
   * let its connection go to the next request, a few turns of the event loop later at most
   * (../util/turns.ts), so the bytes are still let go young.
   */
  bytes?: Body;
  /** Any other answer's body, decoded (for messages; empty for a parsed success). */
  text: string;
}

/**
 * - `unsent`: the connection could not be made; the server never saw the request.
 * - `unresolved`: the host name does not exist (DNS answered so): asking again cannot help.
 * - `interrupted`: the connection broke after the request may have been sent.
 * - `timeout`: no complete answer in time; the server may still be working on it.
 * - `fatal`: retrying cannot help (TLS certificate, invalid request, client closed).
 */
export type FailureKind = 'unsent' | 'unresolved' | 'interrupted' | 'timeout' | 'fatal';

export class TransportFailure extends Error {
  constructor(readonly kind: FailureKind, readonly detail: string) {
    super(detail);
    this.name = 'TransportFailure';
  }
}

export interface Exchange {
  dispatcher: Dispatcher;
  url: URL;
  method: HttpMethod;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** No answer of this API comes near this size; a bigger one is hostile or broken. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * The exchange as undici's dispatcher drives it: headers, then the body's chunks, then the end
 * or an error. Handled here rather than through undici's request(), which wraps every answer in
 * a stream, an async resource and a promise for hundreds of pages a plan reads, to be read back
 * chunk by chunk into the same array this fills.
 */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  private abort: ((reason: Error) => void) | undefined;
  private settled = false;
  /** Why it failed, when it did: also the reason given to undici for an exchange failed before it had a connection. */
  private failure: TransportFailure | undefined;
  private status = 0;
  private headers: Record<string, string> = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(timeoutMs: number, private readonly resolve: (r: RawResponse) => void, private readonly reject: (e: TransportFailure) => void) {
    this.timer = setTimeout(() => this.fail(new TransportFailure('timeout', `no complete answer within ${timeoutMs} ms`)), timeoutMs);
  }

  /** Settles with a failure and stops the exchange (at once, or when it gets its connection). */
  private fail(failure: TransportFailure): void {
    if (this.settled) return;
    this.settled = true;
    this.failure = failure;
    clearTimeout(this.timer);
    this.reject(failure);
    this.abort?.(failure);
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (this.failure) abort(this.failure);
    else this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // Informational answers (1xx) come before the answer itself.
    if (statusCode < 200) return true;
    this.status = statusCode;
    this.headers = flattenHeaders(parseHeaders(rawHeaders) as Record<string, string | string[] | undefined>);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return false;
    this.size += chunk.length;
    if (this.size > MAX_BODY_BYTES) {
      this.fail(new TransportFailure('fatal', `the answer is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB`));
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    const { status, headers, chunks, size } = this;
    this.resolve(status >= 200 && status < 300
      ? { status, headers, bytes: { chunks, size }, text: '' }
      : { status, headers, text: Buffer.concat(chunks, size).toString('utf8') });
  }

  onError(err: Error): void {
    this.fail(err instanceof TransportFailure ? err : classify(err));
  }
}

export function exchange(x: Exchange): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const handler = new ExchangeHandler(x.timeoutMs, resolve, reject);
    x.dispatcher.dispatch({ origin: x.url.origin, path: x.url.pathname + x.url.search, method: x.method, headers: x.headers, body: x.body }, handler);
  });
}

const UNSENT = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);
const INTERRUPTED = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const TIMEOUT = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

const DESCRIPTION: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
};

/** Sort an undici / Node error into a FailureKind. */
export function classify(err: unknown): TransportFailure {
  const code = errorCode(err);
  const what = code === undefined ? 'network error' : `${DESCRIPTION[code] ?? 'network error'} (${code})`;
  if (code === 'ENOTFOUND') return new TransportFailure('unresolved', what);
  if (code !== undefined && UNSENT.has(code)) return new TransportFailure('unsent', what);
  if (code !== undefined && INTERRUPTED.has(code)) return new TransportFailure('interrupted', what);
  if (code !== undefined && TIMEOUT.has(code)) return new TransportFailure('timeout', `no complete answer in time (${code})`);
  if (code !== undefined && /CERT|TLS|SSL/.test(code)) return new TransportFailure('fatal', `TLS failure (${code})`);
  // Unknown failures are not retried; their own message helps more than a guess (the client
  // redacts it, and undici's messages do not echo request headers anyway).
  const message = err instanceof Error ? err.message.replace(/\s+/g, ' ').slice(0, 200) : '';
  return new TransportFailure('fatal', message === '' ? what : `${what}: ${message}`);
}

function errorCode(err: unknown): string | undefined {
  // undici sometimes wraps the system error (fetch-style `cause`); look one level down.
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_ABORTED') return code;
  }
  return undefined;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
