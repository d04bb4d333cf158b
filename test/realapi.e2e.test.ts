// The real API's behaviour (PRODUCT.md "Real-API behaviour to tolerate"), end to end: the real
// CLI against a sandbox that behaves that way. Each behaviour converges in one apply and then
// plans empty.
import { afterEach, describe, expect, it } from 'vitest';
import type { SeedDocument } from '../src/sandbox/seed.js';
import type { SandboxHandle, SandboxOptions } from '../src/sandbox/server.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;
afterEach(async () => {
  ws?.remove();
  await stopAllSandboxes();
});

async function start(seed: SeedDocument, options: SandboxOptions = {}): Promise<void> {
  sandbox = await inProcessSandbox({ seed, ...options });
  ws = workspace(sandbox);
}

/** Applies the file, expects exit 0, then a plan with no changes. */
async function convergesInOneApply(path: string): Promise<{ stdout: string; stderr: string }> {
  const r = await ws.cli(['apply', path, '--auto-approve']);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  const after = await ws.cli(['plan', path, '--detailed-exitcode']);
  expect(after.code, after.stdout).toBe(0);
  return r;
}

describe('fields the API merges', () => {
  it('sends a key the file dropped as null, so it goes; null and absent compare equal inside; then the plan is empty', async () => {
    await start({
      organizations: [{
        id: ORG,
        projects: [{
          id: 12345,
          survey_config: { appearance: { backgroundColor: '#fff' }, default_language: 'en' },
          session_replay_config: { record_canvas: true, ai_config: { opt_in: true, preferred_events: ['$pageview'] } },
          modifiers: { personsOnEventsMode: 'disabled', bounceRatePageViewMode: 'count_pageviews' },
        }],
      }],
    });
    const path = ws.write('h.yaml', config(`projects:
  - id: 12345
    survey_config: { appearance: { backgroundColor: "#fff" } }
    session_replay_config: { ai_config: { opt_in: true } }
    modifiers: { personsOnEventsMode: disabled }
`));
    const planned = await ws.cli(['plan', path, '--format', 'json']);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ fields: Array<{ path: string }> }> };
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]?.fields.map((f) => f.path).sort()).toEqual(['modifiers', 'session_replay_config', 'survey_config']);
    await convergesInOneApply(path);
    const live = sandbox.store.snapshot().projects.find((p) => p.id === 12345) as Record<string, unknown>;
    expect(live.survey_config).toEqual({ appearance: { backgroundColor: '#fff' }, default_language: null });
    expect(live.session_replay_config).toEqual({ record_canvas: null, ai_config: { opt_in: true, preferred_events: null } });
    expect(live.modifiers).toEqual({ personsOnEventsMode: 'disabled', bounceRatePageViewMode: null });
  });
});

describe('fields an API version does not have', () => {
  it('a declared slack_incoming_webhook (and roles\' feature_flags_access_level) against a newer API version warns once per kind and field and plans nothing', async () => {
    await start({
      api_version: 2026,
      organizations: [{ id: ORG, projects: [{ id: 12345 }, { id: 12346 }], roles: [{ name: 'Eng' }, { name: 'Ops' }] }],
    });
    const path = ws.write('h.yaml', config(`projects:
  - id: 12345
    slack_incoming_webhook: \${env:SLACK_WEBHOOK}
  - id: 12346
    slack_incoming_webhook: https://hooks.slack.com/services/T/B/OTHER
roles:
  - name: Eng
    feature_flags_access_level: 37
  - name: Ops
    feature_flags_access_level: 21
`));
    const env = { SLACK_WEBHOOK: 'https://hooks.slack.com/services/T/B/SECRET' };
    const r = await ws.cli(['plan', path, '--format', 'json', '--detailed-exitcode'], env);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { changes: unknown[]; warnings: string[] };
    expect(plan.changes).toEqual([]);
    expect(plan.warnings.filter((w) => w.includes('slack_incoming_webhook'))).toEqual([
      'project field slack_incoming_webhook is not kept by this API (its project records have no such field): not managed here, no change planned (declared for 2 items); remove it from the files',
    ]);
    expect(plan.warnings.filter((w) => w.includes('feature_flags_access_level'))).toHaveLength(1);
    expect(r.stdout).not.toContain('SECRET');
    const drift = await ws.cli(['drift', path], env);
    expect(drift.code).toBe(0);
    const apply = await ws.cli(['apply', path, '--auto-approve'], env);
    expect(apply.code).toBe(0);
    expect(sandbox.stats.byRoute['PATCH /api/organizations/:org/projects/:id/'] ?? 0).toBe(0);
  });
});

