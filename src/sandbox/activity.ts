// Activity logs, kept as the real API keeps them: every committed write records who changed
// which fields of which item, found by comparing the records a write touched before and after
// it (so no handler logs anything itself). What each kind logs is declared by its sandbox
// model (ActivityModel, beside the kind): projects under `Team` (settings) and `Project` (their
// own name and description), flags under `FeatureFlag`, roles under `Role` (organization
// entries, shown in every project's log), and so on.
// Served by GET /api/projects/:project/activity_log/ and, for a whole organization,
// GET /api/organizations/:org/advanced_activity_logs/ (routes/activity-log.ts).
import { ApiError, notFound } from './errors.js';
import { nowIso, uuidv7 } from './ids.js';
import { clone, type Json, type JsonObject } from './json.js';
import type { ActivityEntryState, ApiKeyState, ProjectState, SandboxState, UserBasic } from './state.js';
import { recordsOf, type SandboxModel } from './kind-model.js';
import { sandboxModels } from './models.js';

/** Who a write is made by, and when (the web-edit endpoint may date it in the past). */
export interface Actor { user: number | null; at?: string }

interface Change extends JsonObject {
  type: string;
  action: 'changed' | 'created' | 'deleted';
  field: string;
  before: Json;
  after: Json;
}

/** What one collection of the state logs, and how. */
interface Tracked {
  records(state: SandboxState): JsonObject[];
  /** Records a request may change in place, named by its path parameters: copied before the write. */
  touches(record: JsonObject, params: Record<string, string>): boolean;
  /** Fields never logged: computed by the API, or its bookkeeping. */
  ignored: ReadonlySet<string>;
  /** The log scope of a field. */
  scopeOf(field: string): string;
  /** The scope a creation or deletion is logged under. */
  itemScope: string;
  /** A soft delete: this field turning true is a deletion. */
  deletedFlag?: string;
  /** Where the entry shows: the project (team_id), or null for the whole organization. */
  where(state: SandboxState, record: JsonObject): { organization: string; team: number | null } | undefined;
  name(record: JsonObject): string;
  /** A value as the log keeps it (secrets masked). */
  logged?(record: JsonObject, field: string, value: Json): Json;
  /** Records the API makes as a side effect without logging them (a flag's usage dashboard). */
  silent?(record: JsonObject): boolean;
}

const BOOKKEEPING = ['id', 'created_at', 'created_by', 'updated_at', 'last_modified_by', 'version'];

const trackedByModels = new WeakMap<readonly SandboxModel[], Tracked[]>();

/** What each kind's model logs (ActivityModel), as the recorder reads it. */
function trackedOf(models: readonly SandboxModel[]): Tracked[] {
  let tracked = trackedByModels.get(models);
  if (tracked) return tracked;
  tracked = models.flatMap((model): Tracked[] => {
    const activity = model.activity;
    if (!activity) return [];
    const parent = model.parent;
    const touchParams = activity.touchParams ?? ['id'];
    return [{
      records: (state) => recordsOf(state, model),
      touches: (record, params) => touchParams.some((p) => params[p] !== undefined && String(record.id) === params[p])
        && (parent !== 'project' || params.project === undefined || String(record.project) === params.project),
      ignored: new Set([...BOOKKEEPING, ...(activity.ignored ?? [])]),
      scopeOf: activity.scopeOf ?? (() => activity.scope),
      itemScope: activity.scope,
      ...(activity.deletedFlag ?? model.softDelete ? { deletedFlag: (activity.deletedFlag ?? model.softDelete) as string } : {}),
      where: (state, record) => {
        if (activity.self) return { organization: String(record.organization), team: record.id as number };
        if (parent === 'project') {
          const project = state.projects.find((p) => p.id === record.project);
          return project ? { organization: project.organization, team: project.id } : undefined;
        }
        if (parent === 'organization') return { organization: String(record.organization), team: null };
        const holder = recordsOf(state, { collection: parent.collection }).find((r) => r.id === record[parent.field]);
        return holder ? { organization: String(holder.organization), team: null } : undefined;
      },
      name: activity.name,
      ...(activity.logged ? { logged: activity.logged } : {}),
      ...(activity.silent ? { silent: activity.silent } : {}),
    }];
  });
  trackedByModels.set(models, tracked);
  return tracked;
}

