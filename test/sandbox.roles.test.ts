import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { schemaErrors } from './support/openapi.js';

type Rec = Record<string, unknown>;
interface Page { count: number; next: string | null; previous: string | null; results: Rec[] }
const ORG_A = '0190d1c4-6a1e-7c3d-8e4f-0000000000a1';
const ORG_B = '0190d1c4-6a1e-7c3d-8e4f-0000000000b2';
const A = `/api/organizations/${ORG_A}/roles`;
const B = `/api/organizations/${ORG_B}/roles`;

let c: Api;
let baseUrl = '';
beforeEach(async () => {
  const sb = await inProcessSandbox({ seed: { organizations: [{ id: ORG_A, roles: [{ name: 'Seeded', feature_flags_access_level: 37 }] }, { id: ORG_B }] } });
  baseUrl = sb.baseUrl;
  c = api(sb.baseUrl, sb.apiKey);
});
afterEach(stopAllSandboxes);

describe('sandbox roles', () => {
  it('creates a role (201) with the real record shape and access level 21 by default', async () => {
    const r = await c.post(`${A}/`, { name: 'Engineers' });
    expect(r.status).toBe(201);
    const role = r.body as Rec;
    expect(role).toMatchObject({ name: 'Engineers', feature_flags_access_level: 21, members: '[]', is_default: 'false' });
    expect(role.created_by).toMatchObject({ id: 1, email: 'sandbox@hogsync.dev', hedgehog_config: null });
    expect(schemaErrors('Role', role)).toEqual([]);
    const withLevel = await c.post(`${A}/`, { name: 'Editors', feature_flags_access_level: 37 });
    expect((withLevel.body as Rec).feature_flags_access_level).toBe(37);
  });

  it('lists (paginated), reads, updates and deletes (204)', async () => {
    const created = (await c.post(`${A}/`, { name: 'Support' })).body as Rec;
    const list = (await c.get(`${A}/?limit=1`)).body as Page;
    expect(schemaErrors('PaginatedRoleList', list)).toEqual([]);
    expect(list.count).toBe(2);
    expect(list.next).toBe(`${baseUrl}${A}/?limit=1&offset=1`);
    expect(((await c.get(list.next as string)).body as Page).results[0]?.name).toBe('Support');

    expect(((await c.get(`${A}/${created.id as string}/`)).body as Rec).name).toBe('Support');
    const patched = await c.patch(`${A}/${created.id as string}/`, { name: 'Customer support', feature_flags_access_level: 37, members: 'ignored' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: created.id, name: 'Customer support', feature_flags_access_level: 37, members: '[]' });

    expect((await c.delete(`${A}/${created.id as string}/`)).status).toBe(204);
    expect((await c.get(`${A}/${created.id as string}/`)).status).toBe(404);
    expect(((await c.get(`${A}/`)).body as Page).count).toBe(1);
  });

  it('keeps names unique per organization without regard to case', async () => {
    for (const name of ['Seeded', 'seeded', 'SEEDED']) {
      const r = await c.post(`${A}/`, { name });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', code: 'unique', attr: 'name' });
    }
    // Another organization may use the name.
    expect((await c.post(`${B}/`, { name: 'Seeded' })).status).toBe(201);
    // Renaming onto another role's name is refused; changing one's own case is not.
    const other = (await c.post(`${A}/`, { name: 'Other' })).body as Rec;
    expect((await c.patch(`${A}/${other.id as string}/`, { name: 'SEEDED' })).status).toBe(400);
    expect(((await c.patch(`${A}/${other.id as string}/`, { name: 'OTHER' })).body as Rec).name).toBe('OTHER');
  });

  it('validates name and access level', async () => {
    const cases: [Rec, string, string][] = [
      [{}, 'name', 'required'],
      [{ name: '' }, 'name', 'blank'],
      [{ name: 'x'.repeat(201) }, 'name', 'max_length'],
      [{ name: 'Ok', feature_flags_access_level: 5 }, 'feature_flags_access_level', 'invalid_choice'],
      [{ name: 'Ok', feature_flags_access_level: 'edit' }, 'feature_flags_access_level', 'invalid_choice'],
    ];
    for (const [body, attr, code] of cases) {
      const r = await c.post(`${A}/`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', code, attr });
    }
    expect(((await c.get(`${A}/`)).body as Page).count).toBe(1);
  });

  it('answers 404 for roles of another organization and unknown ids', async () => {
    const a = (await c.post(`${A}/`, { name: 'Mine' })).body as Rec;
    expect((await c.get(`${B}/${a.id as string}/`)).status).toBe(404);
    expect((await c.delete(`${B}/${a.id as string}/`)).status).toBe(404);
    expect((await c.get(`${A}/00000000-0000-0000-0000-000000000000/`)).status).toBe(404);
  });
});