describe('statuses that mean gone, and what a delete takes with it', () => {
  it('a proxy record the platform is still deleting is gone: not unmanaged, never deleted twice, no verification warning', async () => {
    await start({
      organizations: [{ id: ORG, max_proxy_records: 3, proxy_records: [{ domain: 'old.example.com', status: 'valid' }, { domain: 'keep.example.com', status: 'valid' }] }],
    }, { deletionDelaySeconds: 600 });
    const path = ws.write('h.yaml', config('proxy_records:\n  - domain: keep.example.com\n  - domain: old.example.com\n    ensure: absent\n'));
    const r = await convergesInOneApply(path);
    expect(r.stderr).not.toMatch(/warning/i);
    // Still listed as deleting on the API, gone for hogsync.
    expect(sandbox.store.snapshot().proxy_records.find((x) => x.domain === 'old.example.com')?.status).toBe('deleting');
    const plan = JSON.parse((await ws.cli(['plan', path, '--format', 'json'])).stdout) as { unmanaged: unknown[]; changes: unknown[] };
    expect(plan.unmanaged).toEqual([]);
    expect(sandbox.stats.byRoute['DELETE /api/organizations/:org/proxy_records/:id/']).toBe(1);
  });

  it('a project pending deletion is gone: deleted once, verified without a warning, then nothing is planned', async () => {
    await start({ organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web' }, { id: 12346, name: 'Old' }] }] }, { deletionDelaySeconds: 600 });
    const path = ws.write('h.yaml', config('projects:\n  - id: 12345\n  - id: 12346\n    ensure: absent\n'));
    const r = await ws.cli(['apply', path, '--auto-approve', '--allow-delete', 'project/12346']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/warning/i);
    expect(sandbox.store.snapshot().projects.find((p) => p.id === 12346)?.is_pending_deletion).toBe(true);
    const again = await ws.cli(['apply', path, '--auto-approve', '--allow-delete', 'project/12346']);
    expect(again.code, again.stderr).toBe(0);
    expect(sandbox.stats.byRoute['DELETE /api/organizations/:org/projects/:id/']).toBe(1);
    expect((await ws.cli(['plan', path, '--detailed-exitcode'])).code).toBe(0);
  });

  it('every role delete in the plan says how many memberships and that its access grants go with it', async () => {
    await start({
      users: [{ first_name: 'Ann', email: 'ann@example.com' }, { first_name: 'Ben', email: 'ben@example.com' }],
      organizations: [{ id: ORG, roles: [{ name: 'Eng' }, { name: 'Ops', members: ['ann@example.com', 'ben@example.com'] }] }],
    });
    const path = ws.write('h.yaml', config('roles:\n  - name: Eng\n  - name: Ops\n    ensure: absent\n'));
    const plan = JSON.parse((await ws.cli(['plan', path, '--format', 'json'])).stdout) as { warnings: string[] };
    expect(plan.warnings).toContain(`role:${ORG}/Ops: deleting a role also removes its 2 memberships and every access grant made through it`);
    const text = await ws.cli(['plan', path]);
    expect(text.stdout + text.stderr).toContain('deleting a role also removes its 2 memberships');
    await convergesInOneApply(path);
  });
});
