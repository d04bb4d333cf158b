// Reads a whole list: a plain array or a `{results}` without `next` is one page; otherwise
// `next` links are followed. When the first page tells the total (`count`) and its `next`
// uses limit/offset, the remaining pages are known in advance and fetched in parallel.
// Every URL fetched comes from (or is built on) a `next` link that passed the origin check.
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
  /** Resolve a `next` link found on page `from`, refusing any origin but the base URL's. */
  follow(next: string, from: Page): URL;
  parallelism: number;
}

/** A list with more pages than this is surely a server looping on us. */
const MAX_PAGES = 100_000;

interface Envelope { results: unknown[]; next: string | null; count: number | undefined }

export async function collectPages<T>(first: URL, source: PageSource): Promise<T[]> {
  const firstPage = await source.fetch(first);
  if (Array.isArray(firstPage.body)) return firstPage.body as T[];
  const head = envelope(firstPage);
  const items: unknown[] = [...head.results];
  let next = head.next === null ? undefined : source.follow(head.next, firstPage);
  if (next === undefined) return items as T[];

  const planned = plannedPages(first, head, next);
  if (planned !== undefined) {
    const pages = await mapLimit(planned, source.parallelism, async (url) => {
      const page = await source.fetch(url);
      return { page, list: envelope(page) };
    });
    for (const { list } of pages) items.push(...list.results);
    // The list grew while we read it: pick up the rest by following links.
    const last = pages.at(-1);
    next = last === undefined || last.list.next === null ? undefined : source.follow(last.list.next, last.page);
  }

  const seen = new Set<string>();
  for (let n = 0; next !== undefined; n++) {
    if (seen.has(next.href) || n >= MAX_PAGES) {
      throw new HogsyncError('api', `the list does not end: its next link repeats (${next.pathname}${next.search})`, { request: { method: 'GET', path: firstPage.path } });
    }
    seen.add(next.href);
    const page = await source.fetch(next);
    const list = envelope(page);
    items.push(...list.results);
    next = list.next === null ? undefined : source.follow(list.next, page);
  }
  return items as T[];
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
