// `drift --since`: drift as a change feed. The activity log entries read since a time (the
// feed; src/usecases/since.ts reads it) say which items changed; only those are read again,
// together with every kind the log does not record (the kind's `unlogged`). Pure: the window
// from the command line, which collections the entries ask to read, which items they name once
// those are read, and who changed each drifted item (from the same entries, never a second read).
import type { DesiredOrganization, DesiredState } from '../config/model.js';
import { identityOf, changesLogged, keyInScope, parentKeyOf, type LiveRecord, type ResourceKind, type Scope } from '../resources/kind.js';
import type { Kinds } from '../resources/registry.js';
import { attributeItem, attributionTime, entryOfKind, type ActivityEntry, type FoundAttributions, type Attribution } from './attribution.js';
import type { LiveState } from './live.js';
import { Matcher } from './planner.js';
import { itemsIn, plannedScopes } from './scopes.js';
import { addressOf, type Change, type Execution } from './types.js';

/**
 * How far before the window's start the log is read: clocks of this machine and the API's differ,
 * and entries of one timestamp may straddle pages. Entries in the margin count as inside.
 */
export const SINCE_MARGIN_MS = 5 * 60_000;

/** One activity log entry of the feed, and where it was logged. */
export interface FeedEntry {
  /** The entry's id, by which entries read twice (two logs, a page that shifted) are one. */
  id: string | null;
  organization: string;
  /** The project whose log holds it (`team_id`); null for the organization's own entries. */
  project: number | null;
  scope: string;
  itemId: string | null;
  /** The entry as the API answered it (who, when, what it changed). */
  entry: ActivityEntry;
}

/** Where one organization's entries were read from. */
export interface FeedSource {
  organization: string;
  /** `organization`: its organization-wide log; `projects`: each declared project's log. */
  log: 'organization' | 'projects';
  /** Projects whose log held more entries than reading them was worth: every collection of theirs is read instead. */
  whole: number[];
}

/** What `drift --since` read from the activity logs. */
export interface ChangeFeed {
  /** The window's start, as given (resolved): the report says it. */
  start: string;
  /** What was read: from the start less SINCE_MARGIN_MS. */
  readFrom: string;
  sources: FeedSource[];
  /** Entries inside the window (or whose time cannot be read), each once, newest first per log. */
  entries: FeedEntry[];
}

/** Whether an entry falls inside a window read from `readFrom` (ms): an unreadable time counts as inside. */
export function insideWindow(entry: { created_at?: unknown }, readFrom: number): boolean {
  const t = typeof entry.created_at === 'string' ? Date.parse(entry.created_at) : NaN;
  return Number.isNaN(t) || t >= readFrom;
}

/** The kinds of an organization that the files plan, each with its planned scopes. */
function plannedKinds(org: DesiredOrganization, kinds: Kinds): Array<{ kind: ResourceKind; scopes: readonly Scope[] }> {
  return kinds.flatMap((kind) => {
    const scopes = plannedScopes(kind, org, kinds);
    return scopes.length > 0 ? [{ kind, scopes }] : [];
  });
}

/** What the feed must read for one organization: the log scopes of its logged kinds, and the projects whose logs hold them. */
export interface FeedNeeds {
  organization: string;
  /** Activity scopes of the planned kinds whose changes the log records (empty: nothing to read). */
  scopes: string[];
  /** Declared projects whose logs hold those entries. */
  projects: number[];
  /** Whether entries of the organization itself (no project) are needed: a logged kind lives outside projects. */
  organizationEntries: boolean;
}

export function feedNeeds(desired: DesiredState, kinds: Kinds): FeedNeeds[] {
  return desired.organizations.map((org) => {
    const scopes = new Set<string>();
    const projects = new Set<number>();
    let organizationEntries = false;
    for (const { kind, scopes: planned } of plannedKinds(org, kinds)) {
      if (!changesLogged(kind) || !kind.activity) continue;
      for (const s of kind.activity.scopes) scopes.add(s);
      if (kind.activity.log === 'self') {
        for (const scope of planned) for (const item of itemsIn(org, kind, scope)) if (item.ensure === 'present' && /^\d+$/.test(item.key)) projects.add(Number(item.key));
      } else if (kind.activity.log === 'parent' && planned.every((s) => s.project !== null && !s.parent)) {
        for (const scope of planned) projects.add(scope.project as number);
      } else {
        organizationEntries = true;
      }
    }
    return { organization: org.id, scopes: [...scopes], projects: [...projects].sort((a, b) => a - b), organizationEntries };
  });
}

