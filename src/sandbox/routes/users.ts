// The key's own user, as the real API answers it (posthog/api/user.py, UserViewSet with
// `@me`; scope user:read): hogsync reads it to know whom never to change or remove.
import { clone, type JsonObject } from '../json.js';
import type { Handler, Route } from '../router.js';

const me: Handler = (ctx) => ctx.store.read((state) => {
  const user = [state.user, ...state.users].find((u) => u.id === ctx.key.user) ?? state.user;
  return { status: 200, body: clone(user) as JsonObject };
});

export const userRoutes: readonly Route[] = [
  { pattern: '/api/users/@me/', methods: { GET: { scope: 'user:read', handler: me } } },
];
