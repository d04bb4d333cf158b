// Roles of an organization: a name (trimmed, unique per organization without regard to case),
// the default feature flag access level (21 = can only view, 37 = can always edit; API version
// 2026 no longer has it), and members. Deleting a role deletes its memberships with it (and, on
// the real API, every access grant made through the role).
import { validationError } from '../errors.js';
import { nowIso, uuidv7 } from '../ids.js';
import { clone, isObject, type Json, type JsonObject } from '../json.js';
import type { RoleState, SandboxState } from '../state.js';
import { integerChoiceRule, requireField, stringRule } from '../validation.js';

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

/** One membership as the real API's RoleMembership answers it. */
function renderMember(state: SandboxState, role: RoleState, m: Json): JsonObject | undefined {
  if (!isObject(m) || typeof m.user_id !== 'number') return undefined;
  const user = [state.user, ...(state.users ?? [])].find((u) => u.id === m.user_id);
  if (!user) return undefined;
  return { id: m.id ?? null, role_id: role.id, user: clone(user), joined_at: m.joined_at ?? null, updated_at: m.joined_at ?? null };
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

/** Deletes the role and, with it, its memberships (they live on the role). */
export function deleteRole(state: SandboxState, id: string): void {
  state.roles = state.roles.filter((r) => r.id !== id);
}
