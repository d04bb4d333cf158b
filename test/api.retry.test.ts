// Retries: what is retried (429, 502-504, network failures), how long the client waits
// (Retry-After, the body's "Expected available in N seconds", jittered backoff), and what
// is never replayed (a POST that may have reached the server).
import { afterEach, describe, expect, it } from 'vitest';
import { JSON_HEADERS, closeMockApis, mockApi, rejection, socketError, type MockApi } from './support/mock-api.js';

const PATH = '/api/organizations/0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f/roles/';
let api: MockApi;
afterEach(closeMockApis);

describe('API client retries', () => {
  it('retries a GET after a connection reset, then succeeds', async () => {
    api = mockApi();
    api.pool.intercept({ path: PATH, method: 'GET' }).replyWithError(socketError('ECONNRESET'));
    api.pool.intercept({ path: PATH, method: 'GET' }).reply(200, { ok: 1 }, JSON_HEADERS);
    const res = await api.client.request('GET', PATH);
    expect(res).toEqual({ status: 200, body: { ok: 1 } });
    expect(api.client.stats).toEqual({ requests: 2, retries: 1, throttled: 0 });
    // Full jitter with random() = 0.5: half of the 500 ms first step.
    expect(api.sleeps).toEqual([250]);
    expect(api.events.map((e) => e.type)).toEqual(['request', 'retry', 'request']);
  });

  it('retries a 503, with exponential backoff between attempts', async () => {
    api = mockApi();
    api.pool.intercept({ path: PATH, method: 'GET' }).reply(503, { detail: 'busy' }, JSON_HEADERS).times(2);
    api.pool.intercept({ path: PATH, method: 'GET' }).reply(200, [], JSON_HEADERS);
    const res = await api.client.request('GET', PATH);
    expect(res.status).toBe(200);
    expect(api.sleeps).toEqual([250, 500]);
    expect(api.client.stats.retries).toBe(2);
  });

  it('waits for Retry-After on a 429', async () => {
    api = mockApi();
    api.pool.intercept({ path: PATH, method: 'GET' }).reply(429, { detail: 'slow down' }, { headers: { 'content-type': 'application/json', 'retry-after': '7' } });
    api.pool.intercept({ path: PATH, method: 'GET' }).reply(200, {}, JSON_HEADERS);
    await api.client.request('GET', PATH);
    expect(api.sleeps).toEqual([7000]);
    expect(api.client.stats.throttled).toBe(1);
    expect(api.events).toContainEqual({ type: 'throttled', method: 'GET', path: PATH, status: 429, waitMs: 7000 });
  });

  it('waits for the seconds of "Expected available in N seconds" when there is no Retry-After (the real API)', async () => {
    api = mockApi();
    api.pool.intercept({ path: PATH, method: 'POST' }).reply(429, {
      type: 'throttled_error', code: 'throttled', detail: 'Request was throttled. Expected available in 12 seconds.', attr: null,
    }, JSON_HEADERS);
    api.pool.intercept({ path: PATH, method: 'POST' }).reply(201, { id: 'r1' }, JSON_HEADERS);
    // A 429 means the server did not act, so even a POST is sent again.
    const res = await api.client.request('POST', PATH, { body: { name: 'Engineers' } });
    expect(res.status).toBe(201);
    expect(api.sleeps).toEqual([12000]);
  });

  it('does not retry into the last few milliseconds of --timeout: the error names what the API last answered', async () => {
    // 760 ms in all: after the first 503 and 250 ms of backoff, 510 ms are left; the next backoff
    // (500 ms) would leave 10 ms for an attempt, less than a tenth of the budget: it stops there.
    api = mockApi({ totalTimeoutMs: 760 });
    api.pool.intercept({ path: PATH, method: 'GET' }).reply(503, { detail: 'Service unavailable, try later.' }, JSON_HEADERS).times(3);
    const err = await rejection(api.client.request('GET', PATH));
    expect(err.format()).toBe(`GET ${PATH} → 503: no complete answer within --timeout 0.8 s (2 attempts; the last: Service unavailable, try later.); the API or the network is slow: raise --timeout, or try again later`);
    expect(api.sleeps).toEqual([250]);
    expect(api.client.stats.requests).toBe(2);
  });

  it('gives up, naming the status, when the retries are exhausted', async () => {
    api = mockApi({ maxRetries: 3 });
    api.pool.intercept({ path: PATH, method: 'GET' }).reply(502, { detail: 'Bad gateway' }, JSON_HEADERS).times(4);
    const err = await rejection(api.client.request('GET', PATH));
    expect(err.code).toBe('api');
    expect(err.request).toEqual({ method: 'GET', path: PATH, status: 502 });
    expect(err.format()).toBe(`GET ${PATH} → 502: Bad gateway (gave up after 4 attempts)`);
    expect(api.client.stats).toEqual({ requests: 4, retries: 3, throttled: 0 });
    expect(api.sleeps).toEqual([250, 500, 1000]);
  });

  it('does not wait for hours when the server asks to: it fails with the wait named', async () => {
    api = mockApi();
    api.pool.intercept({ path: PATH, method: 'GET' }).reply(429, { detail: 'Request was throttled. Expected available in 3600 seconds.' }, JSON_HEADERS);
    const err = await rejection(api.client.request('GET', PATH));
    expect(err.message).toMatch(/^the API's rate limit is spent: the API expects to be available again at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in 1 h\), longer than --max-wait 300 s$/);
    expect(api.sleeps).toEqual([]);
  });

  it('does not retry a 400', async () => {
    api = mockApi();
    api.pool.intercept({ path: PATH, method: 'POST' }).reply(400, { type: 'validation_error', code: 'invalid', detail: 'Bad name', attr: 'name' }, JSON_HEADERS);
    const err = await rejection(api.client.request('POST', PATH, { body: { name: '' } }));
    expect(err.message).toBe('Bad name (attr name)');
    expect(api.client.stats.requests).toBe(1);
  });

  it('retries a GET that timed out', async () => {
    api = mockApi({ timeoutMs: 50 });
    api.pool.intercept({ path: PATH, method: 'GET' }).reply(200, { late: true }, JSON_HEADERS).delay(10_000);
    api.pool.intercept({ path: PATH, method: 'GET' }).reply(200, { late: false }, JSON_HEADERS);
    const res = await api.client.request('GET', PATH);
    expect(res.body).toEqual({ late: false });
    expect(api.client.stats.retries).toBe(1);
  });

  it('retries a PATCH that timed out (our PATCHes set absolute values, so a replay converges)', async () => {
    api = mockApi({ timeoutMs: 50 });
    const item = `${PATH}0190d1c4-0000-7000-8000-000000000001/`;
    api.pool.intercept({ path: item, method: 'PATCH' }).reply(200, {}, JSON_HEADERS).delay(10_000);
    api.pool.intercept({ path: item, method: 'PATCH' }).reply(200, { name: 'x' }, JSON_HEADERS);
    const res = await api.client.request('PATCH', item, { body: { name: 'x' } });
    expect(res.body).toEqual({ name: 'x' });
  });

  it('never retries a POST that timed out, and says why', async () => {
    api = mockApi({ timeoutMs: 50 });
    api.pool.intercept({ path: PATH, method: 'POST' }).reply(201, {}, JSON_HEADERS).delay(10_000);
    const err = await rejection(api.client.request('POST', PATH, { body: { name: 'Engineers' } }));
    expect(err.code).toBe('network');
    expect(err.request).toEqual({ method: 'POST', path: PATH });
    expect(err.message).toBe('no complete answer within 50 ms at api.test:443; not retried: POST is not idempotent; the change may or may not have been applied');
    expect(api.client.stats).toEqual({ requests: 1, retries: 0, throttled: 0 });
  });

  it('never retries a POST whose connection broke after sending', async () => {
    api = mockApi();
    api.pool.intercept({ path: PATH, method: 'POST' }).replyWithError(socketError('ECONNRESET'));
    const err = await rejection(api.client.request('POST', PATH, { body: { name: 'Engineers' } }));
    expect(err.format()).toBe(`POST ${PATH}: connection reset (ECONNRESET) at api.test:443; not retried: POST is not idempotent; the change may or may not have been applied`);
  });

  it('retries a POST declared idempotent (a computation such as user_blast_radius) after a reset', async () => {
    api = mockApi();
    api.pool.intercept({ path: PATH, method: 'POST' }).replyWithError(socketError('ECONNRESET'));
    api.pool.intercept({ path: PATH, method: 'POST' }).reply(200, { affected: 3, total: 10 }, JSON_HEADERS);
    const res = await api.client.request('POST', PATH, { body: { condition: {} }, idempotent: true });
    expect(res.body).toEqual({ affected: 3, total: 10 });
    expect(api.client.stats.retries).toBe(1);
  });

  it('retries a POST whose connection was refused (it never reached the server)', async () => {
    api = mockApi();
    api.pool.intercept({ path: PATH, method: 'POST' }).replyWithError(socketError('ECONNREFUSED'));
    api.pool.intercept({ path: PATH, method: 'POST' }).reply(201, { id: 'r1' }, JSON_HEADERS);
    expect((await api.client.request('POST', PATH, { body: { name: 'Engineers' } })).status).toBe(201);
  });

  it('names method and path when the network keeps failing', async () => {
    api = mockApi({ maxRetries: 2 });
    api.pool.intercept({ path: PATH, method: 'GET' }).replyWithError(socketError('ECONNREFUSED')).times(3);
    const err = await rejection(api.client.request('GET', PATH));
    expect(err.code).toBe('network');
    expect(err.format()).toBe(`GET ${PATH}: connection refused (ECONNREFUSED) at api.test:443 (gave up after 3 attempts)`);
  });

  it('does not retry an error it cannot recognise', async () => {
    api = mockApi();
    api.pool.intercept({ path: PATH, method: 'GET' }).replyWithError(new Error('something odd'));
    const err = await rejection(api.client.request('GET', PATH));
    expect(err.code).toBe('network');
    expect(err.message).toBe('network error at api.test:443: something odd');
    expect(api.client.stats.requests).toBe(1);
  });
});
