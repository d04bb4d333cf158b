// Activity logs, read as the real API serves them (posthog/api/advanced_activity_logs/viewset.py,
// permissions.py, constants.py):
// - a project's log, GET /api/projects/:project/activity_log/ (scope activity_log:read),
//   filtered by `scope`, `scopes` (comma-separated) and `item_id`, newest first, `page` and
//   `page_size` (at most 1000). It is part of the audit-log feature: without it only requests
//   narrowed to the scopes every plan keeps (FeatureFlag, Experiment) are answered, others 402.
// - the organization-wide log, GET /api/organizations/:org/advanced_activity_logs/: organization
//   admins and owners only (403), the audit-log feature (402); filtered by `start_date`,
//   `end_date` (inclusive), and lists (`scopes`, `activities`, `team_ids`, `item_ids`) given as
//   repeated parameters or one JSON array (a comma-separated value is one value); `is_system`.
//   Ordered by created_at, newest first (`ordering=created_at`: oldest first), ties by id; cursor
//   pagination (`next`/`previous` links carrying `cursor`, no count), page numbers (with a count)
//   when `page` is given; `page_size` 1–1000, default 100. Every entry names its project (team_id).
import { activityPage, projectActivity, renderEntry, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../activity.js';
import { isAdmin } from '../auth.js';
import { ApiError, paymentRequired, permissionDenied, validationError } from '../errors.js';
import { hasFeature } from '../features.js';
import type { JsonObject } from '../json.js';
import type { Handler, Route } from '../router.js';
import type { ActivityEntryState } from '../state.js';
import { organizationOf, projectOf } from './common.js';

/** Scopes whose history every plan keeps (BILLING_EXEMPT_SCOPES of the real API). */
const FREE_SCOPES = new Set(['FeatureFlag', 'Experiment']);

/** The widest reading of the requested scopes, as the real paywall reads them (repeated, JSON, comma-separated); undefined: no filter. */
function requestedScopes(q: URLSearchParams): Set<string> | undefined {
  let reachable: Set<string> | undefined = q.get('scope') ? new Set([q.get('scope') as string]) : undefined;
  const listed = new Set<string>();
  for (const raw of q.getAll('scopes')) {
    const value = raw.trim();
    let parsed: unknown;
    try { parsed = value.startsWith('[') ? JSON.parse(value) : undefined; } catch { parsed = undefined; }
    if (Array.isArray(parsed)) parsed.forEach((s) => listed.add(String(s)));
    else value.split(',').map((s) => s.trim()).filter((s) => s !== '').forEach((s) => listed.add(s));
  }
  if (listed.size > 0) reachable = reachable ? new Set([...reachable].filter((s) => listed.has(s))) : listed;
  return reachable && reachable.size > 0 ? reachable : undefined;
}

const list: Handler = (ctx) => ctx.store.read((state) => {
  const project = projectOf(ctx, state);
  const q = ctx.url.searchParams;
  const org = state.organizations.find((o) => o.id === project.organization);
  const scopes = requestedScopes(q);
  if (org && !hasFeature(org, 'audit_logs') && !(scopes && [...scopes].every((s) => FREE_SCOPES.has(s)))) throw paymentRequired();
  // Both filters apply when both are given, as on the real API; empty values filter nothing.
  const entries = projectActivity(state, project, {
    scope: q.get('scope') || undefined,
    scopes: q.get('scopes') ? (q.get('scopes') as string).split(',') : undefined,
    itemId: q.get('item_id') || undefined,
  });
  return { status: 200, body: activityPage(state, entries, ctx.url) };
});

/** A list filter as JSONTolerantListField reads it: repeated values, or one JSON array. */
function listFilter(q: URLSearchParams, name: string): string[] {
  const values = q.getAll(name).filter((v) => v !== '');
  if (values.length === 1 && (values[0] as string).trim().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(values[0] as string);
      if (Array.isArray(parsed)) return parsed.map((v) => String(v));
    } catch { /* one value, as written */ }
  }
  return values;
}

function dateFilter(q: URLSearchParams, name: string): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  const t = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/i.test(raw.trim()) ? Date.parse(raw.trim()) : NaN;
  if (Number.isNaN(t)) throw validationError(name, 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', 'invalid');
  return t;
}

function intParam(q: URLSearchParams, name: string, min: number, max: number, fallback: number | undefined): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\s*\d+\s*$/.test(raw)) throw validationError(name, 'A valid integer is required.', 'invalid');
  const n = Number(raw);
  if (n < min) throw validationError(name, `Ensure this value is greater than or equal to ${min}.`, 'min_value');
  if (n > max) throw validationError(name, `Ensure this value is less than or equal to ${max}.`, 'max_value');
  return n;
}

