// renamed_from end to end: a role or a flag renamed in place keeps its id (a role its members,
// a flag its history), by one PATCH; the contract's three cases (old live → rename; both live →
// error naming both; neither → create).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetStats } from '../src/sandbox/stats.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;

beforeEach(async () => {
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{
        id: ORG,
        projects: [{ id: 12345, name: 'Web app', hog_functions: [{ name: 'Hook', type: 'destination', template_id: 'template-webhook', inputs: { url: { value: 'https://hooks.example.com/old' } } }], feature_flags: [{ key: 'checkout', name: 'Checkout', active: true, filters: { groups: [{ properties: [], rollout_percentage: 30 }] } }] }],
        roles: [{ name: 'Engineers', feature_flags_access_level: 37 }, { name: 'Support', feature_flags_access_level: 21 }],
      }],
    },
  });
  ws = workspace(sandbox);
});
afterEach(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const client = () => api(sandbox.baseUrl, sandbox.apiKey);
const roles = async () => ((await client().get(`/api/organizations/${ORG}/roles/`)).body as { results: { id: string; name: string }[] }).results;
const flags = async () => ((await client().get('/api/projects/12345/feature_flags/')).body as { results: { id: number; key: string; filters: { groups: { rollout_percentage: number }[] } }[] }).results;

describe('renamed_from', () => {
  it('renames a live role and a live flag in place: same ids, one PATCH each', async () => {
    const [engineers] = (await roles()).filter((r) => r.name === 'Engineers');
    const [checkout] = await flags();
    const file = ws.write('h.yaml', config(`roles:
  - name: Platform engineers
    renamed_from: Engineers
    feature_flags_access_level: 37
projects:
  - id: 12345
    feature_flags:
      - key: checkout-v2
        renamed_from: checkout
        filters: { groups: [ { properties: [], rollout_percentage: 50 } ] }
`));
    const plan = JSON.parse((await ws.cli(['plan', file, '--format', 'json'])).stdout) as { changes: { address: string; action: string; renamed_from?: string; fields: { path: string; before: unknown; after: unknown }[] }[] };
    expect(plan.changes.map((c) => [c.address, c.action, c.renamed_from, c.fields.map((f) => [f.path, f.before, f.after])])).toEqual([
      [`role:${ORG}/Platform engineers`, 'update', 'Engineers', [['name', 'Engineers', 'Platform engineers']]],
      [`feature_flag:${ORG}/12345/checkout-v2`, 'update', 'checkout', [
        ['key', 'checkout', 'checkout-v2'],
        ['filters', { groups: [{ properties: [], rollout_percentage: 30 }] }, { groups: [{ properties: [], rollout_percentage: 50 }] }],
      ]],
    ]);
    const text = await ws.cli(['plan', file]);
    expect(text.stdout).toContain('renamed in place from "Engineers"');

    resetStats(sandbox.stats);
    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(sandbox.stats.byRoute['PATCH /api/organizations/:org/roles/:id/']).toBe(1);
    expect(sandbox.stats.byRoute['PATCH /api/projects/:project/feature_flags/:id/']).toBe(1);
    // No create or delete (the blast radius preview apply shows first is a read).
    expect(Object.keys(sandbox.stats.byRoute).filter((r) => (r.startsWith('POST') && !r.includes('user_blast_radius')) || r.startsWith('DELETE'))).toEqual([]);
    expect((await roles()).find((r) => r.id === engineers!.id)!.name).toBe('Platform engineers');
    const after = await flags();
    expect(after.map((f) => [f.id, f.key, f.filters.groups[0]!.rollout_percentage])).toEqual([[checkout!.id, 'checkout-v2', 50]]);
    // Renamed: the next plan is empty, renamed_from or not.
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('renames a hog function with an input change in one apply: no false warning, shown by its name, then plan empty', async () => {
    const before = (sandbox.store.snapshot().hog_functions as Array<{ id: string; name: string }>).find((f) => f.name === 'Hook');
    const file = ws.write('h.yaml', config(`projects:
  - id: 12345
    hog_functions:
      - name: Hook v2
        renamed_from: Hook
        type: destination
        template_id: template-webhook
        inputs: { url: { value: 'https://hooks.example.com/new' } }
`));
    const planned = await ws.cli(['plan', file, '--format', 'json']);
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as { warnings: string[]; changes: { address: string; action: string; renamed_from?: string; fields: { path: string; before: unknown; after: unknown }[] }[] };
    expect(plan.warnings.filter((w) => w.includes('not kept'))).toEqual([]);
    expect(plan.changes.map((c) => [c.address, c.action, c.renamed_from, c.fields.map((f) => f.path)])).toEqual([
      [`hog_function:${ORG}/12345/destination/Hook v2`, 'update', 'Hook', ['name', 'inputs.url']],
    ]);
    expect(plan.changes[0]?.fields[0]).toMatchObject({ before: 'Hook', after: 'Hook v2' });
    const text = await ws.cli(['plan', file]);
    expect(text.stdout).toContain('renamed in place from "Hook"');
    expect(text.stdout).not.toContain('destination/Hook"');
    const applied = await ws.cli(['apply', file, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const after = (sandbox.store.snapshot().hog_functions as Array<{ id: string; name: string; inputs: { url: { value: string } } }>).find((f) => f.id === before?.id);
    expect([after?.name, after?.inputs.url.value]).toEqual(['Hook v2', 'https://hooks.example.com/new']);
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('is an error naming both when the old and the new are both live', async () => {
    const file = ws.write('h.yaml', config(`roles:
  - name: Support
    renamed_from: Engineers
`));
    const r = await ws.cli(['plan', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3:5: role "Support" has renamed_from: "Engineers", but both are live \\(ids [0-9a-f-]+ and [0-9a-f-]+\\): remove renamed_from, or delete one of them first\\n$`));
  });

  it('creates the item when neither is live', async () => {
    const file = ws.write('h.yaml', config(`roles:
  - name: Analysts
    renamed_from: Data team
`));
    const plan = JSON.parse((await ws.cli(['plan', file, '--format', 'json'])).stdout) as { changes: { address: string; action: string; renamed_from?: string }[] };
    expect(plan.changes).toEqual([expect.objectContaining({ address: `role:${ORG}/Analysts`, action: 'create' })]);
    expect(plan.changes[0]).not.toHaveProperty('renamed_from');
  });
});
