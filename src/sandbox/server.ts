// The sandbox server: a local, stateful emulator of the API on loopback. startSandbox() picks
// the initial state (state file, else seed, else the default workspace), listens, and runs
// each request through stats, latency, rate limit and faults (all before any state change),
// then the router.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultState } from './defaults.js';
import { ApiError, serverError, throttled } from './errors.js';
import { FAULT_BODIES, FaultInjector, INSIGHT_PATHS, INSIGHT_RATE_LIMIT } from './faults.js';
import { encodeJson, parseJsonObject, readBody, sendEncoded, sendJson } from './http.js';
import { handleInternal, INTERNAL_PREFIX } from './internal.js';
import { ACCEPT_INVITE_PATH, acceptInvite } from './invites.js';
import type { JsonObject } from './json.js';
import { dispatch, matchRoute, type Reply } from './router.js';
import { loadSandboxModels } from './models.js';
import { sandboxRoutes } from './routes/index.js';
import { loadSeedFile, stateFromSeed, type SeedDocument } from './seed.js';
import type { SandboxState } from './state.js';
import { countRequest, emptyStats, type Stats } from './stats.js';
import { loadStateFile, SandboxStore } from './store.js';
import { WEB_EDIT_PATH, webEdit } from './web-edit.js';

export interface SandboxOptions {
  /** 0 (the default) takes any free port. */
  port?: number;
  /** A loopback address only: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
  /** Keep state in this file: loaded at start when it exists, written atomically after every write. */
  statePath?: string;
  /** Initial workspace when there is no state file yet: a parsed seed document or the path of a YAML/JSON file. */
  seed?: SeedDocument | string;
  latencyMs?: number;
  faultRate?: number;
  /** Requests per sliding minute (per key) before answering 429; 0 or absent = unlimited. */
  rateLimitPerMinute?: number;
  /** Requests per sliding hour (per key) before answering 429; 0 or absent = unlimited. */
  rateLimitPerHour?: number;
  /**
   * Requests per sliding minute (per key) to the insight endpoints, on top of the general limit;
   * absent: the real API's 240 when a general limit is on, else unlimited; 0 = unlimited.
   */
  insightRateLimitPerMinute?: number;
  /** The same per sliding hour: absent, the real API's 1200 when a general limit is on. */
  insightRateLimitPerHour?: number;
  /** How long an asynchronous deletion takes (provisioned proxy records, projects), in seconds; 0 (default) = at once. */
  deletionDelaySeconds?: number;
  /** Source of randomness for faults (tests pass a scripted one). */
  random?: () => number;
  /** Receives one line per request (the CLI passes one under --verbose). */
  log?: (line: string) => void;
}

export interface SandboxHandle {
  baseUrl: string;
  /** A key with every scope in every organization. */
  apiKey: string;
  server: http.Server;
  store: SandboxStore;
  /** Live counters (also at GET /_sandbox/stats). */
  stats: Stats;
  /** Where the initial state came from. */
  origin: 'state' | 'seed' | 'default';
  stop(): Promise<void>;
}

/** Refused with a clear message: the sandbox has no authentication worth exposing to a network. */
export class SandboxStartError extends Error {}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h);
}

async function initialState(opts: SandboxOptions): Promise<{ state: SandboxState; origin: SandboxHandle['origin'] }> {
  if (opts.statePath) {
    const loaded = await loadStateFile(opts.statePath);
    if (loaded) return { state: loaded, origin: 'state' };
  }
  if (opts.seed !== undefined) {
    const doc: unknown = typeof opts.seed === 'string' ? await loadSeedFile(opts.seed) : opts.seed;
    return { state: stateFromSeed(doc, typeof opts.seed === 'string' ? opts.seed : '(document)'), origin: 'seed' };
  }
  return { state: defaultState(), origin: 'default' };
}

