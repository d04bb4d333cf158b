// The sandbox keeps surveys as the real API does (posthog/api/survey.py) and refuses what it
// refuses: a second survey of one name, a missing linked flag, targeting that rolls out to
// everyone, a past sampling start date, questions without text, blank choices, links other than
// https or mailto, an action with property filters in the conditions, a linked flag or targeting
// on an external survey. It sanitises texts with the API's HTML allow-list, gives every question
// an id, reads actions back whole, hides the flags it makes and deletes them with the survey.
// Early access features: the flag must exist, be boolean, not group-based and back no other
// feature; without one the API makes a flag keyed by the name's slug; the stage writes or removes
// the flag's enrollment keys; a concept feature gets a waitlist survey; the flag cannot be deleted
// while a feature uses it. One sandbox for the file: each case makes its own items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { sanitizeHtml } from '../src/resources/survey/html.js';
import { api, DEFAULT_ORG, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';

type Rec = Record<string, unknown>;
const P = 12345;
const S = `/api/projects/${P}/surveys/`;
const F = `/api/projects/${P}/feature_flags/`;
const A = `/api/projects/${P}/actions/`;

let sandbox: SandboxHandle;
let c: Api;
beforeAll(async () => {
  sandbox = await inProcessSandbox({ seed: { organizations: [{ id: DEFAULT_ORG, projects: [{ id: P, name: 'Web' }] }] } });
  c = api(sandbox.baseUrl, sandbox.apiKey);
});
afterAll(stopAllSandboxes);

async function ok(method: 'post' | 'patch', path: string, body: Rec, status = method === 'post' ? 201 : 200): Promise<Rec> {
  const r = await c[method](path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body as Rec;
}
async function refused(method: 'post' | 'patch', path: string, body: Rec, detail: RegExp): Promise<void> {
  const r = await c[method](path, body);
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect((r.body as { detail: string }).detail).toMatch(detail);
}
const question = (text: string, extra: Rec = {}) => ({ type: 'open', question: text, ...extra });
const survey = (name: string, extra: Rec = {}) => ({ name, type: 'popover', questions: [question('Why?')], ...extra });

describe('sandbox surveys', () => {
  it('refuses what the API refuses', async () => {
    await ok('post', S, survey('Once'));
    await refused('post', S, survey('Once'), /^There is already a survey with this name\.$/);
    const other = await ok('post', S, survey('Other'));
    await refused('patch', `${S}${String(other.id)}/`, { name: 'Once' }, /^There is already another survey with this name\.$/);
    await refused('post', S, survey('Flagless', { linked_flag_id: 999999 }), /Feature Flag with this ID does not exist/);
    await refused('post', S, survey('Everyone', { targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }), /User targeting rolls out to everyone/);
    await refused('post', S, survey('Everyone 2', { targeting_flag_filters: { groups: [{ properties: [] }] } }), /User targeting rolls out to everyone/);
    await refused('post', S, survey('Past', { response_sampling_start_date: '2020-01-01T00:00:00Z' }), /Response sampling start date must be today or a future date/);
    await refused('post', S, survey('Interval', { response_sampling_interval: 0 }), /Response sampling interval must be greater than 0/);
    await refused('post', S, survey('Textless', { questions: [{ type: 'open' }] }), /^Question text is required$/);
    await refused('post', S, survey('Blank', { questions: [question('Pick', { type: 'single_choice', choices: ['a', ' '] })] }), /^Question choices cannot be empty$/);
    await refused('post', S, survey('Link', { questions: [question('Go', { type: 'link', link: 'http://example.com' })] }), /Link must be a URL with one of these schemes: \[https, mailto\]/);
    await refused('post', S, survey('Mail', { questions: [question('Go', { type: 'link', link: 'mailto:nobody' })] }), /Invalid mailto link/);
    await refused('post', S, survey('Schedule', { schedule: 'weekly' }), /Schedule must be one of: once, recurring, always/);
    const flag = await ok('post', F, { key: 'ext-flag', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    const ext = await c.post(S, survey('External', { type: 'external_survey', linked_flag_id: flag.id }));
    expect(ext.status).toBe(400);
    expect(ext.body).toMatchObject({ attr: 'linked_flag_id', detail: 'linked_flag_id is not allowed for external surveys' });
    const filtered = await ok('post', A, { name: 'Filtered', steps: [{ event: 'x', properties: [{ key: 'a', value: 'b', type: 'event' }] }] });
    await refused('post', S, survey('Filtered', { conditions: { actions: { values: [{ id: filtered.id }] } } }), /Survey cannot be activated by an Action with property filters defined on it\./);
  });

  it('sanitises texts with the allow-list, gives questions ids, answers actions whole, hides its flags and deletes them with it', async () => {
    const action = await ok('post', A, { name: 'Clicked buy', steps: [{ event: 'buy' }] });
    const linked = await ok('post', F, { key: 'linked', filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
    const made = await ok('post', S, survey('Sanitised', {
      questions: [question('<b onclick="x()">Bold</b><script>alert(1)</script> & <em>more</em>', { buttonText: '<blink>Go</blink>', choices: undefined })],
      linked_flag_id: linked.id,
      conditions: { actions: { values: [{ id: action.id }] } },
      targeting_flag_filters: { groups: [{ properties: [{ key: 'email', type: 'person', operator: 'icontains', value: '@x.com' }], rollout_percentage: 100 }] },
    }));
    const q = (made.questions as Rec[])[0] as Rec;
    expect(q.question).toBe('<b>Bold</b> &amp; <em>more</em>');
    expect(q.buttonText).toBe('Go');
    expect(q.id).toEqual(expect.any(String));
    expect(sanitizeHtml(q.question as string)).toBe(q.question);
    expect((made.linked_flag as Rec).key).toBe('linked');
    expect((((made.conditions as Rec).actions as Rec).values as Rec[])[0]).toMatchObject({ id: action.id, name: 'Clicked buy', steps: expect.any(Array) as unknown });
    const targeting = made.targeting_flag as Rec;
    const flags = ((await c.get(`${F}?limit=1000`)).body as { results: Rec[] }).results;
    expect(flags.map((f) => f.key)).not.toContain(targeting.key);
    expect(flags.find((f) => f.key === 'linked')?.surveys).toEqual([expect.objectContaining({ id: made.id, name: 'Sanitised' })]);
    // An update without the question's id gives it a new one (its responses no longer match).
    const updated = await ok('patch', `${S}${String(made.id)}/`, { questions: [question('Reworded')] });
    expect(((updated.questions as Rec[])[0] as Rec).id).not.toBe(q.id);
    expect((await c.delete(`${S}${String(made.id)}/`)).status).toBe(204);
    const state = sandbox.store.snapshot() as { feature_flags: Rec[] };
    expect(state.feature_flags.map((f) => f.id)).not.toContain(targeting.id);
    expect(state.feature_flags.map((f) => f.id)).not.toContain((made.internal_targeting_flag as Rec).id);
  });

  it('keeps the lifecycle in two dates and merges targeting into the targeting flag', async () => {
    const made = await ok('post', S, survey('Lifecycle', { targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 30 }] } }));
    expect(made.start_date).toBeNull();
    const started = await ok('patch', `${S}${String(made.id)}/`, { start_date: '2030-01-01T00:00:00Z' });
    expect(started.start_date).toBe('2030-01-01T00:00:00Z');
    const stopped = await ok('patch', `${S}${String(made.id)}/`, { end_date: '2030-02-01T00:00:00Z' });
    expect((stopped.targeting_flag as Rec).active).toBe(false);
    const retargeted = await ok('patch', `${S}${String(made.id)}/`, { targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 40 }] } });
    expect(((retargeted.targeting_flag as Rec).id)).toBe((made.targeting_flag as Rec).id);
    const removed = await ok('patch', `${S}${String(made.id)}/`, { remove_targeting_flag: true });
    expect(removed.targeting_flag).toBeNull();
  });
});

