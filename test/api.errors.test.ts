// Errors of the API client: one line each, naming the request and the API's detail/attr,
// describing bodies that are not JSON instead of dumping them, and never carrying the key.
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../src/http/client.js';
import { HogsyncError } from '../src/errors.js';
import { VERSION } from '../src/version.js';
import { JSON_HEADERS, closeMockApis, KEY, ORIGIN, mockApi, rejection, type MockApi } from './support/mock-api.js';
import { ORG } from './support/constants.js';

const PROJECT = `/api/organizations/${ORG}/projects/1/`;
let api: MockApi;
afterEach(closeMockApis);

function construct(baseUrl: string, apiKey = KEY): unknown {
  try {
    return new ApiClient({ baseUrl, apiKey, dispatcher: new MockAgent() });
  } catch (err) {
    return err;
  }
}

describe('API client requests', () => {
  it('sends the key as a bearer token, a hogsync User-Agent and JSON headers', async () => {
    api = mockApi();
    let seen: Record<string, string> = {};
    let sentBody = '';
    api.pool.intercept({ path: PROJECT, method: 'PATCH' }).reply(200, (opts) => {
      seen = opts.headers as Record<string, string>;
      sentBody = String(opts.body);
      return { id: 1 };
    }, JSON_HEADERS);
    await api.client.request('PATCH', PROJECT, { body: { name: 'Web app' } });
    expect(seen.authorization).toBe(`Bearer ${KEY}`);
    expect(seen['user-agent']).toBe(`hogsync/${VERSION}`);
    expect(seen.accept).toBe('application/json');
    expect(seen['content-type']).toBe('application/json');
    expect(JSON.parse(sentBody)).toEqual({ name: 'Web app' });
  });

  it('sends no Content-Type without a body, and appends query parameters', async () => {
    api = mockApi();
    let seen: Record<string, string> = {};
    api.pool.intercept({ path: `${PROJECT}?limit=5&offset=10`, method: 'GET' }).reply(200, (opts) => {
      seen = opts.headers as Record<string, string>;
      return {};
    }, JSON_HEADERS);
    await api.client.request('GET', PROJECT, { query: { limit: 5, offset: 10 } });
    expect(seen['content-type']).toBeUndefined();
  });

  it('refuses a base URL that is not an origin: the API paths start at its root', () => {
    for (const [url, what] of [[`${ORIGIN}/api/`, 'remove the path /api/'], [`${ORIGIN}/posthog`, 'remove the path /posthog'], [`${ORIGIN}/?x=1`, 'remove a query']]) {
      const err = construct(url as string) as HogsyncError;
      expect(err.code).toBe('usage');
      expect(err.message).toBe(`the base URL must be an origin only, such as ${ORIGIN}: ${what} (hogsync adds the API's /api/… paths itself)`);
    }
    expect(construct(`${ORIGIN}/`)).toBeInstanceOf(ApiClient);
  });

  it('accepts an empty 204 and an empty 200 as a null body', async () => {
    api = mockApi();
    api.pool.intercept({ path: PROJECT, method: 'DELETE' }).reply(204, '');
    api.pool.intercept({ path: PROJECT, method: 'GET' }).reply(200, '', JSON_HEADERS);
    expect(await api.client.request('DELETE', PROJECT)).toEqual({ status: 204, body: null });
    expect(await api.client.request('GET', PROJECT)).toEqual({ status: 200, body: null });
  });

  it('returns statuses listed in okStatuses instead of throwing', async () => {
    api = mockApi();
    api.pool.intercept({ path: PROJECT, method: 'GET' }).reply(404, { detail: 'Not found.' }, JSON_HEADERS);
    expect(await api.client.request('GET', PROJECT, { okStatuses: [404] })).toEqual({ status: 404, body: { detail: 'Not found.' } });
  });
});

