// The client-side rate limit, in virtual time: against a server that allows R requests in
// any sliding 60 s window, a client set to R must never be throttled and must still get
// ≥ 90 % of R; a 429 holds every request of the client. No test here waits on a wall clock.
import { afterEach, describe, expect, it } from 'vitest';
import { isRateLimitStop, type ClientEvent } from '../src/http/client.js';
import { ENDPOINT_BUDGETS, RateLimiter, RateLimitWait, type Pause } from '../src/http/rate-limit.js';
import { pauseLine } from '../src/cli/context.js';
import { JSON_HEADERS, closeMockApis, mockApi, rejection } from './support/mock-api.js';
import { VirtualClock, seeded } from './support/virtual-clock.js';

afterEach(closeMockApis);

/** A server-side sliding-window limiter (as Django REST framework's throttles): R per 60 s. */
class SlidingWindowServer {
  private readonly hits: number[] = [];
  accepted = 0;
  throttled = 0;
  constructor(private readonly limit: number) {}
  hit(t: number): boolean {
    while (this.hits.length > 0 && (this.hits[0] as number) <= t - 60_000) this.hits.shift();
    if (this.hits.length >= this.limit) {
      this.throttled += 1;
      return false;
    }
    this.hits.push(t);
    this.accepted += 1;
    return true;
  }
}

async function simulate(rpm: number, workers: number, minutes: number, maxLatencyMs: number): Promise<SlidingWindowServer> {
  const clock = new VirtualClock();
  const random = seeded(rpm * 31 + workers);
  const limiter = new RateLimiter({ requestsPerMinute: rpm, clock });
  const server = new SlidingWindowServer(rpm);
  const end = minutes * 60_000;
  const worker = async (): Promise<void> => {
    while (clock.now() < end) {
      await limiter.acquire();
      if (clock.now() >= end) return;
      // The request travels for a while (varying), is counted on arrival, and is answered.
      await clock.sleep(random() * maxLatencyMs);
      server.hit(clock.now());
      await clock.sleep(random() * maxLatencyMs);
    }
  };
  await clock.run(Promise.all(Array.from({ length: workers }, worker)));
  return server;
}

