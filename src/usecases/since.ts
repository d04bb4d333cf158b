// The change feed of `drift --since`: the activity log entries since a time, read with as few
// requests as the API allows. Where the key's user may (organization admins and owners, an
// organization whose plan has the audit log), one paged read of the organization-wide log,
// filtered by date, by the log scopes of the kinds the files plan and by the declared projects;
// else each declared project's log, newest first, until the first entry older than the window.
// Entries read twice (two logs, a page that shifted) are one, by id. A log that cannot be read
// (scope, plan, permission, an API without it, an answer that is not JSON or not a page, a 500) is
// said, never an error: the caller falls back.
import { listsValidValues } from '../http/api-error.js';
import type { DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import { isRateLimitStop } from '../http/client.js';
import { followNext } from '../http/origin.js';
import type { ActivityEntry } from '../plan/attribution.js';
import { feedNeeds, insideWindow, SINCE_MARGIN_MS, type ChangeFeed, type FeedEntry, type FeedNeeds, type FeedSource } from '../plan/since.js';
import type { Kinds } from '../resources/registry.js';
import { mapLimit } from '../util/map-limit.js';
import { printable } from '../util/printable.js';
import type { ActivityPort } from './attribute.js';

/** Page size of the organization-wide log: it is filtered by date, so every entry counts. */
export const ORGANIZATION_LOG_PAGE_SIZE = 1000;
/** Pages of the organization-wide log before the window is too busy to read (a full drift reads less). */
export const ORGANIZATION_LOG_MAX_PAGES = 10;
/** Projects per read of the organization-wide log: the `team_ids` filter keeps its URL short. */
export const TEAM_IDS_PER_READ = 100;
/** Page size of a project's log: it cannot be filtered by date, so most of a quiet night's page is older entries. */
export const PROJECT_LOG_PAGE_SIZE = 100;
/** Pages of one project's log before that project is read in full instead (cheaper by then). */
export const PROJECT_LOG_MAX_PAGES = 3;

/** Statuses that say the log cannot be read with this key or on this plan: not an error, a reason to read otherwise. */
const REFUSALS = [401, 402, 403, 404];

export type FeedResult =
  | { kind: 'feed'; feed: ChangeFeed; reads: number }
  /** No log could be read: why, in words, for the one warning of the full drift that replaces it. */
  | { kind: 'unreadable'; why: string; reads: number };

type Page = { kind: 'page'; results: unknown[]; next: string | null } | { kind: 'refused'; why: string };

function refusalWords(status: number, body: unknown): string {
  const detail = body && typeof body === 'object' && typeof (body as { detail?: unknown }).detail === 'string' ? printable((body as { detail: string }).detail) : '';
  // Cut to a line, except a list of the values the API takes (a user needs it whole).
  const said = detail === '' ? '' : `: ${detail.length > 160 && !listsValidValues(detail) ? `${detail.slice(0, 159)}…` : detail}`;
  if (status === 402) return `402, the organization's plan does not include the audit log${said}`;
  if (status === 404) return `404, the API has no such log${said}`;
  if (status === 401) return `401, the key was refused${said}`;
  return `${status}${said}`;
}

/**
 * Why a failed read of a log leaves it unread (an answer that is not JSON, a 500, a timeout), or
 * undefined for a failure that ends the run whatever is read instead (a rate-limit stop, an
 * unreachable API, a bug).
 */
function unreadable(err: unknown): string | undefined {
  if (!(err instanceof HogsyncError) || isRateLimitStop(err) || err.unreachable) return undefined;
  if (err.code !== 'api' && err.code !== 'network' && err.code !== 'security') return undefined;
  const message = printable(err.message);
  const said = message.length > 160 ? `${message.slice(0, 159)}…` : message;
  return err.request?.status === undefined ? said : `${err.request.status}: ${said}`;
}

async function page(port: ActivityPort, path: string): Promise<Page> {
  let res: { status: number; body: { results?: unknown; next?: unknown } };
  try {
    res = await port.request<{ results?: unknown; next?: unknown }>('GET', path, { okStatuses: REFUSALS });
  } catch (err) {
    const why = unreadable(err);
    if (why === undefined) throw err;
    return { kind: 'refused', why };
  }
  if (res.status >= 400) return { kind: 'refused', why: refusalWords(res.status, res.body) };
  // An answer of another shape is no page of a log: read as empty, it would report a quiet night.
  const body = res.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(body.results)) {
    return { kind: 'refused', why: `${res.status}, but the answer is not a page of activity entries ({"results": [...], "next": ...})` };
  }
  if (body.next !== undefined && body.next !== null && typeof body.next !== 'string') {
    return { kind: 'refused', why: `${res.status}, but the answer's next link is not a link` };
  }
  const bad = body.results.findIndex((r) => r === null || typeof r !== 'object' || Array.isArray(r) || typeof (r as { scope?: unknown }).scope !== 'string');
  if (bad !== -1) return { kind: 'refused', why: `${res.status}, but entry ${bad + 1} of the answer is not an activity entry (no scope)` };
  return { kind: 'page', results: body.results, next: typeof body.next === 'string' && body.next !== '' ? body.next : null };
}

