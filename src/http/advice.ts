// What a user can do about an API refusal, from the API's own words: the real API answers 403
// for a missing scope, for too low an access level, for a key limited to other projects or
// organizations, and for an organization that disallows personal keys, and each wants another
// fix. Also whether running the same thing again can help at all. Pure functions of an error.
import { HogsyncError } from '../errors.js';

/**
 * Every scope a run lacks, in one line: those its reads need (found before reading, or from the
 * 403 of each read), and the write scopes its changes will need.
 */
export class MissingScopes extends HogsyncError {
  constructor(readonly read: readonly string[], readonly write: readonly string[] = []) {
    const reads = read.length > 0 ? `the personal API key lacks ${read.length === 1 ? 'the scope' : 'the scopes'} this run reads with: ${read.join(', ')}` : '';
    const writes = write.length === 0 ? ''
      : `${reads === '' ? `the personal API key lacks ${write.length === 1 ? 'the scope' : 'the scopes'} the planned changes need` : '; the changes the files declare will also need'}: ${write.join(', ')}`;
    super('api', `${reads}${writes}`);
    this.name = 'MissingScopes';
  }

  /** What to do: add them all at once. */
  advice(): string {
    const all = [...this.read, ...this.write];
    return `add ${all.length === 1 ? 'the scope' : 'the scopes'} ${all.join(', ')} to the personal API key (Settings → Personal API keys), or use a key that has them; then run again.`;
  }
}

/** The scope a 403 says the key lacks (`API key missing required scope 'cohort:read'`), if that is its reason. */
export function missingScopeOf(err: unknown): string | undefined {
  if (!(err instanceof HogsyncError) || err.request?.status !== 403) return undefined;
  return /missing required scope\W+([a-z_]+:(?:read|write))/i.exec(err.message)?.[1];
}

/** Advice by the API's reason for a 403. */
export function adviceFor403(reason: string): string {
  const scope = /scope[s]?\W+([a-z_]+:(?:read|write))/i.exec(reason)?.[1];
  if (scope !== undefined) return `add the scope ${scope} to the personal API key (Settings → Personal API keys), or use a key that has it; then run again.`;
  if (/personal api keys?/i.test(reason) && /does not support/i.test(reason)) return 'this endpoint does not accept personal API keys: running again cannot help.';
  if (/personal api keys?/i.test(reason) && /(not allow|disallow|disabled|not permitted|turned off)/i.test(reason)) {
    return 'the organization does not allow personal API keys: an organization admin can allow them in the organization settings.';
  }
  if (/access to (this|the requested|the) (project|organization|team|environment)/i.test(reason)) {
    return 'the personal API key is limited to other projects or organizations: add this one to the key (Settings → Personal API keys), or use a key that covers it.';
  }
  if (/admin|access level|permission|insufficient|not allowed|don't have|do not have/i.test(reason)) {
    return "the key's user lacks the access level this needs: proxy records and roles need organization admin, most project settings need project admin. An admin can raise it, or use an admin's key.";
  }
  return "the API refused this request with this key (its reason is above): running again will not help until the key or its user's access changes.";
}

/** 401: what to check (the base URL's origin is the CLI's to add). */
export const ADVICE_401 = 'check the personal API key in HOGSYNC_API_KEY, and that the base URL is its region\'s (a key works only in the region where it was made)';

/** Whether the same request, sent again later, can succeed: the API was away or busy, not refusing. */
export function againHelps(err: unknown): boolean {
  if (!(err instanceof HogsyncError)) return false;
  if (err.code === 'network') return true;
  const status = err.request?.status;
  return err.code === 'api' && status !== undefined && (status === 429 || status >= 500);
}
