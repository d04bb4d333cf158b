// `drift --since`: drift as a change feed, end to end through the real CLI against the sandbox.
// A quiet night of a 30-project workspace costs a handful of requests with the organization-wide
// log (an owner's key) and one per project without it (a member's key); a change made inside the
// window is reported with who and when, one outside it is not; where no log can be read (no
// activity_log:read, no audit-log feature) it is a full drift with one warning.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inProcessSandbox, stopAllSandboxes, api } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';
import type { SeedDocument } from '../src/sandbox/seed.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { resetStats } from '../src/sandbox/stats.js';

const PROJECTS = 30;
const FIRST = 20001;
const MEMBER_KEY = 'phx_member_key_for_since_0000000000000000';
const NO_LOG_KEY = 'phx_no_activity_log_scope_for_since_000000';
const ORG_LOG = 'GET /api/organizations/:org/advanced_activity_logs/';
const PROJECT_LOG = 'GET /api/projects/:project/activity_log/';
const ALL = { groups: [{ properties: [], rollout_percentage: 100 }] };

const projects = Array.from({ length: PROJECTS }, (_, i) => ({
  id: FIRST + i, name: `Project ${i}`, timezone: 'UTC',
  feature_flags: [{ key: 'checkout', name: 'Checkout', active: true, filters: ALL }],
}));

function seed(features?: string[]): SeedDocument {
  return {
    organizations: [{
      id: ORG, ...(features ? { features } : {}), projects,
      roles: [{ name: 'Support', feature_flags_access_level: 21 }], proxy_records: [{ domain: 'e.example.com', status: 'valid' }],
    }],
    keys: [{ key: NO_LOG_KEY, scopes: ['project:read', 'organization:read', 'feature_flag:read'] }],
    users: [
      { first_name: 'Alice', email: 'alice@example.com' },
      { first_name: 'Mia', email: 'mia@example.com', level: 'member', keys: [{ key: MEMBER_KEY, scopes: ['*'] }] },
    ],
  };
}

// The files declare every project and its flags as they are live, the role and the proxy record.
const FILES = config(`projects:
${projects.map((p) => `  - id: ${p.id}
    name: ${p.name}
    timezone: UTC
    feature_flags:
      - key: checkout
        name: Checkout
        active: true
        filters: { groups: [ { properties: [], rollout_percentage: 100 } ] }`).join('\n')}
roles:
  - name: Support
    feature_flags_access_level: 21
proxy_records:
  - domain: e.example.com
`);

let sandbox: SandboxHandle;
let ws: Workspace;
let file: string;

async function start(features?: string[]): Promise<void> {
  await stopAllSandboxes();
  sandbox = await inProcessSandbox({ seed: seed(features) });
  ws?.remove();
  ws = workspace(sandbox);
  file = ws.write('hogsync.yaml', FILES);
}

