// Lookups every route shares: the organization or project a path names, checked against what
// the key may reach (403, worded as the real API words it) and what exists (404).
import { requireKeyReach, requireOrganization } from '../auth.js';
import { notFound } from '../errors.js';
import type { RequestContext } from '../router.js';
import type { OrganizationState, ProjectState, SandboxState } from '../state.js';

/** The organization of /api/organizations/:org/…; `project` is the project the path names, if any. */
export function organizationOf(ctx: RequestContext, state: SandboxState, project?: number): OrganizationState {
  const id = ctx.params.org ?? '';
  requireOrganization(ctx.key, id);
  const org = state.organizations.find((o) => o.id === id);
  if (!org) throw notFound();
  requireKeyReach(state, ctx.key, org, project);
  return org;
}

/** A path id that must be a positive integer; anything else is an unknown record (404). */
export function intParam(raw: string | undefined): number {
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) throw notFound();
  return Number(raw);
}

/** A project named by /api/projects/:project/…: 404 if unknown, 403 if the key cannot reach it. */
export function projectOf(ctx: RequestContext, state: SandboxState): ProjectState {
  const id = intParam(ctx.params.project);
  const project = state.projects.find((p) => p.id === id);
  if (!project) throw notFound();
  requireOrganization(ctx.key, project.organization);
  const org = state.organizations.find((o) => o.id === project.organization);
  if (org) requireKeyReach(state, ctx.key, org, project.id);
  return project;
}