/** The entries of one kind in one planned scope. */
function entriesIn(feed: ChangeFeed, org: DesiredOrganization, kind: ResourceKind, scope: Scope): FeedEntry[] {
  const spec = kind.activity;
  if (!spec) return [];
  return feed.entries.filter((e) => e.organization === org.id && spec.scopes.includes(e.scope) && entryOfKind(spec, e.entry)
    && (spec.log !== 'parent' || scope.parent !== undefined || e.project === scope.project));
}

/**
 * What the feed cannot vouch for in one planned scope of a logged kind, read in full instead, and
 * why: the collections of a project whose log was too long to read (and, for a kind logged as
 * itself, those projects), and kinds that live outside projects where only projects' logs were
 * read (organization entries reach a project's log only where it receives organization activity).
 */
function unseen(feed: ChangeFeed, org: DesiredOrganization, kind: ResourceKind, scope: Scope): Array<{ key: string; why: string }> {
  const source = feed.sources.find((s) => s.organization === org.id);
  if (!source) return [];
  const busy = (project: number) => `the activity log of project ${project} holds too many entries since then: read in full`;
  if (kind.activity?.log === 'self') return source.whole.map((project) => ({ key: String(project), why: busy(project) }));
  if (scope.project !== null && !scope.parent && source.whole.includes(scope.project)) return [{ key: '*', why: busy(scope.project) }];
  if (source.log === 'projects' && (kind.activity?.log === 'organization' || scope.parent !== undefined || scope.project === null)) {
    return [{ key: '*', why: "only projects' logs could be read, which show organization entries only where the project receives them: read in full" }];
  }
  return [];
}

/** The start of the addresses of a scope's items: `KIND:ORG/` or `KIND:ORG/PARENT/`. */
function prefixOf(kind: ResourceKind, org: DesiredOrganization, scope: Scope): string {
  const parent = parentKeyOf(scope);
  return `${kind.name}:${org.id}/${parent === null ? '' : `${parent}/`}`;
}

/** Names an entry gives its item: its name, and the old and new identity of a rename. */
function namesOf(kind: ResourceKind, e: FeedEntry): string[] {
  const names: unknown[] = [e.entry.detail?.name];
  const changes = e.entry.detail?.changes;
  if (Array.isArray(changes)) {
    for (const c of changes) {
      if (c && typeof c === 'object' && (c as { field?: unknown }).field === kind.identityField) names.push((c as { before?: unknown }).before, (c as { after?: unknown }).after);
    }
  }
  return names.filter((n): n is string | number => typeof n === 'string' || typeof n === 'number').map((n) => kind.matchKey(kind.displayKey(n)));
}

/** The collections (as `--target` patterns) the feed asks to read: where its entries are, and every kind the log does not record. */
export function sinceReadPatterns(feed: ChangeFeed, desired: DesiredState, kinds: Kinds): string[] {
  const out = new Set<string>();
  for (const org of desired.organizations) {
    for (const { kind, scopes } of plannedKinds(org, kinds)) {
      if (!changesLogged(kind) || !kind.activity) {
        out.add(`${kind.name}:${org.id}/*`);
        continue;
      }
      for (const scope of scopes) {
        const prefix = prefixOf(kind, org, scope);
        const whole = unseen(feed, org, kind, scope);
        for (const w of whole) out.add(`${prefix}${w.key}`);
        if (whole.some((w) => w.key === '*')) continue;
        for (const e of entriesIn(feed, org, kind, scope)) {
          // A kind logged as itself is a project: its address key is its id.
          if (kind.activity.log === 'self') {
            if (e.itemId !== null) out.add(`${prefix}${e.itemId}`);
          } else if (kind.read === 'search') {
            // Read by name, one search each: only the names the entries give.
            for (const name of namesOf(kind, e)) out.add(`${prefix}${name}`);
          } else {
            out.add(`${prefix}*`);
          }
        }
      }
    }
  }
  return [...out];
}

/** "updated by alice@example.com at 2026-11-24 10:00 UTC": what an entry says, for the derived targets' reasons. */
function entryReason(e: FeedEntry): string {
  const user = e.entry.user;
  const by = user && typeof user.email === 'string' && user.email !== '' ? user.email : user && typeof user.first_name === 'string' && user.first_name !== '' ? user.first_name : 'system';
  const at = typeof e.entry.created_at === 'string' ? attributionTime(e.entry.created_at) : 'an unreadable time';
  return `${typeof e.entry.activity === 'string' ? e.entry.activity : 'changed'} by ${by} at ${at}`;
}

export interface SinceTarget { address: string; reason: string }

