// Project routes: list, read, update, delete, the read-only views and the update actions of
// /api/organizations/:org/projects/:id/, and GET /api/projects/ across organizations. A PATCH is
// checked against the key's user (admin-only settings, organization-admin-only ones) and the
// other projects (unique names, 409); DELETE needs a project admin and is asynchronous.
import { activityPage, projectActivity } from '../activity.js';
import { canReachOrganization, canReachProject, levelOf } from '../auth.js';
import { notFound, permissionDenied } from '../errors.js';
import {
  addProductIntent, applyProjectPatch, checkProjectPatch, completeProductOnboarding, deleteProject, findProject, isProjectPresent,
  renderProject, renderProjectBasic, resetToken, validateProjectPatch,
} from '../model/projects.js';
import { paginate } from '../pagination.js';
import type { JsonObject } from '../json.js';
import { NO_PERSONAL_KEYS, type Handler, type RequestContext, type Route } from '../router.js';
import { LEVELS, type ProjectState, type SandboxState } from '../state.js';
import { intParam, organizationOf } from './common.js';

function projectIn(ctx: RequestContext, state: SandboxState): ProjectState {
  const id = intParam(ctx.params.id);
  const org = organizationOf(ctx, state, id);
  const project = findProject(state, org.id, id, ctx.store.clock.now());
  if (!project) throw notFound();
  return project;
}

const list: Handler = (ctx) => ctx.store.read((state) => {
  const org = organizationOf(ctx, state);
  const now = ctx.store.clock.now();
  const items = state.projects.filter((p) => p.organization === org.id && isProjectPresent(p, now));
  return { status: 200, body: paginate(items, renderProjectBasic, ctx.url) };
});

const listAll: Handler = (ctx) => ctx.store.read((state) => {
  const now = ctx.store.clock.now();
  const items = state.projects.filter((p) => canReachOrganization(ctx.key, p.organization) && canReachProject(ctx.key, p.id) && isProjectPresent(p, now));
  return { status: 200, body: paginate(items, renderProjectBasic, ctx.url) };
});

/** The record as this key's user sees it (effective_membership_level is the user's level). */
function answer(state: SandboxState, ctx: RequestContext, project: ProjectState): JsonObject {
  return { ...renderProject(project), effective_membership_level: levelOf(state, ctx.key) };
}

const read: Handler = (ctx) => ctx.store.read((state) => ({ status: 200, body: answer(state, ctx, projectIn(ctx, state)) }));

const update: Handler = (ctx) => ctx.store.write((state) => {
  const project = projectIn(ctx, state);
  const changes = validateProjectPatch(ctx.body);
  checkProjectPatch(state, project, changes, levelOf(state, ctx.key));
  applyProjectPatch(state, project, changes);
  return { status: 200, body: answer(state, ctx, project) };
});

/** Deleting needs a project admin (the real API's TeamMemberLightManagementPermission). */
const remove: Handler = (ctx) => ctx.store.write((state) => {
  const project = projectIn(ctx, state);
  if (levelOf(state, ctx.key) < LEVELS.admin) throw permissionDenied("You don't have sufficient permissions in the project.");
  deleteProject(state, project, ctx.store.clock.now(), ctx.store.deletionDelayMs);
  return { status: 204 };
});

/** The project's own activity action: its settings' log (scope Team). Personal keys are refused (the real action declares no scope). */
const activity: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectIn(ctx, state);
  return { status: 200, body: activityPage(state, projectActivity(state, project, { scope: 'Team', itemId: String(project.id) }), ctx.url, 'limit') };
});

/** An update action: finds the project, applies `act`, answers the record. */
function action(act: (project: ProjectState, ctx: RequestContext) => void): Handler {
  return (ctx) => ctx.store.write((state) => {
    const project = projectIn(ctx, state);
    act(project, ctx);
    return { status: 200, body: answer(state, ctx, project) };
  });
}

const item = '/api/organizations/:org/projects/:id/';
const view = (name: string): Route => ({ pattern: `${item}${name}/`, methods: { GET: { scope: 'project:read', handler: read } } });
const update_action = (name: string, handler: Handler): Route => ({ pattern: `${item}${name}/`, methods: { PATCH: { scope: 'project:write', handler } } });

export const projectRoutes: Route[] = [
  { pattern: '/api/projects/', methods: { GET: { scope: 'project:read', handler: listAll } } },
  { pattern: '/api/organizations/:org/projects/', methods: { GET: { scope: 'project:read', handler: list } } },
  view('access_controls'),
  { pattern: `${item}activity/`, methods: { GET: { scope: NO_PERSONAL_KEYS, handler: activity } } },
  view('global_access_controls'),
  view('is_generating_demo_data'),
  update_action('add_product_intent', action((p, ctx) => addProductIntent(p, ctx.body))),
  update_action('complete_product_onboarding', action((p, ctx) => completeProductOnboarding(p, ctx.body))),
  update_action('reset_token', action((p) => resetToken(p))),
  {
    pattern: item,
    methods: {
      GET: { scope: 'project:read', handler: read },
      PATCH: { scope: 'project:write', handler: update },
      DELETE: { scope: 'project:write', handler: remove },
    },
  },
];
