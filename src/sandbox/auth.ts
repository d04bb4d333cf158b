// Personal API keys: who may call, with which scopes (`x:write` implies `x:read`, `*` grants
// all), in which organizations and projects, and as which user (whose organization level decides
// admin-only writes). Errors word each refusal the way the real API does.
import { invalidKey, notAuthenticated, permissionDenied } from './errors.js';
import { membershipOf } from './members.js';
import { ALL_SCOPES, LEVELS, type ApiKeyState, type OrganizationState, type SandboxState, type Scope } from './state.js';

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** The key of a request's `Authorization: Bearer <key>` header; 401 when absent or unknown. */
export function authenticate(state: SandboxState, authorization: string | undefined): ApiKeyState {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) throw notAuthenticated();
  const key = state.keys.find((k) => k.key === m[1]);
  if (!key) throw invalidKey();
  return key;
}

export function hasScope(key: ApiKeyState, scope: Scope): boolean {
  if (key.scopes.includes('*') || key.scopes.includes(scope)) return true;
  const [object, action] = scope.split(':');
  return action === 'read' && key.scopes.includes(`${object}:write`);
}

export function requireScope(key: ApiKeyState, scope: Scope): void {
  if (!hasScope(key, scope)) throw permissionDenied(`API key missing required scope '${scope}'`);
}

/**
 * The organization level of a key's user: its membership's of `organization` where the caller
 * names one, else the seed user's level (owner for the sandbox user).
 */
export function levelOf(state: SandboxState, key: ApiKeyState, organization?: string): number {
  const membership = organization === undefined ? undefined : membershipOf(state, organization, key.user);
  return membership?.level ?? state.user_levels?.[String(key.user)] ?? LEVELS.owner;
}

export function isAdmin(state: SandboxState, key: ApiKeyState, organization?: string): boolean {
  return levelOf(state, key, organization) >= LEVELS.admin;
}

export function canReachOrganization(key: ApiKeyState, organization: string): boolean {
  return key.organizations === null || key.organizations.includes(organization);
}

export function canReachProject(key: ApiKeyState, project: number): boolean {
  return key.projects === undefined || key.projects === null || key.projects.includes(project);
}

/**
 * The checks the real API makes on a key before its scopes, for a request inside `org`: the
 * organization's policy on personal keys (members below admin refused), the key's projects
 * (`project` = the project the path names; an organization-level path with a project-limited
 * key is refused) and the key's organizations.
 */
export function requireKeyReach(state: SandboxState, key: ApiKeyState, org: OrganizationState, project?: number): void {
  if (org.members_can_use_personal_api_keys === false && !isAdmin(state, key, org.id)) {
    throw permissionDenied(`Organization '${org.name}' does not allow using personal API keys. Contact an admin to enable personal API keys for this organization.`);
  }
  if (key.projects !== undefined && key.projects !== null) {
    if (project === undefined) throw permissionDenied('API keys with scoped projects are only supported on project-based endpoints.');
    if (!key.projects.includes(project)) throw permissionDenied(`API key does not have access to the requested project: ID ${project}.`);
  }
  requireOrganization(key, org.id);
  // A user removed from the organization (or never in it) reaches nothing of it.
  if (!membershipOf(state, org.id, key.user)) throw permissionDenied('You do not have permission to perform this action.');
}

export function requireOrganization(key: ApiKeyState, organization: string): void {
  if (!canReachOrganization(key, organization)) {
    throw permissionDenied(`API key does not have access to the requested organization: ID ${organization}.`);
  }
}

/** Writes to proxy records and roles need an organization admin (OrganizationAdminWritePermissions). */
export function requireOrganizationAdmin(state: SandboxState, key: ApiKeyState, organization?: string): void {
  if (!isAdmin(state, key, organization)) throw permissionDenied('Your organization access level is insufficient.');
}
