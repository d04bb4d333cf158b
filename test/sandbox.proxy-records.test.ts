// Proxy records as the real API's view answers them (posthog/api/proxy_record.py): create 200,
// a one-page list with max_proxy_records, delete 200 {"success": true} and asynchronous for a
// provisioned record, no validation of the domain, the organization's limit.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { schemaErrors } from './support/openapi.js';

type Rec = Record<string, unknown>;
interface List { results: Rec[]; max_proxy_records: number }
const R = `/api/organizations/${DEFAULT_ORG}/proxy_records`;
const OTHER_ORG = '0190d1c4-6a1e-7c3d-8e4f-0000000000b2';

let c: Api;
beforeEach(async () => {
  const sb = await inProcessSandbox();
  c = api(sb.baseUrl, sb.apiKey);
});
afterEach(stopAllSandboxes);

const list = async (client: Api = c, path = R): Promise<List> => (await client.get(`${path}/`)).body as List;

describe('sandbox proxy records', () => {
  it('creates a record (200) waiting for DNS, with a CNAME target derived from the organization and the domain', async () => {
    const r = await c.post(`${R}/`, { domain: 'e.example.com' });
    expect(r.status).toBe(200);
    const rec = r.body as Rec;
    expect(rec).toMatchObject({ domain: 'e.example.com', status: 'waiting', message: null, created_by: 1 });
    expect(rec.target_cname).toMatch(/^[0-9a-f]{20}\.proxy-sandbox\.hogsync\.dev$/);
    expect(rec.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(rec.created_at as string)).not.toBeNaN();
    expect(schemaErrors('ProxyRecord', rec)).toEqual([]);
    // Deterministic: another sandbox gives the same target for the same organization and domain.
    const other = await inProcessSandbox();
    const again = await api(other.baseUrl, other.apiKey).post(`${R}/`, { domain: 'e.example.com' });
    expect((again.body as Rec).target_cname).toBe(rec.target_cname);
    // Another organization gets another target for the same domain.
    const third = await inProcessSandbox({ seed: { organizations: [{ id: OTHER_ORG }] } });
    const elsewhere = await api(third.baseUrl, third.apiKey).post(`/api/organizations/${OTHER_ORG}/proxy_records/`, { domain: 'e.example.com' });
    expect((elsewhere.body as Rec).target_cname).not.toBe(rec.target_cname);
  });

  it('lists all records in one page, newest first, with the organization limit; reads, updates and deletes (200 {"success": true})', async () => {
    const a = ((await c.post(`${R}/`, { domain: 'a.example.com' })).body as Rec).id as string;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await c.post(`${R}/`, { domain: 'b.example.com' });
    const body = await list();
    expect(Object.keys(body).sort()).toEqual(['max_proxy_records', 'results']);
    expect(body.max_proxy_records).toBe(2);
    expect(body.results.map((x) => x.domain)).toEqual(['b.example.com', 'a.example.com']);
    for (const rec of body.results) expect(schemaErrors('ProxyRecord', rec)).toEqual([]);
    expect(((await c.get(`${R}/${a}/`)).body as Rec).domain).toBe('a.example.com');

    const patched = await c.patch(`${R}/${a}/`, { domain: 'c.example.com', status: 'valid' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: a, domain: 'c.example.com', status: 'waiting' });

    const del = await c.delete(`${R}/${a}/`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true });
    expect((await c.get(`${R}/${a}/`)).status).toBe(404);
    // The real view looks the record up without a guard: a DELETE of a record no longer there is a 500.
    const again = await c.delete(`${R}/${a}/`);
    expect(again.status).toBe(500);
    expect((await list()).results.map((x) => x.domain)).toEqual(['b.example.com']);
  });

  it('stores any domain it is sent (a bad one ends in erroring), refusing only a missing, blank, long or taken one', async () => {
    const bad = await c.post(`${R}/`, { domain: 'Not A Domain' });
    expect(bad.status).toBe(200);
    expect(bad.body).toMatchObject({ domain: 'Not A Domain', status: 'erroring' });
    expect((bad.body as Rec).message).toMatch(/not a valid host name/);
    await c.delete(`${R}/${(bad.body as Rec).id as string}/`);

    const cases: [Rec, string][] = [
      [{}, 'required'],
      [{ domain: '' }, 'blank'],
      [{ domain: `${'a'.repeat(60)}.com.example` }, 'max_length'],
      [{ domain: 42 }, 'invalid'],
    ];
    for (const [payload, code] of cases) {
      const r = await c.post(`${R}/`, payload);
      expect(r.status, JSON.stringify(payload)).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', code, attr: 'domain' });
    }
    expect((await c.post(`${R}/`, { domain: 'e.example.com' })).status).toBe(200);
    for (const dup of ['e.example.com', 'E.Example.COM']) {
      const r = await c.post(`${R}/`, { domain: dup });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', code: 'unique', attr: 'domain' });
    }
    expect((await list()).results).toHaveLength(1);
  });

  it('holds a domain across organizations: another organization cannot take it', async () => {
    const sb = await inProcessSandbox({ seed: { organizations: [{ id: DEFAULT_ORG, proxy_records: [{ domain: 'taken.example.com', status: 'valid' }] }, { id: OTHER_ORG }] } });
    const client = api(sb.baseUrl, sb.apiKey);
    const r = await client.post(`/api/organizations/${OTHER_ORG}/proxy_records/`, { domain: 'taken.example.com' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ attr: 'domain', detail: 'proxy record with this domain already exists.' });
  });

  it('refuses a create past the organization limit with the real {"detail"} body; records still deleting count', async () => {
    const sb = await inProcessSandbox({
      deletionDelaySeconds: 60,
      seed: { organizations: [{ id: DEFAULT_ORG, proxy_records: [{ domain: 'one.example.com', status: 'valid' }, { domain: 'two.example.com', status: 'valid' }] }] },
    });
    const client = api(sb.baseUrl, sb.apiKey);
    const full = await client.post(`${R}/`, { domain: 'three.example.com' });
    expect(full.status).toBe(400);
    expect(full.body).toEqual({ detail: 'Maximum of 2 proxy records per organization.' });

    const one = (await list(client)).results.find((x) => x.domain === 'one.example.com') as Rec;
    expect((await client.delete(`${R}/${one.id as string}/`)).status).toBe(200);
    // Deletion of a provisioned record is asynchronous: it stays listed as deleting, and holds its slot.
    expect((await list(client)).results.find((x) => x.domain === 'one.example.com')).toMatchObject({ status: 'deleting' });
    expect((await client.get(`${R}/${one.id as string}/`)).body).toMatchObject({ status: 'deleting' });
    expect((await client.post(`${R}/`, { domain: 'three.example.com' })).status).toBe(400);
    // Deleting it again answers as the first time, and it stays deleting.
    expect((await client.delete(`${R}/${one.id as string}/`)).body).toEqual({ success: true });

    // Once the platform has finished, it is gone and the slot is free.
    await fetch(`${sb.baseUrl}/_sandbox/advance?seconds=61`, { method: 'POST' });
    expect((await list(client)).results.map((x) => x.domain)).toEqual(['two.example.com']);
    expect((await client.get(`${R}/${one.id as string}/`)).status).toBe(404);
    expect((await client.post(`${R}/`, { domain: 'three.example.com' })).status).toBe(200);
    expect(sb.store.snapshot().proxy_records.map((x) => x.domain).sort()).toEqual(['three.example.com', 'two.example.com']);
  });

  it('deletes a record that was never provisioned (waiting, erroring, timed_out) at once, whatever the delay', async () => {
    const sb = await inProcessSandbox({
      deletionDelaySeconds: 60,
      seed: { organizations: [{ id: DEFAULT_ORG, max_proxy_records: 5, proxy_records: [{ domain: 'w.example.com' }, { domain: 'x.example.com', status: 'timed_out' }, { domain: 'y.example.com', status: 'erroring', message: 'CAA record forbids issuing' }] }] },
    });
    const client = api(sb.baseUrl, sb.apiKey);
    const before = await list(client);
    expect(before.max_proxy_records).toBe(5);
    expect(before.results.find((x) => x.domain === 'y.example.com')).toMatchObject({ status: 'erroring', message: 'CAA record forbids issuing' });
    for (const rec of before.results) expect((await client.delete(`${R}/${rec.id as string}/`)).status).toBe(200);
    expect((await list(client)).results).toEqual([]);
  });

  it('lets only organization admins write: a member key reads, and its writes answer 403 with the real reason', async () => {
    const sb = await inProcessSandbox({
      seed: {
        users: [{ first_name: 'Mia', email: 'member@example.com', level: 'member', keys: [{ key: 'phx_member_key', scopes: ['*'] }] }],
        organizations: [{ id: DEFAULT_ORG, proxy_records: [{ domain: 'm.example.com' }] }],
      },
    });
    const member = api(sb.baseUrl, 'phx_member_key');
    const rec = (await list(member)).results[0] as Rec;
    expect(rec.domain).toBe('m.example.com');
    for (const r of [await member.post(`${R}/`, { domain: 'n.example.com' }), await member.delete(`${R}/${rec.id as string}/`)]) {
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'permission_denied', detail: 'Your organization access level is insufficient.' });
    }
    expect((await list(member)).results).toHaveLength(1);
  });
});
