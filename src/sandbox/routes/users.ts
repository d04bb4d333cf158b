// The key's own user, as the real API answers it (posthog/api/user.py, UserViewSet with
// `@me`; scope user:read): hogsync reads it to know whom never to change or remove. And the key
// itself (posthog/api/personal_api_key.py, `GET /api/personal_api_keys/@current/`, which a key
// may retrieve whatever its scopes): hogsync reads its scopes to name every one a run lacks at once.
import { createHash } from 'node:crypto';
import { clone, type JsonObject } from '../json.js';
import { ANY_KEY, type Handler, type Route } from '../router.js';

const me: Handler = (ctx) => ctx.store.read((state) => {
  const user = [state.user, ...state.users].find((u) => u.id === ctx.key.user) ?? state.user;
  return { status: 200, body: clone(user) as JsonObject };
});

/** The key as PersonalAPIKeySerializer answers it: never its value; no scopes stored reads as `["*"]`. */
const currentKey: Handler = async (ctx) => {
  const key = ctx.key;
  const id = createHash('sha256').update(key.key).digest('hex').slice(0, 32);
  return {
    status: 200,
    body: {
      id, label: key.label, value: null, mask_value: `${key.key.slice(0, 4)}...${key.key.slice(-4)}`, created_at: null, last_used_at: null,
      user_id: key.user, scopes: key.scopes.length > 0 ? [...key.scopes] : ['*'],
      scoped_teams: key.projects ? [...key.projects] : [], scoped_organizations: key.organizations ? [...key.organizations] : [], last_rolled_at: null,
    },
  };
};

export const userRoutes: readonly Route[] = [
  { pattern: '/api/personal_api_keys/@current/', methods: { GET: { scope: ANY_KEY, handler: currentKey } } },
  { pattern: '/api/users/@me/', methods: { GET: { scope: 'user:read', handler: me } } },
];
