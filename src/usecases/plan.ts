// The plan use case, shared by plan, drift and apply: load the files, read the live state
// they need, compute the plan, and annotate it (safety warnings; with previews, the kinds'
// previews such as a flag's blast radius). Everything it returns is a value.
import type { ApiClient } from '../http/client.js';
import { loadConfig } from '../config/load.js';
import { formatPosition } from '../config/problems.js';
import type { DesiredState } from '../config/model.js';
import { annotate } from '../plan/annotate.js';
import { heldBackTargets, kindChecks } from '../plan/kind-checks.js';
import { withCollections } from '../plan/live.js';
import { computePlan } from '../plan/planner.js';
import { safetyWarnings } from '../plan/safety.js';
import type { Plan, PlanResult, PlanTargets } from '../plan/types.js';
import type { Kinds } from '../resources/registry.js';
import { heldBackReads, UnknownOrganization } from '../state/live-state.js';
import { HogsyncError } from '../errors.js';
import { attributePlan } from './attribute.js';
import { readCollections } from '../state/live-state.js';
import { restrictReads } from '../state/targeted-reads.js';
import { plannedReads } from '../state/targets.js';
import { DEFAULT_MAX_DELETE_PERCENT } from '../plan/limits.js';
import { targetsOfPlan, unmatchedMessage, unmatchedTargets } from '../plan/targeting.js';
import { countEveryLiveItem, resolveTargets, type TargetRequest } from './targeted.js';
import { runPreviews } from './previews.js';
import { reading, withClient, type ApiSettings, type Observer } from './session.js';

export interface PlanRequest {
  kind: 'plan' | 'drift';
  /** Run the kinds' previews (plan, and apply when it shows the plan; drift may run with a read-only key). */
  previews: boolean;
  /** Show the safety rules' refusals as warnings (plan and drift; apply checks them with its own options). */
  safetyWarnings: boolean;
  /** Say who changed each drifted item and when, from the activity log (drift; plan --attribute): one read per changed item. */
  attribution?: boolean;
  kinds?: Kinds;
  /** Limit the plan to these targets (`--target`, `--changed-since`, a saved plan's). */
  targets?: Omit<PlanTargets, 'left_out'>;
  /** The delete share the safety rule will be checked against (apply's option; default 30). */
  maxDeletePercent?: number;
}

export interface Planned {
  desired: DesiredState;
  /** The computed plan, with what apply needs to execute it. */
  result: PlanResult;
  /** The plan to show: the computed plan with its annotations. */
  plan: Plan;
}

/** Reads, plans and annotates with a client the caller owns. */
export async function planWith(client: ApiClient, desired: DesiredState, settings: ApiSettings, request: PlanRequest, observer: Observer): Promise<Planned> {
  try {
    return await readAndPlan(client, desired, settings, request, observer);
  } catch (err) {
    throw err instanceof UnknownOrganization ? declaredHere(err, desired) : err;
  }
}

/** An organization the API does not know, said at the line of the file that declares it. */
function declaredHere(err: UnknownOrganization, desired: DesiredState): HogsyncError {
  const position = desired.organizations.find((o) => o.id === err.organization)?.position;
  return position ? new HogsyncError('config', err.message, { position, cause: err }) : err;
}

async function readAndPlan(client: ApiClient, desired: DesiredState, settings: ApiSettings, request: PlanRequest, observer: Observer): Promise<Planned> {
  const all = plannedReads(desired, request.kinds);
  const reads = request.targets ? restrictReads(all, targetsOfPlan(request.targets)) : all;
  let live = await reading(client, 'live state', observer, () => readCollections(client, reads, settings.parallelism));
  const options = { baseUrl: settings.baseUrl, kind: request.kind, kinds: request.kinds, targets: request.targets };
  let result = computePlan(desired, live, options);
  // Records the default lists leave out (archived flags) may hold the key of a planned create:
  // read them for those collections only, and plan again.
  const held = heldBackTargets(result, request.kinds);
  if (held.length > 0) {
    const more = held.flatMap(({ kind, scope }) => heldBackReads(kind, [scope]));
    const extra = await reading(client, 'live state', observer, () => readCollections(client, more, settings.parallelism));
    live = withCollections(live, extra.collections);
    result = computePlan(desired, live, options);
  }
  if (request.targets) result = await countEveryLiveItem(result, all, reads, client, settings.parallelism, request.maxDeletePercent ?? DEFAULT_MAX_DELETE_PERCENT);
  const checks = kindChecks(desired, live, result, request.kinds);
  const warnings = [...checks, ...(request.safetyWarnings ? safetyWarnings(result, request.kinds) : [])];
  const previews = request.previews ? await runPreviews(result, client, settings.parallelism) : undefined;
  // What the files declare that will not do what it seems to, at its line (as validate says it).
  const declared = (desired.warnings ?? []).map((w) => `${formatPosition(w.position)}: ${w.message}`);
  const annotated = annotate(result.plan, { changes: previews?.changes ?? new Map(), warnings: [...declared, ...(result.notices ?? []), ...warnings, ...(previews?.warnings ?? [])] });
  const plan = request.attribution ? await attributePlan(annotated, result, live, client, settings.parallelism, request.kinds) : annotated;
  return { desired, result, plan };
}

/** `hogsync plan` and `hogsync drift`: files → annotated plan, targeted when asked. */
export async function planFiles(paths: string[], settings: ApiSettings, request: PlanRequest, observer: Observer = {}, targeting: TargetRequest = {}): Promise<Planned> {
  const desired = await loadConfig(paths);
  const { targets, warnings } = await resolveTargets(paths, desired, targeting);
  const planned = await withClient(settings, observer, (client) => planWith(client, desired, settings, { ...request, ...(targets ? { targets } : {}) }, observer));
  // Said as given (an alias, not the id it stands for).
  const given = new Map((targets?.addresses ?? []).map((a, i) => [a, targeting.addresses?.[i] ?? a]));
  const unmatched = unmatchedTargets(planned.plan).map((a) => unmatchedMessage(given.get(a) ?? a));
  const all = [...warnings, ...unmatched];
  return all.length > 0 ? { ...planned, plan: annotate(planned.plan, { changes: new Map(), warnings: all }) } : planned;
}
