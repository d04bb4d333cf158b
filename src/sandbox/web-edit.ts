// POST /_sandbox/web-edit/: an edit "from the web UI" by one of the sandbox's users, so demos
// and tests can show drift made by someone else and attributed to them. The body names the
// user by email and the API call to make as them:
//   {"user": "bob@example.com", "method": "PATCH", "path": "/api/projects/12345/feature_flags/7/",
//    "body": {"active": false}, "at": "2026-11-21T14:03:00Z"}
// It runs through the same routes as the API (validation, answers, activity log), with the
// user's session instead of a key: every permission, no rate limit, no faults, not counted in
// stats. `at` (optional, ISO 8601) dates the activity log entry, for reproducible examples;
// the entry keeps its place in the log (the newest, when made last) whatever its date.
import { validationError } from './errors.js';
import { isObject, type JsonObject } from './json.js';
import { dispatch, matchRoute, type Reply, type Route } from './router.js';
import type { SandboxStore } from './store.js';

export const WEB_EDIT_PATH = '/_sandbox/web-edit/';

const METHODS = ['POST', 'PATCH', 'PUT', 'DELETE'];

export async function webEdit(body: JsonObject, base: URL, store: SandboxStore, routes: readonly Route[]): Promise<Reply> {
  const { user, method, path, at } = body;
  if (typeof user !== 'string') throw validationError('user', 'The email of a sandbox user is required.', 'required');
  if (typeof method !== 'string' || !METHODS.includes(method.toUpperCase())) throw validationError('method', `method must be one of ${METHODS.join(', ')}.`, 'invalid');
  if (typeof path !== 'string' || !path.startsWith('/api/')) throw validationError('path', 'path must be an API path, starting with /api/.', 'invalid');
  if (body.body !== undefined && !isObject(body.body)) throw validationError('body', 'body must be an object.', 'invalid');
  if (at !== undefined && (typeof at !== 'string' || Number.isNaN(Date.parse(at)))) throw validationError('at', 'at must be an ISO 8601 date and time.', 'invalid');
  const found = await store.read((state) => [state.user, ...state.users].find((u) => u.email.toLowerCase() === user.toLowerCase()));
  if (!found) throw validationError('user', `No sandbox user has the email ${user}.`, 'invalid');
  const url = new URL(path, base);
  const requestBody = (body.body ?? {}) as JsonObject;
  return dispatch(matchRoute(routes, url.pathname), {
    method: method.toUpperCase(), url, authorization: undefined, store, body: () => requestBody,
    session: {
      key: { key: '', label: `web UI session of ${found.email}`, scopes: ['*'], organizations: null, user: found.id },
      ...(typeof at === 'string' ? { at: new Date(at).toISOString() } : {}),
    },
  });
}
