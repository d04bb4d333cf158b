// Many projects from one definition, end to end: the real CLI against a sandbox seeded with
// examples/environments (dev, staging and prod of one product).
import { readFileSync } from 'node:fs';
import { expectCanonical } from './support/canonical.js';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, inProcessSandbox, stopAllSandboxes, ROOT } from './support/sandbox.js';
import { ORG, workspace, type Workspace } from './support/workspace.js';

const EXAMPLE = join(ROOT, 'examples/environments');
const FILES = [join(EXAMPLE, 'projects.yaml'), join(EXAMPLE, 'flags.yaml')];

let sandbox: SandboxHandle;
let ws: Workspace;

beforeEach(async () => {
  sandbox = await inProcessSandbox({ seed: join(EXAMPLE, 'sandbox/seed.yaml') });
  ws = workspace(sandbox);
});
afterEach(async () => {
  ws.remove();
  await stopAllSandboxes();
});

interface PlanChange { address: string; action: string; fields: { path: string; before: unknown; after: unknown }[] }

async function plan(paths: string[]): Promise<{ changes: PlanChange[]; summary: Record<string, number> }> {
  const r = await ws.cli(['plan', ...paths, '--format', 'json']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

describe('examples/environments against the sandbox', () => {
  it('plans each environment from the shared definitions, converges on apply, then plans empty', async () => {
    const first = await plan(FILES);
    const actions = Object.fromEntries(first.changes.map((c) => [c.address, c.action]));
    expect(actions).toEqual({
      [`project:${ORG}/2001`]: 'update',
      [`project:${ORG}/2002`]: 'update',
      [`feature_flag:${ORG}/2001/new-checkout`]: 'update',
      [`feature_flag:${ORG}/2001/dark-mode`]: 'create',
      [`feature_flag:${ORG}/2001/pricing-page-v2`]: 'create',
      [`feature_flag:${ORG}/2001/scratch-experiment`]: 'delete',
      [`feature_flag:${ORG}/2002/new-checkout`]: 'create',
      [`feature_flag:${ORG}/2002/dark-mode`]: 'create',
      [`feature_flag:${ORG}/2002/pricing-page-v2`]: 'create',
      [`feature_flag:${ORG}/2003/holiday-banner`]: 'create',
      [`feature_flag:${ORG}/2003/pricing-page-v2`]: 'create',
    });
    // prod already runs new-checkout at its override's 10 %: nothing to change there.
    const dev = first.changes.find((c) => c.address === `project:${ORG}/2001`)!;
    expect(dev.fields.map((f) => [f.path, f.after])).toEqual([
      ['session_recording_sample_rate', '1.00'], ['anonymize_ips', true], ['timezone', 'Europe/Berlin'], ['session_recording_opt_in', true],
    ]);

    const applied = await ws.cli(['apply', ...FILES, '--auto-approve']);
    expect(applied.code).toBe(0);
    expect((await plan(FILES)).changes).toEqual([]);

    // Live, each project has its own flag, with its own values.
    const client = api(sandbox.baseUrl, sandbox.apiKey);
    const rollout = async (project: number) => {
      const list = (await client.get(`/api/projects/${project}/feature_flags/?limit=1000`)).body as { results: { key: string; filters: { groups: { rollout_percentage: number }[] } }[] };
      return list.results.find((f) => f.key === 'new-checkout')!.filters.groups[0]!.rollout_percentage;
    };
    expect([await rollout(2001), await rollout(2002), await rollout(2003)]).toEqual([100, 100, 10]);
  });

  it('exports several projects with shared definitions, and that file plans empty', async () => {
    expect((await ws.cli(['apply', ...FILES, '--auto-approve'])).code).toBe(0);
    const exported = await ws.cli(['export', '--organization', ORG, '--project', '2001', '--project', '2002', '--project', '2003', '--shared', '--out', 'shared.yaml']);
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain('Exported 3 projects, 0 proxy records, 1 member, 0 roles, 0 role memberships, 0 access rules, 0 actions, 0 cohorts, 9 feature flags, 0 hog functions, 0 surveys, 0 early access features, 0 experiment holdouts, 0 experiment saved metrics, 0 experiments to shared.yaml');
    expectCanonical(readFileSync(ws.path('shared.yaml'), 'utf8'));
    const doc = parse(readFileSync(ws.path('shared.yaml'), 'utf8')) as { feature_flags: Record<string, unknown>[]; projects: { id: number; feature_flags?: { key: string }[] }[] };
    // Flags of one key in several projects are declared once; a flag only prod has stays under prod.
    expect(doc.feature_flags.map((f) => f.key)).toEqual(['dark-mode', 'new-checkout', 'pricing-page-v2']);
    expect(doc.projects.map((p) => [p.id, (p.feature_flags ?? []).map((f) => f.key)])).toEqual([[2001, []], [2002, []], [2003, ['holiday-banner']]]);
    const [dark, checkout, pricing] = doc.feature_flags as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
    expect(dark).toMatchObject({ projects: [2001, 2002], name: 'Dark mode' });
    expect(checkout).not.toHaveProperty('projects');
    expect(checkout).toMatchObject({ filters: { groups: [{ properties: [], rollout_percentage: 100 }] }, overrides: { 2003: { filters: { groups: [{ properties: [], rollout_percentage: 10 }] } } } });
    expect(pricing).toMatchObject({ active: false, overrides: { 2001: { active: true } } });
    const replan = await ws.cli(['plan', 'shared.yaml', '--detailed-exitcode']);
    expect(replan.stdout).toContain('No changes.');
    expect(replan.code).toBe(0);
  });

  it('validates the example offline and counts the expanded flags', async () => {
    const r = await ws.cli(['validate', ...FILES]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 organization, 3 projects, 9 feature flags');
  });
});
