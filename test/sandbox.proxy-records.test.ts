import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { schemaErrors } from './support/openapi.js';

type Rec = Record<string, unknown>;
interface Page { count: number; next: string | null; previous: string | null; results: Rec[] }
const R = `/api/organizations/${DEFAULT_ORG}/proxy_records`;

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

describe('sandbox proxy records', () => {
  it('creates a record (201) waiting for DNS, with a CNAME target derived from the domain', async () => {
    const r = await c.post(`${R}/`, { domain: 'e.example.com' });
    expect(r.status).toBe(201);
    const rec = r.body as Rec;
    expect(rec).toMatchObject({ domain: 'e.example.com', status: 'waiting', message: null, created_by: 1 });
    expect(rec.target_cname).toMatch(/^[0-9a-f]{20}\.proxy-sandbox\.hogsync\.dev$/);
    expect(rec.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(rec.created_at as string)).not.toBeNaN();
    expect(schemaErrors('ProxyRecord', rec)).toEqual([]);
    // Deterministic: another sandbox gives the same target for the same domain.
    const other = await inProcessSandbox();
    const again = await api(other.baseUrl, other.apiKey).post(`${R}/`, { domain: 'e.example.com' });
    expect((again.body as Rec).target_cname).toBe(rec.target_cname);
  });

  it('lists, reads, updates and deletes (204)', async () => {
    const id = ((await c.post(`${R}/`, { domain: 'a.example.com' })).body as Rec).id as string;
    const list = await c.get(`${R}/`);
    expect(list.status).toBe(200);
    expect(schemaErrors('PaginatedProxyRecordList', list.body)).toEqual([]);
    expect((list.body as Page).results.map((x) => x.domain)).toEqual(['a.example.com']);
    expect(((await c.get(`${R}/${id}/`)).body as Rec).domain).toBe('a.example.com');

    const patched = await c.patch(`${R}/${id}/`, { domain: 'b.example.com', status: 'valid' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, domain: 'b.example.com', status: 'waiting' });

    const del = await c.delete(`${R}/${id}/`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await c.get(`${R}/${id}/`)).status).toBe(404);
    expect((await c.delete(`${R}/${id}/`)).status).toBe(404);
    expect(((await c.get(`${R}/`)).body as Page).count).toBe(0);
  });

  it('validates the domain: required, a host name, at most 64 characters, unique without regard to case or a trailing dot', async () => {
    const cases: [Rec, string][] = [
      [{}, 'required'],
      [{ domain: '' }, 'blank'],
      [{ domain: 'not a domain' }, 'invalid'],
      [{ domain: 'localhost' }, 'invalid'],
      [{ domain: '-bad.example.com' }, 'invalid'],
      [{ domain: `${'a'.repeat(60)}.com.example` }, 'max_length'],
      [{ domain: 42 }, 'invalid'],
    ];
    for (const [body, code] of cases) {
      const r = await c.post(`${R}/`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', code, attr: 'domain' });
    }
    expect((await c.post(`${R}/`, { domain: 'e.example.com' })).status).toBe(201);
    for (const dup of ['e.example.com', 'E.Example.COM', 'e.example.com.']) {
      const r = await c.post(`${R}/`, { domain: dup });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', code: 'unique', attr: 'domain' });
    }
    expect(((await c.get(`${R}/`)).body as Page).count).toBe(1);
  });

  it('pages with limit/offset and absolute next/previous links built from the request host', async () => {
    for (let i = 0; i < 5; i++) expect((await c.post(`${R}/`, { domain: `d${i}.example.com` })).status).toBe(201);
    const first = (await c.get(`${R}/?limit=2`)).body as Page;
    expect(first.count).toBe(5);
    expect(first.previous).toBeNull();
    expect(first.next).toBe(`${baseUrl}${R}/?limit=2&offset=2`);
    const seen: string[] = first.results.map((x) => x.domain as string);
    let page = first;
    const pages: Page[] = [first];
    while (page.next) {
      expect(page.next.startsWith(`${baseUrl}/`)).toBe(true);
      page = (await c.get(page.next)).body as Page;
      pages.push(page);
      seen.push(...page.results.map((x) => x.domain as string));
    }
    expect(seen).toEqual(['d0', 'd1', 'd2', 'd3', 'd4'].map((d) => `${d}.example.com`));
    expect(pages.map((p) => p.results.length)).toEqual([2, 2, 1]);
    const last = pages[2] as Page;
    expect(last.next).toBeNull();
    expect(last.previous).toBe(`${baseUrl}${R}/?limit=2&offset=2`);
    // The second page's previous link leads back to the first page (offset 0 is left out, as DRF does).
    expect((pages[1] as Page).previous).toBe(`${baseUrl}${R}/?limit=2`);
    expect(((await c.get((pages[1] as Page).previous as string)).body as Page).results).toEqual(first.results);
  });

  it('builds the links from the Host header the client sent', async () => {
    for (let i = 0; i < 3; i++) await c.post(`${R}/`, { domain: `h${i}.example.com` });
    const body = await new Promise<Page>((resolve, reject) => {
      const req = http.get(`${baseUrl}${R}/?limit=1`, { headers: { host: 'sandbox.test:4321', authorization: `Bearer ${apiKey}` } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => { text += d; }).on('end', () => resolve(JSON.parse(text) as Page));
      });
      req.on('error', reject);
    });
    expect(body.next).toBe(`http://sandbox.test:4321${R}/?limit=1&offset=1`);
  });

  it('defaults to 100 per page, caps limit at 1000 and ignores malformed limit/offset', async () => {
    for (let i = 0; i < 3; i++) await c.post(`${R}/`, { domain: `p${i}.example.com` });
    for (const q of ['', '?limit=abc', '?limit=0', '?limit=-3&offset=x', '?limit=5000']) {
      const page = (await c.get(`${R}/${q}`)).body as Page;
      expect(page.results.length, q).toBe(3);
      expect(page.next).toBeNull();
    }
    const beyond = (await c.get(`${R}/?offset=10`)).body as Page;
    expect(beyond).toMatchObject({ count: 3, next: null, results: [] });
    expect(beyond.previous).toBe(`${baseUrl}${R}/?limit=100`);
  });
});
