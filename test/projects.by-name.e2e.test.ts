// Projects by name, end to end (the real CLI against the sandbox, which creates projects as the
// API does): a project declared with `name` and no `id` is the live project of that name
// (without regard to case; a difference of case is a rename to the file's), else the plan creates
// it with its declared fields, and its items after it (addressed by its alias); apply prints the
// new id; the plan notes that the API makes it the key owner's current project; an organization
// whose plan allows no more projects is refused before anything is sent.
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import type { SeedDocument } from '../src/sandbox/seed.js';
import { inProcessSandbox, recordRequests, stopAllSandboxes } from './support/sandbox.js';
import { validateRequest } from './support/openapi.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;
afterEach(async () => {
  ws?.remove();
  await stopAllSandboxes();
});

async function start(seed: SeedDocument, deletionDelaySeconds?: number): Promise<void> {
  sandbox = await inProcessSandbox({ seed, ...(deletionDelaySeconds === undefined ? {} : { deletionDelaySeconds }) });
  ws = workspace(sandbox);
}

interface PlanJson { changes: Array<{ address: string; action: string; fields: Array<{ path: string; before: unknown; after: unknown }> }>; warnings: string[] }
const addresses = (plan: PlanJson) => plan.changes.map((c) => `${c.action} ${c.address}`);

const FILE = `projects:
  - name: WEB APP
    timezone: Europe/Berlin
  - name: Mobile app
    alias: mobile
    timezone: UTC
    cohorts:
      - name: Staff
        filters: { properties: { type: OR, values: [ { type: AND, values: [ { key: email, type: person, operator: icontains, value: "@example.com" } ] } ] } }
    feature_flags:
      - key: mobile-beta
        active: true
        filters: { groups: [ { rollout_percentage: 100, properties: [ { key: id, type: cohort, value: { cohort: Staff } } ] } ] }
`;

