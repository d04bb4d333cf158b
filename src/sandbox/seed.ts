// Seed documents (YAML or JSON): the workspace a fresh sandbox starts from. Every item goes
// through the same validation as the API, so a seed can only hold what the API could have
// created; errors name the seed path (`organizations[0].roles[1].name: …`).
// The format is documented at the top of examples/sandbox-seed.yaml.
import { readFile } from 'node:fs/promises';
import { loadYaml } from '../config/compiled.js';
import { isScope } from './auth.js';
import { emptyState, FIRST_PROJECT_ID } from './defaults.js';
import { ApiError } from './errors.js';
import { isUuid, uuidv7 } from './ids.js';
import { isObject, type Json, type JsonObject } from './json.js';
import { seedApprovals } from './model/change-requests.js';
import { seedFlag } from './model/feature-flags.js';
import { applyProjectPatch, newProjectFor, PROJECT_RULES, validateProjectPatch } from './model/projects.js';
import { createProxyRecord, PROXY_STATUSES } from './model/proxy-records.js';
import { createRole } from './model/roles.js';
import { ALL_SCOPES, LEVELS, type ApiKeyState, type LevelName, type OrganizationState, type SandboxState } from './state.js';

export interface SeedPerson { distinct_id: string; properties?: JsonObject }
export interface SeedProject {
  id?: number;
  name?: string;
  feature_flags?: JsonObject[];
  persons?: SeedPerson[];
  /** Any writable project field (timezone, anonymize_ips, …). */
  [field: string]: Json | JsonObject[] | SeedPerson[] | undefined;
}
export interface SeedProxyRecord { domain: string; status?: string; message?: string | null }
export interface SeedRole { name: string; feature_flags_access_level?: number; /** Emails of seed users. */ members?: string[] }
export interface SeedOrganization {
  id?: string;
  name?: string;
  /** Proxy records the organization may hold (default 2). */
  max_proxy_records?: number;
  /** false: keys of users below admin are refused in this organization (default true). */
  members_can_use_personal_api_keys?: boolean;
  projects?: SeedProject[];
  proxy_records?: SeedProxyRecord[];
  roles?: SeedRole[];
}
export interface SeedKey {
  key: string;
  label?: string;
  scopes: string[];
  organizations?: string[];
  /** Project ids: the only projects the key may reach. */
  projects?: number[];
}
/** A user besides the sandbox's own: acts with their keys, or in the web UI (POST /_sandbox/web-edit/). */
export interface SeedUser {
  first_name: string;
  last_name?: string;
  email: string;
  /** Organization level: members get the real API's 403 on admin-only writes (default owner). */
  level?: LevelName;
  keys?: SeedKey[];
}
export interface SeedDocument { api_version?: number; organizations?: SeedOrganization[]; keys?: SeedKey[]; users?: SeedUser[] }

export const API_VERSIONS = [2025, 2026] as const;

export class SeedError extends Error {
  constructor(source: string, where: string, message: string) {
    super(`seed ${source}: ${where ? `${where}: ` : ''}${message}`);
    this.name = 'SeedError';
  }
}

