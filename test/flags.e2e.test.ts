// Feature flags end to end: the real CLI against a sandbox. Create, update, delete (PATCH
// {"deleted": true}, never DELETE) and prune per project; the blast radius of a widened
// rollout, checked against the seed's persons with the documented hash; a blast radius the
// API refuses is a warning; a bad flag key fails validate at its line and column.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import type { SeedDocument } from '../src/sandbox/seed.js';

const READONLY_KEY = 'phx_readonly_flags_test_key';
const PERSONS = Array.from({ length: 120 }, (_, i) => ({
  distinct_id: `user-${i}`,
  properties: { country: ['DE', 'FR', 'US'][i % 3] as string, email: `user${i}@example.com` },
}));

const SEED: SeedDocument = {
  organizations: [{
    id: ORG,
    projects: [
      {
        id: 12345,
        name: 'Web app',
        persons: PERSONS,
        feature_flags: [
          { key: 'rollout', name: 'Rollout', active: true, filters: { groups: [{ properties: [], rollout_percentage: 10 }] } },
          { key: 'geo', name: 'Geo', active: true, filters: { groups: [{ properties: [{ key: 'country', type: 'person', operator: 'exact', value: ['DE'] }], rollout_percentage: 10 }] } },
          { key: 'doomed', name: 'Doomed', active: true },
          { key: 'keep-me', name: 'Keep me', active: true },
        ],
      },
      { id: 12346, name: 'Mobile app', feature_flags: [{ key: 'mobile-a', active: true }, { key: 'mobile-b', active: true }] },
    ],
  }],
  keys: [{ key: READONLY_KEY, label: 'reads only', scopes: ['project:read', 'organization:read', 'feature_flag:read'] }],
};

const LONG_SCALE = 0xfffffffffffffffn;

/**
 * Persons the sandbox counts for a condition, computed independently: every property filter
 * matches (here only `exact` on one value) and sha1(`${key}.${distinct_id}`), first 15 hex
 * digits over 0xFFFFFFFFFFFFFFF, is within the rollout (exact integer arithmetic: h·100 ≤ r·scale).
 */
function expectedReach(flagKey: string, rollout: number, country?: string): number {
  return PERSONS.filter((p) => {
    if (country !== undefined && p.properties.country !== country) return false;
    const h = BigInt(`0x${createHash('sha1').update(`${flagKey}.${p.distinct_id}`).digest('hex').slice(0, 15)}`);
    return h * 100n <= BigInt(rollout) * LONG_SCALE;
  }).length;
}

let sandbox: SandboxHandle;
let ws: Workspace;
let http: Api;

beforeEach(async () => {
  sandbox = await inProcessSandbox({ seed: SEED });
  ws = workspace(sandbox);
  http = api(sandbox.baseUrl, sandbox.apiKey);
});
afterEach(async () => {
  ws.remove();
  await stopAllSandboxes();
});

type Flag = { id: number; key: string; name: string; active: boolean; deleted: boolean; filters: Record<string, unknown> };

async function flags(project: number): Promise<Flag[]> {
  const res = await http.get(`/api/projects/${project}/feature_flags/?limit=1000`);
  return (res.body as { results: Flag[] }).results;
}

const keys = async (project: number) => (await flags(project)).map((f) => f.key).sort();

