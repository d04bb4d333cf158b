// The plan use case, shared by plan, drift and apply: load the files, read the live state
// they need, compute the plan, and annotate it (safety warnings; with previews, the kinds'
// previews such as a flag's blast radius). Everything it returns is a value.
import type { ApiClient } from '../http/client.js';
import { loadConfig } from '../config/load.js';
import type { DesiredState } from '../config/model.js';
import { annotate } from '../plan/annotate.js';
import { heldBackTargets, kindChecks } from '../plan/kind-checks.js';
import { withCollections } from '../plan/live.js';
import { computePlan } from '../plan/planner.js';
import { safetyWarnings } from '../plan/safety.js';
import type { Plan, PlanResult } from '../plan/types.js';
import type { Kinds } from '../resources/registry.js';
import { heldBackReads, readCollections, readLiveState } from '../state/live-state.js';
import { attributePlan } from './attribute.js';
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
  let live = await reading(client, 'live state', observer, () => readLiveState(client, desired, settings.parallelism, request.kinds));
  const options = { baseUrl: settings.baseUrl, kind: request.kind, kinds: request.kinds };
  let result = computePlan(desired, live, options);
  // Records the default lists leave out (archived flags) may hold the key of a planned create:
  // read them for those collections only, and plan again.
  const held = heldBackTargets(result, request.kinds);
  if (held.length > 0) {
    const reads = held.flatMap(({ kind, scope }) => heldBackReads(kind, [scope]));
    const more = await reading(client, 'live state', observer, () => readCollections(client, reads, settings.parallelism));
    live = withCollections(live, more.collections);
    result = computePlan(desired, live, options);
  }
  const checks = kindChecks(desired, live, result, request.kinds);
  const warnings = [...checks, ...(request.safetyWarnings ? safetyWarnings(result, request.kinds) : [])];
  const previews = request.previews ? await runPreviews(result, client, settings.parallelism) : undefined;
  const annotated = annotate(result.plan, { changes: previews?.changes ?? new Map(), warnings: [...warnings, ...(previews?.warnings ?? [])] });
  const plan = request.attribution ? await attributePlan(annotated, result, live, client, settings.parallelism, request.kinds) : annotated;
  return { desired, result, plan };
}

/** `hogsync plan` and `hogsync drift`: files → annotated plan. */
export async function planFiles(paths: string[], settings: ApiSettings, request: PlanRequest, observer: Observer = {}): Promise<Planned> {
  const desired = await loadConfig(paths);
  return withClient(settings, observer, (client) => planWith(client, desired, settings, request, observer));
}
