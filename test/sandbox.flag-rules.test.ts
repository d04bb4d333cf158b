// The sandbox keeps feature flags as the real API does (PostHog's FeatureFlagSerializer and
// approvals): filters rewritten and merged on every write, tags tagified, encrypted payloads,
// archived flags, dependencies and the refusals they cause, optimistic concurrency by version,
// approval-gated changes, hidden keys and the 2000-flag limit.
import { afterEach, describe, expect, it, beforeAll } from 'vitest';
import type { SeedDocument } from '../src/sandbox/seed.js';
import { stateFromSeed } from '../src/sandbox/seed.js';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { loadSandboxModels } from '../src/sandbox/models.js';

// stateFromSeed reads the kinds' sandbox models, which the sandbox loads at start.
beforeAll(loadSandboxModels);

type Rec = Record<string, unknown>;
interface Page { count: number; results: Rec[] }
const P = 12345;
const F = `/api/projects/${P}/feature_flags`;
const ALL = { groups: [{ properties: [], rollout_percentage: 100 }] };

afterEach(stopAllSandboxes);

async function sandbox(projectExtra: Rec = {}, flags: Rec[] = []): Promise<{ c: Api; state: () => Promise<Rec> }> {
  const seed = { organizations: [{ id: DEFAULT_ORG, projects: [{ id: P, name: 'Web', feature_flags: flags, ...projectExtra }] }] } as SeedDocument;
  const sb = await inProcessSandbox({ seed });
  return { c: api(sb.baseUrl, sb.apiKey), state: () => sb.store.read((s) => JSON.parse(JSON.stringify(s)) as Rec) };
}

