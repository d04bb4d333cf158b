// `hogsync show` through the real CLI against the sandbox: live items as the YAML a file would
// declare (managed fields only, web-app state left out, secrets as ${env:…} placeholders, a
// flag inside its project), the same as JSON, only the reads the addresses need, and an address
// that matches nothing is an error (exit 1). What it prints plans to no change.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetStats } from '../src/sandbox/stats.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { expectCanonical } from './support/canonical.js';
import { ORG, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;
const WEBHOOK = 'https://hooks.slack.com/services/T000/B000/SHOWSECRET';
beforeEach(async () => {
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{
        id: ORG,
        projects: [
          {
            id: 111, name: 'Web app', timezone: 'Europe/Berlin', slack_incoming_webhook: WEBHOOK, has_completed_onboarding_for: { product_analytics: true },
            feature_flags: [
              { key: 'new-checkout', name: 'New checkout', active: true, filters: { groups: [{ properties: [], rollout_percentage: 20 }] } },
              { key: 'dark-mode', name: 'Dark mode', active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
            ],
          },
          { id: 222, name: 'Mobile app', feature_flags: [{ key: 'new-checkout', name: 'Mobile checkout', active: true, filters: { groups: [{ properties: [], rollout_percentage: 5 }] } }] },
        ],
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

describe('hogsync show', () => {
  it('prints a flag inside its project, as a file declares it, reading only that project\'s flags', async () => {
    resetStats(sandbox.stats);
    const r = await ws.cli(['show', `feature_flag:${ORG}/111/new-checkout`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^# yaml-language-server: \$schema=\S+hogsync\.schema\.json\n/);
    expect(r.stdout.slice(r.stdout.indexOf('organization:'))).toBe([
      `organization: ${ORG}`,
      'projects:',
      '  - id: 111',
      '    feature_flags:',
      '      - key: new-checkout',
      '        name: New checkout',
      '        active: true',
      '        filters:',
      '          groups:',
      '            - properties: []',
      '              rollout_percentage: 20',
      '        ensure_experience_continuity: false',
      '        tags: []',
      '        archived: false',
      '        has_encrypted_payloads: false',
      '',
    ].join('\n'));
    // The projects list (to find project 111) and its flags: nothing of project 222, no roles.
    expect(Object.keys(sandbox.stats.byRoute).sort()).toEqual(['GET /api/organizations/:org/projects/', 'GET /api/projects/:project/feature_flags/']);
    expect(sandbox.stats.requests).toBe(2);
    // What it prints is in fmt's layout, and plans to no change.
    expectCanonical(r.stdout);
    ws.write('flag.yaml', r.stdout);
    const plan = await ws.cli(['plan', 'flag.yaml', '--target', `feature_flag:${ORG}/111/new-checkout`, '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it('reads a role address with the roles list alone, takes --organization for *, and prints JSON', async () => {
    resetStats(sandbox.stats);
    const r = await ws.cli(['show', 'role:*/engineers', '--organization', ORG, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ organization: ORG, roles: [{ name: 'Engineers', feature_flags_access_level: 37 }] });
    expect(sandbox.stats.byRoute).toEqual({ 'GET /api/organizations/:org/roles/': 1 });
  });

  it('a project: its settings only (no web-app state), its secret as a placeholder, never the value', async () => {
    const r = await ws.cli(['show', `project:${ORG}/111`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('  - id: 111\n    name: Web app\n');
    expect(r.stdout).toContain('timezone: Europe/Berlin');
    expect(r.stdout).toContain('slack_incoming_webhook: ${env:HOGSYNC_PROJECT_111_SLACK_INCOMING_WEBHOOK}');
    expect(r.stdout).not.toContain('has_completed_onboarding_for');
    expect(r.stdout).not.toContain('feature_flags');
    expect(r.stdout + r.stderr).not.toContain('SHOWSECRET');
    expect(r.stderr).toBe('show: secrets are written as placeholders; a file declaring them needs these environment variables: HOGSYNC_PROJECT_111_SLACK_INCOMING_WEBHOOK\n');
  });

  it('an address that matches nothing exits 1 saying so; an organization of no form is refused before any request', async () => {
    const r = await ws.cli(['show', `feature_flag:${ORG}/*/new-checkout`, `feature_flag:${ORG}/111/no-such-flag`]);
    expect(r.code).toBe(1);
    // The matching items are still printed, both projects' new-checkout.
    expect(r.stdout).toContain('  - id: 111\n');
    expect(r.stdout).toContain('  - id: 222\n');
    expect(r.stderr).toBe(`error: feature_flag:${ORG}/111/no-such-flag matches no live item in organization ${ORG}\n`);
    resetStats(sandbox.stats);
    const bad = await ws.cli(['show', 'role:Acme Inc/Engineers']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`error: show "role:Acme Inc/Engineers": the organization part must be the organization's UUID (0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f), its slug (acme-inc), or @current, got "Acme Inc"\n`);
    expect(sandbox.stats.requests).toBe(0);
  });
});
