// People and access as code, end to end: the real CLI against the sandbox, which keeps members,
// invites, role memberships and project access controls as the real API does. A configuration
// with members (levels, invites, an expired invite sent again), role members (added by user uuid,
// removed by membership id; an invited-only email waits) and project access (defaults, role and
// member grants, resource rules) converges, plans empty, survives a second run, exports and
// re-plans empty; owners and the key's own user are never changed; each refusal has a test.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expectCanonical } from './support/canonical.js';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { SandboxHandle } from '../src/sandbox/server.js';
import type { SeedDocument } from '../src/sandbox/seed.js';
import { api, inProcessSandbox, recordRequests, stopAllSandboxes } from './support/sandbox.js';
import { validateRequest } from './support/openapi.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;
afterEach(async () => {
  ws?.remove();
  await stopAllSandboxes();
});

const SEED: SeedDocument = {
  users: [
    { first_name: 'Alice', email: 'alice@example.com', level: 'admin' },
    { first_name: 'Bob', email: 'bob@example.com', level: 'member' },
    { first_name: 'Carol', email: 'carol@example.com', level: 'member' },
    { first_name: 'Olive', email: 'olive@example.com', level: 'owner' },
  ],
  organizations: [{
    id: ORG, name: 'Acme',
    projects: [{ id: 111, name: 'Web' }],
    roles: [{ name: 'Support', members: ['carol@example.com'] }],
    invites: [{ email: 'old@example.com', level: 'member', age_days: 5 }],
  }],
} as SeedDocument;

const PEOPLE = `members:
  - email: alice@example.com
    level: member
  - email: Bob@Example.com
    level: admin
  - email: new.hire@example.com
    level: member
  - email: old@example.com
roles:
  - name: Engineers
    members: [alice@example.com, new.hire@example.com]
  - name: Support
    members: [bob@example.com]
projects:
  - id: 111
    access:
      default: member
      roles: { Engineers: admin }
      members: { alice@example.com: admin }
      resources:
        feature_flag: { default: viewer, roles: { Engineers: editor } }
`;

interface PlanJson { changes: Array<{ address: string; action: string; fields: Array<{ path: string; before: unknown; after: unknown }> }>; warnings: string[]; unmanaged: Array<{ address: string }> }

/** Every API request the CLI sent to the sandbox: method, path and body. */
let sent: Array<{ method: string; path: string; body: unknown }> = [];

async function start(seed: SeedDocument = SEED): Promise<void> {
  sandbox = await inProcessSandbox({ seed });
  ws = workspace(sandbox);
  sent = recordRequests(sandbox.server);
}

