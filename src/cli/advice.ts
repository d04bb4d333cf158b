// The `hint:` line under an error of the API: what to do, chosen by what the API said (status
// and its own reason, see src/http/advice.ts) and by where the base URL came from. Only where
// doing something can help; the error line above keeps the API's words.
import { HogsyncError } from '../errors.js';
import { ADVICE_401, adviceFor403, MissingScopes } from '../http/advice.js';
import { withoutCredentials } from '../http/origin.js';

export type BaseUrlSource = 'flag' | 'env' | 'default';
export interface BaseUrlOrigin { baseUrl: string; source: BaseUrlSource }

/** Where the base URL came from, as a user would set it. */
export function describeBaseUrl({ baseUrl: raw, source }: BaseUrlOrigin): string {
  // Credentials are refused before any message names the URL; should one slip through, never shown.
  const baseUrl = withoutCredentials(raw);
  if (source === 'flag') return `--base-url ${baseUrl}`;
  if (source === 'env') return `HOGSYNC_BASE_URL=${baseUrl}`;
  return `the default ${baseUrl} (set HOGSYNC_BASE_URL or --base-url for the EU region or a self-hosted instance)`;
}

export function adviceFor(err: unknown, origin: BaseUrlOrigin | undefined): string | undefined {
  if (!(err instanceof HogsyncError) || origin === undefined) return undefined;
  if (err.code === 'network' && err.unreachable) {
    let host = withoutCredentials(origin.baseUrl);
    try {
      host = new URL(host).host;
    } catch {
      // a base URL that does not parse is named whole
    }
    return `hogsync could not reach ${host} (nothing reached the API); the base URL is ${describeBaseUrl(origin)}. `
      + 'Check the address (your region\'s https://us.posthog.com or https://eu.posthog.com, or your own instance) and that this machine can reach it (DNS, proxy, firewall), then run again.';
  }
  if (err instanceof MissingScopes) return err.advice();
  if (err.code !== 'api') return undefined;
  if (err.request?.status === 401) return `${ADVICE_401}: the base URL is ${describeBaseUrl(origin)}.`;
  if (err.request?.status === 403) return adviceFor403(err.message);
  return undefined;
}