/**
 * The items the feed names, once their collections are read: each declared item whose live
 * record an entry names (by id, however it is now named), or that an entry names by name (a
 * deletion, a rename away from it), and each live record an entry names that no file declares;
 * and every kind the log does not record, whole. Addresses as the planner gives them.
 */
export function sinceTargets(feed: ChangeFeed, desired: DesiredState, live: LiveState, kinds: Kinds): SinceTarget[] {
  const out = new Map<string, string>();
  const add = (address: string, reason: string): void => {
    if (!out.has(address)) out.set(address, reason);
  };
  for (const org of desired.organizations) {
    for (const { kind, scopes } of plannedKinds(org, kinds)) {
      if (!changesLogged(kind)) {
        add(`${kind.name}:${org.id}/*`, `not in the activity log (${kind.unlogged ?? 'it keeps no entries of this kind'}): read in full`);
        continue;
      }
      for (const scope of scopes) {
        const prefix = prefixOf(kind, org, scope);
        const whole = unseen(feed, org, kind, scope);
        for (const w of whole) add(`${prefix}${w.key}`, w.why);
        if (whole.some((w) => w.key === '*')) continue;
        const entries = entriesIn(feed, org, kind, scope);
        if (entries.length === 0) continue;
        const items = itemsIn(org, kind, scope);
        const records = (live.find(kind, scope) ?? []).filter((r) => !kind.isGone(r));
        let matcher: Matcher;
        try {
          // A pin to an id this scope does not hold is the plan's error to say, not the feed's.
          matcher = new Matcher(kind, scope, records, items, () => undefined);
        } catch {
          // Two live items of one identity: the plan says so; the whole collection is its business.
          add(`${prefix}*`, entryReason(entries[0] as FeedEntry));
          continue;
        }
        const byId = new Map<string, FeedEntry>();
        const byName = new Map<string, FeedEntry>();
        for (const e of entries) {
          if (e.itemId !== null && !byId.has(e.itemId)) byId.set(e.itemId, e);
          for (const name of namesOf(kind, e)) if (!byName.has(name)) byName.set(name, e);
        }
        const idOf = (r: LiveRecord | undefined): string | undefined => (r ? String(kind.liveId(r)) : undefined);
        const claimed = new Set<LiveRecord>();
        for (const item of items) {
          const own = matcher.own(item);
          if (own) claimed.add(own);
          const old = item.renamedFrom === undefined ? undefined
            : records.find((r) => kind.matchKey(kind.displayKey(identityOf(kind, r))) === kind.matchKey(item.renamedFrom as string));
          if (old) claimed.add(old);
          const named = byId.get(idOf(own) ?? '\u0000') ?? byId.get(idOf(old) ?? '\u0000')
            ?? (item.pin !== undefined ? byId.get(String(item.pin)) : undefined)
            ?? byName.get(kind.matchKey(item.key)) ?? (item.renamedFrom !== undefined ? byName.get(kind.matchKey(item.renamedFrom)) : undefined);
          if (named) add(addressOf(kind.name, org.id, keyInScope(scope, item.key)), entryReason(named));
        }
        const unclaimed = records.filter((r) => !claimed.has(r) && byId.has(String(kind.liveId(r))));
        for (const [record, key] of matcher.unmanagedKeys(unclaimed)) add(addressOf(kind.name, org.id, keyInScope(scope, key)), entryReason(byId.get(String(kind.liveId(record))) as FeedEntry));
      }
    }
  }
  return [...out].map(([address, reason]) => ({ address, reason }));
}

/**
 * Who changed each change of a since report, from the feed's entries (the log is not read again):
 * an item's own entries (by its API id; a missing item's deletion by its name), per drifted field
 * the newest that changed it, else the item's newest.
 */
export function feedAttributions(changes: readonly Change[], executions: ReadonlyMap<string, Execution>, feed: ChangeFeed, kinds: Kinds): FoundAttributions {
  const found = new Map<string, Map<string, Attribution>>();
  for (const change of changes) {
    const kind = kinds.find((k) => k.name === change.kind);
    const spec = kind?.activity;
    const execution = executions.get(change.address);
    if (!kind || !spec || !execution) continue;
    const entries = feed.entries
      .filter((e) => e.organization === change.organization && spec.scopes.includes(e.scope) && entryOfKind(spec, e.entry) && (spec.log !== 'parent' || e.project === change.project)
        && (execution.id === null || e.itemId === String(execution.id)))
      .map((e) => e.entry);
    const byField = attributeItem(change, kind, execution.id, execution.identity, entries);
    if (byField.size > 0) found.set(change.address, byField);
  }
  return found;
}
