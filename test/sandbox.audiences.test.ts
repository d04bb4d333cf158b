// The sandbox keeps cohorts and actions as the real API does (posthog/api/cohort.py,
// products/actions/backend/api/action.py) and refuses what it refuses: a flag that targets a
// missing or a behavioral cohort, deleting a cohort that an active flag or another cohort uses,
// cohorts that include each other in a loop, behavioral criteria in a cohort flags use, a change
// of a static cohort's criteria, two live actions of one name. One sandbox for the file: each
// case makes its own items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';

type Rec = Record<string, unknown>;
const P = 12345;
const C = `/api/projects/${P}/cohorts/`;
const A = `/api/projects/${P}/actions/`;
const F = `/api/projects/${P}/feature_flags/`;

let sandbox: SandboxHandle;
let c: Api;
beforeAll(async () => {
  sandbox = await inProcessSandbox({ seed: { organizations: [{ id: DEFAULT_ORG, projects: [{ id: P, name: 'Web' }, { id: 12346, name: 'Other' }] }] } });
  c = api(sandbox.baseUrl, sandbox.apiKey);
});
afterAll(stopAllSandboxes);

const anyOf = (...values: unknown[]) => ({ properties: { type: 'OR', values: [{ type: 'AND', values }] } });
const person = { type: 'person', key: 'email', operator: 'icontains', value: '@example.com' };
const behavioral = { type: 'behavioral', key: '$pageview', value: 'performed_event', event_type: 'events', time_value: '30', time_interval: 'day' };
const includes = (id: unknown) => ({ type: 'cohort', key: 'id', value: id });
const targets = (id: unknown) => ({ groups: [{ properties: [{ key: 'id', type: 'cohort', value: id }], rollout_percentage: 100 }] });

async function ok(method: 'post' | 'patch', path: string, body: Rec, status = method === 'post' ? 201 : 200): Promise<Rec> {
  const r = await c[method](path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body as Rec;
}
const cohort = (name: string, filters: unknown, extra: Rec = {}) => ok('post', C, { name, filters, ...extra });

describe('sandbox cohorts', () => {
  it('stores filters as the API\'s models dump them: negation false, integers, computed bytecode; lists newest first without deleted ones; DELETE is 405', async () => {
    const staff = await cohort('Staff', anyOf(person, { ...behavioral, explicit_datetime: null }));
    const leaves = ((staff.filters as Rec).properties as { values: Array<{ values: Rec[] }> }).values[0]!.values;
    expect(leaves[0]).toMatchObject({ ...person, negation: false, conditionHash: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown });
    expect(leaves[0]?.bytecode).toEqual(expect.any(Array));
    expect(leaves[1]).toEqual({ ...behavioral, time_value: 30, negation: false });
    expect(staff).toMatchObject({ is_static: false, deleted: false, errors_calculating: 0, count: 0, is_calculating: false });
    const newer = await cohort('Newer', anyOf(person));
    expect(((await c.get(C)).body as { results: Rec[] }).results.slice(0, 2).map((r) => r.name)).toEqual(['Newer', 'Staff']);
    expect((await c.delete(`${C}${String(newer.id)}/`)).status).toBe(405);
    await ok('patch', `${C}${String(newer.id)}/`, { deleted: true });
    expect(((await c.get(C)).body as { results: Rec[] }).results.map((r) => r.name)).not.toContain('Newer');
  });

  it('refuses filters the models refuse, in their words', async () => {
    const refuse = async (filters: unknown, detail: RegExp) => {
      const r = await c.post(C, { name: 'Bad', filters });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ type: 'validation_error', attr: 'filters' });
      expect((r.body as Rec).detail).toMatch(detail);
    };
    await refuse(anyOf({ type: 'person', key: 'email', value: 'x' }), /^Missing required keys for person filter: operator$/);
    await refuse(anyOf({ ...person, event_type: 'events' }), /'extra_forbidden'.*'person', 'event_type'/);
    await refuse(anyOf({ type: 'event', key: 'x', value: 1 }), /does not match any of the expected tags/);
    await refuse({ type: 'OR', values: [] }, /Must contain a 'properties' key/);
    await refuse(anyOf({ type: 'behavioral', key: '$pageview', value: 'performed_event' }), /^Missing required keys for behavioral filter: event_type$/);
  });

  it('refuses a flag that targets a missing cohort, or one with behavioral criteria, itself or through a cohort it includes; a static one is fine', async () => {
    const buyers = await cohort('Buyers', anyOf(behavioral));
    const wrapper = await cohort('Wrapper', anyOf(includes(buyers.id)));
    const frozen = await cohort('Frozen', { properties: {} }, { is_static: true });
    const refused = async (value: unknown, code: string, detail: string) => {
      const r = await c.post(F, { key: `f-${String(value)}`, filters: targets(value) });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ type: 'validation_error', code, detail, attr: 'filters' });
    };
    await refused(99999, 'cohort_does_not_exist', 'Cohort with id 99999 does not exist');
    await refused(buyers.id, 'behavioral_cohort_found', "Cohort 'Buyers' has an event-based condition and cannot be used in feature flags.");
    await refused(wrapper.id, 'behavioral_cohort_found', "Cohort 'Buyers' has an event-based condition and cannot be used in feature flags.");
    // Another project's cohort does not exist here.
    const elsewhere = (await ok('post', '/api/projects/12346/cohorts/', { name: 'Elsewhere', filters: anyOf(person) })).id;
    await refused(elsewhere, 'cohort_does_not_exist', `Cohort with id ${String(elsewhere)} does not exist`);
    const flag = await ok('post', F, { key: 'frozen-targeting', filters: targets(frozen.id) });
    expect(((flag.filters as Rec).groups as Array<{ properties: Rec[] }>)[0]!.properties[0]!.cohort_name).toBe('Frozen');
  });

  it('refuses to delete a cohort an active flag uses (even through another cohort), and one other cohorts use; a disabled flag holds nothing', async () => {
    const inner = await cohort('Inner', anyOf(person));
    const outer = await cohort('Outer', anyOf(includes(inner.id)));
    const flag = await ok('post', F, { key: 'outer-flag', name: 'Outer flag', active: true, filters: targets(outer.id) });
    const remove = (id: unknown) => c.patch(`${C}${String(id)}/`, { deleted: true });
    let r = await remove(outer.id);
    expect(r.status).toBe(400);
    expect((r.body as Rec).detail).toBe('This cohort is used in 1 active feature flag(s): Outer flag. Please remove the cohort from these feature flags before deleting it.');
    r = await remove(inner.id);
    expect((r.body as Rec).detail).toMatch(/^This cohort is used in 1 active feature flag\(s\): Outer flag\./);
    await ok('patch', `${F}${String(flag.id)}/`, { active: false });
    r = await remove(inner.id);
    expect((r.body as Rec).detail).toBe('This cohort is used as criteria in 1 other cohort(s): Outer. Please remove this cohort from those cohort definitions before deleting it.');
    await ok('patch', `${C}${String(outer.id)}/`, { deleted: true });
    await ok('patch', `${C}${String(inner.id)}/`, { deleted: true });
  });

  it('refuses loops between cohorts, unknown cohorts in an update, behavioral criteria where flags target the cohort, and new criteria for a static cohort', async () => {
    const a = await cohort('Loop A', anyOf(person));
    const b = await cohort('Loop B', anyOf(includes(a.id)));
    let r = await c.patch(`${C}${String(a.id)}/`, { filters: anyOf(includes(b.id)) });
    expect(r.body).toMatchObject({ detail: 'Cohorts cannot reference other cohorts in a loop.' });
    r = await c.patch(`${C}${String(a.id)}/`, { filters: anyOf(includes(424242)) });
    expect(r.body).toMatchObject({ detail: 'Invalid Cohort ID in filter' });
    await ok('post', F, { key: 'loop-a-flag', active: true, filters: targets(a.id) });
    r = await c.patch(`${C}${String(a.id)}/`, { filters: anyOf(behavioral) });
    expect(r.body).toMatchObject({ code: 'behavioral_cohort_found', detail: 'Behavioral filters cannot be added to cohorts used in feature flags.' });
    const buyers = await cohort('More buyers', anyOf(behavioral));
    r = await c.patch(`${C}${String(a.id)}/`, { filters: anyOf(includes(buyers.id)) });
    expect(r.body).toMatchObject({ code: 'behavioral_cohort_found', detail: "A cohort dependency (More buyers) has filters based on events. These cohorts can't be used in feature flags." });
    const list = await cohort('Uploaded', { properties: {} }, { is_static: true });
    r = await c.patch(`${C}${String(list.id)}/`, { filters: anyOf(person) });
    expect(r.body).toMatchObject({ detail: 'Editing the criteria of a static cohort is not supported yet. Create a new static cohort instead.' });
  });
});