describe('client-side rate limit', () => {
  it.each([
    [480, 10, 300],
    [480, 50, 1500],
    [60, 10, 300],
    [7, 3, 500],
  ])('%i req/min with %i workers and up to %i ms latency: no 429, at least 90 percent of the limit', async (rpm, workers, latency) => {
    const minutes = 10;
    const server = await simulate(rpm, workers, minutes, latency);
    expect(server.throttled).toBe(0);
    expect(server.accepted).toBeGreaterThanOrEqual(0.9 * rpm * minutes);
  });

  it('spaces requests 60000/R ms apart after an explicit burst', async () => {
    const clock = new VirtualClock();
    const limiter = new RateLimiter({ requestsPerMinute: 60, burst: 3, clock });
    const sent: number[] = [];
    await clock.run((async () => {
      for (let i = 0; i < 8; i++) {
        await limiter.acquire();
        sent.push(clock.now());
      }
    })());
    expect(sent).toEqual([0, 0, 0, 1000, 2000, 3000, 4000, 5000]);
  });

  it('pause() holds every waiting request, then resumes without a burst', async () => {
    const clock = new VirtualClock();
    const limiter = new RateLimiter({ requestsPerMinute: 600, burst: 5, clock });
    const sent: number[] = [];
    await clock.run((async () => {
      await limiter.acquire();
      limiter.pause(5000);
      await Promise.all(Array.from({ length: 3 }, async () => {
        await limiter.acquire();
        sent.push(clock.now());
      }));
    })());
    expect(sent).toEqual([5000, 5100, 5200]);
  });

  it('applies through the client: request times follow the limit', async () => {
    const clock = new VirtualClock();
    const api = mockApi({ requestsPerMinute: 120, parallelism: 10, now: clock.now, sleep: clock.sleep });
    const arrivals: number[] = [];
    api.pool.intercept({ path: '/api/x/', method: 'GET' }).reply(200, () => {
      arrivals.push(clock.now());
      return {};
    }, JSON_HEADERS).persist();
    await clock.run(Promise.all(Array.from({ length: 130 }, () => api.client.request('GET', '/api/x/'))));
    // 120/min: an idle key may send the server's whole window at once (a plan's reads never wait),
    // then the sliding log holds the rest until the first request is 60 s (+2 s guard) old.
    expect(arrivals.slice(0, 120)).toEqual(Array(120).fill(0));
    expect(arrivals.slice(120)).toEqual(Array(10).fill(62_000));
  });

  it('a 429 pauses the other requests of the client too', async () => {
    const clock = new VirtualClock();
    const api = mockApi({ requestsPerMinute: Infinity, parallelism: 4, now: clock.now, sleep: clock.sleep });
    const arrivals: Array<[string, number]> = [];
    api.pool.intercept({ path: '/api/a/', method: 'GET' }).reply(429, () => {
      arrivals.push(['a', clock.now()]);
      return { detail: 'Request was throttled. Expected available in 30 seconds.' };
    }, JSON_HEADERS);
    api.pool.intercept({ path: (p) => p.startsWith('/api/'), method: 'GET' }).reply(200, (opts) => {
      arrivals.push([String(opts.path).slice(5, 6), clock.now()]);
      return {};
    }, JSON_HEADERS).persist();
    await clock.run((async () => {
      const a = api.client.request('GET', '/api/a/');
      // b and c start 1 s later, while a is waiting out its 429.
      await clock.sleep(1000);
      await Promise.all([a, api.client.request('GET', '/api/b/'), api.client.request('GET', '/api/c/')]);
    })());
    expect(arrivals).toEqual([['a', 0], ['a', 30_000], ['b', 30_000], ['c', 30_000]]);
  });

  it('keeps within the hourly cap too, saying once why every request waits', async () => {
    const clock = new VirtualClock();
    const pauses: Pause[] = [];
    const limiter = new RateLimiter({ requestsPerMinute: 1000, requestsPerHour: 100, maxWaitMs: 4_000_000, clock, onPause: (p) => pauses.push(p) });
    const sent: number[] = [];
    await clock.run(Promise.all(Array.from({ length: 150 }, async () => {
      await limiter.acquire();
      sent.push(clock.now());
    })));
    expect(sent.filter((t) => t < 3_600_000)).toHaveLength(100);
    // The 101st goes once the first is an hour (+2 s guard) old; never more than 100 in any hour.
    expect(sent[100]).toBe(3_602_000);
    expect(pauses).toEqual([{ reason: 'hourly', waitMs: 3_602_000, until: 3_602_000 }]);
  });

  it('refuses a wait longer than maxWaitMs at once, and every later request until the window frees', async () => {
    const clock = new VirtualClock();
    const limiter = new RateLimiter({ requestsPerMinute: 1000, requestsPerHour: 3, maxWaitMs: 300_000, clock });
    for (let i = 0; i < 3; i++) await limiter.acquire();
    const refused = await limiter.acquire().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitWait);
    expect(refused).toMatchObject({ reason: 'hourly', until: 3_602_000 });
    await expect(limiter.acquire()).rejects.toBeInstanceOf(RateLimitWait);
  });
});

