// The organization written as its slug or @current (the key owner's current one): resolved to its
// UUID once per run (one request), before anything else is read, and every address carries the
// UUID; a slug no organization of the key has is an error at the file's line. The sandbox serves
// the organizations as the API does (GET /api/organizations/ with slugs, GET …/@current/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;
const OTHER = '0190d1c4-6a1e-7c3d-8e4f-000000000bbb';

beforeAll(async () => {
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [
        { id: ORG, name: 'Acme Inc', projects: [{ id: 111, name: 'Web' }] },
        { id: OTHER, name: 'Other', slug: 'other-org', projects: [{ id: 222, name: 'Other web' }] },
      ],
    },
  });
  ws = workspace(sandbox);
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const roles = (organization: string) => `organization: '${organization}'\nroles:\n  - name: Engineers\n`;

describe('organization by UUID, slug or @current', () => {
  it('the sandbox lists the key\'s organizations with their slugs and answers @current', async () => {
    const http = api(sandbox.baseUrl, sandbox.apiKey);
    const listed = (await http.get('/api/organizations/')).body as { results: Array<{ id: string; slug: string }> };
    expect(listed.results.map((o) => [o.id, o.slug])).toEqual([[ORG, 'acme-inc'], [OTHER, 'other-org']]);
    expect(((await http.get('/api/organizations/@current/')).body as { id: string }).id).toBe(ORG);
    expect(((await http.get(`/api/organizations/${OTHER}/`)).body as { slug: string }).slug).toBe('other-org');
    expect((await http.get('/api/organizations/0190d1c4-6a1e-7c3d-8e4f-000000000ccc/')).status).toBe(404);
  });

  it('@current and a slug plan with the UUID in every address, after one request that resolves them', async () => {
    const current = ws.write('current/hogsync.yaml', roles('@current'));
    expect((await ws.cli(['validate', current])).code).toBe(0);
    const planned = await ws.cli(['plan', current, '--format', 'json', '--verbose']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string; organization: string }> };
    expect(plan.changes.map((c) => [c.address, c.organization])).toEqual([[`role:${ORG}/Engineers`, ORG]]);
    expect(planned.stderr.match(/request GET \/api\/organizations\/@current\/ /g)).toHaveLength(1);
    // The key's scopes are asked first (the resolving read needs organization:read), then the organization.
    expect(planned.stderr.split('\n').slice(0, 2).join('\n')).toMatch(/GET \/api\/personal_api_keys\/@current\/.*\n.*GET \/api\/organizations\/@current\//);
    expect((await ws.cli(['apply', current, '--auto-approve'])).code).toBe(0);
    expect((await ws.cli(['plan', current, '--detailed-exitcode'])).code).toBe(0);

    const slug = ws.write('slug/hogsync.yaml', roles('other-org'));
    const bySlug = await ws.cli(['plan', slug, '--format', 'json', '--verbose']);
    expect(bySlug.code, bySlug.stderr).toBe(0);
    expect((JSON.parse(bySlug.stdout) as { changes: Array<{ address: string }> }).changes.map((c) => c.address)).toEqual([`role:${OTHER}/Engineers`]);
    expect(bySlug.stderr.match(/request GET \/api\/organizations\/\?limit=1000 /g)).toHaveLength(1);
  });

  it('a slug no organization of the key has is an error at its line naming the slugs there are; a value of no form is refused by validate', async () => {
    const unknown = ws.write('unknown/hogsync.yaml', roles('acme'));
    const r = await ws.cli(['plan', unknown]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${unknown}:1:15: organization "acme": none of the key's organizations has that slug (its organizations' slugs: acme-inc, other-org)`);
    const bad = ws.write('bad/hogsync.yaml', roles('Acme Inc'));
    const v = await ws.cli(['validate', bad]);
    expect(v.code).toBe(1);
    expect(v.stdout + v.stderr).toMatch(/organization.*its slug \(acme-inc\), or @current/);
  });

  it('export, show and --target take the three forms files take, export and show default to @current, and each is resolved once', async () => {
    // export: by default the key owner's current organization; a slug; @current; the UUID.
    const byDefault = await ws.cli(['export', '--verbose']);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(byDefault.stdout).toContain(`organization: ${ORG}\n`);
    expect(byDefault.stderr.match(/request GET \/api\/organizations\/@current\/ /g)).toHaveLength(1);
    const current = await ws.cli(['export', '--organization', '@current']);
    expect(current.stdout).toBe(byDefault.stdout);
    const bySlug = await ws.cli(['export', '--organization', 'other-org']);
    expect(bySlug.code, bySlug.stderr).toBe(0);
    expect(bySlug.stdout).toContain(`organization: ${OTHER}\n`);
    expect(bySlug.stdout).toContain('name: Other web');
    const unknown = await ws.cli(['export', '--organization', 'acme']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('organization "acme": none of the key\'s organizations has that slug (its organizations\' slugs: acme-inc, other-org)');

    // show: in addresses and in --organization, and by default for `*`.
    const project = await ws.cli(['show', 'project:@current/111', '--format', 'json']);
    expect(project.code, project.stderr).toBe(0);
    expect(JSON.parse(project.stdout)).toMatchObject({ organization: ORG, projects: [{ id: 111 }] });
    const slugAddress = await ws.cli(['show', 'project:other-org/222', '--format', 'json']);
    expect(slugAddress.code, slugAddress.stderr).toBe(0);
    expect(JSON.parse(slugAddress.stdout)).toMatchObject({ organization: OTHER, projects: [{ id: 222 }] });
    const star = await ws.cli(['show', 'project:*/222', '--organization', 'other-org', '--format', 'json']);
    expect(JSON.parse(star.stdout)).toMatchObject({ organization: OTHER });
    const starDefault = await ws.cli(['show', 'project:*/111', '--format', 'json']);
    expect(JSON.parse(starDefault.stdout)).toMatchObject({ organization: ORG });
    // Two spellings of one organization are one organization; two organizations are refused.
    const same = await ws.cli(['show', `project:${ORG}/111`, 'project:acme-inc/111', '--organization', '@current', '--format', 'json']);
    expect(same.code, same.stderr).toBe(0);
    const two = await ws.cli(['show', 'project:@current/111', 'project:other-org/222']);
    expect(two.code).toBe(1);
    expect(two.stderr).toBe(`error: show reads one organization at a time, and the addresses and --organization name @current (${ORG}) and other-org (${OTHER})\n`);
    const missing = await ws.cli(['show', 'project:@current/999']);
    expect(missing.stderr).toBe(`error: project:@current/999 matches no live item in organization ${ORG}\n`);

    // --target too: a file naming the organization by slug, a target naming it @current.
    const file = ws.write('targets/hogsync.yaml', `organization: acme-inc\nroles:\n  - name: Designers\n  - name: Writers\n`);
    const targeted = await ws.cli(['plan', file, '--target', 'role:@current/Designers', '--format', 'json']);
    expect(targeted.code, targeted.stderr).toBe(0);
    expect((JSON.parse(targeted.stdout) as { changes: Array<{ address: string }> }).changes.map((c) => c.address)).toEqual([`role:${ORG}/Designers`]);
  });

  it('the same organization named two ways in two files is refused, naming both', async () => {
    ws.write('twice/a.yaml', roles('@current'));
    ws.write('twice/b.yaml', `organization: ${ORG}\nproxy_records:\n  - domain: a.example.com\n`);
    const r = await ws.cli(['plan', ws.path('twice')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/organization "@current" is 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f, which other files name as/);
  });
});