function checkNumber(name: string, value: number | undefined, min: number, max: number): number {
  const v = value ?? 0;
  if (!Number.isFinite(v) || v < min || v > max) throw new SandboxStartError(`${name} must be a number between ${min} and ${max}`);
  return v;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<SandboxHandle> {
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) {
    throw new SandboxStartError(`--host ${host} is not a loopback address: the sandbox only listens on 127.0.0.1, ::1 or localhost`);
  }
  const listenHost = host.toLowerCase() === 'localhost' ? '127.0.0.1' : host.replace(/^\[|\]$/g, '');
  const port = checkNumber('port', opts.port, 0, 65535);
  const rateLimitPerMinute = checkNumber('rate limit', opts.rateLimitPerMinute, 0, Number.MAX_SAFE_INTEGER);
  const rateLimitPerHour = checkNumber('hourly rate limit', opts.rateLimitPerHour, 0, Number.MAX_SAFE_INTEGER);
  // The insight endpoints' own throttles come with rate limiting, as on the real API, unless set.
  const limited = rateLimitPerMinute > 0 || rateLimitPerHour > 0;
  const insightLimit = {
    pattern: INSIGHT_PATHS,
    perMinute: checkNumber('insight rate limit', opts.insightRateLimitPerMinute ?? (limited ? INSIGHT_RATE_LIMIT.perMinute : 0), 0, Number.MAX_SAFE_INTEGER),
    perHour: checkNumber('hourly insight rate limit', opts.insightRateLimitPerHour ?? (limited ? INSIGHT_RATE_LIMIT.perHour : 0), 0, Number.MAX_SAFE_INTEGER),
  };
  const faults = new FaultInjector({
    latencyMs: checkNumber('latency', opts.latencyMs, 0, 600_000),
    faultRate: checkNumber('fault rate', opts.faultRate, 0, 1),
    rateLimitPerMinute,
    rateLimitPerHour,
    endpointLimits: [insightLimit],
    random: opts.random ?? Math.random,
  });
  const deletionDelayMs = checkNumber('deletion delay', opts.deletionDelaySeconds, 0, 86_400) * 1000;

  const models = await loadSandboxModels();
  const routes = sandboxRoutes(models);
  const jobs = new Map(models.flatMap((m) => Object.entries(m.internal ?? {})));
  const { state, origin } = await initialState(opts);
  const store = new SandboxStore(state, opts.statePath);
  store.deletionDelayMs = deletionDelayMs;
  store.maintain = (s, now) => {
    for (const model of models) model.maintain?.(s, now);
  };
  // A state file exists from the first moment on, so a restart finds the same keys and ids.
  if (opts.statePath) {
    try {
      await store.save();
    } catch (err) {
      throw new SandboxStartError(`cannot write the state file ${opts.statePath}: ${(err as Error).message}`);
    }
  }
  const stats = emptyStats();
  /** Set once listening; the origin used when a request carries no Host header. */
  let baseUrl = '';

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      process.stderr.write(`hogsync sandbox: ${(err as Error).stack ?? String(err)}\n`);
      if (!res.headersSent) sendJson(res, 500, serverError().body);
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const started = Date.now();
    const method = (req.method ?? 'GET').toUpperCase();
    let url: URL;
    try {
      url = new URL(req.url ?? '/', req.headers.host ? `http://${req.headers.host}` : baseUrl);
    } catch {
      url = new URL(req.url ?? '/', baseUrl);
    }
    // Sandbox-only endpoints that act as a user of the web app (no key): they take a JSON body.
    const asUser = method === 'POST' ? ({
      [WEB_EDIT_PATH]: (body: JsonObject) => webEdit(body, url, store, routes),
      [ACCEPT_INVITE_PATH]: (body: JsonObject) => acceptInvite(body, store),
    } as Record<string, (body: JsonObject) => Promise<Reply>>)[url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`] : undefined;
    if (asUser) {
      try {
        const reply = await asUser(parseJsonObject(await readBody(req), req.headers['content-type']));
        sendJson(res, reply.status, reply.body);
      } catch (err) {
        const e = err instanceof ApiError ? err : serverError();
        sendJson(res, e.status, e.body, e.headers);
      }
      return;
    }
    if (url.pathname.startsWith(INTERNAL_PREFIX) || url.pathname === INTERNAL_PREFIX.slice(0, -1)) {
      req.resume();
      // A kind's background job, run on demand (the API's rewrite of stored queries).
      const job = method === 'POST' ? jobs.get(url.pathname.slice(INTERNAL_PREFIX.length).replace(/\/$/, '')) : undefined;
      if (job) {
        sendJson(res, 200, await store.write((state) => job(state, url.searchParams)));
        return;
      }
      handleInternal(method, url, stats, store.clock, res);
      return;
    }
    const match = matchRoute(routes, url.pathname);
    countRequest(stats, `${method} ${match ? match.route.pattern : '(unknown route)'}`);
    let outcome = '';
    // --latency runs from the request's arrival. A read's answer is made while it runs, as a
    // server answering reads on many workers at once would: made after it, on the sandbox's one
    // thread, each read would also wait for the replies of the reads that arrived with it. A
    // write waits first, so a request given up on within the latency has changed nothing.
    // Read from the start: once another listener has the body flowing, a later one misses it.
    const body = readBody(req);
    body.catch(() => undefined);
    let latency: Promise<void> | undefined = faults.delay();
    if (method !== 'GET') {
      await latency;
      latency = undefined;
    }
    try {
      const raw = await body;
      const wait = faults.throttle(store.clock.now(), req.headers.authorization ?? '', url.pathname);
      if (wait !== undefined) {
        stats.throttled++;
        throw throttled(wait);
      }
      // Faults strike before the route runs, so a faulted request never changes anything.
      const fault = faults.draw();
      if (fault) {
        stats.faults++;
        await latency;
        if (fault.kind === 'drop') {
          outcome = 'dropped (injected)';
          req.socket.destroy();
          return;
        }
        outcome = `${fault.status} (injected)`;
        sendJson(res, fault.status, FAULT_BODIES[fault.status]);
        return;
      }
      const reply = await dispatch(match, {
        method, url, authorization: req.headers.authorization, store,
        body: () => parseJsonObject(raw, req.headers['content-type']),
      });
      const encoded = encodeJson(reply.status, reply.body);
      await latency;
      sendEncoded(res, encoded);
      outcome = String(reply.status);
    } catch (err) {
      const e = err instanceof ApiError ? err : serverError();
      if (!(err instanceof ApiError)) process.stderr.write(`hogsync sandbox: ${method} ${url.pathname}: ${(err as Error).stack ?? String(err)}\n`);
      await latency;
      sendJson(res, e.status, e.wire, e.headers);
      outcome = String(e.status);
    } finally {
      opts.log?.(`${method} ${url.pathname}${url.search} → ${outcome || res.statusCode} ${Date.now() - started}ms`);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, listenHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const info = server.address() as AddressInfo;
  baseUrl = info.family === 'IPv6' ? `http://[${info.address}]:${info.port}` : `http://${info.address}:${info.port}`;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await store.flush();
    })();
    return stopping;
  };

  return { baseUrl, apiKey: state.primary_key, server, store, stats, origin, stop };
}