async function create(c: Api, body: Rec): Promise<Rec> {
  const r = await c.post(`${F}/`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as Rec;
}

async function keys(c: Api, query = ''): Promise<string[]> {
  return ((await c.get(`${F}/${query}`)).body as Page).results.map((f) => f.key as string).sort();
}

describe('sandbox flags: filters as the API rewrites them', () => {
  it('sets the aggregation index everywhere, defaults properties, stringifies payloads and keys, rewrites min/max, drops holdouts', async () => {
    // The cohort a condition names must exist in the project: the API answers its name beside its id.
    const { c } = await sandbox({ cohorts: [{ id: 7, name: 'Beta testers' }] });
    const dep = await create(c, { key: 'base', filters: ALL });
    const flag = await create(c, {
      key: 'rewritten',
      filters: {
        groups: [
          { rollout_percentage: 20 },
          { properties: [{ key: 'age', type: 'person', operator: 'min', value: '18' }, { key: 'age', type: 'person', operator: 'max', value: '65' }] },
          { properties: [{ key: dep.id as number, type: 'flag', operator: 'flag_evaluates_to', value: true }] },
          { properties: [{ key: 'id', type: 'cohort', value: 7 }] },
        ],
        payloads: { true: { plan: 'pro', limits: [1, 2] } },
        holdout_groups: [{ properties: [], rollout_percentage: 10 }],
        super_groups: [{ properties: [], rollout_percentage: 100 }],
      },
    });
    const filters = flag.filters as Rec;
    expect(filters).not.toHaveProperty('holdout_groups');
    expect(filters).not.toHaveProperty('super_groups');
    expect(filters).toMatchObject({ aggregation_group_type_index: null, multivariate: null, payloads: { true: '{"plan": "pro", "limits": [1, 2]}' } });
    const groups = filters.groups as Rec[];
    expect(groups.every((g) => g.aggregation_group_type_index === null)).toBe(true);
    expect(groups[0]).toEqual({ properties: [], rollout_percentage: 20, aggregation_group_type_index: null });
    expect((groups[1]?.properties as Rec[]).map((p) => p.operator)).toEqual(['gte', 'lte']);
    expect((groups[2]?.properties as Rec[])[0]?.key).toBe(String(dep.id));
    expect((groups[3]?.properties as Rec[])[0]?.cohort_name).toBe('Beta testers');
  });

  it('copies a group aggregation into every condition and refuses person properties there', async () => {
    const { c } = await sandbox();
    const flag = await create(c, { key: 'orgs', filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'plan', type: 'group', group_type_index: 0, value: 'pro' }], rollout_percentage: 50 }] } });
    expect((flag.filters as { groups: Rec[] }).groups[0]?.aggregation_group_type_index).toBe(0);
    const bad = await c.post(`${F}/`, { key: 'bad', filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'email', type: 'person', value: 'x' }] }] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ attr: 'filters', detail: 'Filters are not valid (can only use group properties)' });
  });

  it('refuses a create without conditions and payload keys that name no variant; ignores a PATCH without groups', async () => {
    const { c } = await sandbox();
    expect(((await c.post(`${F}/`, { key: 'x', filters: { groups: [] } })).body as Rec).detail).toBe('Feature flags must have at least one condition set (group).');
    expect(((await c.post(`${F}/`, { key: 'x', filters: { groups: [{}], payloads: { a: '1' } } })).body as Rec).detail).toBe("Payload keys must be 'true' for boolean flags");
    expect(((await c.post(`${F}/`, { key: 'x', filters: { groups: [{}], payloads: { true: 'not json' } } })).body as Rec).detail).toBe('Payload value is not valid JSON');
    const flag = await create(c, { key: 'kept', filters: { groups: [{ rollout_percentage: 30 }] } });
    const r = await c.patch(`${F}/${flag.id as number}/`, { filters: { payloads: { true: '1' } } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ filters: { groups: [{ rollout_percentage: 30 }], payloads: {} } });
  });

  it('merges the top-level keys of filters: a key left out stays, a key sent as null goes', async () => {
    const { c } = await sandbox();
    const flag = await create(c, {
      key: 'split',
      filters: { groups: [{ rollout_percentage: 100 }], multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] }, payloads: { a: '"A"' } },
    });
    const path = `${F}/${flag.id as number}/`;
    const kept = (await c.patch(path, { filters: { groups: [{ rollout_percentage: 40 }] } })).body as { filters: Rec };
    expect(kept.filters).toMatchObject({ multivariate: { variants: [{ key: 'a' }, { key: 'b' }] }, payloads: { a: '"A"' } });
    const cleared = (await c.patch(path, { filters: { groups: [{ rollout_percentage: 40 }], multivariate: null, payloads: null } })).body as { filters: Rec };
    expect(cleared.filters).toMatchObject({ multivariate: null, payloads: {} });
  });

  it('stores tags lower-cased, trimmed, without duplicates', async () => {
    const { c } = await sandbox();
    const flag = await create(c, { key: 'tagged', filters: ALL, tags: ['Team-B', ' alpha', 'team-b', 'ALPHA'] });
    expect(flag.tags).toEqual(['alpha', 'team-b']);
  });

  it('keeps encrypted payloads encrypted at rest and answers them decrypted', async () => {
    const { c, state } = await sandbox();
    const flag = await create(c, { key: 'secret', has_encrypted_payloads: true, is_remote_configuration: true, filters: { groups: [{}], payloads: { true: '{"token": "s3cr3t-value"}' } } });
    expect((flag.filters as Rec).payloads).toEqual({ true: '{"token": "s3cr3t-value"}' });
    expect(JSON.stringify(await state())).not.toContain('s3cr3t-value');
    const patched = await c.patch(`${F}/${flag.id as number}/`, { name: 'renamed' });
    expect((patched.body as { filters: Rec }).filters.payloads).toEqual({ true: '{"token": "s3cr3t-value"}' });
  });
});