describe('API client errors', () => {
  it("builds the message from the API's detail and attr", async () => {
    api = mockApi();
    api.pool.intercept({ path: PROJECT, method: 'PATCH' }).reply(400, {
      type: 'validation_error', code: 'max_length', detail: 'Ensure this field has no more than 200 characters.', attr: 'name',
    }, JSON_HEADERS);
    const err = await rejection(api.client.request('PATCH', PROJECT, { body: { name: 'x'.repeat(201) } }));
    expect(err).toBeInstanceOf(HogsyncError);
    expect(err.code).toBe('api');
    expect(err.request).toEqual({ method: 'PATCH', path: PROJECT, status: 400 });
    expect(err.format()).toBe(`PATCH ${PROJECT} → 400: Ensure this field has no more than 200 characters. (attr name)`);
  });

  it("reads Django REST framework's field-error shape too", async () => {
    api = mockApi();
    api.pool.intercept({ path: PROJECT, method: 'PATCH' }).reply(400, { name: ['This field may not be blank.'], timezone: ['"Mars/Base" is not a valid choice.'] }, JSON_HEADERS);
    const err = await rejection(api.client.request('PATCH', PROJECT, { body: {} }));
    expect(err.message).toBe('name: This field may not be blank.; timezone: "Mars/Base" is not a valid choice.');
  });

  it('describes an HTML error page in one short line', async () => {
    api = mockApi({ maxRetries: 0 });
    const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>${'<p>lorem ipsum</p>\n'.repeat(5000)}</body></html>`;
    api.pool.intercept({ path: PROJECT, method: 'GET' }).reply(502, page, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    const err = await rejection(api.client.request('GET', PROJECT));
    expect(err.message).toBe('the API answered 502 with a non-JSON body (text/html): 502 Bad Gateway');
  });

  it('truncates a huge non-JSON body without a title', async () => {
    api = mockApi();
    api.pool.intercept({ path: PROJECT, method: 'GET' }).reply(500, 'oops '.repeat(10_000), { headers: { 'content-type': 'text/plain' } });
    const err = await rejection(api.client.request('GET', PROJECT));
    expect(err.message.startsWith('the API answered 500 with a non-JSON body (text/plain): oops oops')).toBe(true);
    expect(err.message.length).toBeLessThan(300);
    expect(err.message).not.toContain('\n');
  });

  it('reports truncated JSON on a success as malformed, not as a stack', async () => {
    api = mockApi();
    api.pool.intercept({ path: PROJECT, method: 'GET' }).reply(200, '{"id": 1, "name": "Web a', JSON_HEADERS);
    const err = await rejection(api.client.request('GET', PROJECT));
    expect(err.format()).toBe(`GET ${PROJECT} → 200: the API answered 200 with malformed JSON`);
  });

  it('refuses a success whose body is not JSON', async () => {
    api = mockApi();
    api.pool.intercept({ path: PROJECT, method: 'GET' }).reply(200, '<html>login</html>', { headers: { 'content-type': 'text/html' } });
    const err = await rejection(api.client.request('GET', PROJECT));
    expect(err.message).toBe('the API answered 200 with a non-JSON body (text/html)');
  });

  it('refuses http:// to a host that is not loopback, and accepts loopback', () => {
    const err = construct('http://api.example.com');
    expect(err).toBeInstanceOf(HogsyncError);
    expect((err as HogsyncError).code).toBe('security');
    expect((err as HogsyncError).message).toContain('http://');
    for (const ok of ['http://localhost:8000', 'http://127.0.0.1:9', 'http://127.4.5.6', 'http://[::1]:8000/', 'https://eu.posthog.com']) {
      expect(construct(ok)).toBeInstanceOf(ApiClient);
    }
    expect((construct('http://localhost.evil.com') as HogsyncError).code).toBe('security');
    expect((construct('ftp://x') as HogsyncError).code).toBe('usage');
    expect((construct('not a url') as HogsyncError).code).toBe('usage');
  });

  it('refuses a missing API key, naming HOGSYNC_API_KEY', () => {
    for (const key of ['', '   ']) {
      const err = construct('https://us.posthog.com', key) as HogsyncError;
      expect(err.code).toBe('usage');
      expect(err.message).toContain('HOGSYNC_API_KEY');
    }
  });

  it('refuses an absolute request URL on another origin before sending anything', async () => {
    api = mockApi();
    const err = await rejection(api.client.request('GET', 'https://evil.example/api/x/'));
    expect(err.code).toBe('security');
    expect(api.client.stats.requests).toBe(0);
  });
});

describe('the API key never leaks', () => {
  it('is absent from every message, formatted error and event, wherever the API echoes it', async () => {
    api = mockApi({ maxRetries: 1 });
    const echoes: Array<[string, () => void]> = [
      ['detail', () => api.pool.intercept({ path: '/a/', method: 'GET' }).reply(401, { detail: `Invalid key ${KEY}`, attr: KEY }, JSON_HEADERS)],
      ['html', () => api.pool.intercept({ path: '/b/', method: 'GET' }).reply(500, `<html><title>Bearer ${KEY}</title></html>`, { headers: { 'content-type': 'text/html' } })],
      ['field errors', () => api.pool.intercept({ path: '/c/', method: 'GET' }).reply(400, { [KEY]: [KEY] }, JSON_HEADERS)],
      ['network', () => api.pool.intercept({ path: '/d/', method: 'GET' }).replyWithError(new Error(`socket said ${KEY}`))],
      ['next link', () => api.pool.intercept({ path: '/e/', method: 'GET' }).reply(200, { count: 2, next: `https://evil.example/steal?key=${KEY}`, results: [1] }, JSON_HEADERS)],
      ['throttled', () => api.pool.intercept({ path: '/f/', method: 'GET' }).reply(429, `not json ${KEY}`, { headers: { 'content-type': 'text/plain' } }).times(2)],
    ];
    const errors: unknown[] = [];
    for (const [name, arm] of echoes) {
      arm();
      const path = `/${String.fromCharCode(97 + errors.length)}/`;
      const call = name === 'next link' ? api.client.listAll(path) : api.client.request('GET', path);
      errors.push(await rejection(call));
    }
    errors.push(construct(`http://${KEY}.example.com`));
    // A path carrying the key (a caller's mistake) is scrubbed too.
    api.pool.intercept({ path: `/g/${KEY}/`, method: 'GET' }).reply(404, {}, JSON_HEADERS);
    errors.push(await rejection(api.client.request('GET', `/g/${KEY}/`)));

    expect(errors).toHaveLength(8);
    for (const err of errors) {
      expect(err).toBeInstanceOf(HogsyncError);
      const e = err as HogsyncError;
      // Case-insensitive: a key that went through a hostname comes back lower-cased.
      expect(`${e.message}\n${e.format()}\n${e.stack ?? ''}\n${JSON.stringify(e)}`.toLowerCase()).not.toContain(KEY.toLowerCase());
    }
    expect(JSON.stringify(api.events).toLowerCase()).not.toContain(KEY.toLowerCase());
  });
});
