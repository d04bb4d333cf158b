// The sandbox's one generic model of a kind: what every kind's API shares, written once and
// driven by a small declaration beside each kind (src/resources/<kind>/sandbox.ts), which adds
// only that kind's quirks as hooks. From a declaration it derives the routes (list, create,
// read, update, delete, in the kind's pagination style, each behind its scope and the key's
// reach), the checks every write makes (field rules by type and bounds, required fields,
// uniqueness, fields taken only on create, fields never answered), soft or hard deletes, the
// records' place in the state file, the activity log's entries for every write (activity.ts),
// and the kind's part of a seed (seed.ts).
import { organizationOf, projectOf } from './routes/common.js';
import { hasFeature } from './features.js';
import { methodNotAllowed, notFound, validationError, type ApiError } from './errors.js';
import { nextIntegerId, nowIso, uuidv7 } from './ids.js';
import { clone, type Json, type JsonObject } from './json.js';
import { paginate } from './pagination.js';
import type { Handler, Reply, RequestContext, Route } from './router.js';
import type { OrganizationState, ProjectState, SandboxState, Scope } from './state.js';
import type { Rule } from './validation.js';

/** How the API pages a list: DRF's limit/offset, a cursor, or one page of everything (`plain`). */
export type Pagination = 'limit-offset' | 'cursor' | 'plain';

export interface FieldModel {
  rule: Rule;
  /** Stored on create when the body leaves the field out. */
  default?: Json | ((ctx: KindContext) => Json);
  required?: boolean;
  /** Taken on create only; a later write of another value is refused (or ignored, with `ignoreLater`). */
  createOnly?: boolean;
  ignoreLater?: boolean;
  /** Taken and stored, never answered (`render` may answer a placeholder). */
  writeOnly?: boolean;
}

export interface UniqueRule {
  /** Fields that together must be unique among the parent's records. */
  fields: readonly string[];
  ignoreCase?: boolean;
  /** Records that count (not deleted, …); default: every record. */
  among?(record: JsonObject): boolean;
  attr: string;
  message: string;
}

/** Where the activity log keeps a kind's writes. */
export interface ActivityModel {
  /** The scope of an entry; per field where a record's fields are logged under several (a project's Team and Project). */
  scope: string;
  scopeOf?(field: string): string;
  /** The name an entry shows. */
  name(record: JsonObject): string;
  /** Fields never logged (computed by the API, or its bookkeeping), besides id and timestamps. */
  ignored?: readonly string[];
  /** A value as the log keeps it (secrets masked). */
  logged?(record: JsonObject, field: string, value: Json): Json;
  /** The field whose turning true is a deletion (default: the soft delete's field). */
  deletedFlag?: string;
  /** The record is a project: its entries show in its own log (team_id its id). */
  self?: boolean;
  /** Records the API makes as a side effect of another write without logging them (a flag's usage dashboard): no `created` entry. */
  silent?(record: JsonObject): boolean;
  /** Path parameters that name a record a write may change (default `id`). */
  touchParams?: readonly string[];
  /** The entry's `detail.type`, where the API logs several kinds under one scope (a holdout under `Experiment`: `holdout`); default null. */
  type?: string;
}

/** What a kind's hooks see of one request. */
export interface KindContext {
  state: SandboxState;
  request: RequestContext;
  organization: OrganizationState;
  /** The project named by the path (project-level kinds). */
  project?: ProjectState;
  /** The parent record named by the path (kinds whose parent is another record). */
  parent?: JsonObject;
  /** Every record of this parent, soft-deleted ones included. */
  records(): JsonObject[];
  now(): number;
}

