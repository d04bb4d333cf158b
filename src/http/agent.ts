// undici's index loads all of undici (fetch, WebSocket, cookies, caches, mocks): about 60 ms of
// CPU in every run that talks to the API, for a connection pool. hogsync uses only the pool,
// through its dispatch() (./transport.ts), and undici's header parser, so it loads those files
// alone. A test holds the pool equal to the index's Agent and runs a request in a process that
// never loads the index, so an undici that moves either file fails the tests, not a user's run.
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type { Agent as UndiciAgent, util as UndiciUtil } from 'undici';

const require = createRequire(import.meta.url);

// undici parses HTTP with llhttp compiled to WebAssembly, at the first connection. Node 20's V8
// compiles it twice: at once with its baseline compiler, then again with its optimising one on a
// background thread, whatever the process will parse. That second compile is 200-300 ms of CPU
// in every run that makes a request, more than a small plan's own work, and buys nothing here:
// llhttp reads headers byte by byte but hands a body over in one span, so a plan's 26 MB of
// answers cost it next to nothing either way. Wasm flags are read when a module is compiled, so
// setting this one before the first connection is enough; hogsync compiles no other wasm.
// Measured by `npm run bench` (plan_cpu); every test that makes a request runs under it.
// It is set when the first pool is made, not when this module loads: V8 refuses a code cache
// recorded under other flags, and the configuration loader's files (dist/vendor/, each with the
// cache the build recorded) load after this module and before the first connection. Set at load,
// every plan compiled them cold.
let baselineWasm = false;

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;

/** Raw header lines as an object of lower-case names, as undici's request() gives them. */
export const parseHeaders = (require('undici/lib/core/util.js') as typeof UndiciUtil).parseHeaders;

/** The client's connection pool; the first one sets V8 to compile llhttp once (see above). */
export function createAgent(options: ConstructorParameters<typeof UndiciAgent>[0]): UndiciAgent {
  if (!baselineWasm) {
    setFlagsFromString('--liftoff-only');
    baselineWasm = true;
  }
  return new Agent(options);
}