describe('feature flags: apply', () => {
  it('creates, updates and deletes flags (delete = PATCH {"deleted": true}), then plans to no changes', async () => {
    const file = ws.write('flags.yaml', config(`projects:
  - id: 12345
    feature_flags:
      - key: new-flag
        name: New flag
        active: true
        filters: { groups: [ { properties: [], rollout_percentage: 25 } ] }
        tags: [checkout]
      - key: keep-me
        name: Keep me (renamed)
        active: false
      - key: doomed
        ensure: absent
`));
    const doomedId = (await flags(12345)).find((f) => f.key === 'doomed')?.id;
    sandbox.stats.byRoute = {};
    const r = await ws.cli(['apply', file, '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);

    expect(sandbox.stats.byRoute['DELETE /api/projects/:project/feature_flags/:id/']).toBeUndefined();
    expect(sandbox.stats.byRoute['POST /api/projects/:project/feature_flags/']).toBe(1);
    expect(sandbox.stats.byRoute['PATCH /api/projects/:project/feature_flags/:id/']).toBe(2);

    const live = await flags(12345);
    expect(live.map((f) => f.key).sort()).toEqual(['geo', 'keep-me', 'new-flag', 'rollout']);
    expect(live.find((f) => f.key === 'new-flag')).toMatchObject({ name: 'New flag', active: true, tags: ['checkout'], filters: { groups: [{ properties: [], rollout_percentage: 25 }] } });
    expect(live.find((f) => f.key === 'keep-me')).toMatchObject({ name: 'Keep me (renamed)', active: false });
    // The deleted flag still exists, marked deleted, as on the real API.
    const doomed = await http.get(`/api/projects/12345/feature_flags/${doomedId}/`);
    expect(doomed.body).toMatchObject({ key: 'doomed', deleted: true });

    const again = await ws.cli(['plan', file, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes.');
  });

  it('prunes undeclared flags of each declared project only', async () => {
    const file = ws.write('flags.yaml', config(`projects:
  - id: 12345
    feature_flags:
      - key: keep-me
prune:
  feature_flags: true
`));
    const plan = await ws.cli(['plan', file, '--format', 'json']);
    expect(plan.code, plan.stderr).toBe(0);
    const parsed = JSON.parse(plan.stdout);
    expect(parsed.changes.map((c: { action: string; address: string }) => `${c.action} ${c.address}`).sort()).toEqual([
      `delete feature_flag:${ORG}/12345/doomed`, `delete feature_flag:${ORG}/12345/geo`, `delete feature_flag:${ORG}/12345/rollout`,
    ]);
    // Project 12346 is not declared: it is listed as unmanaged, its flags are neither pruned nor read.
    expect(parsed.unmanaged.map((u: { address: string }) => u.address)).toEqual([`project:${ORG}/12346`]);
    expect(JSON.stringify(parsed)).not.toContain('12346/');

    // 3 of 6 live flags exceeds the default 30% delete limit: allow it explicitly.
    const r = await ws.cli(['apply', file, '--auto-approve', '--max-delete-percent', '100']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await keys(12345)).toEqual(['keep-me']);
    expect(await keys(12346)).toEqual(['mobile-a', 'mobile-b']);

    // Declaring 12346 (even with no flags) puts its flags under prune too.
    const both = ws.write('both.yaml', config(`projects:
  - id: 12345
    feature_flags:
      - key: keep-me
  - id: 12346
    feature_flags:
      - key: mobile-b
prune:
  feature_flags: true
`));
    const r2 = await ws.cli(['apply', both, '--auto-approve', '--max-delete-percent', '100']);
    expect(r2.code, r2.stdout + r2.stderr).toBe(0);
    expect(await keys(12346)).toEqual(['mobile-b']);
  });
});

describe('feature flags: blast radius', () => {
  const WIDEN = config(`projects:
  - id: 12345
    feature_flags:
      - key: rollout
        filters:
          groups:
            - properties: []
              rollout_percentage: 50
      - key: geo
        filters:
          groups:
            - properties: [ { key: country, type: person, operator: exact, value: [DE] } ]
              rollout_percentage: 50
`);

  it('shows how many of the persons the widened rollout reaches, in text, json and markdown', async () => {
    const file = ws.write('widen.yaml', WIDEN);
    const rollout = expectedReach('rollout', 50);
    const geo = expectedReach('geo', 50, 'DE');
    // The hash really splits: neither nobody nor everyone, and more than at 10%.
    expect(rollout).toBeGreaterThan(expectedReach('rollout', 10));
    expect(rollout).toBeLessThan(PERSONS.length);
    expect(geo).toBeGreaterThan(0);
    const pct = (n: number) => ((n / PERSONS.length) * 100).toFixed(1);

    const text = await ws.cli(['plan', file]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`blast radius: the new release conditions reach ${rollout} of ${PERSONS.length} users (${pct(rollout)}%)`);
    expect(text.stdout).toContain(`blast radius: the new release conditions reach ${geo} of ${PERSONS.length} users (${pct(geo)}%)`);
    expect(text.stdout).toContain('        ~ condition set 1: rollout 10% → 50%\n');

    const json = JSON.parse((await ws.cli(['plan', file, '--format', 'json'])).stdout);
    const byKey = Object.fromEntries(json.changes.map((c: { key: string; blast_radius?: unknown }) => [c.key, c.blast_radius]));
    expect(byKey).toEqual({ '12345/rollout': { affected: rollout, total: PERSONS.length }, '12345/geo': { affected: geo, total: PERSONS.length } });
    expect(json.warnings).toEqual([]);

    const markdown = await ws.cli(['plan', file, '--format', 'markdown']);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain(`blast radius: the new release conditions reach ${rollout} of ${PERSONS.length} users`);

    // hogsync sends the flag's key with each condition, as the hash needs it.
    const direct = await http.post('/api/projects/12345/feature_flags/user_blast_radius/', {
      key: 'rollout', condition: { properties: [], rollout_percentage: 50 }, group_type_index: null,
    });
    expect(direct.body).toEqual({ affected: rollout, total: PERSONS.length });
  });

  it('is a warning, not an error, when the API refuses it', async () => {
    const file = ws.write('widen.yaml', WIDEN);
    const text = await ws.cli(['plan', file], { HOGSYNC_API_KEY: READONLY_KEY });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`blast radius of feature_flag:${ORG}/12345/rollout is unknown: POST /api/projects/12345/feature_flags/user_blast_radius/ → 403`);
    expect(text.stdout).toContain("feature_flag:write");
    expect(text.stdout).not.toContain('blast radius: the new release conditions');
    expect(text.stdout).toContain('Plan: 0 to create, 2 to update, 0 to delete.');

    const json = await ws.cli(['plan', file, '--format', 'json', '--detailed-exitcode'], { HOGSYNC_API_KEY: READONLY_KEY });
    expect(json.code).toBe(2); // changes present; the failed blast radius does not make it an error
    const parsed = JSON.parse(json.stdout);
    // The refused preview, the API's reason, and the write scope the changes need (which apply checks before sending).
    expect(parsed.warnings).toHaveLength(3);
    expect(parsed.warnings).toContain('the personal API key lacks the scope these changes need: feature_flag:write; apply will refuse to start without it');
    expect(parsed.changes.every((c: { blast_radius?: unknown }) => c.blast_radius === undefined)).toBe(true);
  });

  it('is a warning when the sandbox cannot evaluate a condition', async () => {
    const file = ws.write('cohort.yaml', config(`projects:
  - id: 12345
    feature_flags:
      - key: rollout
        filters:
          groups:
            - properties: [ { key: id, type: cohort, value: 7 } ]
              rollout_percentage: 50
`));
    const r = await ws.cli(['plan', file, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const parsed = JSON.parse(r.stdout);
    expect(parsed.warnings).toEqual([expect.stringMatching(new RegExp(`^blast radius of feature_flag:${ORG}/12345/rollout is unknown: POST .* → 400`))]);
  });
});

describe('feature flags: validate', () => {
  it('names a key that breaks the pattern at its line and column', async () => {
    ws.write('bad.yaml', config(`projects:
  - id: 12345
    feature_flags:
      - key: ok-flag
      - key: new checkout!
        name: Bad key
`));
    const r = await ws.cli(['validate', 'bad.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bad.yaml:6:14: key: "new checkout!" must match ^[a-zA-Z0-9_-]+$');
    expect(r.stderr).not.toContain('ok-flag');
  });
});
