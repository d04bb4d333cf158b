// Drift attribution end to end: edits by two users in the sandbox (made "in the web UI"),
// attributed per field in every format of `hogsync drift` and in `plan --attribute`; one
// activity read per drifted item; a key without activity_log:read, or a log that names
// nothing, still gets drift (exit 2) and one warning.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inProcessSandbox, stopAllSandboxes, api } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';
import type { SeedDocument } from '../src/sandbox/seed.js';
import type { SandboxHandle } from '../src/sandbox/server.js';

const READER = 'phx_reader_without_activity_log_000000000000';
const ACTIVITY = 'GET /api/projects/:project/activity_log/';

const SEED: SeedDocument = {
  organizations: [{
    id: ORG,
    projects: [
      {
        id: 12345, name: 'Web app', timezone: 'Europe/Berlin',
        feature_flags: [{ key: 'checkout', name: 'Checkout', active: true, filters: { groups: [{ properties: [], rollout_percentage: 20 }] } }],
      },
      { id: 12346, name: 'Marketing site' },
    ],
    roles: [{ name: 'Support', feature_flags_access_level: 21 }],
  }],
  keys: [{ key: READER, scopes: ['project:read', 'organization:read', 'feature_flag:read'] }],
  users: [{ first_name: 'Alice', email: 'alice@example.com' }, { first_name: 'Bob', email: 'bob@example.com' }],
};

const FILES = config(`projects:
  - id: 12345
    name: Web app
    timezone: Europe/Berlin
    feature_flags:
      - key: checkout
        name: Checkout
        active: true
        filters: { groups: [ { properties: [], rollout_percentage: 20 } ] }
  - id: 12346
    name: Marketing site
    anonymize_ips: false
roles:
  - name: Support
    feature_flags_access_level: 21
`);

let sandbox: SandboxHandle;
let ws: Workspace;
let file: string;