const E = `/api/projects/${P}/early_access_feature/`;

describe('sandbox early access features', () => {
  it('refuses a flag that is missing, multivariate, group-based or already backing a feature; makes one from the name without', async () => {
    await refused('post', E, { name: 'Ghost', stage: 'beta', feature_flag_id: 999999 }, /^Feature Flag with this ID does not exist$/);
    const multi = await ok('post', F, { key: 'multi', filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] } } });
    await refused('post', E, { name: 'Multi', stage: 'beta', feature_flag_id: multi.id }, /^Multivariate feature flags are not supported for Early Access Features\.$/);
    const groups = await ok('post', F, { key: 'groups', filters: { aggregation_group_type_index: 0, groups: [{ properties: [], rollout_percentage: 10 }] } });
    await refused('post', E, { name: 'Groups', stage: 'beta', feature_flag_id: groups.id }, /^Group-based feature flags are not supported for Early Access Features\.$/);
    const plain = await ok('post', F, { key: 'plain', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    const first = await ok('post', E, { name: 'First', stage: 'draft', feature_flag_id: plain.id });
    await refused('post', E, { name: 'Second', stage: 'draft', feature_flag_id: plain.id }, /^Linked feature flag plain already has a feature attached to it\.$/);
    const r = await c.post(E, { name: 'No stage' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ attr: 'stage', detail: 'This field is required.' });
    // Without a flag the API makes one, keyed by the slug of the name.
    const own = await ok('post', E, { name: 'My New Thing!', stage: 'draft' });
    expect((own.feature_flag as Rec).key).toBe('my-new-thing');
    // The flag lists its feature and cannot be deleted while it does.
    const flag = ((await c.get(`${F}${String(plain.id)}/`)).body as Rec);
    expect(flag.features).toEqual([expect.objectContaining({ id: first.id, name: 'First', flagKey: 'plain' })]);
    await refused('patch', `${F}${String(plain.id)}/`, { deleted: true }, /Cannot delete a feature flag that is in use with early access features/);
  });

  it('assigns a new feature to its creator, and refuses an assignee of another shape or outside the organization', async () => {
    const flag = await ok('post', F, { key: 'assigned', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    const me = (await c.get('/api/users/@me/')).body as { id: number };
    const feature = await ok('post', E, { name: 'Assigned', stage: 'draft', feature_flag_id: flag.id });
    expect(feature.assignee).toEqual({ type: 'user', id: me.id });
    const path = `${E}${String(feature.id)}/`;
    for (const [assignee, detail] of [
      [{ type: 'team', id: 1 }, /^Expected null or an object of shape/],
      [{ type: 'user', id: 987654 }, /^Assignee user does not belong to this organization\.$/],
      [{ type: 'role', id: '0190d1c4-0000-7000-8000-000000000000' }, /^Assignee role does not belong to this organization\.$/],
    ] as const) {
      const r = await c.patch(path, { assignee });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ attr: 'assignee' });
      expect((r.body as { detail: string }).detail).toMatch(detail);
    }
    expect((await ok('patch', path, { assignee: null })).assignee).toBeNull();
  });

  it('writes the enrollment keys for alpha, beta and general availability, removes them otherwise and on delete; a concept gets a waitlist survey', async () => {
    const flag = await ok('post', F, { key: 'enroll', filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    const feature = await ok('post', E, { name: 'Enroll', stage: 'draft', feature_flag_id: flag.id, payload: { a: 1 } });
    const filters = async () => ((await c.get(`${F}${String(flag.id)}/`)).body as { filters: Rec }).filters;
    expect(await filters()).not.toHaveProperty('feature_enrollment');
    await ok('patch', `${E}${String(feature.id)}/`, { stage: 'general-availability', feature_flag_id: 12345678 });
    expect((await filters()).feature_enrollment).toBe(true);
    await ok('patch', `${E}${String(feature.id)}/`, { stage: 'archived' });
    expect(await filters()).not.toHaveProperty('feature_enrollment');
    const concept = await ok('patch', `${E}${String(feature.id)}/`, { stage: 'concept' });
    const surveyId = (concept.payload as Rec).survey_id;
    expect(surveyId).toEqual(expect.any(String));
    expect((concept.payload as Rec).a).toBe(1);
    expect((await c.get(`${S}${String(surveyId)}/`)).status).toBe(200);
    await ok('patch', `${E}${String(feature.id)}/`, { stage: 'beta' });
    expect((await c.delete(`${E}${String(feature.id)}/`)).status).toBe(204);
    expect(await filters()).not.toHaveProperty('feature_enrollment');
  });
});