describe('server-requested waits (--max-wait)', () => {
  it('waits out a short 429 with one pause event for all requests held by it, then retries', async () => {
    const clock = new VirtualClock();
    const api = mockApi({ requestsPerMinute: Infinity, parallelism: 4, now: clock.now, sleep: clock.sleep, maxWaitMs: 300_000 });
    api.pool.intercept({ path: '/api/a/', method: 'GET' }).reply(429, { detail: 'Request was throttled. Expected available in 42 seconds.' }, JSON_HEADERS);
    api.pool.intercept({ path: (p) => p.startsWith('/api/'), method: 'GET' }).reply(200, {}, JSON_HEADERS).persist();
    await clock.run((async () => {
      const a = api.client.request('GET', '/api/a/');
      await clock.sleep(1000);
      await Promise.all([a, api.client.request('GET', '/api/b/'), api.client.request('GET', '/api/c/')]);
    })());
    const pauses = api.events.filter((e: ClientEvent) => e.type === 'pause');
    expect(pauses).toEqual([{ type: 'pause', method: 'GET', path: '/api/a/', waitMs: 42_000, reason: 'server', until: 42_000 }]);
    expect(clock.now()).toBe(42_000);
  });

  it('stops at once on a wait longer than maxWaitMs: nothing waits, later requests are not sent, the error says when', async () => {
    const clock = new VirtualClock();
    const api = mockApi({ requestsPerMinute: Infinity, now: clock.now, sleep: clock.sleep, maxWaitMs: 300_000 });
    let sent = 0;
    api.pool.intercept({ path: (p) => p.startsWith('/api/'), method: 'PATCH' }).reply(429, () => {
      sent += 1;
      return { detail: 'Request was throttled. Expected available in 3456 seconds.' };
    }, JSON_HEADERS).persist();
    const first = await clock.run(rejection(api.client.request('PATCH', '/api/a/', { body: { x: 1 } })));
    expect(isRateLimitStop(first)).toBe(true);
    expect(first.format()).toBe("PATCH /api/a/ → 429: the API's rate limit is spent: the API expects to be available again at 1970-01-01T00:57:36Z (in 58 min), longer than --max-wait 300 s");
    expect((first as unknown as { until: number }).until).toBe(3_456_000);
    const second = await clock.run(rejection(api.client.request('PATCH', '/api/b/', { body: { x: 1 } })));
    expect(isRateLimitStop(second)).toBe(true);
    expect(sent).toBe(1);
    expect(clock.now()).toBe(0);
  });
});


