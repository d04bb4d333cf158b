// limit/offset pagination as Django REST framework's LimitOffsetPagination answers it: `count`,
// absolute `next`/`previous` links built from the request's own Host, null at the ends.
import type { JsonObject } from './json.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export type Page = { count: number; next: string | null; previous: string | null; results: JsonObject[] };

/** A positive integer query value, else the fallback (DRF ignores malformed values). */
function positiveInt(raw: string | null, fallback: number, allowZero: boolean): number {
  if (raw === null || !/^\d+$/.test(raw.trim())) return fallback;
  const n = Number(raw.trim());
  return n === 0 && !allowZero ? fallback : n;
}

export function paginate<T>(items: readonly T[], render: (item: T) => JsonObject, requestUrl: URL): Page {
  const limit = Math.min(positiveInt(requestUrl.searchParams.get('limit'), DEFAULT_LIMIT, false), MAX_LIMIT);
  const offset = positiveInt(requestUrl.searchParams.get('offset'), 0, true);
  const count = items.length;
  const link = (nextOffset: number | null): string => {
    const url = new URL(requestUrl.href);
    url.searchParams.set('limit', String(limit));
    // DRF drops offset=0 from the first page's link.
    if (nextOffset === null) url.searchParams.delete('offset');
    else url.searchParams.set('offset', String(nextOffset));
    return url.href;
  };
  const next = offset + limit < count ? link(offset + limit) : null;
  const previous = offset <= 0 ? null : link(offset - limit <= 0 ? null : offset - limit);
  return { count, next, previous, results: items.slice(offset, offset + limit).map(render) };
}
