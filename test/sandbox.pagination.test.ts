// limit/offset pagination as the sandbox answers it (Django REST framework's LimitOffsetPagination),
// on the roles list of the default organization.
import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { paginate } from '../src/sandbox/pagination.js';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';

type Rec = Record<string, unknown>;
interface Page { count: number; next: string | null; previous: string | null; results: Rec[] }
const RL = `/api/organizations/${DEFAULT_ORG}/roles`;

let c: Api;
let baseUrl = '';
let apiKey = '';
beforeEach(async () => {
  const sb = await inProcessSandbox();
  baseUrl = sb.baseUrl;
  apiKey = sb.apiKey;
  c = api(sb.baseUrl, sb.apiKey);
});
afterEach(stopAllSandboxes);

describe('sandbox pagination', () => {
  it('pages with limit/offset and absolute next/previous links built from the request host', async () => {
    for (let i = 0; i < 5; i++) expect((await c.post(`${RL}/`, { name: `d${i}.example.com` })).status).toBe(201);
    const first = (await c.get(`${RL}/?limit=2`)).body as Page;
    expect(first.count).toBe(5);
    expect(first.previous).toBeNull();
    expect(first.next).toBe(`${baseUrl}${RL}/?limit=2&offset=2`);
    const seen: string[] = first.results.map((x) => x.name as string);
    let page = first;
    const pages: Page[] = [first];
    while (page.next) {
      expect(page.next.startsWith(`${baseUrl}/`)).toBe(true);
      page = (await c.get(page.next)).body as Page;
      pages.push(page);
      seen.push(...page.results.map((x) => x.name as string));
    }
    expect(seen).toEqual(['d0', 'd1', 'd2', 'd3', 'd4'].map((d) => `${d}.example.com`));
    expect(pages.map((p) => p.results.length)).toEqual([2, 2, 1]);
    const last = pages[2] as Page;
    expect(last.next).toBeNull();
    expect(last.previous).toBe(`${baseUrl}${RL}/?limit=2&offset=2`);
    // The second page's previous link leads back to the first page (offset 0 is left out, as DRF does).
    expect((pages[1] as Page).previous).toBe(`${baseUrl}${RL}/?limit=2`);
    expect(((await c.get((pages[1] as Page).previous as string)).body as Page).results).toEqual(first.results);
  });

  it('builds the links from the Host header the client sent', async () => {
    for (let i = 0; i < 3; i++) await c.post(`${RL}/`, { name: `h${i}` });
    const body = await new Promise<Page>((resolve, reject) => {
      const req = http.get(`${baseUrl}${RL}/?limit=1`, { headers: { host: 'sandbox.test:4321', authorization: `Bearer ${apiKey}` } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => { text += d; }).on('end', () => resolve(JSON.parse(text) as Page));
      });
      req.on('error', reject);
    });
    expect(body.next).toBe(`http://sandbox.test:4321${RL}/?limit=1&offset=1`);
  });

  it('defaults to 100 per page, caps limit at 1000 and ignores malformed limit/offset', async () => {
    for (let i = 0; i < 3; i++) await c.post(`${RL}/`, { name: `p${i}` });
    for (const q of ['', '?limit=abc', '?limit=0', '?limit=-3&offset=x', '?limit=5000']) {
      const page = (await c.get(`${RL}/${q}`)).body as Page;
      expect(page.results.length, q).toBe(3);
      expect(page.next).toBeNull();
    }
    const beyond = (await c.get(`${RL}/?offset=10`)).body as Page;
    expect(beyond).toMatchObject({ count: 3, next: null, results: [] });
    expect(beyond.previous).toBe(`${baseUrl}${RL}/?limit=100`);
  });

  it('answers limit=1000 (what hogsync asks for) with pages of 1000, their count and next', () => {
    const items = Array.from({ length: 2500 }, (_, i) => ({ n: i }));
    const list = 'http://sandbox.test/api/projects/1/feature_flags/';
    const read = (n: number, query: string) => paginate(items.slice(0, n), (x) => x, new URL(`${list}${query}`));
    expect(read(250, '?limit=1000')).toMatchObject({ count: 250, next: null, previous: null });
    expect(read(250, '?limit=1000').results).toHaveLength(250);
    const first = read(2500, '?limit=1000');
    expect(first).toMatchObject({ count: 2500, next: `${list}?limit=1000&offset=1000` });
    expect(first.results.map((r) => r.n)).toEqual(items.slice(0, 1000).map((r) => r.n));
    const last = read(2500, '?limit=1000&offset=2000');
    expect(last).toMatchObject({ count: 2500, next: null, previous: `${list}?limit=1000&offset=1000` });
    expect(last.results).toHaveLength(500);
  });
});