describe('endpoint budgets: the insight endpoints\' 240 a minute and 1200 an hour, on top of the general windows', () => {
  const INSIGHTS = '/api/projects/7/insights/';

  it('the table covers every insight path of both prefixes, and nothing else', () => {
    const [insights] = ENDPOINT_BUDGETS;
    expect(insights).toMatchObject({ name: 'insight endpoints', perMinute: 240, perHour: 1200 });
    for (const path of ['/api/projects/7/insights/', '/api/projects/7/insights/12/', '/api/environments/7/insights/', '/api/environments/@current/insights/trend/', '/api/projects/7/insights']) {
      expect(insights?.pattern.test(path), path).toBe(true);
    }
    for (const path of ['/api/projects/7/feature_flags/', '/api/projects/7/dashboards/', '/api/projects/7/insights_extra/', '/api/organizations/7/insights/']) {
      expect(insights?.pattern.test(path), path).toBe(false);
    }
  });

  it('insight requests share 240 a minute (both prefixes counted together); other requests keep the general window only', async () => {
    const clock = new VirtualClock();
    const api = mockApi({ requestsPerMinute: 480, requestsPerHour: 4800, parallelism: 500, now: clock.now, sleep: clock.sleep });
    const insights: number[] = [];
    const flags: number[] = [];
    api.pool.intercept({ path: (p) => /insights/.test(p), method: 'GET' }).reply(200, () => { insights.push(clock.now()); return {}; }, JSON_HEADERS).persist();
    api.pool.intercept({ path: (p) => /feature_flags/.test(p), method: 'GET' }).reply(200, () => { flags.push(clock.now()); return {}; }, JSON_HEADERS).persist();
    await clock.run(Promise.all([
      ...Array.from({ length: 125 }, () => api.client.request('GET', INSIGHTS)),
      ...Array.from({ length: 125 }, () => api.client.request('GET', '/api/environments/7/insights/3/')),
      ...Array.from({ length: 200 }, () => api.client.request('GET', '/api/projects/7/feature_flags/')),
    ]));
    // 240 insight requests go at once (the budget's burst), the other 10 once the first is a minute (+2 s) old.
    expect(insights.filter((t) => t === 0)).toHaveLength(240);
    expect(insights.filter((t) => t > 0)).toEqual(Array(10).fill(62_000));
    // Flags are not held by the insights' budget: all 200 within the general 480.
    expect(flags).toEqual(Array(200).fill(0));
  });

  it('keeps within the insight endpoints\' hour, saying why, and stops cleanly when the wait is longer than --max-wait', async () => {
    const clock = new VirtualClock();
    const budget = { name: 'insight endpoints', pattern: /\/insights\//, perMinute: 1000, perHour: 5 };
    const api = mockApi({ requestsPerMinute: 480, requestsPerHour: 4800, now: clock.now, sleep: clock.sleep, maxWaitMs: 300_000, endpointBudgets: [budget] });
    api.pool.intercept({ path: (p) => p.startsWith('/api/'), method: 'GET' }).reply(200, {}, JSON_HEADERS).persist();
    for (let i = 0; i < 5; i++) await clock.run(api.client.request('GET', INSIGHTS));
    const stopped = await clock.run(rejection(api.client.request('GET', INSIGHTS)));
    expect(isRateLimitStop(stopped)).toBe(true);
    expect(stopped.format()).toBe('GET /api/projects/7/insights/: this run has sent as many requests to insight endpoints as the API allows them in an hour (5): it may send again at 1970-01-01T01:00:02Z (in 1 h 1 min), longer than --max-wait 300 s');
    // The rest of the API is not held.
    expect((await clock.run(api.client.request('GET', '/api/projects/7/feature_flags/'))).status).toBe(200);
    // With a longer --max-wait it is waited out, with one pause line naming the budget.
    const patient = mockApi({ requestsPerMinute: 480, now: clock.now, sleep: clock.sleep, maxWaitMs: 4_000_000, endpointBudgets: [budget] });
    patient.pool.intercept({ path: (p) => p.startsWith('/api/'), method: 'GET' }).reply(200, {}, JSON_HEADERS).persist();
    const start = clock.now();
    await clock.run(Promise.all(Array.from({ length: 6 }, () => patient.client.request('GET', INSIGHTS))));
    expect(clock.now() - start).toBe(3_602_000);
    const pauses = patient.events.filter((e) => e.type === 'pause');
    expect(pauses).toHaveLength(1);
    expect(pauses[0]).toMatchObject({ reason: 'hourly', budget: 'insight endpoints', waitMs: 3_602_000 });
    expect(pauseLine(pauses[0] as ClientEvent, 0)).toBe('hogsync: keeping within the API\'s hourly limit for insight endpoints: waiting 1 h 1 min, until 1970-01-01T01:00:02Z');
  });

  it('a 429 from an insight endpoint holds the insight requests, not the rest of the API', async () => {
    const clock = new VirtualClock();
    const api = mockApi({ requestsPerMinute: Infinity, parallelism: 4, now: clock.now, sleep: clock.sleep });
    const arrivals: Array<[string, number]> = [];
    api.pool.intercept({ path: INSIGHTS, method: 'GET' }).reply(429, () => {
      arrivals.push(['insights', clock.now()]);
      return { detail: 'Request was throttled. Expected available in 30 seconds.' };
    }, JSON_HEADERS);
    api.pool.intercept({ path: (p) => p.startsWith('/api/'), method: 'GET' }).reply(200, (opts) => {
      arrivals.push([String(opts.path).includes('insights') ? 'insights' : 'flags', clock.now()]);
      return {};
    }, JSON_HEADERS).persist();
    await clock.run((async () => {
      const first = api.client.request('GET', INSIGHTS);
      await clock.sleep(1000);
      await Promise.all([first, api.client.request('GET', '/api/environments/7/insights/1/'), api.client.request('GET', '/api/projects/7/feature_flags/')]);
    })());
    // After the pause the budget restarts without a burst: one insight request per 250 ms (240 a minute).
    expect(arrivals).toEqual([['insights', 0], ['flags', 1000], ['insights', 30_000], ['insights', 30_250]]);
    expect(api.events.filter((e) => e.type === 'pause')).toEqual([expect.objectContaining({ reason: 'server', budget: 'insight endpoints', waitMs: 30_000 })]);
  });
});
