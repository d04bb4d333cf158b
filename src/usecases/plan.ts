// The plan use case, shared by plan, drift and apply: load the files, read the live state
// they need, compute the plan, and annotate it (safety warnings; with previews, the kinds'
// previews such as a flag's blast radius). Everything it returns is a value.
import type { ApiClient } from '../http/client.js';
import { loadConfig } from '../config/load.js';
import { formatPosition } from '../config/problems.js';
import type { DesiredState } from '../config/model.js';
import { annotate } from '../plan/annotate.js';
import { liveStateOf, withCollections, type LiveCollection, type LiveState } from '../plan/live.js';
import { PlanBuilder, type PlanOptions, type PlanUnit } from '../plan/planner.js';
import { safetyWarnings } from '../plan/safety.js';
import type { Plan, PlanResult, PlanTargets } from '../plan/types.js';
import type { ApiPort } from '../http/port.js';
import type { Kinds } from '../resources/registry.js';
import { heldBackReads, UnknownOrganization } from '../state/live-state.js';
import { HogsyncError } from '../errors.js';
import { attributePlan } from './attribute.js';
import { readCollections, streamCollections, type CollectionRead } from '../state/live-state.js';
import { restrictReads } from '../state/targeted-reads.js';
import { plannedReads } from '../state/targets.js';
import { DEFAULT_MAX_DELETE_PERCENT } from '../plan/limits.js';
import { derivedTarget, targetSet, targetsOfPlan, unmatchedDerived, unmatchedMessage, unmatchedTargets } from '../plan/targeting.js';
import { attributionTime, withAttributions } from '../plan/attribution.js';
import { readChangeFeed } from './since.js';
import { feedAttributions, sinceReadPatterns, sinceTargets, type ChangeFeed, type SinceTarget } from '../plan/since.js';
import { KINDS } from '../resources/registry.js';
import { checkedTargets, countEveryLiveItem, resolveTargets, type TargetRequest } from './targeted.js';
import { runPreviews } from './previews.js';
import { previewing, reading, withClient, type ApiSettings, type Observer } from './session.js';
import { needsResolving, organizationResolver, resolveAddressOrganizations, resolveOrganizations, resolveOrganizationsThen } from './organizations.js';
import { resolveNamedItems } from './named-items.js';
import { prepareKinds, prepareSends } from './prepare-kinds.js';
import { unsetSecrets } from '../plan/unset.js';
import { ConfigErrors } from '../config/problems.js';
import { nextTurnAhead } from '../util/turns.js';
import { keyScopes, lackingWriteScopes, requireDeclaredScopes, requireReadScopes } from './key-scopes.js';

export interface PlanRequest {
  kind: 'plan' | 'drift';
  /** Run the kinds' previews (plan, and apply when it shows the plan; drift may run with a read-only key). */
  previews: boolean;
  /** Changes previewed at most (`--max-previews`; default DEFAULT_MAX_PREVIEWS): each preview costs requests. */
  maxPreviews?: number;
  /** Show the safety rules' refusals as warnings (plan and drift; apply checks them with its own options). */
  safetyWarnings: boolean;
  /** Say who changed each drifted item and when, from the activity log (drift; plan --attribute): one read per changed item. */
  attribution?: boolean;
  kinds?: Kinds;
  /** Limit the plan to these targets (`--target`, `--changed-since`, a saved plan's). */
  targets?: Omit<PlanTargets, 'left_out'>;
  /** The delete share the safety rule will be checked against (apply's option; default 30). */
  maxDeletePercent?: number;
  /**
   * `drift --since`: the start of the window. The activity logs are read since then (src/usecases/since.ts);
   * only the collections their entries name are read (and every kind the logs do not record),
   * only the items they name are planned, and attribution comes from the same entries. Where no
   * log can be read, the plan is whole, with a warning saying so.
   */
  since?: Date;
}

export interface Planned {
  desired: DesiredState;
  /** The write scopes the planned changes need that the key lacks (where the API says which it has). */
  lackingWrites?: string[];
  /** The computed plan, with what apply needs to execute it. */
  result: PlanResult;
  /** The plan to show: the computed plan with its annotations. */
  plan: Plan;
}

/** Reads, plans and annotates with a client the caller owns. */
/**
 * The key's scopes, asked before an organization written as a slug or @current is resolved (that
 * read needs organization:read), and every scope the files' kinds need checked against them.
 */
