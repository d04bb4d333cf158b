// Roles of an organization: a name (trimmed, unique per organization without regard to case),
// the default feature flag access level (21 = can only view, 37 = can always edit; API version
// 2026 no longer has it), and members. Deleting a role deletes its memberships with it (and, on
// the real API, every access grant made through the role).
import { validationError } from '../../sandbox/errors.js';
import { nowIso, uuidv7 } from '../../sandbox/ids.js';
import { clone, isObject, type Json, type JsonObject } from '../../sandbox/json.js';
import type { RoleState, SandboxState } from '../../sandbox/state.js';
import { integerChoiceRule, requireField, stringRule } from '../../sandbox/validation.js';
import { isAdmin, requireOrganizationAdmin } from '../../sandbox/auth.js';
import { notFound, permissionDenied } from '../../sandbox/errors.js';
import { isUuid } from '../../sandbox/ids.js';
import { membershipOf, renderMembership } from '../../sandbox/members.js';
import type { SandboxModel } from '../../sandbox/kind-model.js';
import { paginate } from '../../sandbox/pagination.js';
import type { Handler, RequestContext } from '../../sandbox/router.js';
import { organizationOf } from '../../sandbox/routes/common.js';
import { seedApply, seedList, seedUserByEmail } from '../../sandbox/seed-kit.js';

export const ACCESS_LEVELS = [21, 37] as const;
const DEFAULT_ACCESS_LEVEL = 21;

const nameRule = stringRule({ max: 200 });
const levelRule = integerChoiceRule(ACCESS_LEVELS);

/** API version 2026 stores no feature_flags_access_level: it is neither answered nor taken. */
export function rolesHaveAccessLevel(state: SandboxState): boolean {
  return (state.api_version ?? 2025) < 2026;
}

function checkName(state: SandboxState, organization: string, value: Json, selfId: string | null): string {
  const name = nameRule(value, 'name') as string;
  const clash = state.roles.some((r) => r.organization === organization && r.id !== selfId && r.name.toLowerCase() === name.toLowerCase());
  if (clash) throw validationError('name', 'There is already a role with this name.', 'unique');
  return name;
}

/** One membership as the real API's RoleMembership answers it (with the user's organization membership). */
function renderMember(state: SandboxState, role: RoleState, m: Json): JsonObject | undefined {
  if (!isObject(m) || typeof m.user_id !== 'number') return undefined;
  const user = [state.user, ...(state.users ?? [])].find((u) => u.id === m.user_id);
  const membership = membershipOf(state, role.organization, m.user_id);
  if (!user || !membership) return undefined;
  return {
    id: m.id ?? null, role_id: role.id, organization_member: renderMembership(state, membership) ?? null, user: clone(user),
    joined_at: m.joined_at ?? null, updated_at: m.updated_at ?? m.joined_at ?? null,
  };
}

export function roleMembers(state: SandboxState, r: RoleState): JsonObject[] {
  return r.members.map((m) => renderMember(state, r, m)).filter((m): m is JsonObject => m !== undefined);
}

/** The record as answered; `created_by` is the creator summary, members and is_default strings (as the OpenAPI types them). */
export function renderRole(state: SandboxState, r: RoleState): JsonObject {
  const out: JsonObject = { id: r.id, name: r.name };
  if (rolesHaveAccessLevel(state)) out.feature_flags_access_level = r.feature_flags_access_level;
  Object.assign(out, {
    created_at: r.created_at,
    created_by: clone(state.user),
    members: JSON.stringify(roleMembers(state, r)),
    is_default: String(r.is_default),
  });
  return out;
}

export function createRole(state: SandboxState, organization: string, body: JsonObject, memberIds: readonly number[] = []): RoleState {
  const name = checkName(state, organization, requireField(body, 'name'), null);
  const level = body.feature_flags_access_level === undefined || !rolesHaveAccessLevel(state)
    ? DEFAULT_ACCESS_LEVEL : levelRule(body.feature_flags_access_level, 'feature_flags_access_level') as number;
  const joined = nowIso();
  const role: RoleState = {
    id: uuidv7(),
    organization,
    name,
    feature_flags_access_level: level,
    created_at: nowIso(),
    created_by: state.user.id,
    members: memberIds.map((user_id) => ({ id: uuidv7(), user_id, joined_at: joined })),
    is_default: false,
  };
  state.roles.push(role);
  return role;
}

export function updateRole(state: SandboxState, role: RoleState, body: JsonObject): void {
  const name = body.name === undefined ? role.name : checkName(state, role.organization, body.name, role.id);
  const level = body.feature_flags_access_level === undefined || !rolesHaveAccessLevel(state) ? role.feature_flags_access_level
    : levelRule(body.feature_flags_access_level, 'feature_flags_access_level') as number;
  role.name = name;
  role.feature_flags_access_level = level;
}

export function findRole(state: SandboxState, organization: string, id: string): RoleState | undefined {
  return state.roles.find((r) => r.id === id && r.organization === organization);
}