function feedEntry(raw: unknown, organization: string, project: number | null): FeedEntry | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.scope !== 'string') return undefined;
  // The organization log names the project of each entry; a project's log holds its own (and, where
  // the project receives them, its organization's: team_id null, named by the scope's kind).
  const team = typeof r.team_id === 'number' ? r.team_id : r.team_id === null ? null : project;
  return {
    id: typeof r.id === 'string' || typeof r.id === 'number' ? String(r.id) : null,
    organization,
    project: team,
    scope: r.scope,
    itemId: typeof r.item_id === 'string' || typeof r.item_id === 'number' ? String(r.item_id) : null,
    entry: r as ActivityEntry,
  };
}

interface OrgRead { source: FeedSource; entries: FeedEntry[]; reads: number }

/** One organization from its organization-wide log: undefined when it cannot be read, with why. */
async function readOrganizationLog(port: ActivityPort, needs: FeedNeeds, readFrom: Date): Promise<OrgRead | { refused: string; reads: number } | { tooBusy: true; reads: number }> {
  const base = `/api/organizations/${encodeURIComponent(needs.organization)}/advanced_activity_logs/`;
  // Organization entries carry no project: filtering by projects would leave them out.
  const chunks: number[][] = [];
  if (needs.organizationEntries || needs.projects.length === 0) chunks.push([]);
  else for (let i = 0; i < needs.projects.length; i += TEAM_IDS_PER_READ) chunks.push(needs.projects.slice(i, i + TEAM_IDS_PER_READ));
  const entries: FeedEntry[] = [];
  let reads = 0;
  for (const teams of chunks) {
    // Repeated parameters: the endpoint reads a comma-separated value as one value.
    const q = new URLSearchParams();
    q.set('start_date', readFrom.toISOString());
    for (const s of needs.scopes) q.append('scopes', s);
    for (const t of teams) q.append('team_ids', String(t));
    q.set('page_size', String(ORGANIZATION_LOG_PAGE_SIZE));
    const first = new URL(`${base}?${q.toString()}`, 'http://api.invalid');
    let path = `${base}?${q.toString()}`;
    for (let n = 1; ; n++) {
      if (n > ORGANIZATION_LOG_MAX_PAGES) return { tooBusy: true, reads };
      const p = await page(port, path);
      reads++;
      if (p.kind === 'refused') return { refused: p.why, reads };
      let older = false;
      for (const raw of p.results) {
        const e = feedEntry(raw, needs.organization, null);
        if (!e) continue;
        if (!insideWindow(e.entry, readFrom.getTime())) {
          older = true;
          continue;
        }
        entries.push(e);
      }
      if (older || p.next === null) break;
      // The next page by its path and query only, on the list's own path (src/http/origin.ts).
      try {
        const next = followNext(first, p.next);
        path = `${next.pathname}${next.search}`;
      } catch (err) {
        const why = unreadable(err);
        if (why === undefined) throw err;
        return { refused: why, reads };
      }
    }
  }
  return { source: { organization: needs.organization, log: 'organization', whole: [] }, entries, reads };
}

