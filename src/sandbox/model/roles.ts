// Roles of an organization: a name (unique per organization, without regard to case) and the
// default feature flag access level (21 = can only view, 37 = can always edit).
import { validationError } from '../errors.js';
import { nowIso, uuidv7 } from '../ids.js';
import { clone, type Json, type JsonObject } from '../json.js';
import type { RoleState, SandboxState } from '../state.js';
import { integerChoiceRule, requireField, stringRule } from '../validation.js';

export const ACCESS_LEVELS = [21, 37] as const;
const DEFAULT_ACCESS_LEVEL = 21;

const nameRule = stringRule({ max: 200 });
const levelRule = integerChoiceRule(ACCESS_LEVELS);

function checkName(state: SandboxState, organization: string, value: Json, selfId: string | null): string {
  const name = nameRule(value, 'name') as string;
  const clash = state.roles.some((r) => r.organization === organization && r.id !== selfId && r.name.toLowerCase() === name.toLowerCase());
  if (clash) throw validationError('name', 'There is already a role with this name.', 'unique');
  return name;
}

/** The record as answered; `created_by` is the creator summary, members and is_default strings (as the OpenAPI types them). */
export function renderRole(state: SandboxState, r: RoleState): JsonObject {
  return {
    id: r.id,
    name: r.name,
    feature_flags_access_level: r.feature_flags_access_level,
    created_at: r.created_at,
    created_by: clone(state.user),
    members: JSON.stringify(r.members),
    is_default: String(r.is_default),
  };
}

export function createRole(state: SandboxState, organization: string, body: JsonObject): RoleState {
  const name = checkName(state, organization, requireField(body, 'name'), null);
  const level = body.feature_flags_access_level === undefined ? DEFAULT_ACCESS_LEVEL : levelRule(body.feature_flags_access_level, 'feature_flags_access_level') as number;
  const role: RoleState = {
    id: uuidv7(),
    organization,
    name,
    feature_flags_access_level: level,
    created_at: nowIso(),
    created_by: state.user.id,
    members: [],
    is_default: false,
  };
  state.roles.push(role);
  return role;
}

export function updateRole(state: SandboxState, role: RoleState, body: JsonObject): void {
  const name = body.name === undefined ? role.name : checkName(state, role.organization, body.name, role.id);
  const level = body.feature_flags_access_level === undefined ? role.feature_flags_access_level
    : levelRule(body.feature_flags_access_level, 'feature_flags_access_level') as number;
  role.name = name;
  role.feature_flags_access_level = level;
}

export function findRole(state: SandboxState, organization: string, id: string): RoleState | undefined {
  return state.roles.find((r) => r.id === id && r.organization === organization);
}

export function deleteRole(state: SandboxState, id: string): void {
  state.roles = state.roles.filter((r) => r.id !== id);
}