describe('sandbox flags: archived, hidden and deleted keys, the 2000-flag limit', () => {
  it('archives only a disabled flag, lists archived flags only when asked, and keeps their key taken', async () => {
    const { c } = await sandbox();
    const flag = await create(c, { key: 'old', filters: ALL });
    const path = `${F}/${flag.id as number}/`;
    const refused = await c.patch(path, { archived: true });
    expect(refused.status).toBe(400);
    expect((refused.body as Rec).detail).toMatch(/Cannot archive an active feature flag/);
    expect((await c.patch(path, { archived: true, active: false })).body).toMatchObject({ archived: true, active: false });
    expect(await keys(c)).toEqual([]);
    expect(await keys(c, '?archived=true')).toEqual(['old']);
    expect(await keys(c, '?archived=false')).toEqual([]);
    expect((await c.post(`${F}/`, { key: 'old', filters: ALL })).body).toMatchObject({ attr: 'key', code: 'unique' });
  });

  it('holds the keys of flags it never lists (survey, product tour, restricted) and frees a deleted flag\'s key', async () => {
    const { c } = await sandbox({}, [
      { key: 'survey-targeting-abc', internal: 'survey', filters: ALL },
      { key: 'secret-project', internal: 'restricted', filters: ALL },
    ]);
    expect(await keys(c)).toEqual([]);
    for (const key of ['survey-targeting-abc', 'secret-project']) {
      expect((await c.post(`${F}/`, { key, filters: ALL })).body).toMatchObject({ attr: 'key', detail: 'There is already a feature flag with this key.' });
    }
    const flag = await create(c, { key: 'reused', filters: ALL });
    await c.patch(`${F}/${flag.id as number}/`, { deleted: true });
    await create(c, { key: 'reused', filters: ALL });
  });

  it('refuses a project\'s 2001st flag', async () => {
    const flags = Array.from({ length: 2000 }, (_, i) => ({ key: `f${i}`, filters: ALL }));
    const { c } = await sandbox({}, flags);
    const r = await c.post(`${F}/`, { key: 'one-too-many', filters: ALL });
    expect(r.status).toBe(400);
    expect((r.body as Rec).detail).toMatch(/2000 feature flags/);
  });
});