describe('sandbox actions', () => {
  it('answers one plain list, fills every step key, computes selector_regex, keeps tags as a set; DELETE is 405', async () => {
    const made = await ok('post', A, { name: 'Clicked buy', tags: ['Growth', 'growth '], steps: [{ event: '$autocapture', selector: 'button.buy', unknown: 1 }] });
    expect(made.steps).toEqual([{
      tag_name: null, text: null, text_matching: null, href: null, href_matching: null, selector: 'button.buy', url: null, url_matching: 'contains',
      event: '$autocapture', properties: null, selector_regex: expect.any(String) as unknown,
    }]);
    expect(made.tags).toEqual(['growth']);
    const list = (await c.get(`${A}?limit=1`)).body as Rec;
    expect(Object.keys(list).sort()).toEqual(['count', 'results']);
    expect((list.results as Rec[]).length).toBe(list.count);
    expect((await c.delete(`${A}${String(made.id)}/`)).status).toBe(405);
    const r = await c.post(A, { name: 'x', steps: [{ url_matching: 'startswith' }] });
    expect(r.body).toMatchObject({ attr: 'steps__0__url_matching', detail: '"startswith" is not a valid choice.' });
  });

  it('keeps names unique among actions not deleted, and frees a deleted one\'s name', async () => {
    const first = await ok('post', A, { name: 'Signed up', steps: [{ event: 'signed_up' }] });
    const r = await c.post(A, { name: 'Signed up' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ type: 'validation_error', code: 'unique', detail: `This project already has an action with this name, ID ${String(first.id)}`, attr: 'name' });
    expect((await c.post(A, { name: '  ' })).body).toMatchObject({ attr: 'name', code: 'blank' });
    await ok('patch', `${A}${String(first.id)}/`, { deleted: true });
    await ok('post', A, { name: 'Signed up' });
  });
});
