// The parallelism limit: however many calls are made at once, no more than `parallelism`
// requests of one client are in flight; pages are mapped with the same bound.
import { afterEach, describe, expect, it } from 'vitest';
import { Semaphore } from '../src/http/concurrency.js';
import { mapLimit } from '../src/util/map-limit.js';
import { nextTurn, nextTurnAhead } from '../src/util/turns.js';
import { JSON_HEADERS, closeMockApis, mockApi } from './support/mock-api.js';

afterEach(closeMockApis);

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('parallelism', () => {
  it('keeps at most `parallelism` requests in flight', async () => {
    const api = mockApi({ parallelism: 4 });
    let inFlight = 0;
    let maxInFlight = 0;
    api.pool.intercept({ path: (p) => p.startsWith('/api/items/'), method: 'GET' }).reply(200, async () => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      for (let i = 0; i < 5; i++) await tick();
      inFlight -= 1;
      return { ok: true };
    }, JSON_HEADERS).persist();
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => api.client.request('GET', `/api/items/${i}/`)));
    expect(results).toHaveLength(30);
    expect(maxInFlight).toBe(4);
    expect(api.client.stats.requests).toBe(30);
  });

  it('sends the next request before parsing an answer that has come in', async () => {
    // A plan's reads wait out a round trip each, ten at a time: an answer's parse (and the
    // comparison after it) must not hold back the request its slot lets out next.
    const api = mockApi({ parallelism: 1 });
    const order: string[] = [];
    api.pool.intercept({ path: (p) => p.startsWith('/api/items/'), method: 'GET' }).reply(200, (opts) => {
      order.push(`sent ${opts.path}`);
      return { item: opts.path };
    }, JSON_HEADERS).persist();
    const parse = JSON.parse;
    JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
      const match = /"item":"([^"]+)"/.exec(text);
      if (match) order.push(`parsed ${match[1]}`);
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      const answers = await Promise.all([1, 2, 3].map((i) => api.client.request('GET', `/api/items/${i}/`)));
      expect(answers.map((a) => a.body)).toEqual([1, 2, 3].map((i) => ({ item: `/api/items/${i}/` })));
    } finally {
      JSON.parse = parse;
    }
    expect(order.indexOf('sent /api/items/2/')).toBeLessThan(order.indexOf('parsed /api/items/1/'));
    expect(order.indexOf('sent /api/items/3/')).toBeLessThan(order.indexOf('parsed /api/items/2/'));
  });

  it('resumes work that yields to I/O one piece per turn of the event loop, in order', async () => {
    // A turn reads what arrived (the answers that let out the next requests) before the next piece.
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const resumed: Array<[number, number]> = [];
    await Promise.all([1, 2, 3, 4, 5].map((n) => nextTurn().then(() => { resumed.push([n, turns]); })));
    ticking = false;
    expect(resumed.map(([n]) => n)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(resumed.map(([, turn]) => turn)).size).toBe(5);
  });

  it('resumes a comparison (nextTurnAhead) before answers waiting to be parsed, each kind in order', async () => {
    // Records are let go once compared: comparing first keeps few answers' records parsed at once.
    const resumed: string[] = [];
    const parses = [1, 2, 3].map((n) => nextTurn().then(() => { resumed.push(`parse ${n}`); }));
    const compares = [1, 2].map((n) => nextTurnAhead().then(() => { resumed.push(`compare ${n}`); }));
    await Promise.all([...parses, ...compares]);
    expect(resumed).toEqual(['compare 1', 'compare 2', 'parse 1', 'parse 2', 'parse 3']);
  });

  it('Semaphore runs tasks first come, first served', async () => {
    const slots = new Semaphore(1);
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((n) => slots.run(async () => {
      await tick();
      order.push(n);
    })));
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('mapLimit keeps order and bounds pending calls', async () => {
    let pending = 0;
    let maxPending = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      pending += 1;
      maxPending = Math.max(maxPending, pending);
      for (let i = 0; i < n; i++) await tick();
      pending -= 1;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(maxPending).toBe(2);
  });

  it('mapLimit stops starting work after a failure and reports it', async () => {
    const started: number[] = [];
    await expect(mapLimit([1, 2, 3, 4, 5, 6], 1, async (n) => {
      started.push(n);
      if (n === 2) throw new Error('page 2 failed');
      return n;
    })).rejects.toThrow('page 2 failed');
    expect(started).toEqual([1, 2]);
  });
});