export async function scopesBeforeOrganizations(client: ApiClient, desired: DesiredState, request: Pick<PlanRequest, 'kind' | 'kinds'>): Promise<{ scopes: readonly string[] | undefined }> {
  const scopes = await keyScopes(client);
  if (scopes) requireDeclaredScopes(scopes, desired, request.kind === 'plan', request.kinds ?? KINDS);
  return { scopes };
}

export async function planWith(client: ApiClient, desired: DesiredState, settings: ApiSettings, request: PlanRequest, observer: Observer,
  asked?: { scopes: readonly string[] | undefined }): Promise<Planned> {
  try {
    // An organization written as a slug or @current is read first: the key's scopes are asked
    // before that read, so a key without organization:read hears of it with the rest.
    const kinds = request.kinds ?? KINDS;
    const granted = asked ?? (needsResolving(desired) ? await scopesBeforeOrganizations(client, desired, request) : undefined);
    const resolve = organizationResolver(client);
    await resolveOrganizations(client, desired, resolve);
    // --target addresses name the organization as files may (a slug, @current): compared by its UUID.
    const targets = request.targets && { ...request.targets, addresses: await resolveAddressOrganizations(request.targets.addresses, resolve) };
    await resolveNamedItems(client, desired, kinds);
    return await readAndPlan(client, desired, settings, targets ? { ...request, targets } : request, observer, granted);
  } catch (err) {
    throw err instanceof UnknownOrganization ? declaredHere(err, desired) : err;
  }
}

/** An organization the API does not know, said at the line of the file that declares it. */
function declaredHere(err: UnknownOrganization, desired: DesiredState): HogsyncError {
  const position = desired.organizations.find((o) => o.id === err.organization)?.position;
  return position ? new HogsyncError('config', err.message, { position, cause: err }) : err;
}

async function readAndPlan(client: ApiClient, desired: DesiredState, settings: ApiSettings, request: PlanRequest, observer: Observer,
  asked?: { scopes: readonly string[] | undefined }): Promise<Planned> {
  const kinds = request.kinds ?? KINDS;
  const all = plannedReads(desired, request.kinds);
  let reads = request.targets ? restrictReads(all, targetsOfPlan(request.targets)) : all;
  // The key's scopes, asked once where there is something to read: every read scope it lacks is
  // said in one line before the reads (a plan, with the write scopes the files' changes will need).
  const granted = asked ? asked.scopes : reads.length > 0 ? await keyScopes(client) : undefined;
  if (granted) requireReadScopes(granted, reads, desired, request.kind === 'plan', kinds);
  // What the kinds read to check and compare their items (templates, integrations), once the key may.
  await prepareKinds(client, desired, kinds);
  const { feed, fallback } = request.since ? await changeFeed(client, desired, kinds, request.since, settings.parallelism, observer) : {};
  let targets = request.targets;
  let prefetched: LiveState | undefined;
  if (feed) {
    // A since report reads the collections its entries name (and the kinds no log records) first,
    // then plans exactly the items they name, found in what was read (however they are named now).
    reads = restrictReads(reads, targetSet(sinceReadPatterns(feed, desired, kinds).map(derivedTarget)));
    prefetched = await reading(client, 'live state', observer, () => readCollections(client, reads, settings.parallelism));
    targets = sinceReport(feed, request.targets, sinceTargets(feed, desired, prefetched, kinds));
  }
  const options = { baseUrl: settings.baseUrl, kind: request.kind, kinds: request.kinds, targets };
  const { result: planned, organizationLive: live } = await reading(client, 'live state', observer,
    () => streamPlan(client, desired, reads, options, settings.parallelism, prefetched));
  let result = planned;
  if (targets) result = await countEveryLiveItem(result, all, reads, client, settings.parallelism, request.maxDeletePercent ?? DEFAULT_MAX_DELETE_PERCENT);
  if (feed) result = { ...result, plan: { ...result.plan, since: feed.start } };
  // An unset write-only secret: an error where a change would send it, else a note.
  const unset = unsetSecrets(result);
  if (unset.errors.length > 0) throw new ConfigErrors(unset.errors);
  // What the changes send that only the API knows (a Slack channel's id): read for them alone.
  if (request.kind !== 'drift') await prepareSends(client, result);
  const warnings = [...unset.notes, ...(result.checks ?? []), ...(request.safetyWarnings ? safetyWarnings(result, request.kinds) : [])];
  // Without previews, still those that name what the API does without a word (an insight's alerts deleted with it).
  const previews = await previewing(client, observer, (onProgress) => runPreviews(result, client, settings.parallelism,
    { ...(request.maxPreviews === undefined ? {} : { max: request.maxPreviews }), ...(request.previews ? {} : { alwaysOnly: true }), onProgress }));
  // What the files declare that will not do what it seems to, at its line (as validate says it).
  const declared = (desired.warnings ?? []).map((w) => `${formatPosition(w.position)}: ${w.message}`);
  const annotated = annotate(result.plan, { changes: previews.changes, warnings: [...(fallback ? [fallback] : []), ...declared, ...(result.notices ?? []), ...warnings, ...previews.warnings] });
  const plan = !request.attribution ? annotated
    : feed ? withAttributions(annotated, feedAttributions(annotated.changes, result.executions, feed, kinds))
    // After a fallback the warning has said the logs cannot be read: attribution does not say it twice.
    : await attributePlan(annotated, result, live, client, settings.parallelism, request.kinds, { refusalSaid: fallback !== undefined });
  // A plan says which write scopes its changes need that the key lacks; apply refuses to start without them.
  const lacking = granted && request.kind === 'plan' ? lackingWriteScopes(granted, plan.changes, kinds) : [];
  if (lacking.length === 0) return { desired, result, plan };
  const warning = `the personal API key lacks ${lacking.length === 1 ? 'the scope' : 'the scopes'} these changes need: ${lacking.join(', ')}; apply will refuse to start without ${lacking.length === 1 ? 'it' : 'them'}`;
  return { desired, result, plan: annotate(plan, { changes: new Map(), warnings: [warning] }), lackingWrites: lacking };
}

