// Lists: a plain array or a bare `results` is one page; `next` links are followed only on
// the base origin; with a known `count` and limit/offset links, pages load in parallel and
// come back in order.
import { afterEach, describe, expect, it } from 'vitest';
import { JSON_HEADERS, ORIGIN, closeMockApis, mockApi, rejection } from './support/mock-api.js';

const LIST = '/api/organizations/0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f/proxy_records/';
afterEach(closeMockApis);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('API client lists', () => {
  it('takes a plain array as the whole list', async () => {
    const api = mockApi();
    api.pool.intercept({ path: LIST, method: 'GET' }).reply(200, [{ id: 1 }, { id: 2 }], JSON_HEADERS);
    expect(await api.client.listAll(LIST)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(api.client.stats.requests).toBe(1);
  });

  it('takes {results} without count or next as a single page', async () => {
    const api = mockApi();
    api.pool.intercept({ path: LIST, method: 'GET' }).reply(200, { results: [{ id: 'a' }] }, JSON_HEADERS);
    expect(await api.client.listAll(LIST)).toEqual([{ id: 'a' }]);
  });

  it('follows next links one by one when the total is unknown', async () => {
    const api = mockApi();
    api.pool.intercept({ path: LIST, method: 'GET' }).reply(200, { next: `${ORIGIN}${LIST}?cursor=b`, results: [1, 2] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?cursor=b`, method: 'GET' }).reply(200, { next: `${ORIGIN}${LIST}?cursor=c`, results: [3] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?cursor=c`, method: 'GET' }).reply(200, { next: null, results: [4] }, JSON_HEADERS);
    expect(await api.client.listAll(LIST)).toEqual([1, 2, 3, 4]);
  });

  it('refuses a next link to another origin without sending anything there', async () => {
    const api = mockApi();
    let evilCalls = 0;
    api.agent.get('http://evil.example').intercept({ path: () => true, method: 'GET' }).reply(200, () => {
      evilCalls += 1;
      return { results: [] };
    }, JSON_HEADERS).persist();
    api.pool.intercept({ path: LIST, method: 'GET' }).reply(200, { count: 4, next: `http://evil.example${LIST}?limit=2&offset=2`, results: [1, 2] }, JSON_HEADERS);
    const err = await rejection(api.client.listAll(LIST));
    expect(err.code).toBe('security');
    expect(err.format()).toBe(`GET ${LIST}: refusing to follow next link to another origin http://evil.example; the API key is only sent to ${ORIGIN}`);
    expect(evilCalls).toBe(0);
    expect(api.client.stats.requests).toBe(1);
  });

  it('refuses a next link that downgrades the same host to http', async () => {
    const api = mockApi();
    api.pool.intercept({ path: LIST, method: 'GET' }).reply(200, { next: `http://api.test${LIST}?cursor=2`, results: [1] }, JSON_HEADERS);
    expect((await rejection(api.client.listAll(LIST))).code).toBe('security');
  });

  it('loads the remaining pages in parallel when count is known, keeping their order', async () => {
    const api = mockApi({ parallelism: 4 });
    const total = 95;
    const limit = 10;
    let inFlight = 0;
    let maxInFlight = 0;
    const offsets: number[] = [];
    api.pool.intercept({ path: LIST, method: 'GET' }).reply(200, {
      count: total, next: `${ORIGIN}${LIST}?limit=${limit}&offset=${limit}`, previous: null,
      results: Array.from({ length: limit }, (_, i) => ({ n: i })),
    }, JSON_HEADERS);
    api.pool.intercept({ path: (p) => p.startsWith(`${LIST}?`), method: 'GET' }).reply(200, async (opts) => {
      const url = new URL(String(opts.path), ORIGIN);
      const offset = Number(url.searchParams.get('offset'));
      expect(url.searchParams.get('limit')).toBe(String(limit));
      offsets.push(offset);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // Later pages answer first, so order must come from the offsets, not from arrival.
      await pause(2 + (total - offset) / 10);
      inFlight -= 1;
      const end = Math.min(total, offset + limit);
      return {
        count: total, previous: null,
        next: end < total ? `${ORIGIN}${LIST}?limit=${limit}&offset=${end}` : null,
        results: Array.from({ length: end - offset }, (_, i) => ({ n: offset + i })),
      };
    }, JSON_HEADERS).persist();

    const items = await api.client.listAll<{ n: number }>(LIST);
    expect(items.map((i) => i.n)).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(offsets.sort((a, b) => a - b)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(maxInFlight).toBeLessThanOrEqual(4);
  });

  it('follows the last page on when the list grew while it was read', async () => {
    const api = mockApi();
    api.pool.intercept({ path: LIST, method: 'GET' }).reply(200, { count: 4, next: `${ORIGIN}${LIST}?limit=2&offset=2`, results: [0, 1] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?limit=2&offset=2`, method: 'GET' }).reply(200, { count: 5, next: `${ORIGIN}${LIST}?limit=2&offset=4`, results: [2, 3] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?limit=2&offset=4`, method: 'GET' }).reply(200, { count: 5, next: null, results: [4] }, JSON_HEADERS);
    expect(await api.client.listAll(LIST)).toEqual([0, 1, 2, 3, 4]);
  });

  it('stops a server that links a page to itself', async () => {
    const api = mockApi();
    api.pool.intercept({ path: LIST, method: 'GET' }).reply(200, { next: `${ORIGIN}${LIST}?cursor=x`, results: [1] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?cursor=x`, method: 'GET' }).reply(200, { next: `${ORIGIN}${LIST}?cursor=x`, results: [2] }, JSON_HEADERS).persist();
    const err = await rejection(api.client.listAll(LIST));
    expect(err.code).toBe('api');
    expect(err.message).toContain('the list does not end');
  });

  it('refuses a body that is not a list', async () => {
    const api = mockApi();
    api.pool.intercept({ path: LIST, method: 'GET' }).reply(200, { detail: 'hello' }, JSON_HEADERS);
    const err = await rejection(api.client.listAll(LIST));
    expect(err.format()).toBe(`GET ${LIST} → 200: expected a list page ({"results": [...], "next": ...}), got an object without results`);
  });
});