async function webEdit(user: string, method: string, path: string, body: unknown, at?: string): Promise<void> {
  const res = await fetch(`${sandbox.baseUrl}/_sandbox/web-edit/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user, method, path, body, ...(at ? { at } : {}) }) });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

async function flagId(project: number, key: string): Promise<number> {
  const flags = ((await api(sandbox.baseUrl, sandbox.apiKey).get(`/api/projects/${project}/feature_flags/`)).body as { results: Array<{ id: number; key: string }> }).results;
  return flags.find((f) => f.key === key)?.id as number;
}

const daysAgo = (n: number): string => new Date(Date.now() - n * 86_400_000).toISOString();

interface Report {
  kind: string; since?: string; warnings: string[];
  changes: Array<{ address: string; attribution?: { by: string; at: string }; fields: Array<{ path: string; attribution?: { by: string; at: string } }> }>;
  targets?: { since?: { start: string; logs: Array<{ log: string }>; entries: number; derived: Array<{ address: string; reason: string }> }; left_out: number };
}

afterAll(async () => {
  ws?.remove();
  await stopAllSandboxes();
});

describe('drift --since with the organization-wide log', () => {
  beforeAll(async () => { await start(); });
  beforeEach(() => resetStats(sandbox.stats));

  it('a quiet night of 30 projects costs at most 10 requests: the log, and the kinds it does not record', async () => {
    const r = await ws.cli(['drift', file, '--since', '25h']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Since report: what changed since \d{4}-\d\d-\d\d \d\d:\d\d UTC, from the organization-wide activity log \(0 entries\); they name no declared or live item; read in full: proxy_record:[^/]+\/\*, role:[^/]+\/\*\. 60 declared items not read\./m);
    expect(r.stdout).toMatch(/No drift since \d{4}-\d\d-\d\d \d\d:\d\d UTC: what the activity logs name matches the configuration\.\n$/);
    expect(sandbox.stats.requests).toBeLessThanOrEqual(10);
    expect(sandbox.stats.byRoute).toEqual({
      // The key's scopes, asked once at the start.
      'GET /api/personal_api_keys/@current/': 1,
      [ORG_LOG]: 1,
      'GET /api/organizations/:org/roles/': 1,
      'GET /api/organizations/:org/proxy_records/': 1,
    });
  });

  it('reports a change made inside the window with who and when, and not one made before it', async () => {
    const id = await flagId(FIRST + 5, 'checkout');
    await webEdit('alice@example.com', 'PATCH', `/api/projects/${FIRST + 5}/feature_flags/${id}/`, { active: false });
    // Before the window: three days ago, in another project.
    await webEdit('alice@example.com', 'PATCH', `/api/organizations/${ORG}/projects/${FIRST + 7}/`, { timezone: 'Europe/Paris' }, daysAgo(3));
    resetStats(sandbox.stats);

    const text = await ws.cli(['drift', file, '--since', '25h']);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(`~ feature_flag:${ORG}/${FIRST + 5}/checkout`);
    expect(text.stdout).toMatch(/active: live false, files say true — changed by alice@example\.com at \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(text.stdout).not.toContain(`project:${ORG}/${FIRST + 7}`);
    expect(text.stdout).toMatch(/Drift since \d{4}-\d\d-\d\d \d\d:\d\d UTC: 0 missing, 1 changed, 0 to delete\.\n$/);
    // The log, the flag list of the one project it names, and the kinds it does not record; no second read of the log.
    expect(sandbox.stats.byRoute).toEqual({
      'GET /api/personal_api_keys/@current/': 1,
      [ORG_LOG]: 1,
      'GET /api/projects/:project/feature_flags/': 1,
      'GET /api/organizations/:org/roles/': 1,
      'GET /api/organizations/:org/proxy_records/': 1,
    });

    const json = await ws.cli(['drift', file, '--since', '25h', '--format', 'json']);
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout) as Report;
    expect(Date.now() - Date.parse(report.since as string)).toBeGreaterThanOrEqual(25 * 3_600_000);
    expect(Date.now() - Date.parse(report.since as string)).toBeLessThan(25 * 3_600_000 + 60_000);
    expect(report.targets?.since).toMatchObject({ start: report.since, logs: [{ log: 'organization' }], entries: 1 });
    expect(report.targets?.since?.derived).toEqual(expect.arrayContaining([
      { address: `feature_flag:${ORG}/${FIRST + 5}/checkout`, reason: expect.stringMatching(/^updated by alice@example\.com at /) },
      { address: `role:${ORG}/*`, reason: expect.stringMatching(/^not in the activity log/) },
    ]));
    expect(report.changes.map((c) => c.address)).toEqual([`feature_flag:${ORG}/${FIRST + 5}/checkout`]);
    expect(report.changes[0]?.fields[0]?.attribution).toMatchObject({ by: 'alice@example.com', activity: 'updated', field: 'active' });

  });

  it('reaches as far back as asked, and says it is a since report in every format', async () => {
    // A window that reaches back three days sees the time zone too, with who and when.
    const week = await ws.cli(['drift', file, '--since', '4d']);
    expect(week.code).toBe(2);
    expect(week.stdout).toMatch(new RegExp(`timezone: live "Europe/Paris", files say "UTC" — changed by alice@example\\.com at ${daysAgo(3).slice(0, 10)}`));

    for (const [format, says] of [['markdown', /^### hogsync drift report since \d{4}-\d\d-\d\d \d\d:\d\d UTC\n[\s\S]*> Since report: what changed since/], ['junit', /<property name="since" value="\d{4}-\d\d-\d\dT[\d:.]+Z"\/>[\s\S]*<system-out>Since report: what changed since/]] as const) {
      const r = await ws.cli(['drift', file, '--since', '25h', '--format', format]);
      expect(r.code, format).toBe(2);
      expect(r.stdout, format).toMatch(says);
    }
    // Put back, for the tests after this one.
    const id = await flagId(FIRST + 5, 'checkout');
    await webEdit('alice@example.com', 'PATCH', `/api/projects/${FIRST + 5}/feature_flags/${id}/`, { active: true }, daysAgo(2));
    await webEdit('alice@example.com', 'PATCH', `/api/organizations/${ORG}/projects/${FIRST + 7}/`, { timezone: 'UTC' }, daysAgo(2));
  });

  it('names a declared item deleted inside the window, and a live item no file declares created in it', async () => {
    const id = await flagId(FIRST + 9, 'checkout');
    await webEdit('alice@example.com', 'PATCH', `/api/projects/${FIRST + 9}/feature_flags/${id}/`, { deleted: true });
    await webEdit('alice@example.com', 'POST', `/api/projects/${FIRST + 9}/feature_flags/`, { key: 'surprise', name: 'Surprise', filters: ALL });
    const r = await ws.cli(['drift', file, '--since', '1h', '--format', 'json']);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as Report & { unmanaged: Array<{ address: string }> };
    expect(report.changes).toEqual([expect.objectContaining({ address: `feature_flag:${ORG}/${FIRST + 9}/checkout`, action: 'create', attribution: expect.objectContaining({ by: 'alice@example.com', activity: 'deleted' }) })]);
    expect(report.unmanaged.map((u) => u.address)).toEqual([`feature_flag:${ORG}/${FIRST + 9}/surprise`]);
  });

  it('within --target, only the targeted items; --changed-since beside it, and a bad window, are one-line usage errors', async () => {
    const r = await ws.cli(['drift', file, '--since', '1h', '--target', `feature_flag:*/${FIRST + 1}/*`, '--format', 'json']);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.changes).toEqual([]);
    expect(sandbox.stats.byRoute['GET /api/organizations/:org/roles/']).toBeUndefined();

    const both = await ws.cli(['drift', file, '--since', '25h', '--changed-since', 'HEAD']);
    expect(both.code).toBe(1);
    expect(both.stderr.trim().split('\n')).toHaveLength(1);
    expect(both.stderr).toContain('--since and --changed-since cannot be combined');
    const bad = await ws.cli(['drift', file, '--since', 'yesterday']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringContaining('--since "yesterday": expected a duration such as 25h, 7d, 90m or 2w, or an ISO 8601 time such as 2026-11-20T06:00:00Z')]);
    expect(sandbox.stats.byRoute[ORG_LOG]).toBe(1);
  });
});

describe('drift --since without the organization-wide log', () => {
  beforeAll(async () => { await start(); });
  beforeEach(() => resetStats(sandbox.stats));

  it("a member's key reads each project's log: one request per project, plus the kinds no log records", async () => {
    const r = await ws.cli(['drift', file, '--since', '25h'], { HOGSYNC_API_KEY: MEMBER_KEY });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("from each declared project's activity log (0 entries)");
    // The organization-wide log refused once (403), then one page of each project's log.
    expect(sandbox.stats.byRoute[ORG_LOG]).toBe(1);
    expect(sandbox.stats.byRoute[PROJECT_LOG]).toBe(PROJECTS);
    // The key's scopes, the organization's log, each project's, and the kinds no log records.
    expect(sandbox.stats.requests).toBeLessThanOrEqual(1 + 1 + PROJECTS + 2);

    const id = await flagId(FIRST + 12, 'checkout');
    await webEdit('alice@example.com', 'PATCH', `/api/projects/${FIRST + 12}/feature_flags/${id}/`, { name: 'Checkout v2' });
    const changed = await ws.cli(['drift', file, '--since', '25h'], { HOGSYNC_API_KEY: MEMBER_KEY });
    expect(changed.code).toBe(2);
    expect(changed.stdout).toMatch(/name: live "Checkout v2", files say "Checkout" — changed by alice@example\.com at /);
  });
});

describe('drift --since where no log can be read', () => {
  it('falls back to a full drift with one warning: a key without activity_log:read', async () => {
    await start();
    await webEdit('alice@example.com', 'PATCH', `/api/organizations/${ORG}/projects/${FIRST + 3}/`, { timezone: 'Asia/Tokyo' }, daysAgo(10));
    const r = await ws.cli(['drift', file, '--since', '25h', '--format', 'json'], { HOGSYNC_API_KEY: NO_LOG_KEY });
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.since).toBeUndefined();
    // A full drift: the change of ten days ago is there, without who made it.
    expect(report.changes.map((c) => c.address)).toEqual([`project:${ORG}/${FIRST + 3}`]);
    expect(report.warnings).toHaveLength(1);
    expect(report.warnings[0]).toMatch(/^drift --since .* UTC: neither the organization-wide activity log .* nor its projects' logs \(403: API key missing required scope 'activity_log:read'\) could be read, so this report is a full drift/);
  });

  it('falls back to a full drift with one warning: an organization whose plan lacks the audit log', async () => {
    await start(['data_management', 'tagging']);
    resetStats(sandbox.stats);
    const r = await ws.cli(['drift', file, '--since', '25h']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Warnings:\n {2}! drift --since .*: neither the organization-wide activity log of \S+ \(402, the organization's plan does not include the audit log: .*\) nor its projects' logs \(402, .*\) could be read, so this report is a full drift/);
    expect(r.stdout).toContain('No drift: live state matches the configuration.');
    expect(r.stdout).not.toContain('Since report');
    // Two refused reads, then the full drift.
    expect(sandbox.stats.byRoute[ORG_LOG]).toBe(1);
    expect(sandbox.stats.byRoute[PROJECT_LOG]).toBe(1);
    expect(sandbox.stats.byRoute['GET /api/projects/:project/feature_flags/']).toBe(PROJECTS);
  });
});
