// Role routes of an organization: list, create (201), read, update, delete (204; the role's
// memberships go with it), and the memberships of a role (read-only here). Writes need an
// organization admin.
import { requireOrganizationAdmin } from '../auth.js';
import { notFound } from '../errors.js';
import { createRole, deleteRole, findRole, renderRole, roleMembers, updateRole } from '../model/roles.js';
import { paginate } from '../pagination.js';
import type { Handler, RequestContext, Route } from '../router.js';
import type { RoleState, SandboxState } from '../state.js';
import { organizationOf } from './common.js';

function roleIn(ctx: RequestContext, state: SandboxState, param = 'id'): RoleState {
  const org = organizationOf(ctx, state);
  const role = findRole(state, org.id, ctx.params[param] ?? '');
  if (!role) throw notFound();
  return role;
}

const list: Handler = (ctx) => ctx.store.read((state) => {
  const org = organizationOf(ctx, state);
  return { status: 200, body: paginate(state.roles.filter((r) => r.organization === org.id), (r) => renderRole(state, r), ctx.url) };
});

const create: Handler = (ctx) => ctx.store.write((state) => {
  const org = organizationOf(ctx, state);
  requireOrganizationAdmin(state, ctx.key);
  return { status: 201, body: renderRole(state, createRole(state, org.id, ctx.body)) };
});

const read: Handler = (ctx) => ctx.store.read((state) => ({ status: 200, body: renderRole(state, roleIn(ctx, state)) }));

const update: Handler = (ctx) => ctx.store.write((state) => {
  const role = roleIn(ctx, state);
  requireOrganizationAdmin(state, ctx.key);
  updateRole(state, role, ctx.body);
  return { status: 200, body: renderRole(state, role) };
});

const remove: Handler = (ctx) => ctx.store.write((state) => {
  const role = roleIn(ctx, state);
  requireOrganizationAdmin(state, ctx.key);
  deleteRole(state, role.id);
  return { status: 204 };
});

const memberships: Handler = (ctx) => ctx.store.read((state) => {
  const role = roleIn(ctx, state, 'role');
  return { status: 200, body: paginate(roleMembers(state, role), (m) => m, ctx.url) };
});

export const roleRoutes: Route[] = [
  {
    pattern: '/api/organizations/:org/roles/',
    methods: { GET: { scope: 'organization:read', handler: list }, POST: { scope: 'organization:write', handler: create } },
  },
  {
    pattern: '/api/organizations/:org/roles/:role/role_memberships/',
    methods: { GET: { scope: 'organization:read', handler: memberships } },
  },
  {
    pattern: '/api/organizations/:org/roles/:id/',
    methods: {
      GET: { scope: 'organization:read', handler: read },
      PATCH: { scope: 'organization:write', handler: update },
      DELETE: { scope: 'organization:write', handler: remove },
    },
  },
];
