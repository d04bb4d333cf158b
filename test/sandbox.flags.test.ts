import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { evaluateFlag, flagHash, type Person as SandboxPerson } from '../src/resources/feature_flag/sandbox-blast.js';
import { api, inProcessSandbox, SEED_EXAMPLE, stopAllSandboxes, type Api } from './support/sandbox.js';
import { schemaErrors } from './support/openapi.js';

type Rec = Record<string, unknown>;
interface Page { count: number; next: string | null; results: Rec[] }
interface Person { distinct_id: string; properties: Record<string, unknown> }
interface Filter { key: string; value?: unknown; operator?: string; type?: string }

// An evaluator written independently of src/sandbox/blast.ts, from PostHog's documented rules.
const SCALE = 0xfffffffffffffff;
function bucket(key: string, id: string): number {
  return parseInt(createHash('sha1').update(`${key}.${id}`).digest('hex').slice(0, 15), 16) / SCALE;
}
function holds(f: Filter, props: Record<string, unknown>): boolean {
  const op = f.operator ?? 'exact';
  if (!(f.key in props)) return ['is_not', 'not_icontains', 'is_not_set'].includes(op);
  const v = props[f.key];
  const s = String(v).toLowerCase();
  const values = (Array.isArray(f.value) ? f.value : [f.value]).map((x) => String(x).toLowerCase());
  if (op === 'exact') return values.includes(s);
  if (op === 'is_not') return !values.includes(s);
  if (op === 'icontains') return s.includes(String(f.value).toLowerCase());
  if (op === 'not_icontains') return !s.includes(String(f.value).toLowerCase());
  if (op === 'regex') return new RegExp(String(f.value)).test(String(v));
  if (op === 'is_set') return true;
  if (op === 'is_not_set') return false;
  if (op === 'gt') return Number(v) > Number(f.value);
  if (op === 'lt') return Number(v) < Number(f.value);
  throw new Error(`test evaluator lacks ${op}`);
}
function expectedAffected(key: string, filters: Filter[], rollout: number | null, persons: Person[]): number {
  return persons.filter((p) => filters.every((f) => holds(f, p.properties)) && (rollout === null || bucket(key, p.distinct_id) <= rollout / 100)).length;
}

const example = parse(readFileSync(SEED_EXAMPLE, 'utf8')) as { organizations: { projects: { id: number; persons?: Person[] }[] }[] };
const examplePersons = example.organizations[0]?.projects.find((p) => p.id === 12345)?.persons ?? [];
// The same persons, typed as the sandbox's evaluator takes them (YAML gives plain JSON).
const evaluable = examplePersons as unknown as SandboxPerson[];
const F = '/api/projects/12345/feature_flags';

/**
 * What owns a flag comes as lists, as the real FeatureFlagSerializer answers it (get_experiment_set,
 * get_surveys and get_features: products/feature_flags/backend/api/feature_flag.py); the OpenAPI
 * document describes these method fields without their annotations, as a string and objects.
 */
// usage_dashboard is a nullable foreign key: a flag created without a usage dashboard has none.
const unexplained = (problem: string): boolean => !/\/(experiment_set: must be string|surveys: must be object|features: must be object|usage_dashboard: must be integer)$/.test(problem);

let c: Api;
beforeEach(async () => {
  const sb = await inProcessSandbox({ seed: SEED_EXAMPLE });
  c = api(sb.baseUrl, sb.apiKey);
});
afterEach(stopAllSandboxes);

