// Drift attribution: who changed each drifted item, and when, read from the API's activity log
// (GET /api/projects/{id}/activity_log/). Only drifted items are asked about, one read each,
// through the same client (its rate limits and retries). A key without activity_log:read, an
// API without the endpoint, a failed read, or a log that names nothing: drift without
// attribution and one warning, never an error. The result is an annotation beside the plan
// (withAttributions), not a change of it.
import { annotate } from '../plan/annotate.js';
import { attributeItem, entryOfKind, withAttributions, type ActivityEntry, type Attribution, type FoundAttributions } from '../plan/attribution.js';
import type { LiveState } from '../plan/live.js';
import { changesByItem } from '../plan/steps.js';
import type { Change, Plan, PlanResult } from '../plan/types.js';
import type { ResourceKind } from '../resources/kind.js';
import { KINDS, type Kinds } from '../resources/registry.js';
import { mapLimit } from '../util/map-limit.js';

/** The part of the API client attribution uses. */
export interface ActivityPort {
  request<T = unknown>(method: 'GET', path: string, options?: { okStatuses?: number[] }): Promise<{ status: number; body: T }>;
}

/** A drifted item to ask about: its change, its kind, its API id, and the project whose log holds it. */
export interface AttributionTarget {
  change: Change;
  kind: ResourceKind;
  /** The live item's API id; null for an item missing from live state (its deletion is looked up by name). */
  id: string | number | null;
  /** The identity as the API names it (a flag's key): how the log names a deleted item. */
  identity?: string;
  /** The project whose activity log holds the item's entries (for a kind logged per organization: any of its projects). */
  logProject: number | null;
}

export interface AttributionResult {
  found: FoundAttributions;
  /** At most one: why the report shows no (or not every) attribution. */
  warnings: string[];
  /** The log refused this key (or this plan), or could not be read: the warning says so. */
  refused?: boolean;
  /** Activity reads made (one per drifted item asked about). */
  reads: number;
}

/** Entries read per item: the newest change of a drifted field is nearly always among them. */
export const ACTIVITY_PAGE_SIZE = 100;

const WITHOUT = 'drift is shown without who changed it';

function activityPath(target: AttributionTarget): string | undefined {
  const spec = target.kind.activity;
  if (!spec || target.logProject === null || (target.id === null && target.identity === undefined)) return undefined;
  const q = new URLSearchParams();
  if (spec.scopes.length === 1) q.set('scope', spec.scopes[0] as string);
  else q.set('scopes', spec.scopes.join(','));
  if (target.id !== null) q.set('item_id', String(target.id));
  q.set('page', '1');
  q.set('page_size', String(ACTIVITY_PAGE_SIZE));
  return `/api/projects/${encodeURIComponent(String(target.logProject))}/activity_log/?${q.toString()}`;
}

type Read = { kind: 'entries'; entries: ActivityEntry[] } | { kind: 'refused'; status: number } | { kind: 'failed'; message: string };

async function read(port: ActivityPort, path: string): Promise<Read> {
  try {
    const res = await port.request<{ results?: unknown }>('GET', path, { okStatuses: [401, 402, 403, 404] });
    if (res.status >= 400) return { kind: 'refused', status: res.status };
    const results = res.body && typeof res.body === 'object' ? res.body.results : undefined;
    // An answer of another shape is a log not read, not one that names nothing.
    if (!Array.isArray(results)) return { kind: 'failed', message: `GET ${path.split('?')[0] ?? path} → ${res.status}: the answer is not a page of activity entries` };
    return { kind: 'entries', entries: results.filter((e): e is ActivityEntry => typeof e === 'object' && e !== null) };
  } catch (err) {
    return { kind: 'failed', message: (err as Error).message };
  }
}

function refusal(status: number): string {
  if (status === 404) return `The API has no activity log to read (404): ${WITHOUT}.`;
  if (status === 402) return `The organization's plan does not include the activity log of these items (402, the audit-log feature): ${WITHOUT}.`;
  return `The activity log cannot be read with this key (${status}: it needs the activity_log:read scope): ${WITHOUT}.`;
}