/** Deletes the role and, with it, its memberships (they live on the role) and the access control rules naming it. */
export function deleteRole(state: SandboxState, id: string): void {
  state.roles = state.roles.filter((r) => r.id !== id);
  if (state.access_controls) state.access_controls = state.access_controls.filter((a) => a.role !== id);
}

// ---------------------------------------------------------------------------------------------
// The role kind in the sandbox: list, create (201), read, update, delete (204; the role's
// memberships go with it), and the memberships of a role: list, add by user uuid (201), remove
// (204), no update (ee/api/rbac/role.py). Writes need an organization admin.
// ---------------------------------------------------------------------------------------------

const roleOf = (record: JsonObject) => record as RoleState;

function roleIn(ctx: RequestContext, state: SandboxState, write: boolean): RoleState {
  const org = organizationOf(ctx, state);
  const role = findRole(state, org.id, ctx.params.role ?? '');
  if (!role) throw notFound();
  // RolePermissions' own wording (the role routes answer the generic admin refusal).
  if (write && !isAdmin(state, ctx.key, org.id)) throw permissionDenied('You need to have admin level or higher.');
  return role;
}

const memberships: Handler = (ctx) => ctx.store.read((state) => {
  const role = roleIn(ctx, state, false);
  return { status: 200, body: paginate(roleMembers(state, role), (m) => m, ctx.url) };
});

const addMember: Handler = (ctx) => ctx.store.write((state) => {
  const role = roleIn(ctx, state, true);
  const uuid = requireField(ctx.body, 'user_uuid');
  if (typeof uuid !== 'string' || !isUuid(uuid)) throw validationError('user_uuid', 'Must be a valid UUID.', 'invalid');
  const user = [state.user, ...state.users].find((u) => u.uuid === uuid);
  if (!user || !membershipOf(state, role.organization, user.id)) throw validationError(null, 'User does not exist.', 'invalid');
  if (role.members.some((m) => isObject(m) && m.user_id === user.id)) throw validationError(null, 'User is already part of the role.', 'invalid');
  const now = new Date(ctx.store.clock.now()).toISOString();
  const member = { id: uuidv7(), user_id: user.id, joined_at: now, updated_at: now };
  role.members.push(member);
  return { status: 201, body: renderMember(state, role, member) ?? {} };
});

const removeMember: Handler = (ctx) => ctx.store.write((state) => {
  const role = roleIn(ctx, state, true);
  const member = role.members.find((m) => isObject(m) && m.id === ctx.params.id);
  if (!member) throw notFound();
  role.members = role.members.filter((m) => m !== member);
  return { status: 204 };
});

export const model: SandboxModel = {
  kind: 'role',
  collection: 'roles',
  path: '/api/organizations/:org/roles/',
  parent: 'organization',
  scopes: { read: 'organization:read', write: 'organization:write' },
  pagination: 'limit-offset',
  id: 'uuid',
  create: { status: 201 },
  update: true,
  delete: 'hard',
  fields: {},
  activity: { scope: 'Role', name: (r) => String(r.name), ignored: ['organization', 'members', 'is_default'] },
  hooks: {
    authorize: (ctx) => requireOrganizationAdmin(ctx.state, ctx.request.key, ctx.organization.id),
    createReply: (ctx) => ({ status: 201, body: renderRole(ctx.state, createRole(ctx.state, ctx.organization.id, ctx.request.body)) }),
    updateReply: (record, ctx) => {
      updateRole(ctx.state, roleOf(record), ctx.request.body);
      return { status: 200, body: renderRole(ctx.state, roleOf(record)) };
    },
    deleteReply: (record, ctx) => {
      deleteRole(ctx.state, String(record.id));
      return { status: 204 };
    },
    render: (record, ctx) => renderRole(ctx.state, roleOf(record)),
  },
  routes: [
    {
      pattern: '/api/organizations/:org/roles/:role/role_memberships/',
      methods: { GET: { scope: 'organization:read', handler: memberships }, POST: { scope: 'organization:write', handler: addMember } },
    },
    { pattern: '/api/organizations/:org/roles/:role/role_memberships/:id/', methods: { DELETE: { scope: 'organization:write', handler: removeMember } } },
  ],
  seeds: [{
    key: 'roles',
    at: 'organization',
    apply: (state, { organization }, value, where, fail) => {
      for (const [ri, role] of seedList(value, where, fail).entries()) {
        const rat = `${where}[${ri}]`;
        const { members, ...fields } = role;
        if (members !== undefined && (!Array.isArray(members) || !members.every((m) => typeof m === 'string'))) fail(`${rat}.members`, 'must be a list of user emails');
        const memberIds = ((members ?? []) as string[]).map((m, mi) => {
          const id = seedUserByEmail(state, m, `${rat}.members[${mi}]`, fail);
          return membershipOf(state, organization.id, id) ? id : fail(`${rat}.members[${mi}]`, `${m} is not a member of the organization (see its members)`);
        });
        seedApply(rat, fail, () => createRole(state, organization.id, fields, memberIds));
      }
    },
  }],
  contract: {
    item: { name: 'Contract team', feature_flags_access_level: 21 },
    update: { feature_flags_access_level: 37 },
    drift: { feature_flags_access_level: 21 },
  },
};
