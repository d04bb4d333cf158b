// `drift --since` without a network: the window the command line names (and its one-line
// refusals), how the change feed reads the activity logs (one filtered read of the
// organization-wide log; else each project's newest entries, stopping at the first older one;
// entries once; a time that cannot be read counts as inside), and which items the entries name.
import { describe, expect, it } from 'vitest';
import { sinceOption } from '../src/cli/options.js';
import type { DesiredItem, DesiredState } from '../src/config/model.js';
import { HogsyncError } from '../src/errors.js';
import { RateLimitStop } from '../src/http/client.js';
import { liveStateOf } from '../src/plan/live.js';
import { SINCE_MARGIN_MS, sinceTargets, type ChangeFeed } from '../src/plan/since.js';
import { featureFlag } from '../src/resources/feature_flag/kind.js';
import { KINDS } from '../src/resources/registry.js';
import { PROJECT_LOG_MAX_PAGES, readChangeFeed } from '../src/usecases/since.js';

const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
const NOW = Date.parse('2026-11-24T12:00:00Z');

describe('--since', () => {
  it('takes a duration back from now, or an ISO 8601 date or time (UTC when no offset is given)', () => {
    expect(sinceOption('25h', NOW).toISOString()).toBe('2026-11-23T11:00:00.000Z');
    expect(sinceOption('7d', NOW).toISOString()).toBe('2026-11-17T12:00:00.000Z');
    expect(sinceOption('90m', NOW).toISOString()).toBe('2026-11-24T10:30:00.000Z');
    expect(sinceOption('2w', NOW).toISOString()).toBe('2026-11-10T12:00:00.000Z');
    expect(sinceOption('2026-11-20', NOW).toISOString()).toBe('2026-11-20T00:00:00.000Z');
    expect(sinceOption('2026-11-20T06:30', NOW).toISOString()).toBe('2026-11-20T06:30:00.000Z');
    expect(sinceOption('2026-11-20T06:30:00+02:00', NOW).toISOString()).toBe('2026-11-20T04:30:00.000Z');
  });

  it('refuses anything else in one line that says what it takes', () => {
    const refusal = (value: string): string => {
      try {
        sinceOption(value, NOW);
      } catch (err) {
        expect(err).toBeInstanceOf(HogsyncError);
        expect((err as HogsyncError).code).toBe('usage');
        expect((err as Error).message).not.toContain('\n');
        return (err as Error).message;
      }
      throw new Error(`${value} was taken`);
    };
    expect(refusal('yesterday')).toBe('--since "yesterday": expected a duration such as 25h, 7d, 90m or 2w, or an ISO 8601 time such as 2026-11-20T06:00:00Z');
    expect(refusal('25')).toMatch(/^--since "25": expected a duration/);
    expect(refusal('0h')).toBe('--since "0h": the window is empty: give a duration longer than 0 (25h, 7d)');
    expect(refusal('2026-02-31')).toMatch(/^--since "2026-02-31": not a date and time/);
    expect(refusal('2026-11-20T25:00:00Z')).toMatch(/not a date and time/);
    expect(refusal('2026-11-25T00:00:00Z')).toBe('--since "2026-11-25T00:00:00Z": is in the future: nothing can have changed since then');
    expect(refusal('99999999d')).toMatch(/^--since "99999999d": expected a duration/);
  });
});

// ---------------------------------------------------------------------------------------------

const at = { file: 'h.yaml', line: 1, col: 1 };
const item = (kind: string, project: number | null, key: string, extra: Partial<DesiredItem> = {}): DesiredItem => ({
  kind, organization: ORG, project, key, ensure: 'present', fields: {}, interpolated: [], position: at, ...extra,
});

/** Projects 1…n, each with one flag; a role (a kind the logs do not record). */
function desired(n: number): DesiredState {
  const items = Array.from({ length: n }, (_, i) => [item('project', null, String(i + 1)), item('feature_flag', i + 1, 'checkout')]).flat();
  return { sources: ['h.yaml'], organizations: [{ id: ORG, items: [...items, item('role', null, 'Support')], prune: {} }] };
}

interface Call { path: string; query: URLSearchParams }

/** A port answering from a function of the request; every call is recorded. */
function port(answer: (call: Call) => { status: number; body: unknown }) {
  const calls: Call[] = [];
  return {
    calls,
    async request<T>(_method: 'GET', path: string, options: { okStatuses?: number[] } = {}): Promise<{ status: number; body: T }> {
      const url = new URL(path, 'https://api.test');
      const call = { path: url.pathname, query: url.searchParams };
      calls.push(call);
      const res = answer(call);
      if (res.status >= 400 && !(options.okStatuses ?? []).includes(res.status)) throw new Error(`unexpected ${res.status}`);
      return res as { status: number; body: T };
    },
  };
}

