// Lists: the first request asks for pages of 1000 (`limit=1000`, unless the caller names a
// limit); a plain array or a bare `results` is one page; `next` links are followed as given, by
// their path and query only, on the base origin and the list's own path; with a known `count` and
// limit/offset links, pages load in parallel and come back in order; a list that shifts is
// read again, one that never reads whole or never ends is stopped.
import { afterEach, describe, expect, it } from 'vitest';
import { JSON_HEADERS, ORIGIN, closeMockApis, mockApi, rejection } from './support/mock-api.js';

const LIST = '/api/organizations/0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f/proxy_records/';
/** A list's first request: pages of 1000 are asked for (the API's default page is 100). */
const FIRST = `${LIST}?limit=1000`;
afterEach(closeMockApis);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('API client lists', () => {
  it('takes a plain array as the whole list', async () => {
    const api = mockApi();
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, [{ id: 1 }, { id: 2 }], JSON_HEADERS);
    expect(await api.client.listAll(LIST)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(api.client.stats.requests).toBe(1);
  });

  it('takes {results} without count or next as a single page', async () => {
    const api = mockApi();
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, { results: [{ id: 'a' }] }, JSON_HEADERS);
    expect(await api.client.listAll(LIST)).toEqual([{ id: 'a' }]);
  });

  it('follows next links one by one when the total is unknown', async () => {
    const api = mockApi();
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, { next: `${ORIGIN}${LIST}?cursor=b`, results: [1, 2] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?cursor=b`, method: 'GET' }).reply(200, { next: `${ORIGIN}${LIST}?cursor=c`, results: [3] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?cursor=c`, method: 'GET' }).reply(200, { next: null, results: [4] }, JSON_HEADERS);
    expect(await api.client.listAll(LIST)).toEqual([1, 2, 3, 4]);
  });

  it('asks for pages of 1000 on its first request only, and follows next links exactly as given', async () => {
    const api = mockApi();
    const asked: string[] = [];
    const page = (body: unknown) => (opts: { path: string }) => { asked.push(opts.path); return body; };
    // A server that pages by less than was asked says so in its links: they keep its limit
    // (100 here) and its query; hogsync rewrites none, nor adds a limit to a link without one.
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, page({ next: `${ORIGIN}${LIST}?limit=100&cursor=b`, results: [1] }), JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?limit=100&cursor=b`, method: 'GET' }).reply(200, page({ next: `${ORIGIN}${LIST}?cursor=c`, results: [2] }), JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?cursor=c`, method: 'GET' }).reply(200, page({ next: null, results: [3] }), JSON_HEADERS);
    expect(await api.client.listAll(LIST)).toEqual([1, 2, 3]);
    expect(asked).toEqual([`${LIST}?limit=1000`, `${LIST}?limit=100&cursor=b`, `${LIST}?cursor=c`]);
  });

  it('keeps the query the caller names: its own limit, or its filters with pages of 1000', async () => {
    const api = mockApi();
    const asked: string[] = [];
    const page = (body: unknown) => (opts: { path: string }) => { asked.push(opts.path); return body; };
    api.pool.intercept({ path: `${LIST}?archived=true&limit=5`, method: 'GET' }).reply(200, page({ results: [1] }), JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?archived=true&limit=1000`, method: 'GET' }).reply(200, page({ results: [2] }), JSON_HEADERS);
    expect(await api.client.listAll(`${LIST}?archived=true&limit=5`)).toEqual([1]);
    expect(await api.client.listAll(`${LIST}?archived=true`)).toEqual([2]);
    expect(asked).toEqual([`${LIST}?archived=true&limit=5`, `${LIST}?archived=true&limit=1000`]);
  });

  it('follows a next link by its path and query only, on the base origin: another host is never asked', async () => {
    const api = mockApi();
    let evilCalls = 0;
    api.agent.get('http://evil.example').intercept({ path: () => true, method: 'GET' }).reply(200, () => {
      evilCalls += 1;
      return { results: [] };
    }, JSON_HEADERS).persist();
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, { count: 4, next: `http://evil.example${LIST}?limit=2&offset=2`, results: [1, 2] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?limit=2&offset=2`, method: 'GET' }).reply(200, { count: 4, next: null, results: [3, 4] }, JSON_HEADERS);
    expect(await api.client.listAll(LIST)).toEqual([1, 2, 3, 4]);
    expect(evilCalls).toBe(0);
    expect(api.client.stats.requests).toBe(2);
  });

  it('follows an http:// link of the same host (a server behind a TLS proxy) over the base URL\'s https', async () => {
    const api = mockApi();
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, { next: `http://api.test${LIST}?cursor=2`, results: [1] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?cursor=2`, method: 'GET' }).reply(200, { next: null, results: [2] }, JSON_HEADERS);
    expect(await api.client.listAll(LIST)).toEqual([1, 2]);
  });

  it('refuses a next link whose path is not the list\'s own, relative or absolute, without asking it', async () => {
    for (const next of ['../../../../etc/passwd?offset=1', `${ORIGIN}/api/organizations/other/roles/?offset=1`, '/api/users/@me/?offset=1']) {
      const api = mockApi();
      api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, { count: 4, next, results: [1, 2] }, JSON_HEADERS);
      const err = await rejection(api.client.listAll(LIST));
      expect(err.code).toBe('security');
      expect(err.format()).toMatch(new RegExp(`^GET ${LIST}\\?limit=1000: refusing to follow next link to /\\S+: a list's next page is on its own path ${LIST}$`));
      expect(api.client.stats.requests).toBe(1);
    }
  });

  it('loads the remaining pages in parallel when count is known, keeping their order', async () => {
    const api = mockApi({ parallelism: 4 });
    const total = 95;
    const limit = 10;
    let inFlight = 0;
    let maxInFlight = 0;
    const offsets: number[] = [];
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, {
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

  it('reads a list again when its count changes between pages, and keeps a record seen twice once', async () => {
    const api = mockApi();
    // First read: the list grows between pages, and record 2 moves to the second page as well.
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, { count: 4, next: `${ORIGIN}${LIST}?limit=2&offset=2`, results: [{ id: 1 }, { id: 2 }] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?limit=2&offset=2`, method: 'GET' }).reply(200, { count: 5, next: `${ORIGIN}${LIST}?limit=2&offset=4`, results: [{ id: 2 }, { id: 3 }] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?limit=2&offset=4`, method: 'GET' }).reply(200, { count: 5, next: null, results: [{ id: 4 }] }, JSON_HEADERS);
    // Second read: quiet.
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, { count: 5, next: `${ORIGIN}${LIST}?limit=2&offset=2`, results: [{ id: 1 }, { id: 2 }] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?limit=2&offset=2`, method: 'GET' }).reply(200, { count: 5, next: `${ORIGIN}${LIST}?limit=2&offset=4`, results: [{ id: 3 }, { id: 4 }] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?limit=2&offset=4`, method: 'GET' }).reply(200, { count: 5, next: null, results: [{ id: 2 }, { id: 5 }] }, JSON_HEADERS);
    expect(await api.client.listAll(LIST)).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }, { id: 5 }]);
    expect(api.client.stats.requests).toBe(6);
  });

  it('gives up on a list that never reads whole, after 3 reads', async () => {
    const api = mockApi();
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, { count: 3, next: `${ORIGIN}${LIST}?limit=2&offset=2`, results: [{ id: 1 }, { id: 2 }] }, JSON_HEADERS).persist();
    api.pool.intercept({ path: `${LIST}?limit=2&offset=2`, method: 'GET' }).reply(200, { count: 3, next: null, results: [{ id: 2 }] }, JSON_HEADERS).persist();
    const err = await rejection(api.client.listAll(LIST));
    expect(err.format()).toBe(`GET ${FIRST}: the list changed while it was read, 3 times in a row (2 distinct records where its count says 3); nothing is planned from a list that never read whole: run again when it is quiet`);
    expect(api.client.stats.requests).toBe(6);
  });

  it('stops a list that runs on past its count', async () => {
    const api = mockApi();
    let served = 0;
    api.pool.intercept({ path: (p) => p.startsWith(LIST), method: 'GET' }).reply(200, (opts) => {
      const offset = Number(new URL(String(opts.path), ORIGIN).searchParams.get('offset') ?? '0');
      served += 1;
      return { count: 5, next: `${ORIGIN}${LIST}?offset=${offset + 1}`, results: [{ id: `r${offset}` }] };
    }, JSON_HEADERS).persist();
    const err = await rejection(api.client.listAll(LIST));
    expect(err.format()).toBe(`GET ${FIRST}: the list does not end: 8 pages read, more pages than its count of 5 records needs; stopped`);
    expect(served).toBe(8);
  });

  it('stops a server that links a page to itself', async () => {
    const api = mockApi();
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, { next: `${ORIGIN}${LIST}?cursor=x`, results: [1] }, JSON_HEADERS);
    api.pool.intercept({ path: `${LIST}?cursor=x`, method: 'GET' }).reply(200, { next: `${ORIGIN}${LIST}?cursor=x`, results: [2] }, JSON_HEADERS).persist();
    const err = await rejection(api.client.listAll(LIST));
    expect(err.code).toBe('api');
    expect(err.message).toContain('the list does not end');
  });

  it('refuses a body that is not a list', async () => {
    const api = mockApi();
    api.pool.intercept({ path: FIRST, method: 'GET' }).reply(200, { detail: 'hello' }, JSON_HEADERS);
    const err = await rejection(api.client.listAll(LIST));
    expect(err.format()).toBe(`GET ${FIRST} → 200: expected a list page ({"results": [...], "next": ...}), got an object without results`);
  });
});