/** Newest first (or oldest first), ties broken by id, as the real pagination orders them. */
function ordered(entries: ActivityEntryState[], ascending: boolean): ActivityEntryState[] {
  const key = (e: ActivityEntryState) => Date.parse(e.created_at);
  return [...entries].sort((a, b) => {
    const d = key(a) - key(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    return ascending ? d : -d;
  });
}

interface Cursor { /** The position: created_at and id of the entry the page starts after. */ at: string; id: string; /** Reading backwards (a `previous` link). */ back?: true }

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(raw: string): Cursor | undefined {
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof c.at === 'string' && typeof c.id === 'string') return { at: c.at, id: c.id, ...(c.back ? { back: true } : {}) };
  } catch { /* below */ }
  return undefined;
}

/** Cursor pagination: the page after (or before) the cursor's position in `sorted`; links carry the next positions. */
function cursorPage(state: Parameters<typeof renderEntry>[0], sorted: ActivityEntryState[], url: URL, size: number): JsonObject {
  const raw = url.searchParams.get('cursor');
  const cursor = raw === null || raw === '' ? undefined : decodeCursor(raw);
  // Django REST framework's CursorPagination answers a cursor it cannot read with 404.
  if (raw !== null && raw !== '' && !cursor) throw new ApiError(404, { type: 'invalid_request', code: 'not_found', detail: 'Invalid cursor', attr: null });
  const index = cursor ? sorted.findIndex((e) => e.created_at === cursor?.at && e.id === cursor.id) : -1;
  let start: number;
  let end: number;
  if (!cursor) [start, end] = [0, Math.min(size, sorted.length)];
  else if (cursor.back) [start, end] = [Math.max(0, (index < 0 ? 0 : index) - size), index < 0 ? 0 : index];
  else [start, end] = [index + 1, Math.min(sorted.length, index + 1 + size)];
  const page = sorted.slice(start, end);
  const link = (c: Cursor | undefined): string | null => {
    if (!c) return null;
    const u = new URL(url.href);
    u.searchParams.set('cursor', encodeCursor(c));
    return u.href;
  };
  const first = page[0];
  const last = page[page.length - 1];
  return {
    next: last && end < sorted.length ? link({ at: last.created_at, id: last.id }) : null,
    previous: first && start > 0 ? link({ at: first.created_at, id: first.id, back: true }) : null,
    results: page.map((e) => renderEntry(state, e)),
  };
}

const organizationLog: Handler = (ctx) => ctx.store.read((state) => {
  const org = organizationOf(ctx, state);
  if (!hasFeature(org, 'audit_logs')) throw paymentRequired();
  if (!isAdmin(state, ctx.key, org.id)) throw permissionDenied('Only organization admins and owners can view organization-wide activity logs.');
  const q = ctx.url.searchParams;
  const from = dateFilter(q, 'start_date');
  const to = dateFilter(q, 'end_date');
  const scopes = listFilter(q, 'scopes');
  const activities = listFilter(q, 'activities');
  const items = listFilter(q, 'item_ids');
  const teams = listFilter(q, 'team_ids').map((t) => {
    if (!/^\s*-?\d+\s*$/.test(t)) throw validationError('team_ids', 'A valid integer is required.', 'invalid');
    return Number(t);
  });
  const system = q.get('is_system');
  const size = intParam(q, 'page_size', 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE) as number;
  const page = intParam(q, 'page', 1, Number.MAX_SAFE_INTEGER, undefined);
  const ordering = q.get('ordering');
  if (ordering !== null && ordering !== '' && ordering !== 'created_at' && ordering !== '-created_at') {
    throw validationError('ordering', `"${ordering}" is not a valid choice.`, 'invalid_choice');
  }
  const entries = state.activity_log.filter((e) => {
    if (e.organization_id !== org.id) return false;
    const t = Date.parse(e.created_at);
    if (from !== undefined && t < from) return false;
    if (to !== undefined && t > to) return false;
    if (scopes.length > 0 && !scopes.includes(e.scope)) return false;
    if (activities.length > 0 && !activities.includes(e.activity)) return false;
    if (items.length > 0 && !items.includes(e.item_id)) return false;
    if (teams.length > 0 && (e.team_id === null || !teams.includes(e.team_id))) return false;
    if (system === 'true' && !e.is_system) return false;
    if (system === 'false' && e.is_system) return false;
    return true;
  });
  const sorted = ordered(entries, ordering === 'created_at');
  if (page !== undefined) return { status: 200, body: activityPage(state, sorted, ctx.url) };
  return { status: 200, body: cursorPage(state, sorted, ctx.url, size) };
});

export const activityLogRoutes: Route[] = [
  { pattern: '/api/projects/:project/activity_log/', methods: { GET: { scope: 'activity_log:read', handler: list } } },
  { pattern: '/api/organizations/:org/advanced_activity_logs/', methods: { GET: { scope: 'activity_log:read', handler: organizationLog } } },
];
