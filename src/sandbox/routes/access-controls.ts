// A project's access controls, as the real API answers them
// (products/access_control/backend/presentation/access_control.py, AccessControlViewSetMixin and
// AccessControlSerializer): GET/PUT /api/projects/:project/access_controls/ (the project's own
// rules: resource "project", resource_id its id; levels none/member/admin) and
// …/resource_access_controls/ (rules per resource type, resource_id null; levels
// none/viewer/editor/manager). A PUT writes one rule keyed by (resource, resource_id,
// organization_member, role); `access_level: null` removes it (204). Organization admins, and
// members an explicit rule makes project admins, may write. Without the organization's
// advanced_permissions feature older API versions still take and store rules: so does the sandbox.
import { levelOf } from '../auth.js';
import { permissionDenied, validationError } from '../errors.js';
import { hasFeature } from '../features.js';
import { isUuid } from '../ids.js';
import type { Json, JsonObject } from '../json.js';
import { membershipOf, memberships } from '../members.js';
import type { Handler, RequestContext, Route } from '../router.js';
import { LEVELS, type AccessControlState, type ProjectState, type SandboxState } from '../state.js';
import { projectOf } from './common.js';

/**
 * The resource types the real API takes in a rule: API_SCOPE_OBJECTS without the internal ones
 * (posthog/scopes.py; AccessControlSerializer.validate_resource), in the API's order. The configuration schema keeps
 * the same list (src/resources/access/schema.json; a test checks they agree).
 */
export const RESOURCES: readonly string[] = [
  'action', 'access_control', 'account', 'activity_log', 'alert', 'annotation', 'approvals', 'batch_export',
  'batch_import', 'business_knowledge', 'cohort', 'comment', 'conversation', 'customer_analytics', 'customer_journey',
  'customer_profile_config', 'dashboard', 'event_filter', 'dashboard_template', 'dataset', 'deployment',
  'desktop_recording', 'early_access_feature', 'endpoint', 'error_tracking', 'evaluation', 'element',
  'event_definition', 'experiment', 'experiment_saved_metric', 'export', 'external_data_schema',
  'external_data_source', 'feature_flag', 'file_system', 'file_system_shortcut', 'group', 'health_issue', 'heatmap',
  'hog_flow', 'hog_function', 'insight', 'insight_variable', 'integration', 'legal_document', 'link', 'live_debugger',
  'llm_analytics', 'llm_gateway', 'llm_prompt', 'llm_provider_key', 'llm_skill', 'logs', 'notebook', 'organization',
  'organization_integration', 'organization_member', 'person', 'persisted_folder', 'plugin', 'product_tour', 'project',
  'property_definition', 'query', 'replay_scanner', 'revenue_analytics', 'session_recording',
  'session_recording_playlist', 'sharing_configuration', 'streamlit_app', 'subscription', 'survey', 'tagger', 'ticket',
  'task', 'tracing', 'uploaded_media', 'usage_metric', 'user', 'user_interview', 'visual_review', 'warehouse_objects',
  'warehouse_table', 'warehouse_view', 'web_analytics', 'webhook',
  // Resources of the access-control settings (ACCESS_CONTROL_RESOURCES) that newer API versions
  // add to the scope objects before this list caught up: taken as well.
  'ai_observability_clusters', 'llm_playground', 'mcp_analytics', 'metrics', 'toolbar',
];

/** ordered_access_levels, minimum_access_level, highest_access_level of the real API. */
const levelsOf = (resource: string) => (['project', 'organization'].includes(resource) ? ['none', 'member', 'admin'] : ['none', 'viewer', 'editor', 'manager']);
const minimumOf = (resource: string) => (resource === 'action' ? 'viewer' : 'none');
const highestOf = (resource: string) => (['activity_log', 'toolbar'].includes(resource) ? 'viewer' : levelsOf(resource).at(-1) as string);

const rulesOf = (state: SandboxState) => (state.access_controls ??= []);

function render(a: AccessControlState): JsonObject {
  const { project: _project, ...rest } = a;
  return rest;
}

/** The rules that apply to the key's user on the project: their own, their roles', then the default. */
function userLevel(state: SandboxState, ctx: RequestContext, project: ProjectState): string {
  if (levelOf(state, ctx.key, project.organization) >= LEVELS.admin) return 'admin';
  const own = projectRules(state, project).filter((a) => applies(state, ctx, project, a));
  const pick = (f: (a: AccessControlState) => boolean) => own.filter(f).map((a) => a.access_level).sort((x, y) => levelsOf('project').indexOf(y) - levelsOf('project').indexOf(x))[0];
  return pick((a) => a.organization_member !== null) ?? pick((a) => a.role !== null) ?? pick(() => true) ?? 'admin';
}

function projectRules(state: SandboxState, project: ProjectState): AccessControlState[] {
  return rulesOf(state).filter((a) => a.project === project.id && a.resource === 'project' && a.resource_id === String(project.id));
}

/** Whether a rule names the key's user (their membership, one of their roles, or nobody: the default). */
function applies(state: SandboxState, ctx: RequestContext, project: ProjectState, a: AccessControlState): boolean {
  if (a.organization_member !== null) return a.organization_member === membershipOf(state, project.organization, ctx.key.user)?.id;
  if (a.role !== null) return state.roles.some((r) => r.id === a.role && r.members.some((m) => (m as JsonObject).user_id === ctx.key.user));
  return true;
}