/** Fills what a state file written before activity logs lacks. */
export function withActivityDefaults(state: SandboxState): SandboxState {
  state.users ??= [];
  state.activity_log ??= [];
  for (const key of state.keys) key.user ??= state.user.id;
  return state;
}

export function findUser(state: SandboxState, id: number | null): UserBasic | undefined {
  if (id === null) return undefined;
  return id === state.user.id ? state.user : state.users.find((u) => u.id === id);
}

export function actorOf(key: ApiKeyState): Actor {
  return { user: key.user };
}

// ---------------------------------------------------------------------------------------------
// Recording
// ---------------------------------------------------------------------------------------------

interface Before {
  tracked: Tracked;
  array: JsonObject[];
  length: number;
  /** Copies of the records the request names, taken before it ran. */
  copies: Map<JsonObject, JsonObject>;
}

function capture(state: SandboxState, params: Record<string, string>): Before[] {
  return trackedOf(sandboxModels()).map((tracked) => {
    const array = tracked.records(state);
    const copies = new Map<JsonObject, JsonObject>();
    for (const record of array) if (tracked.touches(record, params)) copies.set(record, clone(record));
    return { tracked, array, length: array.length, copies };
  });
}

function same(a: Json | undefined, b: Json | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function changesBetween(tracked: Tracked, before: JsonObject, after: JsonObject): Change[] {
  const changes: Change[] = [];
  const fields = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const field of fields) {
    if (tracked.ignored.has(field) || same(before[field], after[field])) continue;
    const was = before[field] ?? null;
    const now = after[field] ?? null;
    const log = (record: JsonObject, value: Json): Json => clone(tracked.logged ? tracked.logged(record, field, value) : value);
    changes.push({
      type: tracked.scopeOf(field),
      action: was === null ? 'created' : now === null ? 'deleted' : 'changed',
      field,
      before: log(before, was),
      after: log(after, now),
    });
  }
  return changes;
}

function entry(state: SandboxState, actor: Actor, tracked: Tracked, record: JsonObject, scope: string, activity: string, changes: Change[] | null): void {
  const where = tracked.where(state, record);
  if (!where) return;
  state.activity_log.push({
    id: uuidv7(),
    organization_id: where.organization,
    team_id: where.team,
    user: actor.user,
    is_system: actor.user === null,
    activity,
    scope,
    item_id: String(record.id),
    detail: { id: String(record.id), changes, merge: null, trigger: null, name: tracked.name(record), short_id: null, type: null },
    created_at: actor.at ?? nowIso(),
  });
}

function record(state: SandboxState, actor: Actor, snapshots: Before[]): void {
  for (const { tracked, array, length, copies } of snapshots) {
    const current = tracked.records(state);
    // Creations are appended; deletions replace the array (or shorten it).
    const appended = current === array && current.length >= length;
    let created: JsonObject[] = current.slice(length);
    let removed: JsonObject[] = [];
    if (!appended) {
      const was = new Set(array);
      const now = new Set(current);
      created = current.filter((r) => !was.has(r));
      removed = array.filter((r) => !now.has(r));
    }
    for (const r of created) if (!tracked.silent?.(r)) entry(state, actor, tracked, r, tracked.itemScope, 'created', null);
    for (const r of removed) entry(state, actor, tracked, copies.get(r) ?? r, tracked.itemScope, 'deleted', null);
    for (const [live, before] of copies) {
      if (!appended && removed.includes(live)) continue;
      const changes = changesBetween(tracked, before, live);
      if (changes.length === 0) continue;
      const flag = tracked.deletedFlag;
      if (flag && before[flag] !== true && live[flag] === true) {
        entry(state, actor, tracked, live, tracked.itemScope, 'deleted', changes);
        continue;
      }
      // One entry per scope the changed fields belong to (a project's PATCH may log Team and Project).
      const byScope = new Map<string, Change[]>();
      for (const c of changes) byScope.set(c.type, [...(byScope.get(c.type) ?? []), c]);
      for (const [scope, list] of byScope) entry(state, actor, tracked, live, scope, 'updated', list);
    }
  }
}