export interface ModelHooks {
  /** Whether a stored record still exists at `now` (an asynchronous deletion that finished): absent from every answer. */
  exists?(record: JsonObject, now: number): boolean;
  /** Which records a list answers (default: not soft-deleted); may read the query. */
  listed?(record: JsonObject, ctx: KindContext): boolean;
  /** Keys the list answer carries besides its records (a limit the client should know). */
  listMeta?(ctx: KindContext): JsonObject;
  /** Checks before any write (permissions beyond the scope: an organization admin). */
  authorize?(ctx: KindContext, method: 'POST' | 'PATCH' | 'DELETE'): void;
  /** After field rules, before storing a new record: more checks, derived values. Throws to refuse. */
  create?(record: JsonObject, body: JsonObject, ctx: KindContext): void;
  /** After field rules, before applying a PATCH: more checks, derived values (`changes` may be edited). */
  update?(record: JsonObject, changes: JsonObject, body: JsonObject, ctx: KindContext): void;
  /** Before a delete (hard, or the soft delete's PATCH): the API's refusals. */
  remove?(record: JsonObject, ctx: KindContext): void;
  /** The record as answered (default: the stored record without the parent's key and write-only fields). */
  render?(record: JsonObject, ctx: KindContext): JsonObject;
  /** Replaces the generic operation outright, for a kind whose API does it its own way (a proxy record's asynchronous delete). */
  createReply?(ctx: KindContext): Reply;
  updateReply?(record: JsonObject, ctx: KindContext): Reply;
  deleteReply?(record: JsonObject, ctx: KindContext): Reply;
  listReply?(ctx: KindContext): Reply;
  readReply?(record: JsonObject, ctx: KindContext): Reply;
}

/** A kind's section of a seed document (under an organization, or a project). */
export interface SeedModel {
  /** Its key under `organizations[]` or `organizations[].projects[]`. */
  key: string;
  at: 'organization' | 'project';
  /** Adds what the section holds (its value as written; seedList reads a list of mappings); `fail(where, message)` reports a bad one. */
  apply(state: SandboxState, parent: { organization: OrganizationState; project?: ProjectState }, value: unknown, where: string, fail: (where: string, message: string) => never): void;
}

/**
 * What the generated contract test of a kind (test/contract.kinds.test.ts) declares and changes:
 * one item of the kind, in an organization with a project 12345 and a second user (who makes
 * the drift). The scenario creates the item (or, for a kind hogsync never creates, updates one
 * the seed holds), plans empty, updates it, drifts it in the web app, targets it, exports it,
 * and deletes it the way the kind deletes.
 */
export interface KindContract {
  /** What the seed's organization (`organization`) and its project 12345 (`project`) hold besides the defaults. */
  seed?: { organization?: JsonObject; project?: JsonObject };
  /** The declared item: its identity and fields, as a file writes them. */
  item: JsonObject;
  /** Fields of a second declaration (the update); absent for a kind with nothing to update. */
  update?: JsonObject;
  /** What the other user changes in the web app: a PATCH body of the item, or its deletion. */
  drift: JsonObject | 'delete';
  /** The command line's leave to delete it (`--allow-delete project/12345`), or false: the scenario does not delete it. */
  remove?: { allow?: string } | false;
}

/**
 * How the kit makes a project (the default workspace, a seed's projects) without importing the
 * project kind: the project's model declares it.
 */
export interface ProjectMaker {
  /** A new project with the API's defaults, as the state's API version stores it. */
  make(state: SandboxState, id: number, organization: string, name: string): ProjectState;
  /** A seed project's own fields (not other kinds' sections), checked as the API checks a PATCH, then stored. */
  seedFields(state: SandboxState, project: ProjectState, fields: JsonObject, where: string, fail: (where: string, message: string) => never): void;
}