describe('sandbox flags: dependencies and preconditions', () => {
  it('refuses to delete or disable a flag active flags depend on, and to enable one whose dependency is disabled', async () => {
    const { c } = await sandbox();
    const base = await create(c, { key: 'base', filters: ALL });
    const child = await create(c, { key: 'child', filters: { groups: [{ properties: [{ key: String(base.id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] } });
    const basePath = `${F}/${base.id as number}/`;
    const childPath = `${F}/${child.id as number}/`;
    expect(((await c.patch(basePath, { deleted: true })).body as Rec).detail)
      .toBe(`Cannot delete this feature flag because other flags depend on it: child (ID: ${child.id as number}). Please update or delete the dependent flags first.`);
    expect(((await c.patch(basePath, { active: false })).body as Rec).detail).toMatch(/^Cannot disable this feature flag because other flags depend on it: child/);
    // In order: the dependent first, then what it depends on.
    expect((await c.patch(childPath, { active: false })).status).toBe(200);
    expect((await c.patch(basePath, { active: false })).status).toBe(200);
    expect(((await c.patch(childPath, { active: true })).body as Rec).detail).toMatch(/^Cannot enable this feature flag because it depends on disabled flags: base/);
    expect(((await c.post(`${F}/`, { key: 'x', filters: { groups: [{ properties: [{ key: String(base.id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] } })).body as Rec).detail)
      .toMatch(/^Cannot create dependency on disabled flag 'base'/);
    expect((await c.patch(childPath, { deleted: true })).status).toBe(200);
    expect((await c.patch(basePath, { deleted: true })).status).toBe(200);
  });

  it('refuses dependency cycles and references by key', async () => {
    const { c } = await sandbox();
    const a = await create(c, { key: 'a', filters: ALL });
    const b = await create(c, { key: 'b', filters: { groups: [{ properties: [{ key: String(a.id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] } });
    const cycle = await c.patch(`${F}/${a.id as number}/`, { filters: { groups: [{ properties: [{ key: String(b.id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] } });
    expect((cycle.body as Rec).detail).toBe('Circular dependency detected: a → b → a');
    const byKey = await c.post(`${F}/`, { key: 'c', filters: { groups: [{ properties: [{ key: 'a', type: 'flag', operator: 'flag_evaluates_to', value: true }] }] } });
    expect((byKey.body as Rec).detail).toBe("Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: 'a'");
  });

  it('refuses to delete a flag with a running experiment or an early access feature, in the API\'s words', async () => {
    const { c } = await sandbox({}, [
      { key: 'exp', filters: ALL, experiments: [41] },
      { key: 'eaf', filters: ALL, early_access_features: ['Beta dashboard'] },
    ]);
    const list = ((await c.get(`${F}/`)).body as Page).results;
    const id = (key: string) => list.find((f) => f.key === key)?.id as number;
    expect(((await c.patch(`${F}/${id('exp')}/`, { deleted: true })).body as Rec).detail)
      .toBe('Cannot delete a feature flag that is linked to active experiment(s) with ID(s): 41. Please delete the experiment(s) before deleting the flag.');
    expect(((await c.patch(`${F}/${id('eaf')}/`, { deleted: true })).body as Rec).detail).toMatch(/^Cannot delete a feature flag that is in use with early access features/);
  });
});

describe('sandbox flags: what owns a flag, as the real serializer answers it', () => {
  async function owned(apiVersion: number): Promise<{ c: Api; flag: (key: string) => Promise<Rec> }> {
    const seed = {
      api_version: apiVersion,
      organizations: [{
        id: DEFAULT_ORG,
        projects: [{
          id: P,
          feature_flags: [
            { key: 'running', filters: ALL, experiments: [{ id: 41, name: 'Checkout test' }] },
            { key: 'stopped', filters: ALL, experiments: [{ id: 42, name: 'Old pricing', running: false }] },
            { key: 'eaf', filters: ALL, early_access_features: ['Beta dashboard'] },
            { key: 'survey', filters: ALL, surveys: [{ name: 'NPS' }] },
          ],
        }],
      }],
    } as SeedDocument;
    const sb = await inProcessSandbox({ seed });
    const c = api(sb.baseUrl, sb.apiKey);
    const flag = async (key: string) => ((await c.get(`${F}/`)).body as Page).results.find((f) => f.key === key) as Rec;
    return { c, flag };
  }

  it('names experiments (with their names on newer versions), early access features and surveys in lists', async () => {
    const { flag } = await owned(2026);
    expect(await flag('running')).toMatchObject({ experiment_set: [41], experiment_set_metadata: [{ id: 41, name: 'Checkout test', is_running: true }], features: [], surveys: [] });
    expect((await flag('eaf')).features).toEqual([expect.objectContaining({ name: 'Beta dashboard', flagKey: 'eaf', id: expect.stringMatching(/^[0-9a-f-]{36}$/) })]);
    expect((await flag('eaf')).filters).toMatchObject({ feature_enrollment: true });
    expect((await flag('survey')).surveys).toEqual([expect.objectContaining({ name: 'NPS', id: expect.stringMatching(/^[0-9a-f-]{36}$/) })]);
    const older = await owned(2025);
    const record = await older.flag('running');
    expect(record.experiment_set).toEqual([41]);
    expect(record).not.toHaveProperty('experiment_set_metadata');
  });

  it('refuses deleting a flag a running experiment or an early access feature uses; a stopped experiment\'s or a survey\'s flag is deleted', async () => {
    const { c, flag } = await owned(2026);
    const del = async (key: string) => c.patch(`${F}/${(await flag(key)).id as number}/`, { deleted: true });
    expect(((await del('running')).body as Rec).detail)
      .toBe('Cannot delete a feature flag that is linked to running experiment(s): "Checkout test" (ID: 41). Please stop the experiment(s) before deleting the flag.');
    expect(((await del('eaf')).body as Rec).detail).toMatch(/^Cannot delete a feature flag that is in use with early access features/);
    const stopped = await del('stopped');
    expect(stopped.status).toBe(200);
    // The experiment keeps the flag, so the API frees its key by renaming it.
    expect((stopped.body as Rec).key).toMatch(/^stopped:deleted:\d+$/);
    expect((await del('survey')).status).toBe(200);
    expect(await keys(c)).toEqual(['eaf', 'running']);
  });
});

describe('sandbox flags: optimistic concurrency and approvals', () => {
  it('refuses (409) a write made against an older version when another write changed the same field', async () => {
    const { c } = await sandbox();
    const flag = await create(c, { key: 'v', name: 'one', filters: ALL });
    const path = `${F}/${flag.id as number}/`;
    await c.patch(path, { name: 'two' }); // someone else, in the web app
    const stale = await c.patch(path, { name: 'three', version: flag.version, original_flag: { name: 'one' } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'conflict' });
    expect((stale.body as Rec).detail).toMatch(/updated by .* since you started editing it/);
    // A field nobody else touched goes through; so does a write without what it read.
    expect((await c.patch(path, { active: false, version: flag.version, original_flag: { active: true } })).status).toBe(200);
    expect((await c.patch(path, { name: 'four', version: flag.version })).status).toBe(200);
  });

  it('holds gated changes for approval (409), answers the open request again, and applies it once approved', async () => {
    const { c } = await sandbox({ flag_approvals: ['feature_flag.disable', 'feature_flag.update'] }, [{ key: 'guarded', filters: { groups: [{ rollout_percentage: 10 }] } }]);
    const flag = ((await c.get(`${F}/`)).body as Page).results[0] as Rec;
    const path = `${F}/${flag.id as number}/`;
    // Not gated: a name change.
    expect((await c.patch(path, { name: 'Guarded' })).status).toBe(200);
    const held = await c.patch(path, { active: false });
    expect(held.status).toBe(409);
    expect(held.body).toMatchObject({ code: 'approval_required', status: 'approval_required', resource_type: 'feature_flag', resource_id: String(flag.id) });
    const id = (held.body as Rec).change_request_id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const again = await c.patch(path, { active: false });
    expect(again.body).toMatchObject({ code: 'change_request_pending', change_request_id: id });
    expect(((await c.get(path)).body as Rec).active).toBe(true);
    // A rollout change is gated as "feature_flag.update".
    const rollout = await c.patch(path, { filters: { groups: [{ rollout_percentage: 50 }] } });
    expect(rollout.body).toMatchObject({ code: 'approval_required' });

    const approved = await c.post(`/api/projects/${P}/change_requests/${id}/approve/`, {});
    expect(approved.body).toMatchObject({ status: 'applied', change_request: { state: 'applied' } });
    expect(((await c.get(path)).body as Rec).active).toBe(false);
    // The rollout request was made against an older version: approving it cannot apply it.
    const stale = await c.post(`/api/projects/${P}/change_requests/${(rollout.body as Rec).change_request_id as string}/approve/`, {});
    expect(stale.body).toMatchObject({ status: 'failed', change_request: { state: 'failed' } });
    expect(((await c.get(`/api/projects/${P}/change_requests/?state=pending`)).body as Page).count).toBe(0);
  });

  it('refuses seeds with unknown approval actions or internal kinds, naming where', () => {
    const doc = (project: Rec) => ({ organizations: [{ projects: [{ id: 1, ...project }] }] });
    expect(() => stateFromSeed(doc({ flag_approvals: ['feature_flag.delete'] }), 's.yaml')).toThrow(/projects\[0\]\.flag_approvals: must be a list of: feature_flag\.enable/);
    expect(() => stateFromSeed(doc({ feature_flags: [{ key: 'k', internal: 'hidden' }] }), 's.yaml')).toThrow(/feature_flags\[0\]\.internal: must be one of survey/);
  });
});
