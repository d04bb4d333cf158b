// The organizations a key reaches, as the real API answers them (posthog/api/organization.py):
// GET /api/organizations/ lists them (each with its slug), GET /api/organizations/:id/ answers one,
// and `@current` stands for the key owner's current organization (here: the first it reaches).
import { canReachOrganization } from '../auth.js';
import { FEATURES } from '../features.js';
import { notFound } from '../errors.js';
import { membershipOf, organizationMembers } from '../members.js';
import type { JsonObject } from '../json.js';
import { paginate } from '../pagination.js';
import type { Handler, Route } from '../router.js';
import type { OrganizationState, SandboxState } from '../state.js';

/** The slug the API derives from a name (lower-case words joined by hyphens), unless the seed gave one. */
export function slugOf(org: OrganizationState): string {
  return typeof org.slug === 'string' ? org.slug : org.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'organization';
}

function render(org: OrganizationState): JsonObject {
  return { id: org.id, name: org.name, slug: slugOf(org), membership_level: 15, available_product_features: (org.features ?? FEATURES).map((key) => ({ key, name: key })) };
}

const reachable = (state: SandboxState, ctx: Parameters<Handler>[0]) => state.organizations.filter((o) => canReachOrganization(ctx.key, o.id));

const list: Handler = (ctx) => ctx.store.read((state) => ({ status: 200, body: paginate(reachable(state, ctx), render, ctx.url) as unknown as JsonObject }));

/** One organization as GET answers it: the list's fields and the rest of the API's Organization. */
function renderOne(state: SandboxState, org: OrganizationState, userId: number): JsonObject {
  const projects = state.projects.filter((p) => p.organization === org.id).map((p) => ({ id: p.id, name: p.name }));
  return {
    ...render(org),
    membership_level: membershipOf(state, org.id, userId)?.level ?? 15,
    created_at: SANDBOX_EPOCH, updated_at: SANDBOX_EPOCH, customer_id: null, metadata: '', plugins_access_level: 9,
    member_count: String(organizationMembers(state, org.id).length), teams: projects, projects,
  };
}

const SANDBOX_EPOCH = '2024-01-01T00:00:00Z';

const one: Handler = (ctx) => ctx.store.read((state) => {
  const id = ctx.params.org ?? '';
  const orgs = reachable(state, ctx);
  const org = id === '@current' ? orgs[0] : orgs.find((o) => o.id === id);
  if (!org) throw notFound();
  return { status: 200, body: renderOne(state, org, ctx.key.user) };
});

export const organizationRoutes: readonly Route[] = [
  { pattern: '/api/organizations/', methods: { GET: { scope: 'organization:read', handler: list } } },
  { pattern: '/api/organizations/:org/', methods: { GET: { scope: 'organization:read', handler: one } } },
];