export interface SandboxModel {
  /** The kind it models (the ResourceKind's name). */
  kind: string;
  /** The state's array of records; made empty for state files written before the kind existed. */
  collection: string;
  /** The collection path (`/api/projects/:project/cohorts/`); an item is at `PATH:id/`. */
  path: string;
  /** Older paths to the same collection (the API's aliases). */
  aliases?: readonly string[];
  /** What holds its records: the organization, a project, or another record (`param` of the path, `field` of the record). */
  parent: 'organization' | 'project' | { collection: string; param: string; field: string };
  scopes: { read: Scope; write: Scope };
  pagination: Pagination;
  /** Integer ids (a counter per kind in `next_ids`) or UUIDs. */
  id: 'integer' | 'uuid';
  /** What it answers: POST (and its status), PATCH, DELETE (`hard` 204, `soft` 405: deleted by PATCH of `softDelete`). */
  create: { status: 200 | 201 } | false;
  update: boolean;
  delete: 'hard' | 'soft' | 'none';
  /** The field a soft delete sets true (`deleted`). */
  softDelete?: string;
  /**
   * With softDelete: what a GET or PATCH of a soft-deleted record answers. `found` (default) the
   * record, where the viewset filters deleted ones out of its list only (flags, cohorts, actions);
   * `gone` 404, where it filters them out of every action but the PATCH that restores one
   * (hog functions: safely_get_queryset keeps deleted ones only for `deleted: false`).
   */
  softDeleted?: 'found' | 'gone';
  /** Writable fields and their rules; unknown fields of a body are ignored, as the API's serializers do. */
  fields: Readonly<Record<string, FieldModel>>;
  unique?: readonly UniqueRule[];
  /** Stored with every new record besides the fields (timestamps, computed values). */
  computed?(ctx: KindContext): JsonObject;
  activity?: ActivityModel;
  hooks?: ModelHooks;
  /** More routes of the kind (actions), matched before its item route. */
  routes?: readonly Route[];
  /** What a DELETE of an id the parent does not hold answers (default 404). */
  missingDelete?(): ApiError;
  /** Runs at the start of every write: removes what finished deleting, so the state file never keeps it. */
  maintain?(state: SandboxState, now: number): void;
  seeds?: readonly SeedModel[];
  /** Reads `organization` from the path with the project's id, for keys limited to projects (the project kind's own paths). */
  reachById?: boolean;
  /** The kind's generated contract test (see KindContract). */
  contract?: KindContract;
  /** Sandbox-only jobs the kind runs on demand, served as POST /_sandbox/NAME/ (the API's background jobs: a stored query's rewrite). */
  internal?: Readonly<Record<string, (state: SandboxState, params: URLSearchParams) => Json>>;
  /** The organization's plan feature the kind needs (src/sandbox/features.ts): without it every path of the kind answers 404. */
  feature?: string;
  /** Set by the one kind that is the project: how the kit's defaults and seeds make projects. */
  projects?: ProjectMaker;
}

/** The records of a model in a state (created empty in a state written before the kind existed). */
export function recordsOf(state: SandboxState, model: Pick<SandboxModel, 'collection'>): JsonObject[] {
  let list = state[model.collection];
  if (!Array.isArray(list)) {
    list = [];
    state[model.collection] = list;
  }
  return list as JsonObject[];
}

function parentKey(model: SandboxModel): string {
  return model.parent === 'organization' ? 'organization' : model.parent === 'project' ? 'project' : model.parent.field;
}

/** Whether a record belongs to the parent the context names. */
function inParent(model: SandboxModel, record: JsonObject, ctx: Pick<KindContext, 'organization' | 'project' | 'parent'>): boolean {
  if (model.parent === 'organization') return record.organization === ctx.organization.id;
  if (model.parent === 'project') return record.project === ctx.project?.id;
  return record[model.parent.field] === ctx.parent?.id;
}

function contextOf(model: SandboxModel, request: RequestContext, state: SandboxState): KindContext {
  let organization: OrganizationState;
  let project: ProjectState | undefined;
  let parent: JsonObject | undefined;
  if (model.parent === 'project') {
    project = projectOf(request, state);
    organization = state.organizations.find((o) => o.id === project?.organization) as OrganizationState;
    if (!organization) throw notFound();
  } else {
    organization = organizationOf(request, state, model.reachById && /^\d{1,15}$/.test(request.params.id ?? '') ? Number(request.params.id) : undefined);
    if (model.parent !== 'organization') {
      const { collection, param } = model.parent;
      parent = recordsOf(state, { collection }).find((r) => String(r.id) === request.params[param] && r.organization === organization.id);
      if (!parent) throw notFound();
    }
  }
  // A kind of a plan feature the organization lacks is not served at all (the API's 404).
  if (model.feature && !hasFeature(organization, model.feature)) throw notFound();
  const exists = model.hooks?.exists;
  const now = () => request.store.clock.now();
  const ctx: KindContext = {
    state, request, organization, ...(project ? { project } : {}), ...(parent ? { parent } : {}),
    records: () => recordsOf(state, model).filter((r) => inParent(model, r, ctx) && (!exists || exists(r, now()))),
    now,
  };
  return ctx;
}

const isSoftDeleted = (model: SandboxModel, r: JsonObject) => model.softDelete !== undefined && r[model.softDelete] === true;

/** The stored record as answered by default: without its parent's key and its write-only fields. */
export function defaultRender(model: SandboxModel, record: JsonObject): JsonObject {
  const out: JsonObject = {};
  const hidden = parentKey(model);
  for (const [k, v] of Object.entries(record)) {
    if (k === hidden || model.fields[k]?.writeOnly) continue;
    out[k] = clone(v);
  }
  return out;
}

function render(model: SandboxModel, record: JsonObject, ctx: KindContext): JsonObject {
  return model.hooks?.render ? model.hooks.render(record, ctx) : defaultRender(model, record);
}