/** The change feed since `start`; where no log can be read, the warning of the full drift that replaces it. */
async function changeFeed(client: ApiClient, desired: DesiredState, kinds: Kinds, start: Date, parallelism: number, observer: Observer): Promise<{ feed?: ChangeFeed; fallback?: string }> {
  const read = await reading(client, 'live state', observer, () => readChangeFeed(client, desired, kinds, start, parallelism));
  if (read.kind === 'feed') return { feed: read.feed };
  return {
    fallback: `drift --since ${attributionTime(start.toISOString())}: ${read.why}, so this report is a full drift (every declared item read). `
      + 'A key with activity_log:read reads each project\'s log; an organization admin\'s key, where the organization\'s plan includes the audit log, reads the organization-wide log in one request.',
  };
}

/** The targets of a since report: what the feed derived, within the `--target` addresses given beside it. */
function sinceReport(feed: ChangeFeed, given: PlanRequest['targets'], derived: SinceTarget[]): Omit<PlanTargets, 'left_out'> {
  return {
    addresses: given?.addresses ?? [],
    ...(given?.changed_since ? { changed_since: given.changed_since } : {}),
    since: { start: feed.start, logs: feed.sources.map((s) => ({ organization: s.organization, log: s.log })), entries: feed.entries.length, derived },
  };
}

/**
 * Reads the collections a plan needs and plans each unit (an organization's own kinds, or one
 * project's) as soon as its collections are in, while the other reads are still in flight: the
 * comparison's CPU overlaps the network's waits, and a unit's live records are let go once it is
 * planned (only the organization-level ones stay, for attribution). A unit whose plan would
 * create an item that a held-back record may hold (an archived flag's key) reads those first:
 * nothing is planned twice. `prefetched`: the reads' collections, read already (readCollections,
 * in the order of `reads`), planned as they are.
 */