describe('projects by name', () => {
  it('finds a live project by name (a case difference renames it), creates one no project has with its items after it, prints the new id, then plans empty', async () => {
    await start({ organizations: [{ id: ORG, name: 'Acme', projects: [{ id: 12345, name: 'Web app', timezone: 'UTC' }] }] } as SeedDocument);
    const sent = recordRequests(sandbox.server);
    const file = ws.write('hogsync.yaml', config(FILE));
    const planned = await ws.cli(['plan', file, '--format', 'json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as PlanJson;
    expect(addresses(plan)).toEqual([
      `update project:${ORG}/12345`,
      `create project:${ORG}/Mobile app`,
      `create cohort:${ORG}/mobile/Staff`,
      `create feature_flag:${ORG}/mobile/mobile-beta`,
    ]);
    expect(plan.changes[0]?.fields).toEqual([
      { path: 'name', before: 'Web app', after: 'WEB APP', sensitive: false },
      { path: 'timezone', before: 'UTC', after: 'Europe/Berlin', sensitive: false },
    ]);
    expect(plan.warnings).toContain(`project:${ORG}/Mobile app: the API makes a project it creates the key owner's current project`);

    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const created = sandbox.store.snapshot().projects.find((p) => p.name === 'Mobile app');
    expect(created?.timezone).toBe('UTC');
    expect(applied.stdout).toContain(`project "Mobile app" created with id ${String(created?.id)}`);
    expect(applied.stderr).not.toMatch(/warning/i);
    const flag = sandbox.store.snapshot().feature_flags.find((f) => f.key === 'mobile-beta');
    expect(flag?.project).toBe(created?.id);
    const cohort = (sandbox.store.snapshot() as unknown as { cohorts: Array<{ id: number; name: string; project: number }> }).cohorts.find((c) => c.name === 'Staff');
    expect(cohort?.project).toBe(created?.id);
    expect(JSON.stringify(flag?.filters)).toContain(`"value":${String(cohort?.id)}`);

    // Found by name from now on: the same project, nothing to do, twice.
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    expect(sandbox.store.snapshot().projects.filter((p) => p.name === 'Mobile app')).toHaveLength(1);
    // The create, and every other request, is one the real API documents, with a body it takes.
    expect(sent.filter((r) => r.method === 'POST').map((r) => r.path)).toContain(`/api/organizations/${ORG}/projects/`);
    expect(sent.flatMap((r) => validateRequest(r.method, r.path, r.body).map((p) => `${r.method} ${r.path}: ${p}`))).toEqual([]);
  });

  it('renamed_from renames a project declared by name in place', async () => {
    await start({ organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web' }, { id: 12346, name: 'Old docs' }] }] } as SeedDocument);
    const file = ws.write('hogsync.yaml', config('projects:\n  - name: Docs\n    renamed_from: Old docs\n'));
    const r = await ws.cli(['plan', file, '--format', 'json']);
    const plan = JSON.parse(r.stdout) as PlanJson;
    expect(addresses(plan)).toEqual([`update project:${ORG}/12346`]);
    expect((await ws.cli(['apply', file, '--auto-approve'])).code).toBe(0);
    expect(sandbox.store.snapshot().projects.find((p) => p.id === 12346)?.name).toBe('Docs');
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('an organization whose plan allows no more projects: a plan error at the project\'s line, before anything is sent', async () => {
    await start({ organizations: [{ id: ORG, features: ['advanced_permissions'], projects: [{ id: 12345, name: 'Web' }] }] } as SeedDocument);
    const file = ws.write('hogsync.yaml', config('projects:\n  - name: Mobile app\n    feature_flags:\n      - key: f\n'));
    const r = await ws.cli(['apply', file, '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:3:5: project "Mobile app" would be created, but organization ${ORG} may hold no more projects; nothing was sent. `
      + 'The API says: You have reached the maximum limit of allowed projects for your current plan. Upgrade your plan to be able to create and manage more projects.');
    expect(sandbox.store.snapshot().projects.map((p) => p.name)).toEqual(['Web']);
    // A project declared by id that does not exist is still never created.
    const byId = ws.write('by-id.yaml', config('projects:\n  - id: 999\n    name: Ghost\n'));
    const g = await ws.cli(['plan', byId]);
    expect(g.code).toBe(1);
    expect(g.stderr).toContain('project "999" does not exist in organization');
    expect(g.stderr).toContain('declared by id is adopted, never created');
  });

  it('--allow-delete project/NAME allows the delete of a project declared by name', async () => {
    await start({ organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web' }, { id: 12346, name: 'Old docs' }] }] } as SeedDocument);
    const file = ws.write('hogsync.yaml', config('projects:\n  - name: Old docs\n    ensure: absent\n'));
    const refused = await ws.cli(['apply', file, '--auto-approve']);
    expect(refused.code).toBe(3);
    expect(refused.stdout + refused.stderr).toContain('--allow-delete project/12346');
    const allowed = await ws.cli(['apply', file, '--auto-approve', '--allow-delete', 'project/Old docs']);
    expect(allowed.code, allowed.stdout + allowed.stderr).toBe(0);
    expect(sandbox.store.snapshot().projects.find((p) => p.id === 12346 && p.is_pending_deletion !== true)).toBeUndefined();
  });

  it('a project pending deletion is gone for its name too: declaring that name again plans a new project', async () => {
    // Deletion takes a while: the project stays listed (the list does not say it is pending) meanwhile.
    await start({ organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web' }, { id: 12346, name: 'Old docs' }] }] } as SeedDocument, 600);
    const gone = ws.write('gone.yaml', config('projects:\n  - name: Old docs\n    ensure: absent\n'));
    expect((await ws.cli(['apply', gone, '--auto-approve', '--allow-delete', 'project/12346'])).code).toBe(0);
    const again = ws.write('again.yaml', config('projects:\n  - name: Old docs\n    timezone: UTC\n    feature_flags:\n      - key: f\n        active: false\n'));
    const r = await ws.cli(['plan', again, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(addresses(JSON.parse(r.stdout) as PlanJson)).toEqual([`create project:${ORG}/Old docs`, `create feature_flag:${ORG}/Old docs/f`]);
    const applied = await ws.cli(['apply', again, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(sandbox.store.snapshot().projects.filter((p) => p.name === 'Old docs' && p.is_pending_deletion !== true).map((p) => p.id === 12346)).toEqual([false]);
    expect((await ws.cli(['plan', again, '--detailed-exitcode'])).code).toBe(0);
  });

  it('validate asks for an id or a name', async () => {
    await start({ organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web' }] }] } as SeedDocument);
    const file = ws.write('hogsync.yaml', config('projects:\n  - timezone: UTC\n'));
    const r = await ws.cli(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:3:5: missing a required field in project: "id" or "name"`);
  });
});
