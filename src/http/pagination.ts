// Reads a whole list: a plain array or a `{results}` without `next` is one page; otherwise
// `next` links are followed. When the first page tells the total (`count`) and its `next`
// uses limit/offset, the remaining pages are known in advance and fetched in parallel.
// Every URL fetched comes from (or is built on) a `next` link that passed the client's check
// (its path and query only, on the base origin, on the list's own path).
//
// The order of the API's lists is not stable, so a list read page by page can shift under
// us: a record seen on two pages is one record (by id), and a read whose pages disagree on
// `count`, or that holds another number of records than its `count` says (one seen twice,
// another missed), is read again, up to MAX_READS times. A list that never reads whole is
// an error: nothing is planned (least of all deleted) from it. A list that runs on far past
// its `count`, or past MAX_PAGES pages, is stopped.
import { HogsyncError } from '../errors.js';
import { mapLimit } from '../util/map-limit.js';

export interface Page {
  status: number;
  body: unknown;
  /** The path shown in messages. */
  path: string;
}

export interface PageSource {
  fetch(url: URL): Promise<Page>;
  /** The URL of a `next` link found on page `from` (refused unless it is the list's own path). */
  follow(next: string, from: Page): URL;
  parallelism: number;
}

/** Pages of one list without a `count`, at most (100 000 records at the API's default page size). */
export const MAX_PAGES = 1000;
/** Pages beyond what a list's `count` needs before it is stopped as endless. */
const SLACK_PAGES = 3;
/** Reads of a list whose pages disagree before it is given up. */
export const MAX_READS = 3;

interface Envelope { results: unknown[]; next: string | null; count: number | undefined }

interface Read { items: unknown[]; inconsistency?: string; meta?: Record<string, unknown> }

/**
 * What a list's first page says besides its records (the organization's `max_proxy_records`):
 * kept on the array collectPages returns, read with listMeta.
 */
const LIST_META = Symbol('listMeta');
const ENVELOPE_KEYS = new Set(['results', 'next', 'previous', 'count']);

/** The first page's keys besides the envelope's, for a list collectPages read; undefined for any other array. */
export function listMeta(items: readonly unknown[]): Record<string, unknown> | undefined {
  return (items as { [LIST_META]?: Record<string, unknown> })[LIST_META];
}

/** Items with what their list said besides them (listMeta reads it back). */
export function withListMeta<T>(items: T[], meta: Record<string, unknown> | undefined): T[] {
  if (meta) Object.defineProperty(items, LIST_META, { value: meta, enumerable: false, configurable: true });
  return items;
}

function metaOf(body: unknown): Record<string, unknown> | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const entries = Object.entries(body).filter(([k]) => !ENVELOPE_KEYS.has(k));
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

export async function collectPages<T>(first: URL, source: PageSource): Promise<T[]> {
  let why = '';
  let path = first.pathname;
  for (let read = 1; read <= MAX_READS; read++) {
    const result = await readOnce(first, source, (p) => { path = p; });
    if (result.inconsistency === undefined) {
      return withListMeta(result.items, result.meta) as T[];
    }
    why = result.inconsistency;
  }
  throw new HogsyncError('api', `the list changed while it was read, ${MAX_READS} times in a row (${why}); `
    + 'nothing is planned from a list that never read whole: run again when it is quiet', { request: { method: 'GET', path } });
}