/** One project's log, newest first, until the first entry older than the window; null: too long to be worth reading. */
async function readProjectLog(port: ActivityPort, needs: FeedNeeds, project: number, readFrom: Date): Promise<{ entries: FeedEntry[] | null; reads: number } | { refused: string; reads: number }> {
  const entries: FeedEntry[] = [];
  let reads = 0;
  for (let n = 1; n <= PROJECT_LOG_MAX_PAGES; n++) {
    const q = new URLSearchParams();
    // This endpoint reads `scopes` comma-separated.
    q.set('scopes', needs.scopes.join(','));
    q.set('page', String(n));
    q.set('page_size', String(PROJECT_LOG_PAGE_SIZE));
    const p = await page(port, `/api/projects/${encodeURIComponent(String(project))}/activity_log/?${q.toString()}`);
    reads++;
    if (p.kind === 'refused') return { refused: p.why, reads };
    for (const raw of p.results) {
      const e = feedEntry(raw, needs.organization, project);
      if (!e) continue;
      if (!insideWindow(e.entry, readFrom.getTime())) return { entries, reads };
      entries.push(e);
    }
    if (p.next === null) return { entries, reads };
  }
  return { entries: null, reads };
}

/** One organization from its projects' logs (the first alone: a key that may read none learns it with one request). */
async function readProjectLogs(port: ActivityPort, needs: FeedNeeds, readFrom: Date, parallelism: number): Promise<OrgRead | { refused: string; reads: number }> {
  const [head, ...rest] = needs.projects;
  if (head === undefined) return { refused: 'no declared project has a log to read', reads: 0 };
  const first = await readProjectLog(port, needs, head, readFrom);
  if ('refused' in first) return first;
  const others = await mapLimit(rest, parallelism, (p) => readProjectLog(port, needs, p, readFrom));
  const all = [first, ...others];
  const reads = all.reduce((n, r) => n + r.reads, 0);
  const refused = all.find((r): r is { refused: string; reads: number } => 'refused' in r);
  if (refused) return { refused: refused.refused, reads };
  const whole: number[] = [];
  const entries: FeedEntry[] = [];
  all.forEach((r, i) => {
    const list = (r as { entries: FeedEntry[] | null }).entries;
    if (list === null) whole.push(needs.projects[i] as number);
    else entries.push(...list);
  });
  return { source: { organization: needs.organization, log: 'projects', whole }, entries, reads };
}

/**
 * The activity since `start` of every organization the files declare, from the organization-wide
 * log where it can be read, else from each declared project's log; or why none could be read.
 */
export async function readChangeFeed(port: ActivityPort, desired: DesiredState, kinds: Kinds, start: Date, parallelism: number): Promise<FeedResult> {
  const readFrom = new Date(start.getTime() - SINCE_MARGIN_MS);
  const sources: FeedSource[] = [];
  const entries: FeedEntry[] = [];
  let reads = 0;
  for (const needs of feedNeeds(desired, kinds)) {
    // Only kinds the log does not record: nothing to read, they are read in full.
    if (needs.scopes.length === 0) continue;
    const wide = await readOrganizationLog(port, needs, readFrom);
    reads += wide.reads;
    if ('tooBusy' in wide) {
      return { kind: 'unreadable', why: `the organization-wide activity log of ${needs.organization} holds more than ${ORGANIZATION_LOG_MAX_PAGES * ORGANIZATION_LOG_PAGE_SIZE} entries since then (a full drift reads less)`, reads };
    }
    if ('source' in wide) {
      sources.push(wide.source);
      entries.push(...wide.entries);
      continue;
    }
    const each = await readProjectLogs(port, needs, readFrom, parallelism);
    reads += each.reads;
    if ('refused' in each) {
      return { kind: 'unreadable', why: `neither the organization-wide activity log of ${needs.organization} (${wide.refused}) nor its projects' logs (${each.refused}) could be read`, reads };
    }
    sources.push(each.source);
    entries.push(...each.entries);
  }
  const seen = new Set<string>();
  const distinct = entries.filter((e) => {
    if (e.id === null) return true;
    const key = `${e.organization}|${e.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { kind: 'feed', feed: { start: start.toISOString(), readFrom: readFrom.toISOString(), sources, entries: distinct }, reads };
}
