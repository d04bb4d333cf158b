// undici's index loads all of undici (fetch, WebSocket, cookies, caches, mocks): about 60 ms of
// CPU in every run that talks to the API, for a connection pool. hogsync uses only the pool, so
// it loads only the pool's module (the same class the index exports; a test holds them equal,
// so an undici that moves the file fails the tests, not a user's run).
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent } from 'undici';

const require = createRequire(import.meta.url);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
