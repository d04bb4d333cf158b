// Routes of the sandbox as data: a path pattern, and per method the scope it needs and its
// handler. The router matches paths with or without their trailing slash, and applies the
// checks every route shares in Django REST framework's order: unknown path 404, no valid key
// 401, a method the path does not serve 405, missing scope 403; only then is the body parsed
// (so a malformed body from an unauthorized caller is still a 401).
import { actorOf, loggedWrite } from './activity.js';
import { authenticate, requireScope } from './auth.js';
import { methodNotAllowed, notFound, permissionDenied } from './errors.js';
import type { Json, JsonObject } from './json.js';
import type { SandboxStore } from './store.js';
import type { ApiKeyState, Scope } from './state.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RequestContext {
  method: string;
  /** Absolute URL of the request, built from its Host header (pagination links use it). */
  url: URL;
  params: Record<string, string>;
  body: JsonObject;
  key: ApiKeyState;
  /** The store; its writes are logged in the activity log as the key's user (activity.ts). */
  store: Pick<SandboxStore, 'read' | 'write' | 'clock' | 'deletionDelayMs'>;
}

export interface Reply { status: number; body?: Json }
export type Handler = (ctx: RequestContext) => Promise<Reply>;

/** A route no personal API key may call, whatever its scopes (the real API's actions without a scope). */
export const NO_PERSONAL_KEYS = 'no personal API key';

/** A route any personal API key may call, whatever its scopes (a key reading itself). */
export const ANY_KEY = 'any key';

export interface Route {
  /** e.g. "/api/organizations/:org/roles/:id/"; also the key of the route in stats. */
  pattern: string;
  methods: Partial<Record<Method, { scope: Scope | typeof NO_PERSONAL_KEYS | typeof ANY_KEY; handler: Handler }>>;
}

export interface Match { route: Route; params: Record<string, string> }

function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/** The first route whose pattern matches the path; routes with literal segments must come first. */
export function matchRoute(routes: readonly Route[], pathname: string): Match | undefined {
  const parts = segments(pathname);
  for (const route of routes) {
    const pattern = segments(route.pattern);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (const [i, seg] of pattern.entries()) {
      const part = parts[i] as string;
      if (seg.startsWith(':')) {
        try {
          params[seg.slice(1)] = decodeURIComponent(part);
        } catch {
          ok = false;
        }
      } else if (seg !== part) {
        ok = false;
      }
      if (!ok) break;
    }
    if (ok) return { route, params };
  }
  return undefined;
}

export interface Incoming {
  method: string;
  url: URL;
  authorization: string | undefined;
  /** Parses the body; called only once the caller is known to be allowed (DRF parses lazily too). */
  body: () => JsonObject;
  store: SandboxStore;
  /** A web UI session (POST /_sandbox/web-edit/): no key needed, every permission, and the date its writes are logged at. */
  session?: { key: ApiKeyState; at?: string };
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT']);

/** Runs the matched route: authentication, method, scope, body, then its handler. */
export async function dispatch(match: Match | undefined, req: Incoming): Promise<Reply> {
  if (!match) throw notFound();
  const key = req.session?.key ?? await req.store.read((state) => authenticate(state, req.authorization));
  const entry = match.route.methods[req.method as Method];
  if (!entry) throw methodNotAllowed(req.method, Object.keys(match.route.methods));
  if (!req.session) {
    if (entry.scope === NO_PERSONAL_KEYS) throw permissionDenied('This action does not support Personal API Key access');
    if (entry.scope !== ANY_KEY) requireScope(key, entry.scope);
  }
  const body = WRITE_METHODS.has(req.method) ? req.body() : {};
  // Entries are dated by the sandbox's clock (tests move it), or as the web-edit asks.
  const actor = { ...actorOf(key), at: req.session?.at ?? new Date(req.store.clock.now()).toISOString() };
  const store: RequestContext['store'] = {
    read: (fn) => req.store.read(fn),
    write: (fn) => req.store.write((state) => loggedWrite(state, actor, match.params, fn)),
    clock: req.store.clock,
    deletionDelayMs: req.store.deletionDelayMs,
  };
  return entry.handler({ method: req.method, url: req.url, params: match.params, body, key, store });
}
