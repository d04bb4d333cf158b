// The sandbox's people: organization members (list, level, removal), invites (expiry by the
// sandbox clock, replacement, acceptance through /_sandbox/accept-invite/), role memberships,
// a project's access controls, and project creation, with the real API's answers and refusals.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { schemaErrors } from './support/openapi.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import type { SeedDocument } from '../src/sandbox/seed.js';

type Rec = Record<string, unknown>;
interface Page { count: number; next: string | null; results: Rec[] }
const ORG = '0190d1c4-6a1e-7c3d-8e4f-0000000000a1';
const OTHER = '0190d1c4-6a1e-7c3d-8e4f-0000000000b2';
const SOLO = '0190d1c4-6a1e-7c3d-8e4f-0000000000c3';
const O = `/api/organizations/${ORG}`;
const UUID = (n: number) => `0190d1c4-6a1e-7c3d-8e4f-${String(n).padStart(12, '0')}`;
const SANDBOX_USER = UUID(1);
const [ADA, BOB, CAT, OWEN] = [UUID(2), UUID(3), UUID(4), UUID(5)];
const denied = (detail: string) => ({ type: 'authentication_error', code: 'permission_denied', detail, attr: null });

const seed: SeedDocument = {
  users: [
    { first_name: 'Ada', email: 'ada@example.com', level: 'admin', keys: [{ key: 'phx_ada_admin_key', scopes: ['*'] }] },
    { first_name: 'Bob', email: 'bob@example.com', level: 'member', keys: [{ key: 'phx_bob_member_key', scopes: ['*'] }] },
    { first_name: 'Cat', email: 'cat@example.com', level: 'member' },
    { first_name: 'Owen', email: 'owen@example.com', level: 'owner' },
  ],
  organizations: [
    {
      id: ORG, projects: [{ id: 100, name: 'Web' }], roles: [{ name: 'Support', members: ['cat@example.com'] }],
      invites: [{ email: 'old@example.com', age_days: 4 }, { email: 'new@example.com', level: 'admin' }],
    },
    { id: OTHER, members: ['bob@example.com'], features: ['tagging'], projects: [{ id: 200, name: 'Other' }], roles: [{ name: 'Elsewhere' }] },
    { id: SOLO, features: [] },
  ],
};

let sb: SandboxHandle;
let owner: Api;
let admin: Api;
let member: Api;
async function start(doc: SeedDocument = seed): Promise<void> {
  sb = await inProcessSandbox({ seed: doc });
  owner = api(sb.baseUrl, sb.apiKey);
  admin = api(sb.baseUrl, 'phx_ada_admin_key');
  member = api(sb.baseUrl, 'phx_bob_member_key');
}
afterEach(stopAllSandboxes);

const members = async (c: Api, org = ORG) => ((await c.get(`/api/organizations/${org}/members/`)).body as Page);
const memberOf = async (uuid: string, org = ORG) => (await members(owner, org)).results.find((m) => (m.user as Rec).uuid === uuid) as Rec;

describe('sandbox memberships in old states', () => {
  it('a state file without memberships has every user in every organization, as before; they persist once derived', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hogsync-people-'));
    const statePath = join(dir, 'state.json');
    await start({ ...seed, organizations: [{ id: ORG }, { id: OTHER }] });
    const state = sb.store.snapshot();
    delete state.memberships;
    writeFileSync(statePath, JSON.stringify(state));
    await stopAllSandboxes();
    sb = await inProcessSandbox({ statePath });
    owner = api(sb.baseUrl, state.primary_key);
    for (const org of [ORG, OTHER]) expect((await members(owner, org)).results.map((m) => [(m.user as Rec).email, m.level]).sort()).toEqual([
      ['ada@example.com', 8], ['bob@example.com', 1], ['cat@example.com', 1], ['owen@example.com', 15], ['sandbox@hogsync.dev', 15]]);
    expect((await owner.delete(`${O}/members/${CAT}/`)).status).toBe(204);
    await stopAllSandboxes();
    expect((JSON.parse(readFileSync(statePath, 'utf8')) as { memberships: unknown[] }).memberships).toHaveLength(9);
  });
});

