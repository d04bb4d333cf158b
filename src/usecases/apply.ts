// The apply use case: read the saved plan (if any), re-plan, check that the saved plan still
// holds and that the safety rules allow it, ask for confirmation, execute, re-read what
// changed to verify it. The client lives from the re-plan to the verification.
import { MissingScopes } from '../http/advice.js';
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { executePlan, type ApplyReport } from '../apply/execute.js';
import { confirmDeletes, verifyApplied, withVerification } from '../apply/verify.js';
import { loadConfig } from '../config/load.js';
import { HogsyncError, isHogsyncError } from '../errors.js';
import { parseSavedPlan, staleItems, tamperedItems, type SavedPlan } from '../plan/saved-plan.js';
import { printable } from '../util/printable.js';
import { safetyViolations, type SafetyOptions, type SafetyViolation } from '../plan/safety.js';
import { addressOf, changeKey, type Execution, type Plan, type PlanResult } from '../plan/types.js';
import { parentItemKey, withParentId } from '../resources/kind.js';
import type { ApiPort } from '../http/port.js';
import { rereadApplied } from '../state/reread.js';
import { parseTargets, resolveAliases, unmatchedMessage, unmatchedTargets } from '../plan/targeting.js';
import { aliasesOf } from './targeted.js';
import { planWith, scopesBeforeOrganizations } from './plan.js';
import { needsResolving, resolveOrganizations, withResolvedOrganizations } from './organizations.js';
import { withClient, type ApiSettings, type Observer } from './session.js';

export interface ApplyRequest {
  /** Configuration paths; none: the saved plan's sources (or ./hogsync.yaml). */
  paths: string[];
  /** `--plan FILE`: apply exactly this saved plan. */
  planFile?: string;
  safety: SafetyOptions;
  /** `--target` addresses: apply only the matching items (a saved plan brings its own). */
  targets?: readonly string[];
  /** Asked once the plan is known to be safe and not empty; false cancels. */
  confirm(plan: Plan): Promise<boolean>;
  /** The plan will be shown before confirmation: run the kinds' previews (a flag's blast radius) for it. */
  showPlan?: boolean;
  /** `--max-previews`: changes previewed at most. */
  maxPreviews?: number;
  /**
   * Wraps the execution, handing it the signal that interrupts it (aborting starts no more
   * changes; those in flight finish and are reported): the CLI ties it to Ctrl-C for that time.
   */
  interruptible?<T>(execute: (signal: AbortSignal | undefined) => Promise<T>): Promise<T>;
}

export type ApplyResult =
  | { status: 'refused'; plan: Plan; violations: SafetyViolation[] }
  | { status: 'no-changes'; plan: Plan }
  | { status: 'cancelled'; plan: Plan }
  | { status: 'applied'; plan: Plan; report: ApplyReport };

