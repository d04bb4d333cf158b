// undici's index loads all of undici (fetch, WebSocket, cookies, caches, mocks): about 60 ms of
// CPU in every run that talks to the API, for a connection pool. hogsync uses only the pool and
// its request(), so it loads those two the way the index puts them together (the index adds the
// request API to every dispatcher's prototype). A test holds the pool equal to the index's Agent
// and runs a request in a process that never loads the index, so an undici that moves either
// file fails the tests, not a user's run.
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher as UndiciDispatcher } from 'undici';

const require = createRequire(import.meta.url);

const Dispatcher = require('undici/lib/dispatcher/dispatcher.js') as typeof UndiciDispatcher;
if (typeof Dispatcher.prototype.request !== 'function') Object.assign(Dispatcher.prototype, require('undici/lib/api/index.js'));

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
