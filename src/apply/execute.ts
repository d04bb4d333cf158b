// Carries out a plan through the API port, in waves (src/apply/order.ts): within one kind and
// scope deletes first (they free keys that creates may take again), then updates, then
// creates; the kinds' `order` hooks may ask for more (flags by their dependencies); changes of
// a wave run in parallel. A failed change does not stop the others; every change ends
// applied, failed, skipped or pending (held for approval), also when the user interrupts.
// What a create answered that the user must see comes from the kind's `created` hook.
import { labelOf, parentItemKey, parentAddressKey, parentKeyOf, withParentId, type HttpCall, type LiveRecord } from '../resources/kind.js';
import { isHogsyncError } from '../errors.js';
import { errorMessage } from '../http/api-error.js';
import { isRateLimitStop } from '../http/client.js';
import { ADVICE_401, adviceFor403, againHelps } from '../http/advice.js';
import type { ApiPort } from '../http/port.js';
import { orderPairs } from '../plan/change-order.js';
import { fillDeferred, holdsDeferred } from '../plan/references.js';
import { addressOf, changeKey, type Action, type Change, type ChangeStep, type Execution, type PlanResult } from '../plan/types.js';
import { mapLimit } from '../util/map-limit.js';
import { orderWaves } from './order.js';

/** `pending`: the API holds the change for an approver (a change request); it is not retried. */
export type OutcomeStatus = 'applied' | 'failed' | 'skipped' | 'pending';

export interface ChangeOutcome {
  address: string;
  action: Action;
  status: OutcomeStatus;
  /** The API's message for failed changes, the reason for skipped ones. */
  error?: string;
  /** Fields that, re-read after apply, hold other values than were sent. */
  not_taken?: string[];
  /** New proxy records: where DNS must point, and the record's status (a kind's `created` hook). */
  target_cname?: string;
  record_status?: string;
  /** Pending changes: the change request that holds the change until someone approves it. */
  change_request_id?: string;
  /** A step of an item's change split in several (the plan's `step`): reported on its own. */
  step?: ChangeStep;
}

/** What every outcome of a change starts from: its address and action, and its step when it is one. */
function outcomeOf(change: Change): Pick<ChangeOutcome, 'address' | 'action' | 'step'> {
  return { address: change.address, action: change.action, ...(change.step ? { step: change.step } : {}) };
}

/** Counts per outcome; `pending` only when some change is held for approval. */
export type ApplySummary = Record<'applied' | 'failed' | 'skipped', number> & { pending?: number };

export interface ApplyReport {
  outcomes: ChangeOutcome[];
  summary: ApplySummary;
  warnings: string[];
  /** Lines for people under a change (a kind's `created` notes); not part of the JSON report. */
  notes: ReadonlyMap<string, readonly string[]>;
  /** What to do about the failures (one line per distinct advice); not part of the JSON report. */
  hints?: readonly string[];
  /** Whether running apply again can converge what failed or was skipped (not after 400/401/403). */
  againHelps?: boolean;
  /** Some failure clears by itself once the API has finished something (a kind's `waitFor`): run apply again later. */
  waits?: boolean;
  /** Set when the applied changes could not be re-read: they are unverified (exit 1). */
  unverified?: string;
  /**
   * Deletes that failed without a refusal of the key (a 400, 404, a 5xx, or no answer): a DELETE
   * retried after a lost answer finds the item gone and may answer 404 or 500, and an item that
   * went with another (a grant with its role) may answer 400, so the re-read decides (verify.ts).
   */
  uncertainDeletes?: readonly string[];
  /** Values sent per applied change, where they differ from the plan's (ids of items created first filled in): what verification compares. */
  sent?: ReadonlyMap<string, Record<string, unknown>>;
  /** The ids the creates answered, by change address: where verification finds what apply made. */
  created?: ReadonlyMap<string, string | number>;
}

export interface ExecuteOptions {
  parallelism: number;
  /** Stops starting new changes (in-flight ones finish and are reported). */
  signal?: AbortSignal;
  onOutcome?: (outcome: ChangeOutcome, done: number, total: number) => void;
  onStart?: (change: Change, started: number, total: number) => void;
}


/**
 * After this many changes in a row failed on the network, the rest are skipped, not tried. One
 * that could not reach the API at all (DNS, refused, TLS) stops the rest at once.
 */
export const UNREACHABLE_AFTER = 3;

