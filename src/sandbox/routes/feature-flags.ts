// Feature flag routes of a project: CRUD (DELETE answers 405: flags are deleted with
// PATCH {"deleted": true}; the list leaves archived flags out unless it names `archived`, and
// never shows hidden ones), approval-gated PATCHes and the change requests that hold them, and
// the evaluation endpoints, computed from the stored flags and the seed's persons:
// evaluation_reasons, local_evaluation, my_flags, user_blast_radius.
import { blastRadius, evaluateFlag, toCondition, UnsupportedFilterError, type Person } from '../blast.js';
import { ApiError, methodNotAllowed, notFound, validationError } from '../errors.js';
import { isObject, type JsonObject } from '../json.js';
import { gatedAction, holdForApproval, renderChangeRequest } from '../model/change-requests.js';
import { commitUpdate, createFlag, evaluatedFlags, findFlag, liveFlags, prepareUpdate, renderFlag, renderFlagMinimal, updateFlag } from '../model/feature-flags.js';
import { paginate } from '../pagination.js';
import type { Handler, Reply, RequestContext, Route } from '../router.js';
import type { ChangeRequestState, FeatureFlagState, SandboxState } from '../state.js';
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

/**
 * The real list leaves deleted flags out, and archived ones unless the request names the
 * `archived` parameter (`?archived=true` lists the archived ones). Survey and product-tour
 * internal flags, and flags the caller may not see, are never listed.
 */
const list: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const archived = ctx.url.searchParams.get('archived');
  const flags = archived === 'true'
    ? state.feature_flags.filter((f) => f.project === project.id && !f.deleted && f.archived && !f.hidden)
    : liveFlags(state, project.id);
  return { status: 200, body: paginate(flags, (f) => renderFlag(state, f), ctx.url) };
});

const create: Handler = (ctx) => ctx.store.write((state) => {
  const project = projectOf(ctx, state);
  return { status: 201, body: renderFlag(state, createFlag(state, project.id, ctx.body)) };
});

const read: Handler = (ctx) => ctx.store.read((state) => ({ status: 200, body: renderFlag(state, flagIn(ctx, state)) }));

/** PATCH: validated first; a change the project's approval policy gates is held (409), not applied. */
const update: Handler = (ctx) => ctx.store.write((state) => {
  const flag = flagIn(ctx, state);
  const prepared = prepareUpdate(state, flag, ctx.body);
  const action = gatedAction(state, flag, ctx.body);
  if (action) return { status: 409, body: holdForApproval(state, flag, action, ctx.body) };
  commitUpdate(state, prepared, ctx.body);
  return { status: 200, body: renderFlag(state, flag) };
});

function changeRequestIn(ctx: RequestContext, state: SandboxState): ChangeRequestState {
  const project = projectOf(ctx, state);
  const cr = (state.change_requests ?? []).find((c) => c.project === project.id && c.id === ctx.params.id);
  if (!cr) throw notFound();
  return cr;
}

const listChangeRequests: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const wanted = ctx.url.searchParams.get('state')?.split(',');
  const crs = (state.change_requests ?? []).filter((c) => c.project === project.id && (!wanted || wanted.includes(c.state)));
  return { status: 200, body: paginate([...crs].reverse(), renderChangeRequest, ctx.url) };
});

const readChangeRequest: Handler = (ctx) => ctx.store.read((state) => ({ status: 200, body: renderChangeRequest(changeRequestIn(ctx, state)) }));

/** Approving applies the held PATCH as sent, unless the flag changed since (version) or the API now refuses it. */
const approveChangeRequest: Handler = (ctx) => ctx.store.write((state): Reply => {
  const cr = changeRequestIn(ctx, state);
  if (cr.state !== 'pending') return { status: 400, body: { error: 'This change request can no longer be approved.' } };
  const intent = cr.intent as { flag_id: number; full_request_data: JsonObject; preconditions: { version: number } };
  const flag = findFlag(state, cr.project, intent.flag_id);
  let error: string | null = null;
  if (!flag || flag.deleted) error = 'The feature flag no longer exists.';
  else if (flag.version !== intent.preconditions.version) error = `Flag version mismatch: expected ${intent.preconditions.version}, got ${flag.version}`;
  else {
    try {
      updateFlag(state, flag, intent.full_request_data);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      error = err.body.detail;
    }
  }
  cr.state = error === null ? 'applied' : 'failed';
  cr.apply_error = error;
  cr.applied_at = error === null ? new Date().toISOString() : null;
  const message = error === null ? 'Change request approved and applied.' : `Change request approved but could not be applied: ${error}`;
  return { status: 200, body: { status: cr.state, message, change_request: renderChangeRequest(cr) } };
});

const rejectChangeRequest: Handler = (ctx) => ctx.store.write((state): Reply => {
  const cr = changeRequestIn(ctx, state);
  if (cr.state !== 'pending') return { status: 400, body: { error: 'This change request can no longer be rejected.' } };
  cr.state = 'rejected';
  return { status: 200, body: { status: 'rejected', message: 'Change request rejected.', change_request: renderChangeRequest(cr) } };
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
  for (const flag of evaluatedFlags(state, project.id)) {
    const { value, reason, condition_index } = evaluateFlag(flag, person);
    body[flag.key] = { value, evaluation: { reason, condition_index } };
  }
  return { status: 200, body };
});

const localEvaluation: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  return { status: 200, body: { flags: evaluatedFlags(state, project.id).map(renderFlagMinimal), group_type_mapping: {}, cohorts: {} } };
});

/** The caller's own flags: evaluated for the sandbox user (a seed person with the same distinct_id, if any). */
const myFlags: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const found = personFor(state, project.id, state.user.distinct_id);
  const person: Person = Object.keys(found.properties).length > 0 ? found : { distinct_id: found.distinct_id, properties: { email: state.user.email } };
  const body = evaluatedFlags(state, project.id).map((f) => ({ feature_flag: renderFlagMinimal(f), value: evaluateFlag(f, person).value }));
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
const changeRequests = '/api/projects/:project/change_requests/';

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
  { pattern: changeRequests, methods: { GET: { scope: 'feature_flag:read', handler: listChangeRequests } } },
  { pattern: `${changeRequests}:id/approve/`, methods: { POST: { scope: 'feature_flag:write', handler: approveChangeRequest } } },
  { pattern: `${changeRequests}:id/reject/`, methods: { POST: { scope: 'feature_flag:write', handler: rejectChangeRequest } } },
  { pattern: `${changeRequests}:id/`, methods: { GET: { scope: 'feature_flag:read', handler: readChangeRequest } } },
];