async function planJson(file: string): Promise<PlanJson> {
  const r = await ws.cli(['plan', file, '--format', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as PlanJson;
}

const addresses = (plan: PlanJson) => plan.changes.map((c) => `${c.action} ${c.address}`);
const state = () => sandbox.store.snapshot();
const emailOf = (userId: number) => [state().user, ...state().users].find((u) => u.id === userId)?.email;

describe('members, role members and project access', () => {
  it('converge from one file: levels, invites (an expired one sent again), role members, access rules; then plan empty, twice, and after the invitee joins the waiting membership is added', async () => {
    await start();
    const file = ws.write('hogsync.yaml', config(PEOPLE));
    const plan = await planJson(file);
    expect(addresses(plan)).toEqual([
      `update member:${ORG}/alice@example.com`,
      `update member:${ORG}/Bob@Example.com`,
      `create member:${ORG}/new.hire@example.com`,
      `create member:${ORG}/old@example.com`,
      `create role:${ORG}/Engineers`,
      `create role_membership:${ORG}/Engineers/alice@example.com`,
      `create role_membership:${ORG}/Support/bob@example.com`,
      `delete role_membership:${ORG}/Support/carol@example.com`,
      `create access:${ORG}/111/default`,
      `create access:${ORG}/111/role/Engineers`,
      `create access:${ORG}/111/member/alice@example.com`,
      `create access:${ORG}/111/feature_flag/default`,
      `create access:${ORG}/111/feature_flag/role/Engineers`,
    ]);
    // Levels are shown by name, as files write them.
    expect(plan.changes[0]?.fields).toEqual([{ path: 'level', before: 'admin', after: 'member', sensitive: false }]);
    expect(plan.warnings).toContainEqual(`role_membership:${ORG}/Engineers/new.hire@example.com: waiting for new.hire@example.com to accept the invite (added to the role once they join)`);

    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('invited new.hire@example.com as member');
    const s = state();
    const levelOf = (email: string) => s.memberships?.find((m) => m.organization === ORG && emailOf(m.user_id as number) === email)?.level;
    expect([levelOf('alice@example.com'), levelOf('bob@example.com'), levelOf('olive@example.com')]).toEqual([1, 8, 15]);
    expect((s.invites ?? []).map((i) => i.target_email).sort()).toEqual(['new.hire@example.com', 'old@example.com']);
    const engineers = s.roles.find((r) => r.name === 'Engineers');
    const support = s.roles.find((r) => r.name === 'Support');
    expect(engineers?.members.map((m) => emailOf((m as { user_id: number }).user_id))).toEqual(['alice@example.com']);
    expect(support?.members.map((m) => emailOf((m as { user_id: number }).user_id))).toEqual(['bob@example.com']);

    // Open invites are `invited`: a note, no change, no drift.
    const again = await ws.cli(['plan', file, '--detailed-exitcode', '--format', 'json']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const quiet = JSON.parse(again.stdout) as PlanJson;
    expect(quiet.changes).toEqual([]);
    expect(quiet.warnings).toContainEqual(expect.stringMatching(new RegExp(`^member:${ORG}/new.hire@example.com: invited on \\d{4}-\\d{2}-\\d{2}: waiting for new.hire@example.com to accept the invite`)));
    expect((await ws.cli(['drift', file])).code).toBe(0);
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);

    // Once the invitee joins, the membership that waited is added, and then nothing is left.
    const http = api(sandbox.baseUrl, sandbox.apiKey);
    expect((await http.post('/_sandbox/accept-invite/', { email: 'new.hire@example.com', first_name: 'New' })).status).toBe(200);
    const joined = await planJson(file);
    expect(addresses(joined)).toEqual([`create role_membership:${ORG}/Engineers/new.hire@example.com`]);
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);

    // Every request the CLI sent is one the real API documents, with a body it takes.
    const calls = sent.filter((r) => r.path.startsWith('/api/'));
    expect(calls.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, 'ID')}`).sort()).toEqual(expect.arrayContaining([
      'DELETE /api/organizations/ID/roles/ID/role_memberships/ID/', 'PATCH /api/organizations/ID/members/ID/', 'POST /api/organizations/ID/invites/',
      'POST /api/organizations/ID/roles/ID/role_memberships/', 'PUT /api/projects/111/access_controls/', 'PUT /api/projects/111/resource_access_controls/',
    ]));
    expect(calls.flatMap((r) => validateRequest(r.method, r.path, r.body).map((p) => `${r.method} ${r.path}: ${p}`))).toEqual([]);
  });

  it('exports members (owners as a comment), role members and every access rule, and the export plans empty', async () => {
    await start();
    const file = ws.write('hogsync.yaml', config(PEOPLE));
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    const out = ws.path('exported.yaml');
    const exported = await ws.cli(['export', '--organization', ORG, '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expectCanonical(text);
    expect(text).toContain('email: alice@example.com');
    expect(text).toContain('  # an owner of the organization: owners are set in the web app, never by files\n  - email: olive@example.com\n');
    expect(text).toContain('    members:\n      - alice@example.com\n');
    expect(text).toContain('    access:\n      default: member\n      roles:\n        Engineers: admin\n      members:\n        alice@example.com: admin\n      resources:\n');
    const replanned = await ws.cli(['plan', out, '--detailed-exitcode']);
    expect(replanned.code, replanned.stdout + replanned.stderr).toBe(0);

    // --kind names the kinds table's rows: roles with their members, members of the organization only.
    const roles = ws.path('roles.yaml');
    expect((await ws.cli(['export', '--organization', ORG, '--kind', 'roles', '--out', roles])).code).toBe(0);
    const rolesOnly = parse(readFileSync(roles, 'utf8')) as { roles: Array<{ name: string; members?: string[] }>; members?: unknown };
    expect(rolesOnly.members).toBeUndefined();
    expect(rolesOnly.roles.find((r) => r.name === 'Engineers')?.members).toEqual(['alice@example.com']);
    const members = ws.path('members.yaml');
    expect((await ws.cli(['export', '--organization', ORG, '--kind', 'members', '--out', members])).code).toBe(0);
    const membersOnly = parse(readFileSync(members, 'utf8')) as { roles?: unknown; members: Array<{ email: string }> };
    expect(membersOnly.roles).toBeUndefined();
    expect(membersOnly.members.map((m) => m.email)).toContain('alice@example.com');
    const wrong = await ws.cli(['export', '--organization', ORG, '--kind', 'role_memberships']);
    expect(wrong.code).toBe(1);
    const listed = /--kind takes a key of the configuration: (.*); got/.exec(wrong.stderr)?.[1]?.split(', ') ?? [];
    expect(listed).toContain('members');
    expect(listed.length).toBe(new Set(listed).size);

    // show prints them as a file would declare them.
    const shown = await ws.cli(['show', `member:${ORG}/alice*`, `role_membership:${ORG}/Engineers/*`, `access:${ORG}/111/feature_flag/*`]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('members:\n  - email: alice@example.com\n    level: member\n');
    expect(shown.stdout).toContain('  - name: Engineers\n    members:\n      - alice@example.com\n');
    expect(shown.stdout).toContain('    access:\n      resources:\n        feature_flag:\n          default: viewer\n          roles:\n            Engineers: editor\n');
  });

  it('owners and the key\'s own user are never changed or removed: a plan error at the line that asks; prune passes them by', async () => {
    await start();
    const owner = ws.write('owner.yaml', config('members:\n  - email: olive@example.com\n    level: admin\n'));
    const r = await ws.cli(['plan', owner]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${owner}:3:5: member "olive@example.com" is an owner of the organization: hogsync never changes it, whatever the files say; remove the level it asks for`);
    const self = ws.write('self.yaml', config(`members:\n  - email: ${state().user.email}\n    ensure: absent\n`));
    const s = await ws.cli(['plan', self]);
    expect(s.code).toBe(1);
    expect(s.stderr).toContain("is an owner of the organization: hogsync never removes it");
    const prune = ws.write('prune.yaml', config('members:\n  - email: alice@example.com\nprune: { members: true }\n'));
    const pruned = await planJson(prune);
    // Bob and Carol go (and the expired invite is no one's); owners and the key's user stay unmanaged.
    expect(addresses(pruned).sort()).toEqual([`delete member:${ORG}/bob@example.com`, `delete member:${ORG}/carol@example.com`]);
    expect(pruned.unmanaged.map((u) => u.address)).toEqual(expect.arrayContaining([`member:${ORG}/olive@example.com`, `member:${ORG}/${state().user.email}`]));
  });

  it('the key\'s own user (an admin here) is never changed or removed, and prune passes them by', async () => {
    const KEY = 'phx_alice_admin_key_0123456789abcdef';
    const users = (SEED.users ?? []).map((u) => (u.email === 'alice@example.com' ? { ...u, keys: [{ key: KEY, scopes: ['*'] }] } : u));
    await start({ ...SEED, users } as SeedDocument);
    const self = ws.write('self.yaml', config('members:\n  - email: alice@example.com\n    level: member\n'));
    const r = await ws.cli(['plan', self], { HOGSYNC_API_KEY: KEY });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${self}:3:5: member "alice@example.com" is the API key's own user: hogsync never changes it, whatever the files say; remove the level it asks for`);
    const prune = ws.write('prune.yaml', config('members:\n  - email: bob@example.com\nprune: { members: true }\n'));
    const p = await ws.cli(['plan', prune, '--format', 'json'], { HOGSYNC_API_KEY: KEY });
    expect(p.code, p.stderr).toBe(0);
    const pruned = JSON.parse(p.stdout) as PlanJson;
    expect(addresses(pruned)).toEqual([`delete member:${ORG}/carol@example.com`]);
    expect(pruned.unmanaged.map((u) => u.address)).toContain(`member:${ORG}/alice@example.com`);
  });

  it('refuses, at their lines: level owner (validate), a role member who is no member and not declared, a grant to a role no one has', async () => {
    await start();
    const owner = ws.write('level.yaml', config('members:\n  - email: x@example.com\n    level: owner\n'));
    const v = await ws.cli(['validate', owner]);
    expect(v.code).toBe(1);
    expect(v.stdout + v.stderr).toContain(`${owner}:4:12: level: must be "member" or "admin", got string "owner"`);
    const stranger = ws.write('stranger.yaml', config('roles:\n  - name: Support\n    members: [carol@example.com, zed@example.com]\n'));
    const r = await ws.cli(['plan', stranger]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${stranger}:4:34: zed@example.com is not a member of the organization and no file declares it under members: add it under members (the plan invites it), or correct the email`);
    // prune.members would remove Carol and Bob, whom a role and a grant of the files still name: the files contradict themselves.
    const contradicts = ws.write('contradicts.yaml', config('members:\n  - email: alice@example.com\nroles:\n  - name: Support\n    members: [carol@example.com]\n'
      + 'projects:\n  - id: 111\n    access:\n      members: { bob@example.com: admin }\nprune: { members: true }\n'));
    const before = state();
    const c = await ws.cli(['apply', contradicts, '--auto-approve']);
    expect(c.code).toBe(1);
    expect(c.stderr).toBe(`error: ${contradicts}:6:15: role membership "Support/carol@example.com" needs member carol@example.com, which this plan deletes `
      + `(member:${ORG}/carol@example.com, by ${contradicts}:11:10): the files contradict themselves; declare carol@example.com under members, or remove this entry\n`
      + `${contradicts}:10:18: access rule "111/member/bob@example.com" needs member bob@example.com, which this plan deletes `
      + `(member:${ORG}/bob@example.com, by ${contradicts}:11:10): the files contradict themselves; declare bob@example.com under members, or remove this entry\n2 errors in 1 file\n`);
    expect(sent.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(state().members).toEqual(before.members);
    const ghost = ws.write('ghost.yaml', config('projects:\n  - id: 111\n    access:\n      roles: { Ghosts: admin }\n'));
    const g = await ws.cli(['plan', ghost]);
    expect(g.code).toBe(1);
    expect(g.stderr).toContain('grants to role Ghosts, which does not exist and no file declares');
    const action = ws.write('action.yaml', config('projects:\n  - id: 111\n    access:\n      resources:\n        action: { default: none }\n'));
    const a = await ws.cli(['validate', action]);
    expect(a.code).toBe(1);
    expect(a.stdout + a.stderr).toContain(`${action}:6:28: access.resources.action.default: must be "viewer", "editor" or "manager", got string "none"`);
  });

  it('role grants without the role-based access feature are a plan error before anything is sent; without advanced permissions a warning', async () => {
    const seed = { ...SEED, organizations: [{ ...SEED.organizations![0]!, features: ['advanced_permissions'] }] } as SeedDocument;
    await start(seed);
    const file = ws.write('hogsync.yaml', config('projects:\n  - id: 111\n    access:\n      default: member\n      roles: { Support: admin }\n'));
    const r = await ws.cli(['apply', file, '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('does not have the role-based access feature (role_based_access)');
    expect(state().access_controls ?? []).toEqual([]);
    await stopAllSandboxes();
    await start({ ...SEED, organizations: [{ ...SEED.organizations![0]!, features: [] }] } as SeedDocument);
    const plain = ws.write('plain.yaml', config('projects:\n  - id: 111\n    access:\n      default: member\n'));
    const p = await planJson(plain);
    expect(p.warnings).toContainEqual(expect.stringContaining('does not have the advanced permissions feature (advanced_permissions): the API may accept these rules and not enforce them'));
  });

  it('a rule written null is removed; rules a file does not write stay unless prune.access; a role rename keeps its members', async () => {
    await start();
    const file = ws.write('hogsync.yaml', config(PEOPLE));
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    const partial = ws.write('partial.yaml', config('projects:\n  - id: 111\n    access:\n      members: { alice@example.com: null }\n'));
    const plan = await planJson(partial);
    expect(addresses(plan)).toEqual([`delete access:${ORG}/111/member/alice@example.com`]);
    expect((await ws.cli(['apply', partial, '--auto-approve'])).code).toBe(0);
    expect((await planJson(partial)).changes).toEqual([]);
    const owned = ws.write('owned.yaml', config('projects:\n  - id: 111\n    access:\n      default: member\nprune: { access: true }\n'));
    expect(addresses(await planJson(owned)).sort()).toEqual([
      `delete access:${ORG}/111/feature_flag/default`, `delete access:${ORG}/111/feature_flag/role/Engineers`, `delete access:${ORG}/111/role/Engineers`,
    ]);
    const renamed = ws.write('renamed.yaml', config('roles:\n  - name: Builders\n    renamed_from: Engineers\n    members: [alice@example.com]\n'));
    expect(addresses(await planJson(renamed))).toEqual([`update role:${ORG}/Builders`]);
  });

  it('deleting a role with the grants to it (prune.access, or a grant written null) removes the grants first: one apply, then nothing to do', async () => {
    await start();
    const file = ws.write('hogsync.yaml', config(PEOPLE));
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    const gone = ws.write('gone.yaml', config('roles:\n  - name: Support\n    members: [bob@example.com]\nprojects:\n  - id: 111\n    access:\n      default: member\n      roles: { Engineers: null }\n      members: { alice@example.com: admin }\nprune: { roles: true, access: true }\n'));
    expect(addresses(await planJson(gone)).sort()).toEqual([
      `delete access:${ORG}/111/feature_flag/default`, `delete access:${ORG}/111/feature_flag/role/Engineers`, `delete access:${ORG}/111/role/Engineers`, `delete role:${ORG}/Engineers`,
    ]);
    sent.length = 0;
    const applied = await ws.cli(['apply', gone, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).not.toContain('will not help');
    const writes = sent.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, 'ID')}`);
    expect(writes.indexOf('DELETE /api/organizations/ID/roles/ID/')).toBe(writes.length - 1);
    expect((await ws.cli(['plan', gone, '--detailed-exitcode'])).code).toBe(0);
  });

  it('examples/people-and-access converges against its seed: invites, role members, access; then plans empty', async () => {
    await start(parse(readFileSync('examples/people-and-access/sandbox/seed.yaml', 'utf8')) as SeedDocument);
    const example = 'examples/people-and-access';
    expect((await ws.cli(['validate', `${process.cwd()}/${example}`])).code).toBe(0);
    const applied = await ws.cli(['apply', `${process.cwd()}/${example}`, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('invited new.hire@example.com as member');
    const again = await ws.cli(['plan', `${process.cwd()}/${example}`, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout + again.stderr).toContain('waiting for new.hire@example.com to accept the invite');
  });

  it('targets and --changed-since reach the new kinds', async () => {
    await start();
    const file = ws.write('hogsync.yaml', config(PEOPLE));
    const r = await ws.cli(['plan', file, '--format', 'json', '--target', 'role_membership:*/Support/*']);
    expect(r.code, r.stderr).toBe(0);
    expect(addresses(JSON.parse(r.stdout) as PlanJson)).toEqual([
      `create role_membership:${ORG}/Support/bob@example.com`, `delete role_membership:${ORG}/Support/carol@example.com`,
    ]);
    const a = await ws.cli(['plan', file, '--format', 'json', '--target', 'access:*/111/feature_flag/*']);
    expect(addresses(JSON.parse(a.stdout) as PlanJson)).toEqual([`create access:${ORG}/111/feature_flag/default`, `create access:${ORG}/111/feature_flag/role/Engineers`]);

    // --changed-since: after apply, a commit that drops Bob from Support and lowers a grant plans exactly those.
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    const git = (...args: string[]) => execFileSync('git', args, {
      cwd: ws.dir, stdio: 'ignore',
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' },
    });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'people');
    ws.write('hogsync.yaml', config(PEOPLE.replace('members: [bob@example.com]', 'members: []').replace('members: { alice@example.com: admin }', 'members: { alice@example.com: member }')));
    const changed = await ws.cli(['plan', file, '--format', 'json', '--changed-since', 'main']);
    expect(changed.code, changed.stderr).toBe(0);
    expect(addresses(JSON.parse(changed.stdout) as PlanJson)).toEqual([
      `delete role_membership:${ORG}/Support/bob@example.com`, `update access:${ORG}/111/member/alice@example.com`,
    ]);
  });
});
