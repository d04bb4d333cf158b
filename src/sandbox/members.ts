// Organization memberships: which users belong to which organization, at which level (1 member,
// 8 admin, 15 owner), as the real API's OrganizationMembership keeps them. Before memberships
// were modelled every user belonged to every organization (the sandbox user as owner, seed users
// at their seed `level`): a state without them derives exactly that the first time it is asked,
// so old state files and seeds keep meaning what they meant.
import { nextIntegerId, nowIso, uuidv7 } from './ids.js';
import { clone, isObject, type JsonObject } from './json.js';
import { LEVELS, type MembershipState, type SandboxState, type UserBasic } from './state.js';

/** The level a user had before memberships: the sandbox user owner, seed users their seed level. */
export function seedLevel(state: SandboxState, userId: number): number {
  return userId === state.user.id ? LEVELS.owner : state.user_levels?.[String(userId)] ?? LEVELS.owner;
}

export function newMembership(organization: string, userId: number, level: number, at = nowIso()): MembershipState {
  return { id: uuidv7(), organization, user_id: userId, level, joined_at: at, updated_at: at };
}

/** Every membership; derived (and kept) for a state written before memberships existed. */
export function memberships(state: SandboxState): MembershipState[] {
  state.memberships ??= state.organizations.flatMap((o) => [state.user, ...state.users].map((u) => newMembership(o.id, u.id, seedLevel(state, u.id))));
  return state.memberships;
}

export function membershipOf(state: SandboxState, organization: string, userId: number): MembershipState | undefined {
  return memberships(state).find((m) => m.organization === organization && m.user_id === userId);
}

export function organizationMembers(state: SandboxState, organization: string): MembershipState[] {
  return memberships(state).filter((m) => m.organization === organization);
}

/**
 * Removes a membership with what hangs on it, as the real API's cascade does: the user's
 * memberships of that organization's roles, and the access control rules naming the membership.
 */
export function removeMembership(state: SandboxState, m: MembershipState): void {
  state.memberships = memberships(state).filter((x) => x !== m);
  for (const role of state.roles) {
    if (role.organization === m.organization) role.members = role.members.filter((r) => !(isObject(r) && r.user_id === m.user_id));
  }
  if (state.access_controls) state.access_controls = state.access_controls.filter((a) => a.organization_member !== m.id);
}

/** A new user, numbered after the others (seed users, and invitees who accept). */
export function addUser(state: SandboxState, email: string, firstName: string, lastName = ''): UserBasic {
  const id = nextIntegerId(state.next_ids as unknown as Record<string, number>, 'user', 1, [state.user.id, ...state.users.map((u) => u.id)]);
  const user: UserBasic = {
    id,
    uuid: `0190d1c4-6a1e-7c3d-8e4f-${String(id).padStart(12, '0')}`,
    distinct_id: `sandbox-user-${id}`,
    first_name: firstName,
    last_name: lastName,
    email,
    is_email_verified: true,
    hedgehog_config: null,
    role_at_organization: null,
  };
  state.users.push(user);
  return user;
}

/** The record as the real API's OrganizationMemberSerializer answers it (no 2FA or social login in the sandbox). */
export function renderMembership(state: SandboxState, m: MembershipState): JsonObject | undefined {
  const user = [state.user, ...state.users].find((u) => u.id === m.user_id);
  if (!user) return undefined;
  return {
    id: m.id, user: clone(user), level: m.level, joined_at: m.joined_at, updated_at: m.updated_at,
    is_2fa_enabled: false, has_social_auth: false, last_login: m.joined_at,
  };
}