export async function executePlan(result: PlanResult, api: ApiPort, options: ExecuteOptions): Promise<ApplyReport> {
  const total = result.plan.changes.length;
  const outcomes = new Map<string, ChangeOutcome>();
  const notes = new Map<string, readonly string[]>();
  const failedDeletes = new Set<string>();
  const uncertainDeletes: string[] = [];
  /** Ids of the items this apply created, by change address: what references to them are filled with. */
  const createdIds = new Map<string, string | number>();
  /** Creates the API answered without an id: what stands on them is skipped, saying so. */
  const withoutId = new Set<string>();
  const notCreated = (address: string) => (withoutId.has(address) ? 'was created without an id in the answer' : 'was not created');
  const sent = new Map<string, Record<string, unknown>>();
  let started = 0;
  let done = 0;
  // Retries already waited for each of these; when the API is gone, trying the rest only delays the report.
  let unreachableInARow = 0;
  let unreachable: string | undefined;
  // The API's rate limit asks for longer than --max-wait: nothing more is started (a later run converges).
  let rateLimited: string | undefined;
  const hints = new Set<string>();
  let again = false;
  let waiting = false;
  const finish = (outcome: ChangeOutcome) => {
    outcomes.set(changeKey(outcome), outcome);
    done++;
    options.onOutcome?.(outcome, done, total);
  };

  // Waves: within a kind and scope deletes, then updates, then creates (a key is freed before
  // it is taken again), and whatever order the kinds ask for (flags by their dependencies).
  const byAddress = new Map(result.plan.changes.map((c) => [changeKey(c), c]));
  const orderable = result.plan.changes.map((c) => {
    const e = result.executions.get(changeKey(c));
    // A later step of a create (a launch after it) orders as the create it completes: creates wait
    // for their group's updates, and this one waits for its create.
    const action = e?.follows !== undefined && e.id === null ? 'create' : c.action;
    return { address: changeKey(c), action, group: e ? `${e.kind.name}|${e.scope.organization}|${parentKeyOf(e.scope) ?? ''}` : c.address };
  });
  for (const wave of orderWaves(orderable, orderPairs(result))) {
    const changes = wave.map((address) => byAddress.get(address) as Change);
    await mapLimit(changes, options.parallelism, async (change) => {
      const execution = result.executions.get(changeKey(change));
      if (options.signal?.aborted) {
        again = true;
        return finish({ ...outcomeOf(change), status: 'skipped', error: 'interrupted before it started' });
      }
      if (unreachable) {
        again = true;
        return finish({ ...outcomeOf(change), status: 'skipped', error: `not started: ${unreachable}` });
      }
      if (rateLimited) {
        again = true;
        return finish({ ...outcomeOf(change), status: 'skipped', error: rateLimited });
      }
      if (!execution) return finish({ ...outcomeOf(change), status: 'skipped', error: 'nothing to execute (internal)' });
      const blocker = change.action === 'create' ? failedDeletes.has(conflictKey(execution)) : false;
      if (blocker) return finish({ ...outcomeOf(change), status: 'skipped', error: 'the delete that frees its key failed' });
      let run = execution;
      // A later step of an item's change (an experiment ended, then archived) runs only once the step before was applied.
      if (execution.follows !== undefined) {
        const before = outcomes.get(execution.follows);
        // Whether running apply again helps is the step before's to say.
        if (before?.status !== 'applied') {
          return finish({ ...outcomeOf(change), status: 'skipped', error: `not started: step ${(change.step?.number ?? 2) - 1} of this change was not applied (${before?.status ?? 'not run'})` });
        }
        // The step before created the item: this one updates what it made.
        if (run.id === null) {
          run = { ...run, id: createdIds.get(change.address) ?? null };
          // Verification re-reads this step's item by that id too.
          if (run.id !== null) createdIds.set(changeKey(change), run.id);
        }
      }
      // An item of a parent this apply created (a new role's members): the parent's new id.
      const parent = execution.scope.parent;
      if (parent && parent.id === null) {
        const parentAddress = addressOf(parent.kind, execution.scope.organization, parentAddressKey(execution.scope) ?? parentItemKey(parent));
        const id = createdIds.get(parentAddress);
        if (id === undefined) return finish({ ...outcomeOf(change), status: 'skipped', error: `not started: its ${parent.kind.replace(/_/g, ' ')} ${parent.key} ${notCreated(parentAddress)}` });
        run = { ...run, scope: withParentId(execution.scope, id) };
      }
      if (holdsDeferred(execution.values)) {
        const filled = fillDeferred(execution.values, createdIds);
        if (filled.missing !== undefined) return finish({ ...outcomeOf(change), status: 'skipped', error: `not started: it refers to ${filled.missing}, which ${notCreated(filled.missing)}` });
        run = { ...run, values: filled.value as Record<string, unknown> };
        sent.set(changeKey(change), run.values);
      }
      options.onStart?.(change, ++started, total);
      const { outcome, networkError, created, stopped, stoppedBudget, error, id, waits, noId } = await executeOne(change, run, api);
      if (id !== undefined) createdIds.set(change.address, id);
      if (noId) {
        withoutId.add(change.address);
        // The next plan finds what the create made, by its name, and goes on from there.
        again = true;
      }
      if (stopped) {
        // An endpoint budget's stop holds only that endpoint's changes (the limiter refuses them
        // unsent); the general windows' stop ends the run's sending.
        if (!stoppedBudget) rateLimited ??= stopped;
        again = true;
      }
      if (created && created.length > 0) notes.set(changeKey(change), created);
      unreachableInARow = networkError ? unreachableInARow + 1 : 0;
      if (!unreachable && isHogsyncError(error) && error.unreachable) unreachable = `the API${error.host === undefined ? '' : ` at ${error.host}`} could not be reached (see the first failure)`;
      if (!unreachable && unreachableInARow >= UNREACHABLE_AFTER) unreachable = `the API${isHogsyncError(error) && error.host !== undefined ? ` at ${error.host}` : ''} stopped answering (${UNREACHABLE_AFTER} changes in a row could not reach it)`;
      if (outcome.status === 'failed') {
        if (againHelps(error)) again = true;
        // A refusal that clears by itself: running apply again later converges.
        if (waits) {
          again = true;
          waiting = true;
        }
        const status = isHogsyncError(error) ? error.request?.status : undefined;
        if (status === 401) hints.add(ADVICE_401);
        if (status === 403 && isHogsyncError(error)) hints.add(adviceFor403(error.message));
      }
      if (outcome.status === 'failed' && change.action === 'delete') {
        failedDeletes.add(conflictKey(execution));
        const status = isHogsyncError(error) ? error.request?.status : undefined;
        // Any answer but a refusal of the key: the re-read decides whether the item is gone (a grant
        // whose role went meanwhile answers 400, yet nothing is left to do).
        if (status !== 401 && status !== 403) uncertainDeletes.push(change.address);
      }
      finish(outcome);
    });
  }

  const ordered = result.plan.changes.map((c) => outcomes.get(changeKey(c)) as ChangeOutcome);
  const summary = summarize(ordered);
  // Verification (src/apply/verify.ts) reports beside this, after the changed items are re-read.
  return {
    outcomes: ordered, summary, warnings: [], notes, hints: [...hints], againHelps: again,
    ...(waiting ? { waits: true } : {}), ...(uncertainDeletes.length > 0 ? { uncertainDeletes } : {}), ...(sent.size > 0 ? { sent } : {}),
    ...(createdIds.size > 0 ? { created: createdIds } : {}),
  };
}