async function readOnce(first: URL, source: PageSource, shown: (path: string) => void): Promise<Read> {
  const firstPage = await source.fetch(first);
  shown(firstPage.path);
  if (Array.isArray(firstPage.body)) return { items: distinct(firstPage.body) };
  const head = envelope(firstPage);
  const meta = metaOf(firstPage.body);
  const pages: Envelope[] = [head];
  let next = head.next === null ? undefined : source.follow(head.next, firstPage);

  if (next !== undefined) {
    const planned = plannedPages(first, head, next);
    if (planned !== undefined) {
      const fetched = await mapLimit(planned, source.parallelism, async (url) => {
        const page = await source.fetch(url);
        return { page, list: envelope(page) };
      });
      pages.push(...fetched.map((f) => f.list));
      // The list grew while we read it: its count tells (a re-read follows), but read to its end.
      const last = fetched.at(-1);
      next = last === undefined || last.list.next === null ? undefined : source.follow(last.list.next, last.page);
    }
  }

  const limit = head.count === undefined ? MAX_PAGES : Math.ceil(head.count / Math.max(1, head.results.length)) + SLACK_PAGES;
  const seen = new Set<string>();
  while (next !== undefined) {
    if (seen.has(next.href)) {
      throw new HogsyncError('api', `the list does not end: its next link repeats (${next.pathname}${next.search})`, { request: { method: 'GET', path: firstPage.path } });
    }
    if (pages.length >= limit) {
      const bound = head.count === undefined ? `more than ${MAX_PAGES} pages, the most hogsync reads of one list` : `more pages than its count of ${head.count} records needs`;
      throw new HogsyncError('api', `the list does not end: ${pages.length} pages read, ${bound}; stopped`, { request: { method: 'GET', path: firstPage.path } });
    }
    seen.add(next.href);
    const page = await source.fetch(next);
    const list = envelope(page);
    pages.push(list);
    next = list.next === null ? undefined : source.follow(list.next, page);
  }

  const items = distinct(pages.flatMap((p) => p.results));
  const counts = [...new Set(pages.map((p) => p.count).filter((c): c is number => c !== undefined))];
  if (counts.length > 1) return { items, inconsistency: `its count went from ${counts[0]} to ${counts[counts.length - 1]}` };
  const count = counts[0];
  if (count !== undefined && items.length !== count) {
    return { items, inconsistency: `${items.length} distinct records where its count says ${count}` };
  }
  return meta ? { items, meta } : { items };
}

/** A record seen on two pages is one record: records with the same `id` are kept once (the first read). */
function distinct(items: unknown[]): unknown[] {
  const ids = new Set<string>();
  return items.filter((item) => {
    if (item === null || typeof item !== 'object') return true;
    const id = (item as { id?: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number') return true;
    const key = `${typeof id}:${id}`;
    if (ids.has(key)) return false;
    ids.add(key);
    return true;
  });
}

/**
 * The URLs of the remaining pages, when they can be computed: a known `count`, and a `next`
 * with an integer `limit` whose `offset` continues right after the first page.
 */
function plannedPages(first: URL, head: Envelope, next: URL): URL[] | undefined {
  if (head.count === undefined) return undefined;
  const limit = intParam(next, 'limit');
  const offset = intParam(next, 'offset');
  const firstOffset = intParam(first, 'offset') ?? 0;
  if (limit === undefined || limit <= 0 || offset === undefined || offset !== firstOffset + head.results.length) return undefined;
  if ((head.count - offset) / limit > MAX_PAGES) return undefined;
  const urls: URL[] = [];
  for (let o = offset; o < head.count; o += limit) {
    const url = new URL(next);
    url.searchParams.set('offset', String(o));
    urls.push(url);
  }
  return urls.length > 0 ? urls : undefined;
}

function intParam(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  return raw !== null && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

function envelope(page: Page): Envelope {
  const body = page.body;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const { results, next, count } = body as Record<string, unknown>;
    if (Array.isArray(results) && (next === undefined || next === null || typeof next === 'string')) {
      return { results, next: typeof next === 'string' && next !== '' ? next : null, count: typeof count === 'number' ? count : undefined };
    }
  }
  const got = body === null ? 'an empty body' : Array.isArray(body) ? 'an array' : typeof body === 'object' ? 'an object without results' : `a ${typeof body}`;
  throw new HogsyncError('api', `expected a list page ({"results": [...], "next": ...}), got ${got}`, { request: { method: 'GET', path: page.path, status: page.status } });
}