export async function loadSeedFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new SeedError(path, '', `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  // JSON first: it is YAML too, but the YAML parser is many times slower on large generated seeds.
  if (/^\s*[{[]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // not JSON after all (YAML flow style): the YAML parser decides
    }
  }
  try {
    return loadYaml().parse(text) as unknown;
  } catch (err) {
    throw new SeedError(path, '', `not valid YAML or JSON (${(err as Error).message.split('\n')[0]})`);
  }
}

function list(value: unknown, where: string, fail: (where: string, msg: string) => never): JsonObject[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isObject)) fail(where, 'must be a list of mappings');
  return value as JsonObject[];
}

/** Builds a sandbox state from a parsed seed document; `source` names it in errors. */
export function stateFromSeed(doc: unknown, source: string): SandboxState {
  const fail = (where: string, msg: string): never => { throw new SeedError(source, where, msg); };
  /** Runs an API-level operation, turning its 400 into a seed error at `where`. */
  const apply = <T>(where: string, fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ApiError) return fail(err.body.attr ? `${where}.${err.body.attr}` : where, err.body.detail);
      throw err;
    }
  };
  if (doc === null || doc === undefined) doc = {};
  if (!isObject(doc)) return fail('', 'must be a mapping with `organizations` (and optionally `users`, `keys`, `api_version`)');
  const TOP = ['api_version', 'users', 'organizations', 'keys'];
  for (const k of Object.keys(doc)) if (!TOP.includes(k)) fail(k, `unknown key (expected ${TOP.join(', ')})`);

  const state = emptyState();
  if (doc.api_version !== undefined) {
    if (!(API_VERSIONS as readonly unknown[]).includes(doc.api_version)) fail('api_version', `must be one of ${API_VERSIONS.join(', ')}`);
    state.api_version = doc.api_version as number;
  }
  let nextProjectId = FIRST_PROJECT_ID;
  const usedProjectIds = new Set<number>();

  // Users first: role members and keys name them.
  const userKeys: { list: JsonObject[]; at: string; id: number; email: string }[] = [];
  for (const [ui, u] of list(doc.users, 'users', fail).entries()) {
    const uat = `users[${ui}]`;
    const USER_KEYS = ['first_name', 'last_name', 'email', 'level', 'keys'];
    for (const k of Object.keys(u)) if (!USER_KEYS.includes(k)) fail(`${uat}.${k}`, `unknown key (expected ${USER_KEYS.join(', ')})`);
    if (typeof u.email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(u.email)) fail(`${uat}.email`, 'must be an email address');
    const email = u.email as string;
    if ([state.user, ...state.users].some((x) => x.email.toLowerCase() === email.toLowerCase())) fail(`${uat}.email`, `duplicate user ${email}`);
    if (typeof u.first_name !== 'string' || u.first_name.trim() === '') fail(`${uat}.first_name`, 'must be a non-empty string');
    if (u.last_name !== undefined && typeof u.last_name !== 'string') fail(`${uat}.last_name`, 'must be a string');
    const level = u.level ?? 'owner';
    if (typeof level !== 'string' || !Object.prototype.hasOwnProperty.call(LEVELS, level)) fail(`${uat}.level`, 'must be one of member, admin, owner');
    const id = state.user.id + state.users.length + 1;
    state.users.push({
      id,
      uuid: `0190d1c4-6a1e-7c3d-8e4f-${String(id).padStart(12, '0')}`,
      distinct_id: `sandbox-user-${id}`,
      first_name: u.first_name as string,
      last_name: (u.last_name as string | undefined) ?? '',
      email,
      is_email_verified: true,
      hedgehog_config: null,
      role_at_organization: null,
    });
    if (level !== 'owner') (state.user_levels ??= {})[String(id)] = LEVELS[level as LevelName];
    userKeys.push({ list: list(u.keys, `${uat}.keys`, fail), at: `${uat}.keys`, id, email });
  }
  const userByEmail = (email: unknown, where: string): number => {
    const found = typeof email === 'string' ? [state.user, ...state.users].find((u) => u.email.toLowerCase() === email.toLowerCase()) : undefined;
    if (!found) return fail(where, `unknown user ${JSON.stringify(email)} (name it under users)`);
    return found.id;
  };

  for (const [oi, org] of list(doc.organizations, 'organizations', fail).entries()) {
    const at = `organizations[${oi}]`;
    const ORG_KEYS = ['id', 'name', 'max_proxy_records', 'members_can_use_personal_api_keys', 'projects', 'proxy_records', 'roles'];
    for (const k of Object.keys(org)) {
      if (!ORG_KEYS.includes(k)) fail(`${at}.${k}`, `unknown key (expected ${ORG_KEYS.join(', ')})`);
    }
    const id = org.id === undefined ? uuidv7() : org.id;
    if (typeof id !== 'string' || !isUuid(id)) fail(`${at}.id`, 'must be a UUID');
    const orgId = id as string;
    if (state.organizations.some((o) => o.id === orgId)) fail(`${at}.id`, `duplicate organization ${orgId}`);
    const name = org.name === undefined ? `Organization ${oi + 1}` : org.name;
    if (typeof name !== 'string' || name.trim() === '') fail(`${at}.name`, 'must be a non-empty string');
    const orgState: OrganizationState = { id: orgId, name: name as string };
    if (org.max_proxy_records !== undefined) {
      const max = org.max_proxy_records;
      if (typeof max !== 'number' || !Number.isInteger(max) || max < 0) fail(`${at}.max_proxy_records`, 'must be a non-negative integer');
      orgState.max_proxy_records = max as number;
    }
    if (org.members_can_use_personal_api_keys !== undefined) {
      if (typeof org.members_can_use_personal_api_keys !== 'boolean') fail(`${at}.members_can_use_personal_api_keys`, 'must be true or false');
      orgState.members_can_use_personal_api_keys = org.members_can_use_personal_api_keys as boolean;
    }
    state.organizations.push(orgState);

    for (const [pi, p] of list(org.projects, `${at}.projects`, fail).entries()) {
      const pat = `${at}.projects[${pi}]`;
      const { id: rawId, feature_flags: flags, persons, flag_approvals: approvals, ...fields } = p;
      for (const k of Object.keys(fields)) if (!(k in PROJECT_RULES)) fail(`${pat}.${k}`, 'not a writable project field');
      if (rawId !== undefined && (typeof rawId !== 'number' || !Number.isInteger(rawId) || rawId < 1)) fail(`${pat}.id`, 'must be a positive integer');
      while (rawId === undefined && usedProjectIds.has(nextProjectId)) nextProjectId++;
      const projectId = (rawId as number | undefined) ?? nextProjectId;
      if (usedProjectIds.has(projectId)) fail(`${pat}.id`, `duplicate project id ${projectId}`);
      usedProjectIds.add(projectId);
      const project = newProjectFor(state, projectId, orgId, `Project ${projectId}`);
      // A seed may hold what the API no longer lets anyone write (access_control was writable once).
      const { access_control: accessControl, ...writable } = fields;
      if (accessControl !== undefined) {
        if (typeof accessControl !== 'boolean') fail(`${pat}.access_control`, 'must be true or false');
        project.access_control = accessControl as boolean;
      }
      applyProjectPatch(state, project, apply(pat, () => validateProjectPatch(writable)));
      state.projects.push(project);
      const approvalsError = seedApprovals(state, projectId, approvals);
      if (approvalsError) fail(`${pat}.flag_approvals`, approvalsError);

      const keys = new Set<string>();
      for (const [fi, flag] of list(flags, `${pat}.feature_flags`, fail).entries()) {
        const created = apply(`${pat}.feature_flags[${fi}]`, () => seedFlag(state, projectId, flag, (k) => keys.has(k)));
        if (!created.deleted) keys.add(created.key);
      }
      const seen = new Set<string>();
      for (const [xi, person] of list(persons, `${pat}.persons`, fail).entries()) {
        const xat = `${pat}.persons[${xi}]`;
        if (typeof person.distinct_id !== 'string' || person.distinct_id === '') fail(`${xat}.distinct_id`, 'must be a non-empty string');
        const distinctId = person.distinct_id as string;
        if (seen.has(distinctId)) fail(`${xat}.distinct_id`, `duplicate person ${distinctId}`);
        seen.add(distinctId);
        if (person.properties !== undefined && !isObject(person.properties)) fail(`${xat}.properties`, 'must be a mapping');
        state.persons.push({ project: projectId, distinct_id: distinctId, properties: (person.properties as JsonObject | undefined) ?? {} });
      }
    }

    for (const [ri, record] of list(org.proxy_records, `${at}.proxy_records`, fail).entries()) {
      const rat = `${at}.proxy_records[${ri}]`;
      const status = record.status ?? 'waiting';
      if (typeof status !== 'string' || !(PROXY_STATUSES as readonly string[]).includes(status)) fail(`${rat}.status`, `must be one of ${PROXY_STATUSES.join(', ')}`);
      const message = record.message ?? null;
      if (message !== null && typeof message !== 'string') fail(`${rat}.message`, 'must be a string or null');
      apply(rat, () => createProxyRecord(state, orgState, record, { status: status as string, message: message as string | null, ignoreLimit: true }));
    }

    for (const [ri, role] of list(org.roles, `${at}.roles`, fail).entries()) {
      const rat = `${at}.roles[${ri}]`;
      const { members, ...fields } = role;
      if (members !== undefined && (!Array.isArray(members) || !members.every((m) => typeof m === 'string'))) fail(`${rat}.members`, 'must be a list of user emails');
      const memberIds = ((members ?? []) as string[]).map((m, mi) => userByEmail(m, `${rat}.members[${mi}]`));
      apply(rat, () => createRole(state, orgId, fields, memberIds));
    }
  }

  const addKey = (k: JsonObject, kat: string, user: number, fallbackLabel: string): void => {
    if (typeof k.key !== 'string' || k.key.length < 8) fail(`${kat}.key`, 'must be a string of at least 8 characters (e.g. phx_readonly_…)');
    const key = k.key as string;
    if (state.keys.some((x) => x.key === key)) fail(`${kat}.key`, 'duplicate key');
    const scopes = k.scopes;
    if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && (s === '*' || isScope(s)))) {
      fail(`${kat}.scopes`, `must be a list of scopes: *, ${ALL_SCOPES.join(', ')}`);
    }
    let orgs: string[] | null = null;
    if (k.organizations !== undefined && k.organizations !== null) {
      if (!Array.isArray(k.organizations) || !k.organizations.every((o) => typeof o === 'string')) fail(`${kat}.organizations`, 'must be a list of organization ids');
      orgs = k.organizations as string[];
    }
    const label = typeof k.label === 'string' ? k.label : fallbackLabel;
    const entry: ApiKeyState = { key, label, scopes: scopes as string[], organizations: orgs, user };
    if (k.projects !== undefined && k.projects !== null) {
      if (!Array.isArray(k.projects) || !k.projects.every((p) => typeof p === 'number' && Number.isInteger(p))) fail(`${kat}.projects`, 'must be a list of project ids');
      entry.projects = k.projects as number[];
    }
    state.keys.push(entry);
  };
  for (const [ki, k] of list(doc.keys, 'keys', fail).entries()) addKey(k, `keys[${ki}]`, state.user.id, `seed key ${ki + 1}`);

  for (const u of userKeys) for (const [ki, k] of u.list.entries()) addKey(k, `${u.at}[${ki}]`, u.id, `${u.email} key ${ki + 1}`);
  return state;
}
