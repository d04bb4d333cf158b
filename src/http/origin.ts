// Where requests may go: the base URL is validated once (an origin: https, or http on
// loopback only; no path), request paths are joined to it, and any absolute URL (a `next`
// link) must share its origin, because the API key is sent with every request.
import { HogsyncError } from '../errors.js';

/** The validated base URL: an origin (the API's paths start at its root). */
export interface Base {
  readonly origin: string;
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1') return true;
  // The WHATWG parser has already normalized 127.1, 0x7f.1 and friends to dotted quads.
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  // IPv4-mapped IPv6 loopback (::ffff:127.0.0.1 is normalized to ::ffff:7f00:1).
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host);
}

/** A URL's user name or password (`https://user:pass@host`), found without parsing (a URL that does not parse may still hold them). */
const CREDENTIALS = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;

export function hasCredentials(raw: string): boolean {
  return CREDENTIALS.test(raw.trim());
}

/** The URL as it may be shown: without its credentials, nothing else changed. */
export function withoutCredentials(raw: string): string {
  return raw.trim().replace(CREDENTIALS, '$1');
}

/**
 * Refuses a base URL with credentials, naming where it was set but never what the credentials
 * are: they would travel outside the Authorization header and into every message naming the URL.
 */
export function refuseCredentials(raw: string, where?: string): void {
  if (!hasCredentials(raw)) return;
  throw new HogsyncError('usage', `the base URL${where ? ` set by ${where}` : ''} contains credentials (user:password@ before the host): remove them, it must be an origin such as ${truncateUrl(withoutCredentials(raw).replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#]*).*$/is, '$1'))}; the API key comes only from HOGSYNC_API_KEY`);
}

export function parseBaseUrl(raw: string): Base {
  refuseCredentials(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HogsyncError('usage', `the base URL ${JSON.stringify(truncateUrl(raw))} is not a URL (expected e.g. https://us.posthog.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new HogsyncError('usage', `the base URL must start with https:// (got ${url.protocol}//)`);
  }
  if (url.username !== '' || url.password !== '') {
    // Credentials in the URL would travel outside the Authorization header and end up in logs.
    throw new HogsyncError('usage', 'the base URL must not contain credentials; the API key comes only from HOGSYNC_API_KEY');
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new HogsyncError('security', `refusing to send the API key over plain http:// to ${url.host}; use https:// (http:// is allowed only for loopback hosts)`);
  }
  // The API's paths start with /api/ at the root: a base URL with a path (`…/api/`) would
  // double it and every request would answer a bare 404.
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    const what = url.pathname !== '/' ? `the path ${truncateUrl(url.pathname)}` : url.search !== '' ? 'a query' : 'a fragment';
    throw new HogsyncError('usage', `the base URL must be an origin only, such as ${url.origin}: remove ${what} (hogsync adds the API's /api/… paths itself)`);
  }
  return { origin: url.origin };
}

/**
 * The URL for `path`: relative paths are joined to the base origin; an absolute URL is
 * accepted only on the base origin. `what` says what was refused ("follow next link to").
 */
export function resolveUrl(base: Base, path: string, what = 'send a request to'): URL {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
    let url: URL;
    try {
      url = new URL(path, base.origin);
    } catch {
      throw new HogsyncError('api', `refusing to ${what} ${JSON.stringify(truncateUrl(path))}: not a URL`);
    }
    assertSameOrigin(base, url, what);
    return url;
  }
  const rel = path.startsWith('/') ? path : `/${path}`;
  return new URL(base.origin + rel);
}

export function assertSameOrigin(base: Base, url: URL, what: string): void {
  if (url.origin !== base.origin) {
    throw new HogsyncError('security', `refusing to ${what} another origin ${truncateUrl(url.origin)}; the API key is only sent to ${base.origin}`);
  }
}

/**
 * The path shown in messages, with its query as sent (a list's `limit=1000` included: an
 * error such as "Bad limit." must be readable from the line, and the line must be the
 * request to reproduce).
 */
export function displayPath(url: URL): string {
  return truncateUrl(url.pathname + url.search);
}

function truncateUrl(s: string): string {
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
}

/**
 * The URL of a list's `next` link: its path and query only, on the base origin, and only
 * while the path is the list's own. The real API builds links from the request it saw, so a
 * server behind a TLS proxy answers `http://` links, and a proxy may name another host: the
 * link's scheme and host are never used, so the key goes nowhere else. A relative link is
 * resolved against the page it came from; one that leaves the list's path (`../../x`) is refused.
 */
export function followNext(list: URL, next: string): URL {
  let link: URL;
  try {
    link = new URL(next, list);
  } catch {
    throw new HogsyncError('api', `refusing to follow next link ${JSON.stringify(truncateUrl(next))}: not a URL`);
  }
  if (link.protocol !== 'https:' && link.protocol !== 'http:') {
    throw new HogsyncError('security', `refusing to follow next link ${JSON.stringify(truncateUrl(next))}: not an http(s) link`);
  }
  if (link.pathname !== list.pathname) {
    throw new HogsyncError('security', `refusing to follow next link to ${truncateUrl(link.pathname)}: a list's next page is on its own path ${truncateUrl(list.pathname)}`);
  }
  return new URL(list.origin + list.pathname + link.search);
}