/** check_can_modify_access_levels_for_object: organization admins, or an explicit (member or role) project admin rule. */
function canModify(state: SandboxState, ctx: RequestContext, project: ProjectState): boolean {
  if (levelOf(state, ctx.key, project.organization) >= LEVELS.admin) return true;
  return projectRules(state, project).some((a) => (a.organization_member !== null || a.role !== null) && a.access_level === 'admin' && applies(state, ctx, project, a));
}

function reader(resourceLevel: boolean): Handler {
  return (ctx) => ctx.store.read((state) => {
    const project = projectOf(ctx, state);
    const rules = resourceLevel ? rulesOf(state).filter((a) => a.project === project.id && a.resource_id === null) : projectRules(state, project);
    const body: JsonObject = {
      access_controls: rules.map(render),
      available_access_levels: resourceLevel ? levelsOf('feature_flag') : levelsOf('project'),
      default_access_level: resourceLevel ? 'editor' : 'admin',
      minimum_access_level: 'none',
      maximum_access_level: resourceLevel ? 'manager' : 'admin',
      user_access_level: userLevel(state, ctx, project),
      user_can_edit_access_levels: canModify(state, ctx, project),
    };
    // A project has nothing above it to inherit from.
    if (!resourceLevel) body.inherited_access = null;
    return { status: 200, body };
  });
}

/** A uuid field naming a record; the real serializer's PrimaryKeyRelatedField wording. */
function related(value: Json | undefined, attr: string, exists: (id: string) => boolean, invalid: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !isUuid(value)) throw validationError(attr, invalid, 'invalid');
  if (!exists(value)) throw validationError(attr, `Invalid pk "${value}" - object does not exist.`, 'does_not_exist');
  return value;
}

function writer(resourceLevel: boolean): Handler {
  return (ctx) => ctx.store.write((state) => {
    const project = projectOf(ctx, state);
    const body = ctx.body;
    if (!Object.prototype.hasOwnProperty.call(body, 'access_level')) throw validationError('access_level', 'This field is required.', 'required');
    const level = body.access_level as Json;
    let resource = 'project';
    let resourceId: string | null = String(project.id);
    if (resourceLevel) {
      if (body.resource === undefined) throw validationError('resource', 'This field is required.', 'required');
      if (typeof body.resource !== 'string' || !RESOURCES.includes(body.resource)) {
        throw validationError('resource', `Invalid resource. Must be one of: (${RESOURCES.map((r) => `'${r}'`).join(', ')})`, 'invalid');
      }
      resource = body.resource;
      resourceId = body.resource_id === undefined || body.resource_id === null ? null : String(body.resource_id);
    }
    if (level !== null) {
      const levels = levelsOf(resource);
      if (typeof level !== 'string' || !levels.includes(level)) throw validationError('access_level', `Invalid access level. Must be one of: ${levels.join(', ')}`, 'invalid');
      const [min, max] = [minimumOf(resource), highestOf(resource)];
      if (levels.indexOf(level) < levels.indexOf(min)) throw validationError('access_level', `Access level cannot be set below the minimum '${min}' for ${resource}.`, 'invalid');
      if (levels.indexOf(level) > levels.indexOf(max)) throw validationError('access_level', `Access level cannot be set above the maximum '${max}' for ${resource}.`, 'invalid');
    }
    const member = related(body.organization_member, 'organization_member', (id) => memberships(state).some((m) => m.id === id),
      "Invalid organization member id. Use the 'id' field from the /api/organizations/<organization_id>/members/ endpoint.");
    const role = related(body.role, 'role', (id) => state.roles.some((r) => r.id === id), 'Must be a valid UUID.');
    if (member && role) throw validationError(null, 'You can not scope an access control to both a member and a role.', 'invalid');
    const org = state.organizations.find((o) => o.id === project.organization);
    if (role && org && !hasFeature(org, 'role_based_access')) throw permissionDenied('Role-based access controls require the Role-based access feature.');
    if (role && state.roles.find((r) => r.id === role)?.organization !== project.organization) {
      throw validationError(null, 'The role must belong to the same organization as this project.', 'invalid');
    }
    if (member && memberships(state).find((m) => m.id === member)?.organization !== project.organization) {
      throw validationError(null, 'The member must belong to the same organization as this project.', 'invalid');
    }
    if (resourceId !== null) {
      if (resourceId !== String(project.id)) throw permissionDenied('Cannot modify access controls for a resource different from the URL target.');
      if (!canModify(state, ctx, project)) throw permissionDenied(`Must be ${highestOf(resource)} to modify ${resource} permissions.`);
    } else if (!canModify(state, ctx, project)) {
      throw permissionDenied('Must be an Organization admin to modify project-wide permissions.');
    }

    const key = (a: AccessControlState) => a.project === project.id && a.resource === resource && a.resource_id === resourceId
      && a.organization_member === member && a.role === role;
    const existing = rulesOf(state).find(key);
    if (level === null) {
      state.access_controls = rulesOf(state).filter((a) => a !== existing);
      return { status: 204 };
    }
    const now = new Date(ctx.store.clock.now()).toISOString();
    const rule = existing ?? {
      project: project.id, resource, resource_id: resourceId, organization_member: member, role, access_level: level,
      created_by: ctx.key.user, created_at: now, updated_at: now,
    };
    Object.assign(rule, { access_level: level, updated_at: now });
    if (!existing) rulesOf(state).push(rule);
    return { status: 200, body: render(rule) };
  });
}

export const accessControlRoutes: readonly Route[] = [false, true].map((resourceLevel) => ({
  pattern: `/api/projects/:project/${resourceLevel ? 'resource_' : ''}access_controls/`,
  methods: { GET: { scope: 'access_control:read', handler: reader(resourceLevel) }, PUT: { scope: 'access_control:write', handler: writer(resourceLevel) } },
}));
