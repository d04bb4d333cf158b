// The sandbox's whole state as one JSON document: what the store keeps in memory and writes
// to --state FILE. Records are kept flat (each knows its organization or project) so that
// lookups, pagination and persistence stay simple.
import type { Json, JsonObject } from './json.js';

/** The creator summary (`UserBasic` of the OpenAPI) the real API embeds in roles and flags. */
export interface UserBasic extends JsonObject {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  last_name: string;
  email: string;
  is_email_verified: boolean;
  hedgehog_config: JsonObject | null;
  role_at_organization: string | null;
}

export type OrganizationState = JsonObject & {
  id: string;
  name: string;
  /** Its slug (GET /api/organizations/ lists it); absent = derived from the name. */
  slug?: string;
  /** How many proxy records the organization may hold (records still deleting count); absent = 2, the API's default. */
  max_proxy_records?: number;
  /** false: keys of members below admin are refused (the organization setting `members_can_use_personal_api_keys`). */
  members_can_use_personal_api_keys?: boolean;
  /** The features of its plan (src/sandbox/features.ts); absent = every feature. */
  features?: string[];
};

/** Organization membership levels of the real API. */
export const LEVELS = { member: 1, admin: 8, owner: 15 } as const;
export type LevelName = keyof typeof LEVELS;


/** A user's membership of one organization (the real API's OrganizationMembership). */
export interface MembershipState extends JsonObject {
  id: string;
  organization: string;
  user_id: number;
  level: number;
  joined_at: string;
  updated_at: string;
}

/** An invitation to an organization; it expires INVITE_DAYS after created_at. */
export interface InviteState extends JsonObject {
  id: string;
  organization: string;
  target_email: string;
  first_name: string;
  level: number;
  created_by: number;
  created_at: string;
  updated_at: string;
  message: string | null;
}

/**
 * One access control rule of a project (the real API's AccessControl): `resource_id` is the
 * project's id for its own rules, null for resource-level ones; neither subject = the default.
 */
export interface AccessControlState extends JsonObject {
  project: number;
  resource: string;
  resource_id: string | null;
  organization_member: string | null;
  role: string | null;
  access_level: string;
  created_by: number;
  created_at: string;
  updated_at: string;
}

/** A project: every field of the API's ProjectBackwardCompat record, stored as answered. */
export type ProjectState = JsonObject & {
  id: number; organization: string; name: string; api_token: string; updated_at: string;
  /** Set by DELETE: the project stays readable (is_pending_deletion: true) until this time, then it is gone. */
  deleting_until?: string;
};

export type ProxyRecordState = JsonObject & {
  id: string;
  organization: string;
  domain: string;
  target_cname: string;
  status: string;
  message: string | null;
  created_at: string;
  updated_at: string;
  created_by: number | null;
  /** Set by DELETE of a provisioned record: listed as `deleting` until this time, then gone. */
  deleting_until?: string;
};

export interface RoleState extends JsonObject {
  id: string;
  organization: string;
  name: string;
  feature_flags_access_level: number;
  created_at: string;
  created_by: number;
  members: Json[];
  is_default: boolean;
}

export interface FeatureFlagState extends JsonObject {
  id: number;
  project: number;
  key: string;
  name: string;
  filters: JsonObject;
  active: boolean;
  deleted: boolean;
  tags: Json[];
  ensure_experience_continuity: boolean | null;
  rollback_conditions: Json;
  performed_rollback: boolean | null;
  analytics_dashboards: Json[];
  has_enriched_analytics: boolean | null;
  is_remote_configuration: boolean | null;
  has_encrypted_payloads: boolean | null;
  evaluation_runtime: string | null;
  creation_context: string;
  usage_dashboard: number | null;
  version: number;
  created_at: string;
  updated_at: string;
  created_by: number;
  last_modified_by: number;
  /** (This and the fields below may be missing from state files written before they existed.) Archived flags are left out of the list unless it names the `archived` parameter. */
  archived: boolean;
  /** Not listed although it holds its key: a survey's or product tour's internal flag, or one the caller may not see. */
  hidden: 'survey' | 'product_tour' | 'restricted' | null;
  /** Experiments and early access features using the flag (seeded; see model/feature-flags.ts for which refuse its deletion). */
  experiment_ids: number[];
  early_access_features: string[];
  /** The experiments' names and whether each is running (missing from state files written before: their ids only). */
  experiments: Array<{ id: number; name: string; running: boolean }>;
  /** Names of the surveys linked to the flag (seeded): they do not refuse its deletion (missing from older state files). */
  surveys: string[];
}

