// Personal API keys: who may call, with which scopes (`x:write` implies `x:read`, `*` grants
// all), and in which organizations. Errors word the missing scope the way the real API does.
import { invalidKey, notAuthenticated, permissionDenied } from './errors.js';
import { ALL_SCOPES, type ApiKeyState, type SandboxState, type Scope } from './state.js';

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

export function canReachOrganization(key: ApiKeyState, organization: string): boolean {
  return key.organizations === null || key.organizations.includes(organization);
}

export function requireOrganization(key: ApiKeyState, organization: string): void {
  if (!canReachOrganization(key, organization)) {
    throw permissionDenied('API key does not have access to the requested organization.');
  }
}
