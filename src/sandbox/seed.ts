// Seed documents (YAML or JSON): the workspace a fresh sandbox starts from. Every item goes
// through the same validation as the API, so a seed can only hold what the API could have
// created; errors name the seed path (`organizations[0].roles[1].name: …`).
// The format is documented at the top of examples/sandbox-seed.yaml.
import { readFile } from 'node:fs/promises';
import { loadYaml } from '../config/compiled.js';
import { isScope } from './auth.js';
import { emptyState, FIRST_PROJECT_ID } from './defaults.js';
import { isUuid, uuidv7 } from './ids.js';
import { isObject, type Json, type JsonObject } from './json.js';
import { projectMaker, sandboxModels } from './models.js';
import { seedList, type SeedFail } from './seed-kit.js';
import { FEATURES } from './features.js';
import { seedPeople } from './seed-people.js';
import { addUser } from './members.js';
import { ALL_SCOPES, LEVELS, type ApiKeyState, type LevelName, type OrganizationState, type ProjectState, type SandboxState } from './state.js';

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
  /** Its slug (default: derived from the name). */
  slug?: string;
  /** Proxy records the organization may hold (default 2). */
  max_proxy_records?: number;
  /** false: keys of users below admin are refused in this organization (default true). */
  members_can_use_personal_api_keys?: boolean;
  /** The features of the organization's plan (default: every feature). */
  features?: string[];
  /** Emails of the seed users who belong to it, besides the sandbox user (default: every user). */
  members?: string[];
  /** Pending invitations; `age_days` backdates one (invites expire after 3 days). */
  invites?: { email: string; level?: 'member' | 'admin'; age_days?: number }[];
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

const list = seedList;

/** Builds a sandbox state from a parsed seed document; `source` names it in errors. */
export function stateFromSeed(doc: unknown, source: string): SandboxState {
  const fail = (where: string, msg: string): never => { throw new SeedError(source, where, msg); };
  // Each kind's model seeds its own section, under an organization or a project.
  const projects = projectMaker();
  const sections = sandboxModels().flatMap((m) => m.seeds ?? []);
  const orgSections = sections.filter((x) => x.at === 'organization');
  const projectSections = sections.filter((x) => x.at === 'project');
  if (doc === null || doc === undefined) doc = {};
  if (!isObject(doc)) return fail('', 'must be a mapping with `organizations` (and optionally `users`, `keys`, `api_version`)');
  const TOP = ['api_version', 'users', 'organizations', 'keys'];
  for (const k of Object.keys(doc)) if (!TOP.includes(k)) fail(k, `unknown key (expected ${TOP.join(', ')})`);

  const state = emptyState();
  // Built per organization below (its `members`, else every user).
  state.memberships = [];
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
    const { id } = addUser(state, email, u.first_name as string, (u.last_name as string | undefined) ?? '');
    if (level !== 'owner') (state.user_levels ??= {})[String(id)] = LEVELS[level as LevelName];
    userKeys.push({ list: list(u.keys, `${uat}.keys`, fail), at: `${uat}.keys`, id, email });
  }

  const projectsToSeed: Array<{ project: ProjectState; sections: Record<string, unknown>; at: string }> = [];
  for (const [oi, org] of list(doc.organizations, 'organizations', fail).entries()) {
    const at = `organizations[${oi}]`;
    const ORG_KEYS = ['id', 'name', 'slug', 'max_proxy_records', 'members_can_use_personal_api_keys', 'features', 'members', 'invites', 'projects',
      ...orgSections.map((x) => x.key)];
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
    if (org.slug !== undefined) {
      if (typeof org.slug !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(org.slug)) fail(`${at}.slug`, 'must be lower-case letters, digits and hyphens');
      orgState.slug = org.slug as string;
    }
    if (org.max_proxy_records !== undefined) {
      const max = org.max_proxy_records;
      if (typeof max !== 'number' || !Number.isInteger(max) || max < 0) fail(`${at}.max_proxy_records`, 'must be a non-negative integer');
      orgState.max_proxy_records = max as number;
    }
    if (org.members_can_use_personal_api_keys !== undefined) {
      if (typeof org.members_can_use_personal_api_keys !== 'boolean') fail(`${at}.members_can_use_personal_api_keys`, 'must be true or false');
      orgState.members_can_use_personal_api_keys = org.members_can_use_personal_api_keys as boolean;
    }
    if (org.features !== undefined) {
      if (!Array.isArray(org.features) || !org.features.every((f) => typeof f === 'string' && (FEATURES as readonly string[]).includes(f))) {
        fail(`${at}.features`, `must be a list of: ${FEATURES.join(', ')}`);
      }
      orgState.features = org.features as string[];
    }
    state.organizations.push(orgState);
    seedPeople(state, orgId, org, at, fail);

    for (const [pi, p] of list(org.projects, `${at}.projects`, fail).entries()) {
      const pat = `${at}.projects[${pi}]`;
      const own = Object.fromEntries(projectSections.map((x) => [x.key, p[x.key]]));
      const { id: rawId, ...rest } = p;
      const fields = Object.fromEntries(Object.entries(rest).filter(([k]) => !(k in own)));
      if (rawId !== undefined && (typeof rawId !== 'number' || !Number.isInteger(rawId) || rawId < 1)) fail(`${pat}.id`, 'must be a positive integer');
      while (rawId === undefined && usedProjectIds.has(nextProjectId)) nextProjectId++;
      const projectId = (rawId as number | undefined) ?? nextProjectId;
      if (usedProjectIds.has(projectId)) fail(`${pat}.id`, `duplicate project id ${projectId}`);
      usedProjectIds.add(projectId);
      const project = projects.make(state, projectId, orgId, `Project ${projectId}`);
      projects.seedFields(state, project, fields, pat, fail);
      state.projects.push(project);
      projectsToSeed.push({ project, sections: own, at: pat });
    }
    // Each kind's sections, in registry order, once every project exists (a flag may name another project's items).
    for (const { project, sections: own, at: pat } of projectsToSeed.splice(0)) {
      for (const section of projectSections) {
        if (own[section.key] !== undefined) section.apply(state, { organization: orgState, project: project as ProjectState }, own[section.key], `${pat}.${section.key}`, fail);
      }
    }
    for (const section of orgSections) {
      if (org[section.key] !== undefined) section.apply(state, { organization: orgState }, org[section.key], `${at}.${section.key}`, fail);
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