/** A flag change held for approval (the real API's ChangeRequest), see model/change-requests.ts. */
export interface ChangeRequestState extends JsonObject {
  id: string;
  project: number;
  action_key: string;
  resource_type: 'feature_flag';
  resource_id: string;
  state: 'pending' | 'applied' | 'failed' | 'rejected';
  /** The PATCH body to apply on approval and the flag version it was made against. */
  intent: JsonObject;
  created_at: string;
  created_by: number;
  applied_at: string | null;
  apply_error: string | null;
}

export interface PersonState extends JsonObject { project: number; distinct_id: string; properties: JsonObject }

/** Scope objects of personal API keys, as the real API names them (posthog/scopes.py, APIScopeObject). */
export const SCOPE_OBJECTS = [
  'project', 'organization', 'organization_member', 'feature_flag', 'activity_log', 'cohort', 'action', 'hog_function',
  'event_definition', 'access_control', 'experiment', 'survey', 'early_access_feature', 'user', 'insight', 'dashboard', 'alert', 'subscription', 'integration',
] as const;
export type Scope = `${(typeof SCOPE_OBJECTS)[number]}:${'read' | 'write'}`;
export const ALL_SCOPES: readonly Scope[] = SCOPE_OBJECTS.flatMap((o) => [`${o}:read` as Scope, `${o}:write` as Scope]);

export type ApiKeyState = JsonObject & {
  key: string;
  label: string;
  /** Scopes granted; `*` grants all. */
  scopes: string[];
  /** Organizations the key may reach; null = every organization. */
  organizations: string[] | null;
  /** Id of the user who owns the key: the acting user of its writes. */
  user: number;
  /** Projects the key may reach (a key limited to projects); absent or null = every project. */
  projects?: number[] | null;
};

/**
 * One entry of a project's activity log, as the real API keeps it (src/sandbox/activity.ts
 * records them): `team_id` is the project, null for an organization's entries (roles), which
 * show in every project's log of that organization.
 */
export interface ActivityEntryState extends JsonObject {
  id: string;
  organization_id: string;
  team_id: number | null;
  /** Id of the acting user; null for the system. */
  user: number | null;
  is_system: boolean;
  activity: string;
  scope: string;
  item_id: string;
  detail: JsonObject;
  created_at: string;
}

export type SandboxState = JsonObject & {
  format: 'hogsync-sandbox-state';
  version: 1;
  /** The key printed on start (every scope, every organization). */
  primary_key: string;
  user: UserBasic;
  /** Further users (from the seed): they own keys, and act in the web UI (POST /_sandbox/web-edit/). */
  users: UserBasic[];
  /**
   * Organization level of users other than the sandbox user (an owner), by user id: 1 = member,
   * 8 = admin, 15 = owner (absent = owner). It decides admin-only writes.
   */
  user_levels?: Record<string, number>;
  /**
   * Who belongs to which organization, at which level (absent from state files written before
   * they existed: derived on first use, every user in every organization, as it was then).
   */
  memberships?: MembershipState[];
  invites?: InviteState[];
  access_controls?: AccessControlState[];
  /**
   * The API version modelled: 2025 (the reference's) or 2026, which no longer stores projects'
   * slack_incoming_webhook nor roles' feature_flags_access_level (absent = 2025).
   */
  api_version?: number;
  keys: ApiKeyState[];
  organizations: OrganizationState[];
  projects: ProjectState[];
  proxy_records: ProxyRecordState[];
  roles: RoleState[];
  feature_flags: FeatureFlagState[];
  persons: PersonState[];
  /** Oldest first; answered newest first. */
  activity_log: ActivityEntryState[];
  next_ids: { feature_flag: number; dashboard: number };
  /** Per project, the flag changes its approval policy gates (feature_flag.enable/disable/update). */
  flag_approvals: { project: number; actions: string[] }[];
  change_requests: ChangeRequestState[];
};

export const STATE_FORMAT = 'hogsync-sandbox-state';