/** A page of a list in the kind's style. */
function page(model: SandboxModel, records: JsonObject[], ctx: KindContext): JsonObject {
  const meta = model.hooks?.listMeta?.(ctx) ?? {};
  const show = (r: JsonObject) => render(model, r, ctx);
  if (model.pagination === 'plain') return { results: records.map(show), ...meta };
  if (model.pagination === 'cursor') return { ...cursorPage(records, show, ctx.request.url), ...meta };
  return { ...paginate(records, show, ctx.request.url), ...meta };
}

/** Cursor pagination: an opaque cursor (the offset, encoded) in absolute next/previous links. */
function cursorPage(records: JsonObject[], show: (r: JsonObject) => JsonObject, url: URL): JsonObject {
  const limitRaw = url.searchParams.get('limit');
  const limit = Math.min(limitRaw !== null && /^\d+$/.test(limitRaw) && Number(limitRaw) > 0 ? Number(limitRaw) : 100, 1000);
  const cursor = url.searchParams.get('cursor');
  let offset = 0;
  if (cursor !== null) {
    const decoded = /^o(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!decoded) throw validationError(null, 'Invalid cursor', 'invalid_cursor');
    offset = Number(decoded[1]);
  }
  const link = (at: number | null): string | null => {
    if (at === null) return null;
    const u = new URL(url.href);
    u.searchParams.set('cursor', Buffer.from(`o${at}`, 'utf8').toString('base64url'));
    return u.href;
  };
  return {
    next: link(offset + limit < records.length ? offset + limit : null),
    previous: link(offset > 0 ? Math.max(0, offset - limit) : null),
    results: records.slice(offset, offset + limit).map(show),
  };
}

/** Field rules on a body: the values to store; create also checks required fields and fills defaults. */
function validate(model: SandboxModel, body: JsonObject, ctx: KindContext, existing?: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [name, field] of Object.entries(model.fields)) {
    if (!Object.prototype.hasOwnProperty.call(body, name)) {
      if (existing) continue;
      if (field.required) throw validationError(name, 'This field is required.', 'required');
      if (field.default !== undefined) out[name] = typeof field.default === 'function' ? field.default(ctx) : clone(field.default);
      continue;
    }
    const value = field.rule(body[name] as Json, name);
    if (existing && field.createOnly && JSON.stringify(value) !== JSON.stringify(existing[name])) {
      if (field.ignoreLater) continue;
      throw validationError(name, `${name} cannot be changed once set.`, 'immutable');
    }
    out[name] = value;
  }
  return out;
}

function checkUnique(model: SandboxModel, candidate: JsonObject, ctx: KindContext, self: JsonObject | undefined): void {
  for (const rule of model.unique ?? []) {
    const key = (r: JsonObject) => rule.fields.map((f) => {
      const v = r[f];
      return rule.ignoreCase && typeof v === 'string' ? v.toLowerCase() : JSON.stringify(v ?? null);
    }).join('\u0000');
    if (rule.among && !rule.among(candidate)) continue;
    const mine = key(candidate);
    if (ctx.records().some((r) => r !== self && (!rule.among || rule.among(r)) && key(r) === mine)) {
      throw validationError(rule.attr, rule.message, 'unique');
    }
  }
}

function nextId(model: SandboxModel, state: SandboxState): number | string {
  if (model.id === 'uuid') return uuidv7();
  return nextIntegerId(state.next_ids as unknown as Record<string, number>, model.kind);
}

function findIn(model: SandboxModel, ctx: KindContext): JsonObject {
  const raw = ctx.request.params.id ?? '';
  if (model.id === 'integer' && !/^\d{1,15}$/.test(raw)) throw notFound();
  const record = ctx.records().find((r) => String(r.id) === raw);
  if (!record) throw notFound();
  if (model.softDeleted === 'gone' && isSoftDeleted(model, record)
    && !(ctx.request.method === 'PATCH' && ctx.request.body[model.softDelete as string] === false)) throw notFound();
  return record;
}

