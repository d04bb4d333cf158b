// The client over real sockets (a node:http server on loopback, the default keep-alive
// agent): what undici really raises for a reset, a silent server and a closed port is
// classified as the retry policy expects.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent as UndiciAgent, util as undiciUtil } from 'undici';
import { Agent, parseHeaders } from '../src/http/agent.js';
import { ApiClient } from '../src/http/client.js';
import { TransportFailure, exchange } from '../src/http/transport.js';
import { VERSION } from '../src/version.js';
import { KEY, rejection } from './support/mock-api.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;
const servers: Server[] = [];
const clients: ApiClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => { s.closeAllConnections(); s.close(resolve); })));
});

async function serve(handler: Handler): Promise<string> {
  let n = 0;
  const server = createServer((req, res) => {
    n += 1;
    handler(req, res, n);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function client(baseUrl: string, options: { timeoutMs?: number; maxRetries?: number } = {}): ApiClient {
  const c = new ApiClient({ baseUrl, apiKey: KEY, sleep: async () => undefined, ...options });
  clients.push(c);
  return c;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

describe('API client over loopback', () => {
  it('talks JSON with the expected headers through the default agent', async () => {
    const seen: IncomingMessage['headers'][] = [];
    const base = await serve((req, res) => {
      seen.push(req.headers);
      let body = '';
      req.on('data', (c: Buffer) => { body += c.toString(); }).on('end', () => json(res, 200, { echo: body === '' ? null : JSON.parse(body) }));
    });
    const c = client(base);
    expect((await c.request('PATCH', '/api/x/', { body: { a: 1 } })).body).toEqual({ echo: { a: 1 } });
    expect((await c.request('GET', '/api/x/')).body).toEqual({ echo: null });
    expect(seen[0]?.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0]?.['user-agent']).toBe(`hogsync/${VERSION}`);
    expect(seen[0]?.['content-type']).toBe('application/json');
    expect(seen[1]?.['content-type']).toBeUndefined();
  });

  it('retries a GET whose connection the server dropped, but not a POST', async () => {
    const base = await serve((req, res, n) => {
      if (n % 2 === 1) req.socket.destroy();
      else json(res, 200, { n });
    });
    const c = client(base);
    expect((await c.request('GET', '/api/x/')).body).toEqual({ n: 2 });
    const err = await rejection(c.request('POST', '/api/x/', { body: {} }));
    expect(err.code).toBe('network');
    expect(err.message).toMatch(/^connection closed by the server \(UND_ERR_SOCKET\) at 127\.0\.0\.1:\d+; not retried: POST is not idempotent/);
  });

  it('times out a server that never answers, retrying only idempotent methods', async () => {
    const base = await serve(() => undefined);
    const c = client(base, { timeoutMs: 100, maxRetries: 1 });
    const get = await rejection(c.request('GET', '/api/slow/'));
    const at = new URL(base).host;
    expect(get.format()).toBe(`GET /api/slow/: no complete answer within 100 ms at ${at} (gave up after 2 attempts)`);
    const post = await rejection(c.request('POST', '/api/slow/', { body: {} }));
    expect(post.message).toBe(`no complete answer within 100 ms at ${at}; not retried: POST is not idempotent; the change may or may not have been applied`);
    expect(c.stats.requests).toBe(3);
  });

  it('a request whose time runs out while it waits for a connection fails then, and is never sent', async () => {
    const paths: string[] = [];
    const base = await serve((req) => { paths.push(req.url ?? ''); });
    const dispatcher = new Agent({ connections: 1 });
    try {
      const at = (path: string, timeoutMs: number) => exchange({ dispatcher, url: new URL(path, base), method: 'GET', headers: {}, timeoutMs });
      const first = at('/api/first/', 1000);
      const started = Date.now();
      const second = await at('/api/second/', 50).then(() => undefined, (err: unknown) => err);
      expect(second).toBeInstanceOf(TransportFailure);
      expect((second as TransportFailure).kind).toBe('timeout');
      // Failed at its own time, not when the first request let the connection go.
      expect(Date.now() - started).toBeLessThan(700);
      await first.then(() => undefined, () => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(paths).toEqual(['/api/first/']);
    } finally {
      await dispatcher.close();
    }
  });

  it('retries a refused connection, then names it', async () => {
    const base = await serve(() => undefined);
    const port = new URL(base).port;
    await new Promise((resolve) => servers.splice(0)[0]?.close(resolve));
    const c = client(`http://127.0.0.1:${port}`, { maxRetries: 2 });
    const err = await rejection(c.request('GET', '/api/x/'));
    expect(err.message).toBe(`connection refused (ECONNREFUSED) at 127.0.0.1:${port} (gave up after 3 attempts)`);
  });

  it("pools connections with undici's own Agent, loaded without the rest of undici", async () => {
    // The client loads the pool's module by its path inside undici: an undici that moves or
    // replaces it must fail here, not in a user's run.
    expect(Agent).toBe(UndiciAgent);
    expect(parseHeaders).toBe(undiciUtil.parseHeaders);
    // In a process that never loads undici's index (this one has: the test imports it), the
    // pool still makes requests, and the index stays unloaded.
    const base = await serve((_req, res) => { res.setHeader('content-type', 'application/json'); res.end('{"ok":true}'); });
    const script = `
      const { createRequire } = await import('node:module');
      const { ApiClient } = await import(${JSON.stringify(pathToFileURL(resolve('dist/http/client.js')).href)});
      const c = new ApiClient({ baseUrl: ${JSON.stringify(base)}, apiKey: 'phx_${'k'.repeat(40)}' });
      const body = await c.request('GET', '/api/x/');
      await c.close();
      const index = createRequire(import.meta.url).resolve('undici');
      const loaded = Object.keys(createRequire(import.meta.url).cache).includes(index);
      console.log(JSON.stringify({ body, loaded }));`;
    const out = await new Promise<string>((done, fail) => execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: resolve('.') }, (err, stdout, stderr) => (err ? fail(new Error(stderr)) : done(stdout))));
    const { body, loaded } = JSON.parse(out) as { body: { status: number; body: unknown }; loaded: boolean };
    expect(body.body).toEqual({ ok: true });
    expect(loaded).toBe(false);
  });

  it('leaves V8\'s flags as they were until it makes its pool, so the loader\'s code caches stay valid', async () => {
    // A plan loads the client's modules, then the configuration loader's vendor files with the
    // V8 code cache the build recorded (refused under other flags), then makes its pool.
    const vendor = resolve('dist/vendor/schema-validator.cjs');
    const script = `
      const { readFileSync } = await import('node:fs');
      const { Script } = await import('node:vm');
      const wrap = (source) => '(function (exports, require, module, __filename, __dirname) {' + source + '\\n})';
      const cached = () => new Script(wrap(readFileSync(${JSON.stringify(vendor)}, 'utf8')), { filename: ${JSON.stringify(vendor)}, cachedData: readFileSync(${JSON.stringify(`${vendor}.cache`)}) }).cachedDataRejected;
      const { ApiClient } = await import(${JSON.stringify(pathToFileURL(resolve('dist/http/client.js')).href)});
      const afterLoad = cached();
      const c = new ApiClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'phx_${'k'.repeat(40)}' });
      await c.close();
      console.log(JSON.stringify({ afterLoad }));`;
    const out = await new Promise<string>((done, fail) => execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: resolve('.') }, (err, stdout, stderr) => (err ? fail(new Error(stderr)) : done(stdout))));
    expect(JSON.parse(out)).toEqual({ afterLoad: false });
  });
});