const entry = (id: string, scope: string, item: string, created: unknown, team: number | null | 'absent' = 1) => ({
  id, scope, item_id: item, ...(team === 'absent' ? {} : { team_id: team }), activity: 'updated', created_at: created,
  user: { first_name: 'Alice', email: 'alice@example.com' }, detail: { name: 'checkout', changes: [{ type: scope, action: 'changed', field: 'active', before: true, after: false }] },
});

const START = new Date('2026-11-23T12:00:00Z');
const refused = (status: number, detail: string) => ({ status, body: { type: 'authentication_error', code: 'permission_denied', detail, attr: null } });

describe('the change feed', () => {
  it('reads the organization-wide log once per page, filtered by date (less a margin), scopes and projects, each filter repeated', async () => {
    const p = port((c) => (c.query.has('cursor')
      ? { status: 200, body: { results: [entry('b', 'FeatureFlag', '7', '2026-11-24T08:00:00Z', 2), entry('c', 'Team', '2', 'not a time', 2)], next: null } }
      : { status: 200, body: { results: [entry('a', 'FeatureFlag', '5', '2026-11-24T09:00:00Z', 1), entry('b', 'FeatureFlag', '7', '2026-11-24T08:00:00Z', 2)], next: `http://elsewhere.example/api/organizations/${ORG}/advanced_activity_logs/?cursor=abc` } }));
    const read = await readChangeFeed(p, desired(2), KINDS, START, 4);
    expect(read.kind).toBe('feed');
    expect(p.calls.map((c) => c.path)).toEqual([`/api/organizations/${ORG}/advanced_activity_logs/`, `/api/organizations/${ORG}/advanced_activity_logs/`]);
    const q = p.calls[0]!.query;
    expect(q.get('start_date')).toBe(new Date(START.getTime() - SINCE_MARGIN_MS).toISOString());
    expect(q.getAll('scopes').sort()).toEqual(['FeatureFlag', 'Project', 'Team']);
    expect(q.getAll('team_ids')).toEqual(['1', '2']);
    expect(q.get('page_size')).toBe('1000');
    // The next page by its path and query only, on the base URL's origin and the list's own path.
    expect(p.calls[1]!.query.get('cursor')).toBe('abc');
    const feed = (read as { feed: ChangeFeed }).feed;
    // Entry b was on both pages: once. Entry c's time cannot be read: it counts as inside.
    expect(feed.entries.map((e) => [e.id, e.project, e.scope])).toEqual([['a', 1, 'FeatureFlag'], ['b', 2, 'FeatureFlag'], ['c', 2, 'Team']]);
    expect(feed.sources).toEqual([{ organization: ORG, log: 'organization', whole: [] }]);
    expect(feed.start).toBe(START.toISOString());
  });

  it("without the organization-wide log, reads each project's log newest first and stops at the first older entry", async () => {
    const old = '2026-11-20T00:00:00Z';
    const p = port((c) => {
      if (c.path.includes('advanced_activity_logs')) return refused(403, 'Only organization admins and owners can view organization-wide activity logs.');
      const project = Number(/\/api\/projects\/(\d+)\//.exec(c.path)?.[1]);
      const page = Number(c.query.get('page'));
      // Project 1: a quiet night (its newest entry is older). Project 2: one page in the window, then older.
      // Project 3: busier than reading its log is worth.
      if (project === 1) return { status: 200, body: { results: [entry('x', 'Team', '1', old)], next: 'n' } };
      if (project === 2) return { status: 200, body: page === 1 ? { results: [entry('y', 'FeatureFlag', '9', '2026-11-24T01:00:00Z', 'absent')], next: 'n' } : { results: [entry('z', 'FeatureFlag', '9', old)], next: 'n' } };
      return { status: 200, body: { results: [entry(`w${page}`, 'FeatureFlag', '4', '2026-11-24T01:00:00Z')], next: 'n' } };
    });
    const read = await readChangeFeed(p, desired(3), KINDS, START, 4);
    expect(read.kind).toBe('feed');
    const logReads = (n: number) => p.calls.filter((c) => c.path === `/api/projects/${n}/activity_log/`).length;
    expect([logReads(1), logReads(2), logReads(3)]).toEqual([1, 2, PROJECT_LOG_MAX_PAGES]);
    expect(p.calls.find((c) => c.path === '/api/projects/1/activity_log/')!.query.get('scopes')).toBe('Team,Project,FeatureFlag');
    const feed = (read as { feed: ChangeFeed }).feed;
    // An entry of a project's log that does not name its project is that project's.
    expect(feed.entries.map((e) => [e.id, e.project])).toEqual([['y', 2]]);
    expect(feed.sources).toEqual([{ organization: ORG, log: 'projects', whole: [3] }]);
  });

  it('says why when no log can be read, after one request to each kind of log', async () => {
    const p = port((c) => (c.path.includes('advanced_activity_logs')
      ? { status: 402, body: { type: 'invalid_request', code: 'payment_required', detail: 'This feature is part of the premium PostHog offering.', attr: null } }
      : refused(403, "API key missing required scope 'activity_log:read'")));
    const read = await readChangeFeed(p, desired(30), KINDS, START, 4);
    expect(read).toEqual({
      kind: 'unreadable', reads: 2,
      why: `neither the organization-wide activity log of ${ORG} (402, the organization's plan does not include the audit log: This feature is part of the premium PostHog offering.) nor its projects' logs (403: API key missing required scope 'activity_log:read') could be read`,
    });
  });

  it('takes any failure of a log as unreadable: an answer of another shape, an entry without a scope, an error of the client (a 500)', async () => {
    const p = port((c) => (c.path.includes('advanced_activity_logs') ? { status: 200, body: { results: [entry('a', 'FeatureFlag', '5', '2026-11-24T09:00:00Z'), 'junk'], next: null } } : { status: 200, body: null }));
    expect(await readChangeFeed(p, desired(2), KINDS, START, 4)).toEqual({
      kind: 'unreadable', reads: 2,
      why: `neither the organization-wide activity log of ${ORG} (200, but entry 2 of the answer is not an activity entry (no scope)) nor its projects' logs (200, but the answer is not a page of activity entries ({"results": [...], "next": ...})) could be read`,
    });
    const failing = {
      async request(_method: 'GET', path: string): Promise<never> {
        throw new HogsyncError('api', 'Internal Server Error', { request: { method: 'GET', path, status: 500 } });
      },
    };
    expect(await readChangeFeed(failing, desired(2), KINDS, START, 4)).toMatchObject({ kind: 'unreadable', why: `neither the organization-wide activity log of ${ORG} (500: Internal Server Error) nor its projects' logs (500: Internal Server Error) could be read` });
    // A stop of the run is no reason to read otherwise: it ends the drift.
    const stopped = { async request(): Promise<never> { throw new RateLimitStop('the rate limit is spent', 0, { method: 'GET', path: '/' }); } };
    await expect(readChangeFeed(stopped, desired(2), KINDS, START, 4)).rejects.toThrow('the rate limit is spent');
  });

  it('reads nothing when the files declare only kinds the logs do not record', async () => {
    const p = port(() => ({ status: 500, body: null }));
    const only = { sources: ['h.yaml'], organizations: [{ id: ORG, items: [item('role', null, 'Support'), item('proxy_record', null, 'e.example.com')], prune: {} }] };
    expect(await readChangeFeed(p, only, KINDS, START, 4)).toMatchObject({ kind: 'feed', reads: 0, feed: { entries: [] } });
  });
});

describe('what the entries name', () => {
  it('a flag renamed in the web app: the declared key it left and the live key it took, and every kind the logs do not record', () => {
    const feed: ChangeFeed = {
      start: START.toISOString(), readFrom: START.toISOString(), sources: [{ organization: ORG, log: 'organization', whole: [] }],
      entries: [{
        id: 'r', organization: ORG, project: 1, scope: 'FeatureFlag', itemId: '7',
        entry: { activity: 'updated', created_at: '2026-11-24T09:00:00Z', user: { email: 'bob@example.com' }, detail: { name: 'checkout-v2', changes: [{ field: 'key', before: 'checkout', after: 'checkout-v2' }] } },
      }],
    };
    const live = liveStateOf([{ kind: featureFlag, scope: { organization: ORG, project: 1 }, records: [{ id: 7, key: 'checkout-v2' }, { id: 8, key: 'other' }] }]);
    const targets = sinceTargets(feed, desired(2), live, KINDS);
    expect(targets).toEqual([
      { address: `role:${ORG}/*`, reason: 'not in the activity log (the activity log does not record every change of a role (its members, its access grants)): read in full' },
      { address: `feature_flag:${ORG}/1/checkout`, reason: 'updated by bob@example.com at 2026-11-24 09:00 UTC' },
      { address: `feature_flag:${ORG}/1/checkout-v2`, reason: 'updated by bob@example.com at 2026-11-24 09:00 UTC' },
    ]);
  });
});