/** Reads a saved plan; only a regular file is read (a FIFO or a device would block or never end). */
export function readSavedPlan(file: string): SavedPlan {
  const shown = printable(file);
  let text: string;
  let fd: number | undefined;
  try {
    // Non-blocking open: a FIFO with no writer must not hang apply before it can be refused.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const kind = fstatSync(fd);
    if (kind.isDirectory()) throw new HogsyncError('usage', `cannot read the plan ${shown}: it is a directory`);
    if (!kind.isFile()) throw new HogsyncError('usage', `cannot read the plan ${shown}: it is not a regular file (a pipe or a device); save the plan with plan --out and pass that file`);
    text = readFileSync(fd, 'utf8');
  } catch (err) {
    if (isHogsyncError(err)) throw err;
    throw new HogsyncError('usage', `cannot read the plan ${shown}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return parseSavedPlan(text, file);
}

export async function applyFiles(request: ApplyRequest, settings: ApiSettings, observer: Observer = {}): Promise<ApplyResult> {
  const saved = request.planFile === undefined ? undefined : readSavedPlan(request.planFile);
  if (saved && saved.base_url !== settings.baseUrl) {
    throw new HogsyncError('stale_plan', `the plan ${request.planFile} was made against ${saved.base_url}, not ${settings.baseUrl}`);
  }
  const paths = request.paths.length > 0 ? request.paths : saved?.sources ?? [];
  if (saved && request.paths.length === 0) {
    // The plan names its files as they were given to plan, relative to where it ran.
    const gone = paths.filter((p) => !existsSync(p));
    if (gone.length > 0) {
      throw new HogsyncError('usage', `the plan ${request.planFile} was made from ${gone.join(', ')}, not found from ${process.cwd()}: run apply where plan ran, or pass the configuration paths`);
    }
  }
  if (saved && (request.targets?.length ?? 0) > 0) {
    throw new HogsyncError('usage', `--target cannot be given with --plan: the plan ${printable(request.planFile ?? '')} applies the targets it was made with${saved.targets ? '' : ' (none)'}`);
  }
  if ((request.targets?.length ?? 0) > 0) parseTargets(request.targets ?? []);
  const desired = await loadConfig(paths, process.env, { deferUnsetWriteOnly: true });
  const given = saved ? saved.targets : (request.targets?.length ?? 0) > 0 ? { addresses: resolveAliases(request.targets ?? [], aliasesOf(desired)) } : undefined;
  return withClient(settings, observer, async (client) => {
    // A target's organization written as the files write it (a slug, `@current`) compares as its UUID.
    const asked = needsResolving(desired) ? await scopesBeforeOrganizations(client, desired, { kind: 'plan' }) : undefined;
    const organizations = await resolveOrganizations(client, desired);
    const targets = given && !saved ? { ...given, addresses: withResolvedOrganizations(given.addresses, organizations) } : given;
    // Apply checks the safety rules with its own options below: no default-option warnings here.
    const { result, plan, lackingWrites } = await planWith(client, desired, settings, {
      kind: 'plan', previews: request.showPlan === true, ...(request.maxPreviews === undefined ? {} : { maxPreviews: request.maxPreviews }), safetyWarnings: false, maxDeletePercent: request.safety.maxDeletePercent, ...(targets ? { targets } : {}),
    }, observer, asked);
    if (saved && saved.fingerprint !== plan.fingerprint) {
      const items = staleItems(saved, plan);
      const named = items.length > 0 ? `: ${items.join(', ')}` : ' (no item changed: the prune settings changed, or the plan file was edited)';
      throw new HogsyncError('stale_plan', `the plan ${request.planFile} is stale, live state or files changed since it was made${named}. Run plan again.`);
    }
    const edited = saved ? tamperedItems(saved, plan) : [];
    if (edited.length > 0) {
      const shown = edited.slice(0, 5).map(printable).join(', ') + (edited.length > 5 ? ` and ${edited.length - 5} more` : '');
      throw new HogsyncError('stale_plan', `the plan ${request.planFile} was edited: its contents do not match its fingerprint (${shown}). Nothing was applied; run plan again.`);
    }
    // A target that matches nothing is a mistake in the command line: apply nothing rather than less than was meant.
    const unmatched = saved ? [] : unmatchedTargets(plan);
    if (unmatched.length > 0) {
      const shown = unmatched.map((a) => request.targets?.[targets?.addresses.indexOf(a) ?? -1] ?? a);
      throw new HogsyncError('usage', `${shown.map(unmatchedMessage).join('; ')}. Nothing was applied.`);
    }
    // Every write scope the changes need, said before the first is sent (not one 403 per run).
    if (lackingWrites && lackingWrites.length > 0) throw new MissingScopes([], lackingWrites);
    const violations = safetyViolations(result, request.safety);
    if (violations.length > 0) return { status: 'refused', plan, violations };
    if (plan.changes.length === 0) return { status: 'no-changes', plan };
    if (!(await request.confirm(plan))) return { status: 'cancelled', plan };

    let executed: ApplyReport;
    try {
      const interruptible = request.interruptible ?? ((execute) => execute(undefined));
      executed = await interruptible((signal) => executePlan(result, client, {
        parallelism: settings.parallelism,
        signal,
        onStart: (change, started, total) => observer.onProgress?.({ type: 'change-started', change, started, total }),
        onOutcome: (outcome, done, total) => observer.onProgress?.({ type: 'change-done', outcome, done, total }),
      }));
    } finally {
      observer.onProgress?.({ type: 'executed' });
    }
    const report = executed.summary.applied > 0 || (executed.uncertainDeletes?.length ?? 0) > 0 ? await verify(result, executed, client, settings.parallelism, observer) : executed;
    return { status: 'applied', plan, report };
  });
}

/**
 * The plan's executions as apply left them: a create with the id it answered, and an item of a
 * parent apply created (a new project's flags, a new role's members) in that parent's id.
 */
function settledResult(result: PlanResult, created: ReadonlyMap<string, string | number> | undefined): PlanResult {
  if (!created || created.size === 0) return result;
  const executions = new Map<string, Execution>();
  for (const [address, e] of result.executions) {
    const parent = e.scope.parent;
    const parentId = parent && parent.id === null ? created.get(addressOf(parent.kind, e.scope.organization, parentItemKey(parent))) : undefined;
    executions.set(address, { ...e, id: e.id ?? created.get(address) ?? null, scope: parentId === undefined ? e.scope : withParentId(e.scope, parentId) });
  }
  return { ...result, executions };
}

/**
 * Re-reads what was applied (and what an uncertain delete may have deleted), settles those
 * deletes, and names what the API did not take; a failure to re-read is a warning.
 */
async function verify(result: PlanResult, executed: ApplyReport, port: ApiPort, parallelism: number, observer: Observer): Promise<ApplyReport> {
  observer.onProgress?.({ type: 'verifying' });
  try {
    const uncertain = new Set(executed.uncertainDeletes ?? []);
    const settled = settledResult(result, executed.created);
    const reread = executed.outcomes
      .filter((o) => o.status === 'applied' || uncertain.has(o.address))
      .map((o) => settled.executions.get(changeKey(o)))
      .filter((e): e is Execution => e !== undefined);
    const after = await rereadApplied(port, reread, parallelism);
    const report = confirmDeletes(result, executed, after);
    return withVerification(report, verifyApplied(settled, report.outcomes, after, executed.sent));
  } catch (err) {
    if (executed.summary.applied === 0) return executed;
    return withVerification(executed, { notTaken: new Map(), warnings: [], unverified: `could not re-read the changes to verify them: ${isHogsyncError(err) ? err.format() : String(err)}` });
  } finally {
    observer.onProgress?.({ type: 'verified' });
  }
}
