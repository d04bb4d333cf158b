// Feature flag routes of a project: CRUD (DELETE answers 405: flags are deleted with
// PATCH {"deleted": true}), and the evaluation endpoints, computed from the stored flags and
// the seed's persons: evaluation_reasons, local_evaluation, my_flags, user_blast_radius.
import { blastRadius, evaluateFlag, toCondition, UnsupportedFilterError, type Person } from '../blast.js';
import { methodNotAllowed, notFound, validationError } from '../errors.js';
import { isObject, type JsonObject } from '../json.js';
import { createFlag, findFlag, liveFlags, renderFlag, renderFlagMinimal, updateFlag } from '../model/feature-flags.js';
import { paginate } from '../pagination.js';
import type { Handler, RequestContext, Route } from '../router.js';
import type { FeatureFlagState, SandboxState } from '../state.js';
import { intParam, projectOf } from './common.js';

function flagIn(ctx: RequestContext, state: SandboxState): FeatureFlagState {
  const project = projectOf(ctx, state);
  const flag = findFlag(state, project.id, intParam(ctx.params.id));
  if (!flag) throw notFound();
  return flag;
}

function personsOf(state: SandboxState, project: number): Person[] {
  return state.persons.filter((p) => p.project === project);
}

function personFor(state: SandboxState, project: number, distinctId: string): Person {
  return personsOf(state, project).find((p) => p.distinct_id === distinctId) ?? { distinct_id: distinctId, properties: {} };
}

/** The real list leaves deleted flags out. */
const list: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  return { status: 200, body: paginate(liveFlags(state, project.id), (f) => renderFlag(state, f), ctx.url) };
});

const create: Handler = (ctx) => ctx.store.write((state) => {
  const project = projectOf(ctx, state);
  return { status: 201, body: renderFlag(state, createFlag(state, project.id, ctx.body)) };
});

const read: Handler = (ctx) => ctx.store.read((state) => ({ status: 200, body: renderFlag(state, flagIn(ctx, state)) }));

const update: Handler = (ctx) => ctx.store.write((state) => {
  const flag = flagIn(ctx, state);
  updateFlag(state, flag, ctx.body);
  return { status: 200, body: renderFlag(state, flag) };
});

/** Hard delete is refused, as on the real API (which does not even look the flag up). */
const remove: Handler = (ctx) => ctx.store.read((state) => {
  projectOf(ctx, state);
  throw methodNotAllowed('DELETE', ['GET', 'PATCH', 'PUT', 'HEAD', 'OPTIONS']);
});

const evaluationReasons: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const distinctId = ctx.url.searchParams.get('distinct_id');
  if (!distinctId) throw validationError('distinct_id', 'distinct_id is required.', 'required');
  const person = personFor(state, project.id, distinctId);
  const body: JsonObject = {};
  for (const flag of liveFlags(state, project.id)) {
    const { value, reason, condition_index } = evaluateFlag(flag, person);
    body[flag.key] = { value, evaluation: { reason, condition_index } };
  }
  return { status: 200, body };
});

const localEvaluation: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  return { status: 200, body: { flags: liveFlags(state, project.id).map(renderFlagMinimal), group_type_mapping: {}, cohorts: {} } };
});

/** The caller's own flags: evaluated for the sandbox user (a seed person with the same distinct_id, if any). */
const myFlags: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const found = personFor(state, project.id, state.user.distinct_id);
  const person: Person = Object.keys(found.properties).length > 0 ? found : { distinct_id: found.distinct_id, properties: { email: state.user.email } };
  const body = liveFlags(state, project.id).map((f) => ({ feature_flag: renderFlagMinimal(f), value: evaluateFlag(f, person).value }));
  return { status: 200, body };
});

const userBlastRadius: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const raw = ctx.body.condition;
  if (raw === undefined) throw validationError('condition', 'This field is required.', 'required');
  if (!isObject(raw)) throw validationError('condition', 'condition must be an object.', 'invalid');
  if (raw.properties !== undefined && (!Array.isArray(raw.properties) || !raw.properties.every((p) => isObject(p) && typeof p.key === 'string'))) {
    throw validationError('condition', 'condition.properties must be a list of property filters, each with a "key".', 'invalid');
  }
  const rollout = raw.rollout_percentage;
  if (rollout !== undefined && rollout !== null && (typeof rollout !== 'number' || rollout < 0 || rollout > 100)) {
    throw validationError('condition', 'condition.rollout_percentage must be a number between 0 and 100.', 'invalid');
  }
  const groupType = ctx.body.group_type_index;
  // The sandbox has persons only, no groups: a group-based condition reaches nobody.
  if (groupType !== undefined && groupType !== null) return { status: 200, body: { affected: 0, total: 0 } };
  const key = typeof ctx.body.key === 'string' ? ctx.body.key : '';
  try {
    return { status: 200, body: blastRadius(key, toCondition(raw), personsOf(state, project.id)) };
  } catch (err) {
    if (err instanceof UnsupportedFilterError) throw validationError('condition', err.message, 'invalid');
    throw err;
  }
});

const base = '/api/projects/:project/feature_flags/';

export const featureFlagRoutes: Route[] = [
  { pattern: base, methods: { GET: { scope: 'feature_flag:read', handler: list }, POST: { scope: 'feature_flag:write', handler: create } } },
  { pattern: `${base}evaluation_reasons/`, methods: { GET: { scope: 'feature_flag:read', handler: evaluationReasons } } },
  { pattern: `${base}local_evaluation/`, methods: { GET: { scope: 'feature_flag:read', handler: localEvaluation } } },
  { pattern: `${base}my_flags/`, methods: { GET: { scope: 'feature_flag:read', handler: myFlags } } },
  { pattern: `${base}user_blast_radius/`, methods: { POST: { scope: 'feature_flag:write', handler: userBlastRadius } } },
  {
    pattern: `${base}:id/`,
    methods: {
      GET: { scope: 'feature_flag:read', handler: read },
      PATCH: { scope: 'feature_flag:write', handler: update },
      DELETE: { scope: 'feature_flag:write', handler: remove },
    },
  },
];