/** Counts of the outcomes by status. */
export function summarize(outcomes: readonly ChangeOutcome[]): ApplySummary {
  const summary: ApplySummary = { applied: 0, failed: 0, skipped: 0 };
  for (const o of outcomes) summary[o.status] = (summary[o.status] ?? 0) + 1;
  return summary;
}

/** The id a create answered with, when it answered a record with one (not an empty one, nor the text of a missing one). */
function liveIdOf(kind: Execution['kind'], record: LiveRecord): string | number | undefined {
  try {
    const id = kind.liveId(record);
    if (typeof id === 'number') return Number.isFinite(id) ? id : undefined;
    return typeof id === 'string' && id !== '' && !/(^|:)(undefined|null)$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

function conflictKey(execution: Execution): string {
  return `${execution.kind.name}|${execution.scope.organization}|${parentKeyOf(execution.scope) ?? ''}|${execution.kind.matchKey(execution.identity)}`;
}

function callFor(change: Change, execution: Execution): HttpCall {
  const { kind, scope, id, values } = execution;
  if (change.action === 'create') return kind.createCall(scope, execution.identity, values);
  if (id === null) throw new Error(`${change.address} has no live id`);
  return change.action === 'update' ? kind.updateCall(scope, id, values, execution.live) : kind.deleteCall(scope, id);
}

async function executeOne(change: Change, execution: Execution, api: ApiPort): Promise<{ outcome: ChangeOutcome; networkError: boolean; created?: readonly string[]; stopped?: string; stoppedBudget?: string; error?: unknown; id?: string | number; waits?: boolean; noId?: boolean }> {
  const base = outcomeOf(change);
  const kind = execution.kind;
  // The calls of a change with follow-ups that succeeded, for the report of one that fails among them.
  const done: string[] = [];
  try {
    const call = callFor(change, execution);
    // A delete made by another method (a flag's PATCH deleted, an access rule's PUT null) may also answer 200.
    const okStatuses = change.action === 'create' ? [...kind.createStatuses] : change.action === 'delete' ? [...kind.deleteStatuses, ...(call.method === 'DELETE' ? [] : [200])] : [200];
    // 409 is read here: a change held for approval, or a conflict with a concurrent edit.
    const { status, body } = await api.request<LiveRecord | null>(call.method, call.path, { body: call.body, okStatuses: [...okStatuses, 409] });
    if (status === 409) return { outcome: conflictOutcome(change, call, body), networkError: false };
    const record = body !== null && typeof body === 'object' && !Array.isArray(body) ? body : null;
    const id = change.action === 'create' && record ? liveIdOf(kind, record) : undefined;
    if (change.action === 'create' && id === undefined && !kind.createdInPlace) {
      // Whatever the API made, nothing can address it: not applied, and nothing runs on an unknown id.
      const error = `${call.method} ${call.path} → ${status}: the API answered the create without the ${labelOf(kind)}'s id, so nothing can refer to it; `
        + 'it may exist now: plan again to see';
      return { outcome: { ...base, status: 'failed', error }, networkError: false, noId: true };
    }
    const created = change.action === 'create' && record && kind.created ? kind.created(record, execution.identity) : undefined;
    const outcome: ChangeOutcome = { ...base, status: 'applied', ...created?.fields };
    const writtenId = id ?? execution.id;
    if (kind.afterWrite && change.action !== 'delete' && record && writtenId !== undefined && writtenId !== null) {
      await kind.afterWrite({ action: change.action, scope: execution.scope, id: writtenId, values: execution.values, record }, api);
    }
    // Calls that must follow this one (an experiment's lifecycle), each only once the one before succeeded.
    const steps: string[] = [];
    if (kind.followUps && change.action !== 'delete' && writtenId !== null && writtenId !== undefined) {
      done.push(`${call.method} ${call.path}`);
      for (const next of kind.followUps(change.action, execution.scope, writtenId, execution.values, execution.live)) {
        await api.request(next.method, next.path, { body: next.body, okStatuses: [200, 201] });
        done.push(`${next.method} ${next.path}`);
        steps.push(`then ${next.method} ${next.path}`);
      }
    }
    const notes = [...(created?.notes ?? []), ...steps];
    return { outcome, networkError: false, ...(notes.length > 0 ? { created: notes } : {}), ...(id !== undefined ? { id } : {}) };
  } catch (err) {
    if (isRateLimitStop(err)) {
      // The API refused it (429) or it was never sent: not applied, and a later run applies it.
      const reason = `not sent: ${err.message}; run apply again then`;
      return { outcome: { ...base, status: 'skipped', error: reason }, networkError: false, stopped: reason, ...(err.budget ? { stoppedBudget: err.budget } : {}) };
    }
    const message = isHogsyncError(err) ? err.format() : err instanceof Error ? err.message : String(err);
    const status = isHogsyncError(err) ? err.request?.status : undefined;
    // Part of the change was made (an experiment ended, not yet archived): say what, and that the next plan resumes from there.
    const after = done.length > 0 ? `after ${done.join(' and ')}: ` : '';
    const resumes = done.length > 0 ? ' (what was done stays; plan again to see what is left)' : '';
    const explained = `${after}${kind.explainFailure?.(change.action, message, status) ?? message}${resumes}`;
    const waits = kind.waitFor?.(change.action, message, status);
    const error = waits === undefined ? explained : `${explained} (${waits})`;
    return { outcome: { ...base, status: 'failed', error }, networkError: isHogsyncError(err) && err.code === 'network', error: err, waits: waits !== undefined };
  }
}

/**
 * A 409: held for approval (`approval_required`, or `change_request_pending` when a request is
 * already open) is `pending` with the change request's id; anything else failed, a conflict
 * with a concurrent edit said as such. Neither is retried: only a person can resolve them.
 */
function conflictOutcome(change: Change, call: HttpCall, body: unknown): ChangeOutcome {
  const base = outcomeOf(change);
  const b = body !== null && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : {};
  const where = `${call.method} ${call.path} → 409`;
  if ((b.code === 'approval_required' || b.code === 'change_request_pending') && b.change_request_id !== undefined) {
    const id = String(b.change_request_id);
    const why = typeof b.message === 'string' ? b.message : typeof b.error === 'string' ? b.error : 'approval required';
    const held = b.code === 'change_request_pending' ? 'a change request for it is already open' : 'held for approval';
    return { ...base, status: 'pending', change_request_id: id, error: `${held} (change request ${id}): ${why}; approve it in the web app, then run apply again` };
  }
  const message = errorMessage(409, 'application/json', JSON.stringify(body ?? null));
  const conflict = b.code === 'conflict' || /since you started editing|changed since/i.test(message);
  return { ...base, status: 'failed', error: conflict ? `changed since planned: ${where}: ${message} (plan again to see the current state)` : `${where}: ${message}` };
}