describe('sandbox members', () => {
  it('lists members per organization, paginated, in the real shape; a seed may name an organization\'s members', async () => {
    await start();
    const page = await members(owner);
    expect(page.count).toBe(5);
    expect(schemaErrors('PaginatedOrganizationMemberList', page)).toEqual([]);
    const ada = await memberOf(ADA);
    expect(ada).toMatchObject({ level: 8, is_2fa_enabled: false, has_social_auth: false, user: { uuid: ADA, email: 'ada@example.com' } });
    const limited = (await owner.get(`${O}/members/?limit=2&offset=2`)).body as Page;
    expect(limited.results).toHaveLength(2);
    expect(limited.next).toBe(`${sb.baseUrl}${O}/members/?limit=2&offset=4`);
    // OTHER lists only Bob besides the sandbox user; Ada, no member of it, is refused there.
    expect((await members(owner, OTHER)).results.map((m) => (m.user as Rec).email).sort()).toEqual(['bob@example.com', 'sandbox@hogsync.dev']);
    const r = await admin.get(`/api/organizations/${OTHER}/members/`);
    expect(r.status).toBe(403);
    expect(r.body).toEqual(denied('You do not have permission to perform this action.'));
    // No GET of one member.
    expect((await owner.get(`${O}/members/${ADA}/`)).status).toBe(405);
  });

  it('changes a level (PATCH), refusing one\'s own, a non-admin, raising above oneself, and bad levels', async () => {
    await start();
    const ok = await admin.patch(`${O}/members/${CAT}/`, { level: 8 });
    expect(ok.status).toBe(200);
    expect(schemaErrors('OrganizationMember', ok.body)).toEqual([]);
    expect(ok.body).toMatchObject({ level: 8, user: { uuid: CAT } });
    const own = await admin.patch(`${O}/members/${ADA}/`, { level: 1 });
    expect([own.status, own.body]).toEqual([403, denied("You can't change your own access level.")]);
    const byMember = await member.patch(`${O}/members/${CAT}/`, { level: 1 });
    expect([byMember.status, byMember.body]).toEqual([403, denied('You can only edit others if you are an admin.')]);
    const toOwner = await admin.patch(`${O}/members/${BOB}/`, { level: 15 });
    expect([toOwner.status, toOwner.body]).toEqual([403, denied("You can only make another member owner if you're this organization's owner.")]);
    const aboveSelf = await admin.patch(`${O}/members/${OWEN}/`, { level: 1 });
    expect([aboveSelf.status, aboveSelf.body]).toEqual([403, denied('You can only edit others with level lower or equal to you.')]);
    const bad = await owner.patch(`${O}/members/${BOB}/`, { level: 5 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: 'validation_error', code: 'invalid_choice', attr: 'level', detail: '"5" is not a valid choice.' });
    expect((await owner.patch(`${O}/members/${BOB}/`, { level: 15 })).status).toBe(200);
    expect((await owner.patch(`${O}/members/${UUID(99)}/`, { level: 1 })).status).toBe(404);
    // The level is the organization's: Bob, now an owner here, may write roles here.
    expect((await member.post(`${O}/roles/`, { name: 'Made by Bob' })).status).toBe(201);
  });

  it('removes a member (204) with their role memberships and access rules; refuses owners (400) and members removing others (403)', async () => {
    await start();
    const cat = await memberOf(CAT);
    expect((await owner.call('PUT', '/api/projects/100/access_controls/', { access_level: 'none', organization_member: cat.id })).status).toBe(200);
    const byMember = await member.delete(`${O}/members/${CAT}/`);
    expect([byMember.status, byMember.body]).toEqual([403, denied('You can only edit others if you are an admin.')]);
    const ownerOut = await owner.delete(`${O}/members/${OWEN}/`);
    expect(ownerOut.status).toBe(400);
    expect(ownerOut.body).toMatchObject({ type: 'validation_error', detail: 'Cannot leave the organization as its owner!' });
    expect((await owner.delete(`${O}/members/${SANDBOX_USER}/`)).status).toBe(400);
    expect((await admin.delete(`${O}/members/${CAT}/`)).status).toBe(204);
    expect(await memberOf(CAT)).toBeUndefined();
    const role = ((await owner.get(`${O}/roles/`)).body as Page).results[0] as Rec;
    expect(((await owner.get(`${O}/roles/${role.id as string}/role_memberships/`)).body as Page).count).toBe(0);
    expect(((await owner.get('/api/projects/100/access_controls/')).body as Rec).access_controls).toEqual([]);
    // A member may leave.
    expect((await member.delete(`${O}/members/${BOB}/`)).status).toBe(204);
    expect((await member.get(`${O}/members/`)).status).toBe(403);
  });
});