/** The generic operations, each used unless the kind replaces it. */
function handlers(model: SandboxModel): { list: Handler; create: Handler; read: Handler; update: Handler; remove: Handler } {
  const hooks = model.hooks ?? {};
  return {
    list: (request) => request.store.read((state) => {
      const ctx = contextOf(model, request, state);
      if (hooks.listReply) return hooks.listReply(ctx);
      const listed = ctx.records().filter((r) => (hooks.listed ? hooks.listed(r, ctx) : !isSoftDeleted(model, r)));
      return { status: 200, body: page(model, listed, ctx) };
    }),
    create: (request) => request.store.write((state) => {
      const ctx = contextOf(model, request, state);
      hooks.authorize?.(ctx, 'POST');
      if (hooks.createReply) return hooks.createReply(ctx);
      const values = validate(model, request.body, ctx);
      const now = nowIso();
      const record: JsonObject = { id: 0, [parentKey(model)]: parentValue(model, ctx), ...(model.computed?.(ctx) ?? {}), ...values };
      if (model.softDelete && record[model.softDelete] === undefined) record[model.softDelete] = false;
      if (!('created_at' in record)) record.created_at = now;
      checkUnique(model, record, ctx, undefined);
      hooks.create?.(record, request.body, ctx);
      // Counters move only once nothing can fail any more.
      record.id = nextId(model, state) as Json;
      recordsOf(state, model).push(record);
      return { status: model.create === false ? 405 : model.create.status, body: render(model, record, ctx) };
    }),
    read: (request) => request.store.read((state) => {
      const ctx = contextOf(model, request, state);
      const record = findIn(model, ctx);
      if (hooks.readReply) return hooks.readReply(record, ctx);
      return { status: 200, body: render(model, record, ctx) };
    }),
    update: (request) => request.store.write((state) => {
      const ctx = contextOf(model, request, state);
      const record = findIn(model, ctx);
      hooks.authorize?.(ctx, 'PATCH');
      if (hooks.updateReply) return hooks.updateReply(record, ctx);
      const changes = validate(model, request.body, ctx, record);
      if (model.softDelete && changes[model.softDelete] === true && record[model.softDelete] !== true) hooks.remove?.(record, ctx);
      checkUnique(model, { ...record, ...changes }, ctx, record);
      hooks.update?.(record, changes, request.body, ctx);
      Object.assign(record, changes);
      if ('updated_at' in record) record.updated_at = nowIso();
      return { status: 200, body: render(model, record, ctx) };
    }),
    remove: (request) => request.store.write((state) => {
      const ctx = contextOf(model, request, state);
      let record: JsonObject;
      try {
        record = findIn(model, ctx);
      } catch (err) {
        throw model.missingDelete?.() ?? err;
      }
      hooks.authorize?.(ctx, 'DELETE');
      if (hooks.deleteReply) return hooks.deleteReply(record, ctx);
      hooks.remove?.(record, ctx);
      const list = recordsOf(state, model);
      state[model.collection] = list.filter((r) => r !== record);
      return { status: 204 };
    }),
  };
}

function parentValue(model: SandboxModel, ctx: KindContext): Json {
  if (model.parent === 'organization') return ctx.organization.id;
  if (model.parent === 'project') return ctx.project?.id ?? null;
  return (ctx.parent?.id ?? null) as Json;
}

/** A method the kind does not serve: 405, once the path's parent is known to exist (the API looks it up first). */
function refused(model: SandboxModel, method: string, allowed: string[]): Handler {
  return (request) => request.store.read((state) => {
    contextOf(model, request, state);
    throw methodNotAllowed(method, allowed);
  });
}

/** The routes of a model: its actions first, then the collection, then one item. */
export function routesOf(model: SandboxModel): Route[] {
  const h = handlers(model);
  const { read, write } = model.scopes;
  const itemMethods: Route['methods'] = { GET: { scope: read, handler: h.read } };
  if (model.update) itemMethods.PATCH = { scope: write, handler: h.update };
  const allowed = ['GET', ...(model.update ? ['PATCH', 'PUT'] : []), 'HEAD', 'OPTIONS'];
  if (model.delete === 'hard') itemMethods.DELETE = { scope: write, handler: h.remove };
  else itemMethods.DELETE = { scope: write, handler: refused(model, 'DELETE', allowed) };
  const listMethods: Route['methods'] = { GET: { scope: read, handler: h.list } };
  if (model.create !== false) listMethods.POST = { scope: write, handler: h.create };
  const routes: Route[] = [...(model.routes ?? [])];
  for (const path of [model.path, ...(model.aliases ?? [])]) {
    routes.push({ pattern: path, methods: listMethods }, { pattern: `${path}:id/`, methods: itemMethods });
  }
  return routes;
}

