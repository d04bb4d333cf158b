// The workspace a sandbox starts with when it has neither a seed nor a state file: one
// organization holding two projects, and the sandbox's one user (the creator of everything).
import { personalApiKey } from './ids.js';
import { projectMaker } from './models.js';
import { STATE_FORMAT, type SandboxState, type UserBasic } from './state.js';

export const DEFAULT_ORGANIZATION_ID = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
export const DEFAULT_ORGANIZATION_NAME = 'Sandbox organization';
/** The example ids of the product documentation, so its examples run against a bare sandbox. */
export const DEFAULT_PROJECTS: readonly { id: number; name: string }[] = [
  { id: 12345, name: 'Web app' },
  { id: 12346, name: 'Mobile app' },
];
/** Seed projects without an id are numbered from here. */
export const FIRST_PROJECT_ID = 12345;

export function sandboxUser(): UserBasic {
  return {
    id: 1,
    uuid: '0190d1c4-6a1e-7c3d-8e4f-000000000001',
    distinct_id: 'sandbox-user',
    first_name: 'Sandbox',
    last_name: 'User',
    email: 'sandbox@hogsync.dev',
    is_email_verified: true,
    hedgehog_config: null,
    role_at_organization: 'engineering',
  };
}

/** A state with no organizations yet, the sandbox user and a fresh all-powerful key. */
export function emptyState(): SandboxState {
  const primary = personalApiKey();
  return {
    format: STATE_FORMAT,
    version: 1,
    primary_key: primary,
    user: sandboxUser(),
    users: [],
    keys: [{ key: primary, label: 'sandbox (all scopes)', scopes: ['*'], organizations: null, user: 1 }],
    organizations: [],
    projects: [],
    proxy_records: [],
    roles: [],
    feature_flags: [],
    persons: [],
    activity_log: [],
    next_ids: { feature_flag: 1, dashboard: 1 },
    flag_approvals: [],
    change_requests: [],
  };
}

export function defaultState(): SandboxState {
  const state = emptyState();
  state.organizations.push({ id: DEFAULT_ORGANIZATION_ID, name: DEFAULT_ORGANIZATION_NAME });
  const projects = projectMaker();
  for (const p of DEFAULT_PROJECTS) state.projects.push(projects.make(state, p.id, DEFAULT_ORGANIZATION_ID, p.name));
  return state;
}

