// The organizations a key reaches, as the real API answers them (posthog/api/organization.py):
// GET /api/organizations/ lists them (each with its slug), GET /api/organizations/:id/ answers one,
// and `@current` stands for the key owner's current organization (here: the first it reaches).
import { canReachOrganization } from '../auth.js';
import { FEATURES } from '../features.js';
import { notFound } from '../errors.js';
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

const one: Handler = (ctx) => ctx.store.read((state) => {
  const id = ctx.params.org ?? '';
  const orgs = reachable(state, ctx);
  const org = id === '@current' ? orgs[0] : orgs.find((o) => o.id === id);
  if (!org) throw notFound();
  return { status: 200, body: render(org) };
});

export const organizationRoutes: readonly Route[] = [
  { pattern: '/api/organizations/', methods: { GET: { scope: 'organization:read', handler: list } } },
  { pattern: '/api/organizations/:org/', methods: { GET: { scope: 'organization:read', handler: one } } },
];
