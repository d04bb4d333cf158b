// Property: for any generated workspace and configuration, after apply live equals desired on
// every managed field, unmanaged items are untouched, and nothing is deleted that neither
// `ensure: absent` nor `prune` asked for. Real loader, client, planner, applier and sandbox.
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startSandbox } from '../src/sandbox/server.js';
import { createClient } from '../src/http/client.js';
import { readLiveState } from '../src/state/live-state.js';
import { readWorkspace } from '../src/state/workspace.js';
import { loadConfig } from '../src/config/load.js';
import { computePlan } from '../src/plan/planner.js';
import { executePlan } from '../src/apply/execute.js';
import { ORG } from './support/workspace.js';

const ROLE_NAMES = ['Eng', 'Ops', 'Sales', 'Support', 'Design', 'Data'];
const DOMAINS = ['a.example.com', 'b.example.com', 'c.example.com', 'd.example.com'];
const FLAG_KEYS = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
const TIMEZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo'];
const RATES = ['0.1', '0.25', '0.50', '1.00', '0'];

const level = fc.constantFrom(21, 37);
const liveArb = fc.record({
  roles: fc.uniqueArray(fc.constantFrom(...ROLE_NAMES), { maxLength: 5 }).chain((names) => fc.tuple(...names.map((n) => fc.record({ name: fc.constant(n), feature_flags_access_level: level })))),
  // Live domains may be in any case and end in a dot (the API stores what it is sent); files may not.
  proxies: fc.uniqueArray(fc.constantFrom(...DOMAINS), { maxLength: 4 }).chain((ds) => fc.tuple(...ds.map((domain) => fc.record({ domain: fc.constant(domain), upper: fc.boolean() })))),
  flags: fc.uniqueArray(fc.constantFrom(...FLAG_KEYS), { maxLength: 5 }).chain((keys) => fc.tuple(...keys.map((key) => fc.record({ key: fc.constant(key), active: fc.boolean(), rollout: fc.integer({ min: 0, max: 100 }) })))),
  timezone: fc.constantFrom(...TIMEZONES),
});
const ensure = fc.constantFrom<'present' | 'absent'>('present', 'present', 'absent');
const desiredArb = fc.record({
  roles: fc.uniqueArray(fc.constantFrom(...ROLE_NAMES), { maxLength: 5 }).chain((names) => fc.tuple(...names.map((n) => fc.record({ name: fc.constant(n), level: fc.option(level), ensure })))),
  proxies: fc.uniqueArray(fc.constantFrom(...DOMAINS), { maxLength: 4 }).chain((ds) => fc.tuple(...ds.map((domain) => fc.record({ domain: fc.constant(domain), ensure })))),
  flags: fc.uniqueArray(fc.constantFrom(...FLAG_KEYS), { maxLength: 5 }).chain((keys) => fc.tuple(...keys.map((key) => fc.record({ key: fc.constant(key), active: fc.option(fc.boolean()), rollout: fc.option(fc.integer({ min: 0, max: 100 })), ensure })))),
  project: fc.record({ timezone: fc.option(fc.constantFrom(...TIMEZONES)), rate: fc.option(fc.constantFrom(...RATES)), anonymize: fc.option(fc.boolean()) }),
  prune: fc.record({ roles: fc.boolean(), proxy_records: fc.boolean(), feature_flags: fc.boolean() }),
});

type LiveArb = typeof liveArb extends fc.Arbitrary<infer T> ? T : never;
type DesiredArb = typeof desiredArb extends fc.Arbitrary<infer T> ? T : never;

function configYaml(d: DesiredArb): string {
  const clean = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
  const project = clean({
    id: 12345, timezone: d.project.timezone, session_recording_sample_rate: d.project.rate, anonymize_ips: d.project.anonymize,
    feature_flags: d.flags.map((f) => clean({
      key: f.key, ensure: f.ensure === 'absent' ? 'absent' : undefined,
      ...(f.ensure === 'present' ? { active: f.active, filters: f.rollout === null ? undefined : { groups: [{ properties: [], rollout_percentage: f.rollout }] } } : {}),
    })),
  });
  return stringify({
    organization: ORG,
    projects: [project],
    proxy_records: d.proxies.map((p) => clean({ domain: p.domain, ensure: p.ensure === 'absent' ? 'absent' : undefined })),
    roles: d.roles.map((r) => clean({ name: r.name, ensure: r.ensure === 'absent' ? 'absent' : undefined, feature_flags_access_level: r.ensure === 'present' ? r.level : undefined })),
    prune: d.prune,
  });
}