describe('sandbox feature flags: CRUD', () => {
  it('creates a flag (201) in the OpenAPI FeatureFlag shape, adding the server keys to filters', async () => {
    const r = await c.post(`${F}/`, { key: 'new-thing', name: 'A new thing', filters: { groups: [{ properties: [], rollout_percentage: 20 }] } });
    expect(r.status).toBe(201);
    const flag = r.body as Rec;
    expect(schemaErrors('FeatureFlag', flag).filter(unexplained)).toEqual([]);
    expect(flag).toMatchObject({
      key: 'new-thing', name: 'A new thing', active: true, deleted: false, tags: [], is_simple_flag: true, rollout_percentage: 20,
      filters: { groups: [{ properties: [], rollout_percentage: 20 }], payloads: {}, multivariate: null }, version: 1,
    });
    expect(typeof flag.id).toBe('number');
    expect(flag.created_by).toMatchObject({ id: 1, email: 'sandbox@hogsync.dev' });
    const got = await c.get(`${F}/${flag.id as number}/`);
    expect(got.body).toEqual(flag);
    // A flag with property filters is not simple and has no top-level rollout.
    const complex = (await c.get(`${F}/`)).body as Page;
    expect(complex.results.find((f) => f.key === 'new-checkout')).toMatchObject({ is_simple_flag: false, rollout_percentage: null });
    expect(schemaErrors('PaginatedFeatureFlagList', complex).filter(unexplained)).toEqual([]);
  });

  it('validates keys: required, ^[a-zA-Z0-9_-]+$, unique among flags not deleted', async () => {
    const cases: [Rec, string, string][] = [
      [{ name: 'no key' }, 'key', 'required'],
      [{ key: 'bad key!' }, 'key', 'invalid_key'],
      [{ key: 'dots.not.allowed' }, 'key', 'invalid_key'],
      [{ key: 'new-checkout' }, 'key', 'unique'],
      [{ key: 'ok', filters: [] }, 'filters', 'not_a_dict'],
      [{ key: 'ok', filters: { groups: {} } }, 'filters', 'invalid_input'],
      [{ key: 'ok', filters: { groups: [{ rollout_percentage: 150 }] } }, 'filters', 'invalid_input'],
      [{ key: 'ok', filters: { groups: [], multivariate: { variants: [{ key: 'a', rollout_percentage: 60 }, { key: 'b', rollout_percentage: 30 }] } } }, 'filters', 'invalid_input'],
      [{ key: 'ok', active: 'yes' }, 'active', 'invalid'],
    ];
    for (const [body, attr, code] of cases) {
      const r = await c.post(`${F}/`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', code, attr });
    }
    // The same key is fine in another project.
    expect((await c.post('/api/projects/12346/feature_flags/', { key: 'new-checkout' })).status).toBe(201);
  });

  it('updates with PATCH, bumping the version', async () => {
    const flag = ((await c.get(`${F}/`)).body as Page).results.find((f) => f.key === 'new-checkout') as Rec;
    const r = await c.patch(`${F}/${flag.id as number}/`, { active: false, tags: ['checkout'], name: 'Renamed' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ active: false, tags: ['checkout'], name: 'Renamed', version: (flag.version as number) + 1, filters: flag.filters });
  });

  it('answers DELETE with 405 and deletes softly with PATCH {"deleted": true}', async () => {
    const flag = ((await c.get(`${F}/`)).body as Page).results.find((f) => f.key === 'new-checkout') as Rec;
    const del = await c.delete(`${F}/${flag.id as number}/`);
    expect(del.status).toBe(405);
    expect(del.body).toEqual({ type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "DELETE" not allowed.', attr: null });
    expect(((await c.get(`${F}/`)).body as Page).count).toBe(3);

    const soft = await c.patch(`${F}/${flag.id as number}/`, { deleted: true });
    expect(soft.status).toBe(200);
    expect(soft.body).toMatchObject({ deleted: true, status: 'deleted' });
    const list = (await c.get(`${F}/`)).body as Page;
    expect(list.count).toBe(2);
    expect(list.results.map((f) => f.key)).not.toContain('new-checkout');
    expect(((await c.get(`${F}/${flag.id as number}/`)).body as Rec).deleted).toBe(true);

    // The key is free again: creating it removes the deleted flag for good, as the real API does.
    expect((await c.post(`${F}/`, { key: 'new-checkout', filters: { groups: [{ rollout_percentage: 5 }] } })).status).toBe(201);
    expect((await c.patch(`${F}/${flag.id as number}/`, { deleted: false })).status).toBe(404);
  });

  it('answers 404 for unknown projects and flags', async () => {
    expect((await c.get('/api/projects/999/feature_flags/')).status).toBe(404);
    expect((await c.get(`${F}/999999/`)).status).toBe(404);
    expect((await c.get(`${F}/abc/`)).status).toBe(404);
    expect((await c.patch(`${F}/999999/`, { active: true })).status).toBe(404);
  });
});

describe('sandbox feature flags: evaluation', () => {
  it('uses PostHog\'s bucketing hash', () => {
    for (const [key, id] of [['new-checkout', 'user-001'], ['', 'user-020'], ['dark-mode', 'sandbox-user']] as const) {
      expect(flagHash(key, id)).toBeCloseTo(bucket(key, id), 12);
    }
  });

  it('counts the blast radius honestly over the seed persons', async () => {
    expect(examplePersons.length).toBe(20);
    const conditions: { key?: string; properties: Filter[]; rollout: number | null }[] = [
      { key: 'new-checkout', properties: [{ key: 'country', type: 'person', operator: 'exact', value: ['DE', 'FR'] }], rollout: 50 },
      { properties: [{ key: 'plan', type: 'person', operator: 'exact', value: 'pro' }], rollout: 100 },
      { key: 'x', properties: [{ key: 'email', type: 'person', operator: 'icontains', value: 'EXAMPLE.com' }], rollout: 30 },
      { properties: [{ key: 'email', type: 'person', operator: 'not_icontains', value: 'acme' }], rollout: null },
      { key: 'r', properties: [{ key: 'email', type: 'person', operator: 'regex', value: '^[a-m]' }], rollout: 70 },
      { properties: [{ key: 'beta_tester', type: 'person', operator: 'is_set' }], rollout: null },
      { properties: [{ key: 'beta_tester', type: 'person', operator: 'is_not_set' }], rollout: null },
      { properties: [{ key: 'plan', type: 'person', operator: 'is_not', value: 'free' }, { key: 'country', type: 'person', value: 'US' }], rollout: 100 },
      { key: 'everyone', properties: [], rollout: 25 },
      { properties: [], rollout: 0 },
    ];
    const seen = new Set<number>();
    for (const cond of conditions) {
      const body: Rec = { condition: { properties: cond.properties, rollout_percentage: cond.rollout }, group_type_index: null };
      if (cond.key) body.key = cond.key;
      const r = await c.post(`${F}/user_blast_radius/`, body);
      expect(r.status).toBe(200);
      const expected = expectedAffected(cond.key ?? '', cond.properties, cond.rollout, examplePersons);
      expect(r.body, JSON.stringify(cond)).toEqual({ affected: expected, total: 20 });
      seen.add(expected);
    }
    // The conditions are not all trivially equal: the counts differ.
    expect(seen.size).toBeGreaterThan(4);
  });

  it('compares numbers with gt and lt over generated persons', async () => {
    const persons = Array.from({ length: 40 }, (_, i) => ({ distinct_id: `p${i}`, properties: { age: 18 + i, plan: i % 3 === 0 ? 'pro' : 'free' } }));
    const sb = await inProcessSandbox({ seed: { organizations: [{ projects: [{ id: 1, name: 'Ages', persons }] }] } });
    const client = api(sb.baseUrl, sb.apiKey);
    for (const [op, value, rollout] of [['gt', 40, 100], ['lt', 30, 50], ['gt', '50', null]] as const) {
      const properties = [{ key: 'age', type: 'person', operator: op, value }];
      const r = await client.post('/api/projects/1/feature_flags/user_blast_radius/', { condition: { properties, rollout_percentage: rollout }, group_type_index: null });
      expect(r.body).toEqual({ affected: expectedAffected('', properties, rollout, persons), total: 40 });
    }
  });

  it('refuses conditions it cannot evaluate honestly, and counts no persons for group conditions', async () => {
    const cohort = await c.post(`${F}/user_blast_radius/`, { condition: { properties: [{ key: 'id', type: 'cohort', value: 3 }] }, group_type_index: null });
    expect(cohort.status).toBe(400);
    expect(cohort.body).toMatchObject({ type: 'validation_error', attr: 'condition' });
    const op = await c.post(`${F}/user_blast_radius/`, { condition: { properties: [{ key: 'a', operator: 'is_date_before', value: 'x' }] } });
    expect(op.status).toBe(400);
    const missing = await c.post(`${F}/user_blast_radius/`, { group_type_index: null });
    expect(missing.body).toMatchObject({ code: 'required', attr: 'condition' });
    const groups = await c.post(`${F}/user_blast_radius/`, { condition: { properties: [] }, group_type_index: 0 });
    expect(groups.body).toEqual({ affected: 0, total: 0 });
  });

  it('explains evaluations per distinct_id (evaluation_reasons)', async () => {
    for (const person of examplePersons.slice(0, 8)) {
      const r = await c.get(`${F}/evaluation_reasons/?distinct_id=${person.distinct_id}`);
      expect(r.status).toBe(200);
      const body = r.body as Record<string, { value: unknown; evaluation: { reason: string; condition_index: number | null } }>;
      expect(Object.keys(body).sort()).toEqual(['beta-banner', 'new-checkout', 'pro-dashboard']);
      expect(body['beta-banner']).toEqual({ value: false, evaluation: { reason: 'disabled', condition_index: null } });

      const inCountry = ['de', 'fr'].includes(String(person.properties.country).toLowerCase());
      const inRollout = bucket('new-checkout', person.distinct_id) <= 0.5;
      const checkout = !inCountry ? { value: false, evaluation: { reason: 'no_condition_match', condition_index: null } }
        : inRollout ? { value: true, evaluation: { reason: 'condition_match', condition_index: 0 } }
          : { value: false, evaluation: { reason: 'out_of_rollout_bound', condition_index: 0 } };
      expect(body['new-checkout'], person.distinct_id).toEqual(checkout);
      const paying = ['pro', 'enterprise'].includes(String(person.properties.plan));
      expect(body['pro-dashboard']?.value).toBe(paying);
    }
    const missing = await c.get(`${F}/evaluation_reasons/`);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ attr: 'distinct_id' });
  });

  it('evaluates multivariate flags to a variant', () => {
    const flag = { key: 'exp', active: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] } } };
    const values = new Set(evaluable.map((p) => evaluateFlag(flag, p).value));
    expect(values).toEqual(new Set(['control', 'test']));
    const forced = { ...flag, filters: { ...flag.filters, groups: [{ properties: [], rollout_percentage: 100, variant: 'test' }] } };
    expect(evaluateFlag(forced, evaluable[0] as SandboxPerson)).toEqual({ value: 'test', reason: 'condition_match', condition_index: 0 });
  });

  it('serves local_evaluation and my_flags from the stored flags', async () => {
    const local = await c.get(`${F}/local_evaluation/`);
    expect(local.status).toBe(200);
    const body = local.body as { flags: Rec[]; group_type_mapping: Rec; cohorts: Rec };
    expect(body.group_type_mapping).toEqual({});
    expect(body.cohorts).toEqual({});
    expect(body.flags.map((f) => f.key).sort()).toEqual(['beta-banner', 'new-checkout', 'pro-dashboard']);
    expect(body.flags.find((f) => f.key === 'beta-banner')).toMatchObject({ active: false, deleted: false });

    const mine = await c.get('/api/projects/12346/feature_flags/my_flags/');
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual([{ feature_flag: expect.objectContaining({ key: 'dark-mode' }) as unknown, value: bucket('dark-mode', 'sandbox-user') <= 0.3 }]);
  });
});