/** Reads the activity of every target that has a log, and attributes its drifted fields. */
export async function readAttributions(targets: readonly AttributionTarget[], port: ActivityPort, parallelism: number): Promise<AttributionResult> {
  const asked = targets.flatMap((t) => {
    const path = activityPath(t);
    return path ? [{ target: t, path }] : [];
  });
  const found = new Map<string, Map<string, Attribution>>();
  if (asked.length === 0) return { found, warnings: [], reads: 0 };
  let reads = 0;
  const attributeOne = (target: AttributionTarget, result: Read): void => {
    if (result.kind !== 'entries') return;
    // A missing item: the newest deletion of an item of that name.
    const spec = target.kind.activity;
    const entries = spec ? result.entries.filter((e) => entryOfKind(spec, e)) : result.entries;
    const byField = attributeItem(target.change, target.kind, target.id, target.identity, entries);
    if (byField.size > 0) found.set(target.change.address, byField);
  };
  // The first read alone: a key without the scope learns it with one request, not one per item.
  const first = await read(port, (asked[0] as { path: string }).path);
  reads++;
  if (first.kind === 'refused') return { found, warnings: [refusal(first.status)], reads, refused: true };
  attributeOne((asked[0] as { target: AttributionTarget }).target, first);
  const rest = await mapLimit(asked.slice(1), parallelism, async ({ path }) => {
    reads++;
    return read(port, path);
  });
  rest.forEach((r, i) => attributeOne((asked[i + 1] as { target: AttributionTarget }).target, r));
  const all = [first, ...rest];
  const failed = all.find((r): r is Extract<Read, { kind: 'failed' }> => r.kind === 'failed');
  const refused = all.find((r): r is Extract<Read, { kind: 'refused' }> => r.kind === 'refused');
  const warnings: string[] = [];
  if (failed) warnings.push(`The activity log could not be read for every drifted item (${failed.message}): some drift is shown without who changed it.`);
  else if (refused) warnings.push(refusal(refused.status));
  else if (found.size === 0) warnings.push(`The activity log names none of the drifted items: ${WITHOUT}.`);
  return { found, warnings, reads, ...(refused || failed ? { refused: true } : {}) };
}

/**
 * The targets of a plan: every change of a kind with an activity log (an item missing from
 * live state is looked up by name, among deletions). `idOf` gives a change's API id and
 * identity, `projectOf` a live project of an organization (for kinds logged per organization;
 * the parent of items logged per project comes from the change).
 */
export function attributionTargets(changes: readonly Change[], kindOf: (change: Change) => ResourceKind | undefined,
  idOf: (change: Change) => { id: string | number | null; identity?: string }, projectOf: (organization: string) => number | null): AttributionTarget[] {
  return changes.flatMap((change) => {
    const kind = kindOf(change);
    if (!kind?.activity) return [];
    const { id, identity } = idOf(change);
    if (id === null && (change.action !== 'create' || kind.activity.log === 'self')) return [];
    const logProject = kind.activity.log === 'parent' ? change.project
      : kind.activity.log === 'self' ? (typeof id === 'number' ? id : Number.isInteger(Number(id)) ? Number(id) : null)
      : projectOf(change.organization);
    return [{ change, kind, id, ...(id === null && identity !== undefined ? { identity } : {}), logProject }];
  });
}

/** One project of an organization, read from its project list (one request), or null. */
async function anyProject(port: ActivityPort, projectKind: ResourceKind, organization: string): Promise<number | null> {
  try {
    const { status, body } = await port.request<{ results?: unknown }>('GET', `${projectKind.collectionPath({ organization, project: null })}?limit=1`, { okStatuses: [401, 403, 404] });
    const first = status < 300 && body && Array.isArray(body.results) ? body.results[0] as Record<string, unknown> | undefined : undefined;
    const id = first ? Number(projectKind.liveId(first)) : NaN;
    return Number.isSafeInteger(id) ? id : null;
  } catch {
    return null;
  }
}

/**
 * The plan with drift attribution beside its changes: who changed each drifted item and when,
 * from the activity log (one read per drifted item through `port`). Its warning, if any,
 * joins the plan's.
 */
export async function attributePlan(plan: Plan, result: PlanResult, live: LiveState, port: ActivityPort, parallelism: number, kinds: Kinds = KINDS,
  options: { refusalSaid?: boolean } = {}): Promise<Plan> {
  const projectKind = kinds.find((k) => k.activity?.log === 'self');
  // Entries of a kind logged per organization show in every project's log: any project will do.
  // Where the plan read none (the files declare no project), the organization's first project.
  const firstProject = new Map<string, number | null>();
  const needed = new Set(plan.changes.filter((c) => kinds.find((k) => k.name === c.kind)?.activity?.log === 'organization').map((c) => c.organization));
  for (const organization of needed) {
    const read = projectKind ? live.find(projectKind, { organization, project: null })?.find((r) => !projectKind.isGone(r)) : undefined;
    if (read && projectKind) firstProject.set(organization, Number(projectKind.liveId(read)));
    else if (projectKind) firstProject.set(organization, await anyProject(port, projectKind, organization));
  }
  const projectOf = (organization: string): number | null => firstProject.get(organization) ?? null;
  // One read per item, also for an item whose change is made in steps.
  const targets = attributionTargets(changesByItem(plan.changes), (c) => kinds.find((k) => k.name === c.kind),
    (c) => {
      const execution = result.executions.get(c.address);
      return { id: execution?.id ?? null, ...(execution ? { identity: execution.identity } : {}) };
    }, projectOf);
  const { found, warnings, refused } = await readAttributions(targets, port, parallelism);
  return withAttributions(annotate(plan, { changes: new Map(), warnings: refused && options.refusalSaid ? [] : warnings }), found);
}