async function webEdit(user: string, method: string, path: string, body: unknown, at: string): Promise<void> {
  const res = await fetch(`${sandbox.baseUrl}/_sandbox/web-edit/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user, method, path, body, at }) });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

/** Alice and Bob change four items in the web UI. */
async function editInWebUi(): Promise<void> {
  const admin = api(sandbox.baseUrl, sandbox.apiKey);
  const flag = ((await admin.get('/api/projects/12345/feature_flags/')).body as { results: Array<{ id: number }> }).results[0];
  const role = ((await admin.get(`/api/organizations/${ORG}/roles/`)).body as { results: Array<{ id: string }> }).results[0];
  await webEdit('alice@example.com', 'PATCH', `/api/organizations/${ORG}/projects/12345/`, { timezone: 'Europe/Paris' }, '2026-11-21T14:03:00Z');
  await webEdit('bob@example.com', 'PATCH', `/api/organizations/${ORG}/projects/12346/`, { name: 'Marketing' }, '2026-11-21T15:10:00Z');
  await webEdit('alice@example.com', 'PATCH', `/api/organizations/${ORG}/projects/12346/`, { anonymize_ips: true }, '2026-11-21T16:00:00Z');
  await webEdit('bob@example.com', 'PATCH', `/api/projects/12345/feature_flags/${flag?.id}/`, { filters: { groups: [{ properties: [], rollout_percentage: 50 }] } }, '2026-11-22T09:30:00Z');
  await webEdit('alice@example.com', 'PATCH', `/api/organizations/${ORG}/roles/${role?.id}/`, { feature_flags_access_level: 37 }, '2026-11-22T10:00:00Z');
}

beforeEach(async () => {
  sandbox = await inProcessSandbox({ seed: SEED });
  ws = workspace(sandbox);
  file = ws.write('hogsync.yaml', FILES);
});
afterEach(async () => {
  ws.remove();
  await stopAllSandboxes();
});

describe('drift attribution', () => {
  it('names who changed each drifted field, and when, in text, Markdown, JUnit and JSON', async () => {
    expect((await ws.cli(['drift', file])).code).toBe(0);
    await editInWebUi();

    const text = await ws.cli(['drift', file]);
    expect(text.code).toBe(2);
    expect(text.stderr).toBe('');
    expect(text.stdout).toContain('timezone: live "Europe/Paris", files say "Europe/Berlin" — changed by alice@example.com at 2026-11-21 14:03 UTC');
    expect(text.stdout).toContain('name: live "Marketing", files say "Marketing site" — changed by bob@example.com at 2026-11-21 15:10 UTC');
    expect(text.stdout).toContain('anonymize_ips: live true, files say false — changed by alice@example.com at 2026-11-21 16:00 UTC');
    expect(text.stdout).toContain('feature_flags_access_level: live 37, files say 21 — changed by alice@example.com at 2026-11-22 10:00 UTC');
    expect(text.stdout).toMatch(/filters, changed by bob@example\.com at 2026-11-22 09:30 UTC \(files → live\):\n\s+~ condition set 1: rollout 20% → 50%\n/);
    expect(text.stdout).not.toContain('Warnings:');

    const md = await ws.cli(['drift', file, '--format', 'markdown']);
    expect(md.code).toBe(2);
    expect(md.stdout).toContain('- <code>timezone</code> changed by alice@example.com at 2026-11-21 14:03 UTC');
    expect(md.stdout).toContain('- <code>name</code> changed by bob@example.com at 2026-11-21 15:10 UTC');
    expect(md.stdout).toContain('- <code>anonymize_ips</code> changed by alice@example.com at 2026-11-21 16:00 UTC');
    expect(md.stdout).toContain('- <code>filters</code> changed by bob@example.com at 2026-11-22 09:30 UTC');
    expect(md.stdout).toContain('!   condition set 1: rollout 20% → 50%');

    const junit = await ws.cli(['drift', file, '--format', 'junit']);
    expect(junit.code).toBe(2);
    expect(junit.stdout).toContain(`message="project:${ORG}/12346 differs from the configuration; name changed by bob@example.com at 2026-11-21 15:10 UTC; anonymize_ips changed by alice@example.com at 2026-11-21 16:00 UTC"`);
    expect(junit.stdout).toContain(`message="role:${ORG}/Support differs from the configuration; feature_flags_access_level changed by alice@example.com at 2026-11-22 10:00 UTC"`);

    const json = await ws.cli(['drift', file, '--format', 'json']);
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout) as { changes: Array<{ address: string; attribution: unknown; fields: Array<{ path: string; before: unknown; after: unknown; attribution: unknown }> }> };
    const byAddress = Object.fromEntries(report.changes.map((c) => [c.address, c]));
    const mobile = byAddress[`project:${ORG}/12346`];
    expect(mobile?.fields).toEqual([
      { path: 'name', before: 'Marketing', after: 'Marketing site', sensitive: false, attribution: { by: 'bob@example.com', at: '2026-11-21T15:10:00.000Z', activity: 'updated', field: 'name' } },
      { path: 'anonymize_ips', before: true, after: false, sensitive: false, attribution: { by: 'alice@example.com', at: '2026-11-21T16:00:00.000Z', activity: 'updated', field: 'anonymize_ips' } },
    ]);
    // The change's own attribution: the newest of its fields'.
    expect(mobile?.attribution).toEqual({ by: 'alice@example.com', at: '2026-11-21T16:00:00.000Z', activity: 'updated', field: 'anonymize_ips' });
    // JSON keeps the exact before/after of the flag's filters.
    const flag = byAddress[`feature_flag:${ORG}/12345/checkout`];
    expect(flag?.fields[0]).toMatchObject({ path: 'filters', before: { groups: [{ rollout_percentage: 50 }] }, after: { groups: [{ rollout_percentage: 20 }] } });
    expect(flag?.attribution).toMatchObject({ by: 'bob@example.com', field: 'filters' });
  });

  it('reads the activity log once per drifted item, and never for items that did not drift', async () => {
    await editInWebUi();
    sandbox.stats.byRoute = {};
    const r = await ws.cli(['drift', file, '--format', 'json']);
    expect(r.code).toBe(2);
    const drifted = (JSON.parse(r.stdout) as { changes: unknown[] }).changes.length;
    expect(drifted).toBe(4);
    expect(sandbox.stats.byRoute[ACTIVITY]).toBe(drifted);

    // No drift: not one activity read.
    const clean = ws.write('clean.yaml', config('projects:\n  - id: 12345\n    name: Web app\n'));
    sandbox.stats.byRoute = {};
    expect((await ws.cli(['drift', clean])).code).toBe(0);
    expect(sandbox.stats.byRoute[ACTIVITY]).toBeUndefined();
  });

  it('a key without activity_log:read still gets drift, exit 2, with one warning and one refused read', async () => {
    await editInWebUi();
    sandbox.stats.byRoute = {};
    const r = await ws.cli(['drift', file], { HOGSYNC_API_KEY: READER });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('timezone: live "Europe/Paris", files say "Europe/Berlin"\n');
    expect(r.stdout).not.toContain('changed by');
    const warnings = r.stdout.split('\n').filter((l) => l.trim().startsWith('! '));
    expect(warnings).toEqual(['  ! The activity log cannot be read with this key (403: it needs the activity_log:read scope): drift is shown without who changed it.']);
    expect(sandbox.stats.byRoute[ACTIVITY]).toBe(1);

    const json = JSON.parse((await ws.cli(['drift', file, '--format', 'json'], { HOGSYNC_API_KEY: READER })).stdout) as { warnings: string[]; changes: Array<{ attribution?: unknown }> };
    expect(json.warnings.filter((w) => w.includes('activity'))).toHaveLength(1);
    expect(json.changes.every((c) => c.attribution === undefined)).toBe(true);
  });

  it('a log that names nothing (drift made before logs were kept) gives drift and one warning', async () => {
    // The seed itself disagrees with the files: no write, so no log entry, made that drift.
    const stale = ws.write('stale.yaml', config('projects:\n  - id: 12345\n    timezone: Asia/Tokyo\n'));
    const r = await ws.cli(['drift', stale]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('timezone: live "Europe/Berlin", files say "Asia/Tokyo"\n');
    expect(r.stdout).toContain('! The activity log names none of the drifted items: drift is shown without who changed it.');
  });

  it('names who deleted an item the files declare (looked up by name among deletions, one read each)', async () => {
    const admin = api(sandbox.baseUrl, sandbox.apiKey);
    const flag = ((await admin.get('/api/projects/12345/feature_flags/')).body as { results: Array<{ id: number }> }).results[0];
    const role = ((await admin.get(`/api/organizations/${ORG}/roles/`)).body as { results: Array<{ id: string }> }).results[0];
    await webEdit('bob@example.com', 'PATCH', `/api/projects/12345/feature_flags/${flag?.id}/`, { deleted: true }, '2026-11-22T11:00:00Z');
    await webEdit('alice@example.com', 'DELETE', `/api/organizations/${ORG}/roles/${role?.id}/`, {}, '2026-11-22T12:00:00Z');
    sandbox.stats.byRoute = {};
    const r = await ws.cli(['drift', file]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(`+ feature_flag:${ORG}/12345/checkout\n      deleted by bob@example.com at 2026-11-22 11:00 UTC\n`);
    expect(r.stdout).toContain(`+ role:${ORG}/Support\n      deleted by alice@example.com at 2026-11-22 12:00 UTC\n`);
    expect(sandbox.stats.byRoute[ACTIVITY]).toBe(2);
    const junit = await ws.cli(['drift', file, '--format', 'junit']);
    expect(junit.stdout).toContain(`message="role:${ORG}/Support missing from the live workspace; deleted by alice@example.com at 2026-11-22 12:00 UTC"`);
    const json = JSON.parse((await ws.cli(['drift', file, '--format', 'json'])).stdout) as { changes: Array<{ address: string; attribution?: unknown }> };
    expect(json.changes.find((c) => c.address === `role:${ORG}/Support`)?.attribution).toEqual({ by: 'alice@example.com', at: '2026-11-22T12:00:00.000Z', activity: 'deleted', field: null });
  });

  it('plan --attribute says who set the live values the plan changes; plan alone reads no activity', async () => {
    await editInWebUi();
    sandbox.stats.byRoute = {};
    const plain = await ws.cli(['plan', file]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toContain('changed by');
    expect(sandbox.stats.byRoute[ACTIVITY]).toBeUndefined();
    const r = await ws.cli(['plan', file, '--attribute']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('timezone: "Europe/Paris" → "Europe/Berlin" — changed by alice@example.com at 2026-11-21 14:03 UTC');
    expect(r.stdout).toMatch(/filters, changed by bob@example\.com at 2026-11-22 09:30 UTC:\n\s+~ condition set 1: rollout 50% → 20%\n/);
    expect(sandbox.stats.byRoute[ACTIVITY]).toBe(4);
  });
});