const dir = mkdtempSync(join(tmpdir(), 'hogsync-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function check(live: LiveArb, desired: DesiredArb): Promise<void> {
  const sandbox = await startSandbox({
    port: 0,
    seed: {
      organizations: [{
        id: ORG,
        // A plan of the workspace that holds more than the default 2 proxy records (the limit has its own tests).
        max_proxy_records: 10,
        projects: [{ id: 12345, name: 'P', timezone: live.timezone, feature_flags: live.flags.map((f) => ({ key: f.key, active: f.active, filters: { groups: [{ properties: [], rollout_percentage: f.rollout }] } })) }],
        proxy_records: live.proxies.map((p) => ({ domain: p.upper ? `${p.domain.toUpperCase()}.` : p.domain })),
        roles: live.roles,
      }],
    },
  });
  const client = createClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, requestsPerMinute: Infinity });
  try {
    const file = join(dir, 'h.yaml');
    writeFileSync(file, configYaml(desired));
    const config = await loadConfig([file]);
    const before = await readLiveState(client, config, 4);
    // The whole workspace, every kind (the plan reads only the kinds the files declare).
    const wholeBefore = await readWorkspace(client, ORG, [], 4);
    const result = computePlan(config, before, { baseUrl: sandbox.baseUrl });
    const report = await executePlan(result, client, { parallelism: 4 });
    expect(report.summary).toEqual({ applied: result.plan.changes.length, failed: 0, skipped: 0 });

    const after = await readLiveState(client, config, 4);
    // 1. Live equals desired on every managed field: a re-plan is empty.
    expect(computePlan(config, after, { baseUrl: sandbox.baseUrl }).plan.changes).toEqual([]);
    const wholeAfter = await readWorkspace(client, ORG, [], 4);

    // 2. and 3. Undeclared items survive unless pruned; declared ones are deleted only when absent.
    const names = (state: typeof before, kind: string, field: string) =>
      state.collections.filter((c) => c.kind.name === kind).flatMap((c) => c.records.filter((r) => r.deleted !== true).map((r) => String(r[field]).toLowerCase().replace(/\.$/, '')));
    const expectations: Array<[string, string, string[], Array<{ key: string; ensure: string }>, boolean]> = [
      ['role', 'name', ROLE_NAMES, desired.roles.map((r) => ({ key: r.name, ensure: r.ensure })), desired.prune.roles],
      ['proxy_record', 'domain', DOMAINS, desired.proxies.map((p) => ({ key: p.domain, ensure: p.ensure })), desired.prune.proxy_records],
      ['feature_flag', 'key', FLAG_KEYS, desired.flags.map((f) => ({ key: f.key, ensure: f.ensure })), desired.prune.feature_flags],
    ];
    for (const [kind, field, pool, declared, prune] of expectations) {
      const had = new Set(names(wholeBefore, kind, field));
      const has = new Set(names(wholeAfter, kind, field));
      for (const key of pool.map((k) => k.toLowerCase())) {
        const decl = declared.find((x) => x.key.toLowerCase() === key);
        const expected = decl ? decl.ensure === 'present' : prune ? false : had.has(key);
        expect({ kind, key, exists: has.has(key) }).toEqual({ kind, key, exists: expected });
      }
    }
    // Unmanaged items keep their values.
    const liveRoles = wholeAfter.collections.find((c) => c.kind.name === 'role')?.records ?? [];
    for (const r of live.roles) {
      if (desired.roles.some((d) => d.name === r.name) || desired.prune.roles) continue;
      expect(liveRoles.find((x) => x.name === r.name)?.feature_flags_access_level).toBe(r.feature_flags_access_level);
    }
  } finally {
    await client.close();
    await sandbox.stop();
  }
}

describe('apply converges (property)', () => {
  it('for 120 generated workspaces', async () => {
    await fc.assert(fc.asyncProperty(liveArb, desiredArb, check), { numRuns: 120, seed: 20261121 });
  });
});
