import { afterEach, describe, expect, it } from 'vitest';
import { api, DEFAULT_ORG, inProcessSandbox, spawnSandbox, stopAllSandboxes } from './support/sandbox.js';

type Rec = Record<string, unknown>;
const ROLES = `/api/organizations/${DEFAULT_ORG}/roles/`;

afterEach(stopAllSandboxes);

/** A scripted source of randomness: the values in order, then `rest` forever. */
function script(values: number[], rest = 0.99): () => number {
  let i = 0;
  return () => (i < values.length ? (values[i++] as number) : rest);
}

describe('sandbox latency, faults and rate limit', () => {
  it('delays every answer by --latency', async () => {
    const sb = await inProcessSandbox({ latencyMs: 150 });
    const c = api(sb.baseUrl, sb.apiKey);
    const started = Date.now();
    await Promise.all([c.get('/api/projects/'), c.get(ROLES)]);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(1500);
  });

  it('holds every answer of a read for --latency, a fault, a 429 and a not-found alike, and a write changes nothing before it', async () => {
    // A read's answer is made while its latency runs; it is still not sent sooner.
    const sb = await inProcessSandbox({ latencyMs: 150, rateLimitPerMinute: 3, faultRate: 0.5, random: script([0.1, 0.5]) });
    const c = api(sb.baseUrl, sb.apiKey);
    const timed = async (call: () => Promise<{ status: number }>) => {
      const started = Date.now();
      const { status } = await call();
      return { status, ms: Date.now() - started };
    };
    const answers = await Promise.all([timed(() => c.get(ROLES)), timed(() => c.get('/api/nowhere/'))]);
    expect(answers.map((a) => a.status).sort()).toEqual([404, 502]);
    // A write waits before anything is applied: until its answer, the role does not exist.
    const writing = c.post(ROLES, { name: 'Late' });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(sb.store.snapshot().roles).toHaveLength(0);
    expect((await writing).status).toBe(201);
    expect(sb.store.snapshot().roles).toHaveLength(1);
    const throttled = await timed(() => c.get(ROLES));
    expect(throttled.status).toBe(429);
    for (const a of [...answers, throttled]) expect(a.ms).toBeGreaterThanOrEqual(140);
  });

  it('throttles above --rate-limit per sliding minute with 429, the wait in the detail and no Retry-After', async () => {
    const sb = await inProcessSandbox({ rateLimitPerMinute: 3 });
    const c = api(sb.baseUrl, sb.apiKey);
    for (let i = 0; i < 3; i++) expect((await c.get('/api/projects/')).status).toBe(200);
    const r = await c.get('/api/projects/');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBeNull();
    const body = r.body as Rec;
    expect(body).toMatchObject({ type: 'throttled_error', code: 'throttled', attr: null });
    const seconds = Number(/^Request was throttled\. Expected available in (\d+) seconds\.$/.exec(body.detail as string)?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    // Writes are throttled too, and a throttled write changes nothing.
    expect((await c.post(ROLES, { name: 'Throttled' })).status).toBe(429);
    expect(sb.store.snapshot().roles).toHaveLength(0);
    expect(sb.stats).toMatchObject({ requests: 5, throttled: 2 });
  });

  it('throttles the insight endpoints on top: their own minute and hour, shared by both prefixes, the rest of the API untouched', async () => {
    const throttled = (r: { status: number }) => r.status === 429;
    const sb = await inProcessSandbox({ insightRateLimitPerMinute: 2 });
    const c = api(sb.baseUrl, sb.apiKey);
    expect(throttled(await c.get('/api/projects/12345/insights/'))).toBe(false);
    expect(throttled(await c.get('/api/environments/12345/insights/7/'))).toBe(false);
    const r = await c.get('/api/projects/12345/insights/?basic=true');
    expect(r.status).toBe(429);
    expect((r.body as Rec).detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);
    for (let i = 0; i < 5; i++) expect((await c.get('/api/projects/')).status).toBe(200);
    await stopAllSandboxes();

    // As the real API: 240 a minute and 1200 an hour once rate limiting is on, none without.
    const limited = await inProcessSandbox({ rateLimitPerMinute: 100_000 });
    const l = api(limited.baseUrl, limited.apiKey);
    const statuses = [];
    for (let i = 0; i < 241; i++) statuses.push((await l.get('/api/projects/12345/insights/')).status);
    expect(statuses.slice(0, 240).filter((s) => s === 429)).toHaveLength(0);
    expect(statuses[240]).toBe(429);
    const hourly = await inProcessSandbox({ rateLimitPerHour: 100_000, insightRateLimitPerMinute: 0, insightRateLimitPerHour: 3 });
    const h = api(hourly.baseUrl, hourly.apiKey);
    for (let i = 0; i < 3; i++) expect(throttled(await h.get('/api/projects/12345/insights/'))).toBe(false);
    const late = await h.get('/api/projects/12345/insights/');
    expect(late.status).toBe(429);
    expect(Number(/(\d+) seconds/.exec(String((late.body as Rec).detail))?.[1])).toBeGreaterThan(3000);
    const free = await inProcessSandbox();
    const f = api(free.baseUrl, free.apiKey);
    for (let i = 0; i < 300; i++) expect(throttled(await f.get('/api/projects/12345/insights/'))).toBe(false);
  });

  it('answers 502/503/504 or drops the connection, before any state change', async () => {
    // Each request draws "fault?" then "which": 0.5 → 502, 0.7 → 503, 0.95 → 504, 0.0 → dropped.
    const sb = await inProcessSandbox({ faultRate: 0.5, random: script([0.1, 0.5, 0.1, 0.7, 0.1, 0.95, 0.1, 0.0]) });
    const c = api(sb.baseUrl, sb.apiKey);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await c.post(ROLES, { name: 'Flaky' });
      statuses.push(r.status);
      expect(r.body).toMatchObject({ type: 'server_error', attr: null });
      expect(typeof (r.body as Rec).code).toBe('string');
    }
    expect(statuses).toEqual([502, 503, 504]);
    await expect(c.post(ROLES, { name: 'Flaky' })).rejects.toThrow();
    expect(sb.store.snapshot().roles).toHaveLength(0);
    expect(sb.store.writeCount).toBe(0);
    expect(sb.stats.faults).toBe(4);
    // The next request is not faulted and applies once.
    expect((await c.post(ROLES, { name: 'Flaky' })).status).toBe(201);
    expect(((await c.get(ROLES)).body as { count: number }).count).toBe(1);
  });

  it('counts requests per route and resets the counters at /_sandbox/reset-stats', async () => {
    const sb = await inProcessSandbox();
    const c = api(sb.baseUrl, sb.apiKey);
    await c.get(ROLES);
    await c.get(`${ROLES}?limit=1`);
    await c.post(ROLES, { name: 'A' });
    await c.get('/api/projects/12345/feature_flags/');
    await c.get('/nowhere');
    const stats = (await api(sb.baseUrl, null).get('/_sandbox/stats')).body as Rec;
    expect(stats).toEqual({
      requests: 5, throttled: 0, faults: 0,
      byRoute: {
        'GET /api/organizations/:org/roles/': 2,
        'POST /api/organizations/:org/roles/': 1,
        'GET /api/projects/:project/feature_flags/': 1,
        'GET (unknown route)': 1,
      },
    });
    expect(sb.stats.requests).toBe(5);
    const reset = await api(sb.baseUrl, null).post('/_sandbox/reset-stats');
    expect(reset.body).toEqual({ requests: 0, byRoute: {}, throttled: 0, faults: 0 });
    expect(sb.stats.requests).toBe(0);
  });

  it('takes --latency, --rate-limit and --fault-rate on the command line', async () => {
    const slow = await spawnSandbox(['--latency', '120', '--rate-limit', '2']);
    const c = api(slow.baseUrl, slow.apiKey);
    const started = Date.now();
    expect((await c.get('/api/projects/')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    expect((await c.get('/api/projects/')).status).toBe(200);
    expect((await c.get('/api/projects/')).status).toBe(429);
    expect(await slow.stats()).toMatchObject({ requests: 3, throttled: 1, faults: 0 });

    const insights = await spawnSandbox(['--insight-rate-limit', '1', '--insight-rate-limit-hourly', '10']);
    const i = api(insights.baseUrl, insights.apiKey);
    expect((await i.get('/api/projects/12345/insights/')).status).not.toBe(429);
    expect((await i.get('/api/projects/12345/insights/')).status).toBe(429);
    expect((await i.get('/api/projects/')).status).toBe(200);

    const flaky = await spawnSandbox(['--fault-rate', '1']);
    const f = api(flaky.baseUrl, flaky.apiKey);
    for (let i = 0; i < 6; i++) {
      const outcome = await f.get('/api/projects/').then((r) => r.status, () => 'dropped');
      expect([502, 503, 504, 'dropped']).toContain(outcome);
    }
    expect(await flaky.stats()).toMatchObject({ requests: 6, faults: 6 });
  });
});