export async function streamPlan(client: ApiPort, desired: DesiredState, reads: readonly CollectionRead[], options: PlanOptions, parallelism: number,
  prefetched?: LiveState): Promise<{ result: PlanResult; organizationLive: LiveState }> {
  const builder = new PlanBuilder(desired, options);
  const units = builder.units();
  const unitKey = (organization: string, project: number | null) => `${organization}|${project ?? ''}`;
  const byKey = new Map(units.map((u) => [unitKey(u.organization, u.project), u]));
  const waiting = new Map(units.map((u) => [u, { left: 0, collections: [] as LiveCollection[] }]));
  const unitOf = (read: CollectionRead) => byKey.get(unitKey(read.scope.organization, read.scope.project));
  for (const read of reads) {
    const unit = unitOf(read);
    if (unit) (waiting.get(unit) as { left: number }).left++;
  }
  const organizationLive: LiveCollection[] = [];
  const planned = new Set<PlanUnit>();
  const deferred: PlanUnit[] = [];
  const planOne = async (unit: PlanUnit): Promise<void> => {
    // Moved out, the array left empty (not replaced): `w`, made before the reads began, is in
    // the collector's old generation, and what a dropped array of it still pointed to would
    // outlive the unit (see streamCollections).
    const collections = (waiting.get(unit) as { collections: LiveCollection[] }).collections.splice(0);
    let live = liveStateOf(collections);
    const held = builder.heldBackNeeds(unit, live);
    if (held.length > 0) {
      const extra = await readCollections(client, held.flatMap(({ kind, scope }) => heldBackReads(kind, [scope])), parallelism);
      live = withCollections(live, extra.collections);
    }
    builder.planUnit(unit, live);
    planned.add(unit);
    if (unit.project === null) organizationLive.push(...collections);
    if (unit.project === null) for (const next of deferred.splice(0).filter((d) => d.organization === unit.organization)) enqueue(next);
  };
  // Units whose lists are all in, planned one after another on the chain.
  const ready: PlanUnit[] = [];
  let chain: Promise<void> = Promise.resolve();
  let scheduled = false;
  const enqueue = (unit: PlanUnit): void => {
    const own = byKey.get(unitKey(unit.organization, null));
    if (unit.afterOrganization && own && !planned.has(own)) {
      deferred.push(unit);
      return;
    }
    ready.push(unit);
    if (scheduled) return;
    scheduled = true;
    chain = chain.then(async () => {
      // Each unit in a turn of the event loop of its own (../util/turns.ts): the answers that
      // arrive while one is compared let out their next requests before the next one is (a
      // batch compared in one go held them back by all of it). Ahead of the answers still to
      // be parsed: a unit lets go of its records once compared, so where answers come faster
      // than they are compared, the wait is in their bytes, not in records parsed long before
      // (which outlived the collector's young generation and were copied and promoted).
      await nextTurnAhead();
      scheduled = false;
      for (let next = ready.shift(); next; next = ready.shift()) {
        await planOne(next);
        if (ready.length > 0) await nextTurnAhead();
      }
    });
    // Its error is awaited below; until then it must not count as unhandled.
    chain.catch(() => undefined);
  };
  for (const unit of units) if ((waiting.get(unit) as { left: number }).left === 0) enqueue(unit);
  const arrived = (read: CollectionRead, collection: LiveCollection): void => {
    const unit = unitOf(read);
    if (!unit) return;
    const w = waiting.get(unit) as { left: number; collections: LiveCollection[] };
    w.collections.push(collection);
    if (--w.left === 0) enqueue(unit);
  };
  if (prefetched) {
    reads.forEach((read, i) => arrived(read, prefetched.collections[i] as LiveCollection));
  } else {
    await streamCollections(client, reads, parallelism, arrived);
  }
  await chain;
  return { result: builder.finish(), organizationLive: liveStateOf(organizationLive) };
}

/** `hogsync plan` and `hogsync drift`: files → annotated plan, targeted when asked. */
export async function planFiles(paths: string[], settings: ApiSettings, request: PlanRequest, observer: Observer = {}, targeting: TargetRequest = {}): Promise<Planned> {
  const desired = await loadConfig(paths, process.env, { deferUnsetWriteOnly: true });
  checkedTargets(desired, targeting);
  const { planned, targets, warnings } = await withClient(settings, observer, async (client) => {
    // Targets compare with addresses in one spelling: organizations resolved first (STYLE.md, "Resolve before you compare").
    const asked = needsResolving(desired) ? await scopesBeforeOrganizations(client, desired, request) : undefined;
    const organizations = await resolveOrganizations(client, desired);
    const { targets, warnings } = await resolveTargets(paths, desired, targeting, organizations, (then) => resolveOrganizationsThen(client, then, organizations));
    const planned = await planWith(client, desired, settings, { ...request, ...(targets ? { targets } : {}) }, observer, asked);
    return { planned, targets, warnings };
  });
  // Said as given (an alias, not the id it stands for).
  const given = new Map((targets?.addresses ?? []).map((a, i) => [a, targeting.addresses?.[i] ?? a]));
  const unmatched = unmatchedTargets(planned.plan).map((a) => unmatchedMessage(given.get(a) ?? a));
  const all = [...warnings, ...unmatched, ...unmatchedDerived(planned.plan)];
  return all.length > 0 ? { ...planned, plan: annotate(planned.plan, { changes: new Map(), warnings: all }) } : planned;
}