/**
 * Runs a write and logs what it changed, as `actor`. `params` are the request's path
 * parameters: the records they name are the ones a write may change in place. A write that
 * throws has changed nothing (store.ts), so it logs nothing.
 */
export function loggedWrite<T>(state: SandboxState, actor: Actor, params: Record<string, string>, fn: (state: SandboxState) => T): T {
  const snapshots = capture(state, params);
  const result = fn(state);
  record(state, actor, snapshots);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

export function renderEntry(state: SandboxState, e: ActivityEntryState): JsonObject {
  const user = findUser(state, e.user);
  return {
    id: e.id,
    user: user ? clone(user) : null,
    unread: false,
    organization_id: e.organization_id,
    was_impersonated: false,
    is_system: e.is_system,
    team_id: e.team_id,
    activity: e.activity,
    item_id: e.item_id,
    scope: e.scope,
    detail: clone(e.detail),
    created_at: e.created_at,
  };
}

export interface ActivityQuery { scope?: string | undefined; scopes?: readonly string[] | undefined; itemId?: string | undefined }

/** A project's entries, newest first: its own, and its organization's (team_id null). */
export function projectActivity(state: SandboxState, project: ProjectState, query: ActivityQuery): ActivityEntryState[] {
  const out: ActivityEntryState[] = [];
  const log = state.activity_log;
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log[i] as ActivityEntryState;
    if (e.team_id !== project.id && !(e.team_id === null && e.organization_id === project.organization)) continue;
    if (query.scope !== undefined && e.scope !== query.scope) continue;
    if (query.scopes && !query.scopes.includes(e.scope)) continue;
    if (query.itemId !== undefined && e.item_id !== query.itemId) continue;
    out.push(e);
  }
  // Newest first is the order of the log: an entry dated in the past by the web-edit
  // endpoint stays where it was made (so a demo can show a fixed date).
  return out;
}

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/**
 * Page-number pagination as the activity endpoints answer it: `results`, absolute `next` and
 * `previous` links, `total_count` (and `count`, the name Django REST framework's page-number
 * pagination gives the same number). A page past the end is 404 "Invalid page.".
 */
export function activityPage(state: SandboxState, entries: ActivityEntryState[], url: URL, sizeParam = 'page_size'): JsonObject {
  const int = (raw: string | null): number | undefined => (raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : undefined);
  const rawPage = url.searchParams.get('page');
  const page = rawPage === null ? 1 : int(rawPage);
  const size = Math.min(int(url.searchParams.get(sizeParam)) || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const pages = Math.max(1, Math.ceil(entries.length / size));
  if (page === undefined || page < 1 || page > pages) throw invalidPage();
  const link = (n: number): string => {
    const u = new URL(url.href);
    if (n === 1) u.searchParams.delete('page');
    else u.searchParams.set('page', String(n));
    return u.href;
  };
  return {
    results: entries.slice((page - 1) * size, page * size).map((e) => renderEntry(state, e)),
    next: page < pages ? link(page + 1) : null,
    previous: page > 1 ? link(page - 1) : null,
    total_count: entries.length,
    count: entries.length,
  };
}

function invalidPage(): ApiError {
  return new ApiError(404, { ...notFound().body, detail: 'Invalid page.' });
}