describe('sandbox invites', () => {
  it('lists seeded invites with is_expired from the sandbox clock; creates (201), replaces, deletes (204)', async () => {
    await start();
    const list = (await owner.get(`${O}/invites/`)).body as Page;
    expect(schemaErrors('PaginatedOrganizationInviteList', list)).toEqual([]);
    const byEmail = (p: Page) => Object.fromEntries(p.results.map((i) => [i.target_email, i]));
    expect(byEmail(list)['old@example.com']).toMatchObject({ is_expired: true, level: 1 });
    expect(byEmail(list)['new@example.com']).toMatchObject({ is_expired: false, level: 8 });

    const created = await member.post(`${O}/invites/`, { target_email: 'Dan@Example.COM', level: 1, first_name: 'Dan' });
    expect(created.status).toBe(201);
    expect(schemaErrors('OrganizationInvite', created.body)).toEqual([]);
    const first = created.body as Rec;
    expect(first).toMatchObject({ target_email: 'Dan@example.com', is_expired: false, created_by: { email: 'bob@example.com' } });
    const again = (await owner.post(`${O}/invites/`, { target_email: 'Dan@example.com', level: 8 })).body as Rec;
    expect(again.id).not.toBe(first.id);
    const after = byEmail((await owner.get(`${O}/invites/`)).body as Page);
    expect(Object.keys(after).filter((e) => e === 'Dan@example.com')).toHaveLength(1);
    expect(after['Dan@example.com']).toMatchObject({ id: again.id, level: 8 });

    sb.store.clock.advance(3 * 86_400_000 + 1000);
    expect(byEmail((await owner.get(`${O}/invites/`)).body as Page)['Dan@example.com']).toMatchObject({ is_expired: true });

    expect((await owner.delete(`${O}/invites/${again.id as string}/`)).status).toBe(204);
    expect((await owner.delete(`${O}/invites/${again.id as string}/`)).status).toBe(404);
  });

  it('refuses members\' emails (400), levels above the inviter\'s (403) and bad emails (400)', async () => {
    await start();
    const taken = await owner.post(`${O}/invites/`, { target_email: 'ada@example.com' });
    expect(taken.status).toBe(400);
    expect(taken.body).toMatchObject({ type: 'validation_error', detail: 'A user with this email address already belongs to the organization.' });
    const above = await member.post(`${O}/invites/`, { target_email: 'x@example.com', level: 8 });
    expect([above.status, above.body]).toEqual([403, denied('You cannot invite a user with a higher permission level than your own.')]);
    expect((await admin.post(`${O}/invites/`, { target_email: 'x@example.com', level: 8 })).status).toBe(201);
    for (const [body, attr, detail] of [[{}, 'target_email', 'This field is required.'], [{ target_email: 'nope' }, 'target_email', 'Enter a valid email address.'],
      [{ target_email: 'y@example.com', level: 3 }, 'level', '"3" is not a valid choice.']] as const) {
      const r = await owner.post(`${O}/invites/`, body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ attr, detail });
    }
  });

  it('POST /_sandbox/accept-invite/ turns a pending invite into a membership (creating the user), never an expired one', async () => {
    await start();
    const accept = (body: Rec) => fetch(`${sb.baseUrl}/_sandbox/accept-invite/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const expired = await accept({ email: 'old@example.com' });
    expect(expired.status).toBe(400);
    expect(((await expired.json()) as Rec).detail).toBe('This invite has expired. Please ask your admin for a new one.');
    expect((await accept({ email: 'nobody@example.com' })).status).toBe(400);
    const ok = await accept({ email: 'new@example.com', first_name: 'Nia' });
    expect(ok.status).toBe(200);
    const joined = (await ok.json()) as { user: Rec; memberships: Rec[] };
    expect(joined.user).toMatchObject({ email: 'new@example.com', first_name: 'Nia' });
    expect(joined.memberships).toEqual([expect.objectContaining({ organization: ORG, level: 8 })]);
    expect(await memberOf(joined.user.uuid as string)).toMatchObject({ level: 8 });
    expect(((await owner.get(`${O}/invites/`)).body as Page).results.map((i) => i.target_email)).toEqual(['old@example.com']);
  });
});

describe('sandbox role memberships', () => {
  it('adds (201) and removes (204) members of a role; refuses non-members, duplicates, and non-admins', async () => {
    await start();
    const role = ((await owner.get(`${O}/roles/`)).body as Page).results[0] as Rec;
    const R = `${O}/roles/${role.id as string}/role_memberships/`;
    const added = await admin.post(R, { user_uuid: BOB });
    expect(added.status).toBe(201);
    expect(schemaErrors('RoleMembership', added.body)).toEqual([]);
    expect(added.body).toMatchObject({ role_id: role.id, user: { uuid: BOB }, organization_member: { user: { uuid: BOB }, level: 1 } });
    const dup = await owner.post(R, { user_uuid: BOB });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ detail: 'User is already part of the role.' });
    const stranger = await owner.post(R, { user_uuid: UUID(77) });
    expect([stranger.status, (stranger.body as Rec).detail]).toEqual([400, 'User does not exist.']);
    // Ada is a user of the sandbox but no member of OTHER.
    const otherRole = ((await owner.get(`/api/organizations/${OTHER}/roles/`)).body as Page).results[0] as Rec;
    expect(((await owner.post(`/api/organizations/${OTHER}/roles/${otherRole.id as string}/role_memberships/`, { user_uuid: ADA })).body as Rec).detail).toBe('User does not exist.');
    expect((await owner.post(R, {})).body).toMatchObject({ attr: 'user_uuid', detail: 'This field is required.' });
    const byMember = await member.post(R, { user_uuid: CAT });
    expect([byMember.status, byMember.body]).toEqual([403, denied('You need to have admin level or higher.')]);

    const list = (await owner.get(R)).body as Page;
    expect(schemaErrors('PaginatedRoleMembershipList', list)).toEqual([]);
    expect(list.count).toBe(2);
    const id = (added.body as Rec).id as string;
    expect((await member.delete(`${R}${id}/`)).status).toBe(403);
    expect((await admin.delete(`${R}${id}/`)).status).toBe(204);
    expect((await admin.delete(`${R}${id}/`)).status).toBe(404);
    expect(((await owner.get(R)).body as Page).count).toBe(1);
  });
});

describe('sandbox access controls', () => {
  const AC = '/api/projects/100/access_controls/';
  const RAC = '/api/projects/100/resource_access_controls/';

  it('reads (unpaginated) and writes a project\'s own rules keyed by subject; null removes (204)', async () => {
    await start();
    const empty = (await owner.get(AC)).body as Rec;
    expect(schemaErrors('AccessControlsResponse', empty)).toEqual([]);
    expect(empty).toMatchObject({ access_controls: [], available_access_levels: ['none', 'member', 'admin'], default_access_level: 'admin', inherited_access: null, user_can_edit_access_levels: true });
    const bob = await memberOf(BOB);
    const put = await owner.call('PUT', AC, { access_level: 'member', organization_member: bob.id, resource: 'ignored', resource_id: 'ignored' });
    expect(put.status).toBe(200);
    expect(schemaErrors('AccessControl', put.body)).toEqual([]);
    expect(put.body).toMatchObject({ access_level: 'member', resource: 'project', resource_id: '100', organization_member: bob.id, role: null, created_by: 1 });
    expect((await owner.call('PUT', AC, { access_level: 'none' })).status).toBe(200);
    expect((await owner.call('PUT', AC, { access_level: 'admin', organization_member: bob.id })).status).toBe(200);
    const rules = ((await owner.get(AC)).body as { access_controls: Rec[] }).access_controls;
    expect(rules.map((r) => [r.organization_member, r.access_level])).toEqual([[bob.id, 'admin'], [null, 'none']]);
    // An explicit admin rule lets a member edit; a member's read shows their level.
    expect((await member.get(AC)).body).toMatchObject({ user_access_level: 'admin', user_can_edit_access_levels: true });
    expect((await member.call('PUT', AC, { access_level: null })).status).toBe(204);
    expect((await owner.call('PUT', AC, { access_level: null })).status).toBe(204);
    expect(((await owner.get(AC)).body as { access_controls: Rec[] }).access_controls).toHaveLength(1);
  });

  it('refuses bad levels, subjects and callers with the real API\'s messages', async () => {
    await start();
    const bob = await memberOf(BOB);
    const role = ((await owner.get(`${O}/roles/`)).body as Page).results[0] as Rec;
    const otherRole = ((await owner.get(`/api/organizations/${OTHER}/roles/`)).body as Page).results[0] as Rec;
    const otherBob = await memberOf(BOB, OTHER);
    const cases: Array<[string, Rec, number, Rec]> = [
      [AC, { access_level: 'viewer' }, 400, { attr: 'access_level', detail: 'Invalid access level. Must be one of: none, member, admin' }],
      [AC, {}, 400, { attr: 'access_level', detail: 'This field is required.' }],
      [AC, { access_level: 'member', organization_member: BOB }, 400, { attr: 'organization_member', detail: `Invalid pk "${BOB}" - object does not exist.` }],
      [AC, { access_level: 'member', organization_member: 'bob' }, 400, { attr: 'organization_member', detail: "Invalid organization member id. Use the 'id' field from the /api/organizations/<organization_id>/members/ endpoint." }],
      [AC, { access_level: 'member', organization_member: bob.id, role: role.id }, 400, { detail: 'You can not scope an access control to both a member and a role.' }],
      [AC, { access_level: 'member', role: otherRole.id }, 400, { detail: 'The role must belong to the same organization as this project.' }],
      [AC, { access_level: 'member', organization_member: otherBob.id }, 400, { detail: 'The member must belong to the same organization as this project.' }],
      [RAC, { access_level: 'viewer' }, 400, { attr: 'resource', detail: 'This field is required.' }],
      [RAC, { access_level: 'viewer', resource: 'spaceship' }, 400, { attr: 'resource' }],
      [RAC, { access_level: 'member', resource: 'feature_flag' }, 400, { detail: 'Invalid access level. Must be one of: none, viewer, editor, manager' }],
      [RAC, { access_level: 'none', resource: 'action' }, 400, { detail: "Access level cannot be set below the minimum 'viewer' for action." }],
      [RAC, { access_level: 'editor', resource: 'activity_log' }, 400, { detail: "Access level cannot be set above the maximum 'viewer' for activity_log." }],
      [RAC, { access_level: 'editor', resource: 'toolbar' }, 400, { detail: "Access level cannot be set above the maximum 'viewer' for toolbar." }],
      [RAC, { access_level: 'editor', resource: 'feature_flag', resource_id: '7' }, 403, { detail: 'Cannot modify access controls for a resource different from the URL target.' }],
    ];
    for (const [path, body, status, expected] of cases) {
      const r = await owner.call('PUT', path, body);
      expect({ body, status: r.status }).toEqual({ body, status });
      expect(r.body).toMatchObject(expected);
    }
    expect((await member.call('PUT', AC, { access_level: 'member' })).body).toEqual(denied('Must be admin to modify project permissions.'));
    expect((await member.call('PUT', RAC, { access_level: 'viewer', resource: 'feature_flag' })).body).toEqual(denied('Must be an Organization admin to modify project-wide permissions.'));
    // OTHER's plan has no role-based access: a role rule is refused; member rules are stored (no advanced_permissions either).
    const other = await owner.call('PUT', '/api/projects/200/access_controls/', { access_level: 'member', role: otherRole.id });
    expect([other.status, other.body]).toEqual([403, denied('Role-based access controls require the Role-based access feature.')]);
    expect((await owner.call('PUT', '/api/projects/200/access_controls/', { access_level: 'member', organization_member: otherBob.id })).status).toBe(200);
  });

  it('keeps resource-level rules apart; deleting a role removes its rules', async () => {
    await start();
    const role = ((await owner.get(`${O}/roles/`)).body as Page).results[0] as Rec;
    const put = await admin.call('PUT', RAC, { access_level: 'viewer', resource: 'feature_flag', role: role.id });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ resource: 'feature_flag', resource_id: null, role: role.id, access_level: 'viewer' });
    expect((await admin.call('PUT', RAC, { access_level: 'manager', resource: 'dashboard' })).status).toBe(200);
    const read = (await owner.get(RAC)).body as Rec;
    expect(schemaErrors('AccessControlsResponse', read)).toEqual([]);
    expect(read).toMatchObject({ default_access_level: 'editor', available_access_levels: ['none', 'viewer', 'editor', 'manager'], maximum_access_level: 'manager' });
    expect(read).not.toHaveProperty('inherited_access');
    expect((read.access_controls as Rec[]).map((r) => r.resource)).toEqual(['feature_flag', 'dashboard']);
    expect(((await owner.get(AC)).body as Rec).access_controls).toEqual([]);
    expect((await owner.delete(`${O}/roles/${role.id as string}/`)).status).toBe(204);
    expect(((await owner.get(RAC)).body as { access_controls: Rec[] }).access_controls.map((r) => r.resource)).toEqual(['dashboard']);
  });
});

describe('sandbox project creation', () => {
  it('creates a project (201) in the record\'s shape, with PATCH\'s rules and unique names', async () => {
    await start();
    const r = await admin.post(`${O}/projects/`, { name: '  Checkout  ', timezone: 'Europe/Berlin' });
    expect(r.status).toBe(201);
    expect(schemaErrors('ProjectBackwardCompat', r.body)).toEqual([]);
    const p = r.body as Rec;
    expect(p).toMatchObject({ name: 'Checkout', timezone: 'Europe/Berlin', organization: ORG, effective_membership_level: 8 });
    expect((await owner.get(`${O}/projects/${p.id as number}/`)).body).toMatchObject({ id: p.id, name: 'Checkout' });
    expect((await owner.post(`${O}/projects/`, { name: 'checkout' })).status).toBe(409);
    expect((await owner.post(`${O}/projects/`, {})).body).toMatchObject({ attr: 'name', detail: 'This field is required.' });
    expect((await owner.post(`${O}/projects/`, { name: 'x'.repeat(201) })).body).toMatchObject({ attr: 'name', code: 'max_length' });
    expect((await owner.post(`${O}/projects/`, { name: 'Bad', timezone: 'Mars/Base' })).status).toBe(400);
    const byMember = await member.post(`${O}/projects/`, { name: 'Mine' });
    expect([byMember.status, byMember.body]).toEqual([403, denied('Your organization access level is insufficient.')]);
  });

  it('refuses a second project where the plan has no multi-project feature', async () => {
    await start();
    const first = await owner.post(`/api/organizations/${SOLO}/projects/`, { name: 'Only' });
    expect(first.status).toBe(201);
    const second = await owner.post(`/api/organizations/${SOLO}/projects/`, { name: 'Second' });
    expect([second.status, second.body]).toEqual([403, denied('You have reached the maximum limit of allowed projects for your current plan. Upgrade your plan to be able to create and manage more projects.')]);
  });
});
