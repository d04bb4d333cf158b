// `hogsync apply`: re-plan, check the saved plan and the safety rules, confirm, execute,
// re-read what changed to verify it, report.
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { ApiClient } from '../api/client.js';
import { rereadApplied } from '../api/reread.js';
import { executePlan, type ApplyReport, type ChangeOutcome } from '../apply/execute.js';
import { verifyApplied } from '../apply/verify.js';
import { HogsyncError, isHogsyncError } from '../errors.js';
import type { PlanResult } from '../plan/types.js';
import { parseSavedPlan, staleItems, tamperedItems, type SavedPlan } from '../plan/saved-plan.js';
import { DEFAULT_MAX_DELETE_PERCENT, safetyViolations, safetyWarnings } from '../plan/safety.js';
import { renderApplyJson, renderApplyText, outcomeLine } from '../render/apply-report.js';
import { renderText } from '../render/text.js';
import { printable } from '../render/printable.js';
import { SYMBOL } from '../render/values.js';
import { apiSettings, planFromFiles, progressLine } from './context.js';
import { useColor } from './output.js';

export const EXIT_SAFETY = 3;

/** Reads a saved plan; only a regular file is read (a FIFO or a device would block or never end). */
function readSavedPlan(file: string): SavedPlan {
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

function maxDeletePercent(value: unknown): number {
  const text = String(value ?? DEFAULT_MAX_DELETE_PERCENT);
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 100) throw new HogsyncError('usage', `--max-delete-percent must be a number from 0 to 100, got ${JSON.stringify(value)}`);
  return n;
}

function allowDeletes(value: unknown): string[] {
  const list = Array.isArray(value) ? value.map(String) : [];
  for (const item of list) {
    if (!/^[a-z_]+\/.+$/.test(item)) throw new HogsyncError('usage', `--allow-delete takes KIND/KEY, e.g. project/777, got ${JSON.stringify(item)}`);
  }
  return list;
}

async function confirm(count: number): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`\nApply ${count} change${count === 1 ? '' : 's'}? Only 'yes' is accepted: `);
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}

/** Re-reads what was applied and names what the API did not take; a failure to re-read is a warning. */
async function verify(result: PlanResult, report: ApplyReport, client: ApiClient, parallelism: number): Promise<string[]> {
  const live = progressLine();
  live.update('verifying: re-reading what changed …');
  try {
    return verifyApplied(result, report, await rereadApplied(client, result, report.outcomes, parallelism));
  } catch (err) {
    return [`could not re-read the changes to verify them: ${isHogsyncError(err) ? err.format() : String(err)}`];
  } finally {
    live.done();
  }
}

export async function run(args: string[], opts: Record<string, unknown>): Promise<number> {
  const settings = apiSettings(opts);
  const format = String(opts.format ?? 'text');
  const safety = { allowDelete: allowDeletes(opts.allowDelete), maxDeletePercent: maxDeletePercent(opts.maxDeletePercent) };
  const saved = typeof opts.plan === 'string' ? readSavedPlan(opts.plan) : undefined;
  if (saved && saved.base_url !== settings.baseUrl) {
    throw new HogsyncError('stale_plan', `the plan ${opts.plan} was made against ${saved.base_url}, not ${settings.baseUrl}`);
  }
  const paths = args.length > 0 ? args : saved?.sources ?? [];
  if (saved && args.length === 0) {
    // The plan names its files as they were given to plan, relative to where it ran.
    const gone = paths.filter((p) => !existsSync(p));
    if (gone.length > 0) {
      throw new HogsyncError('usage', `the plan ${opts.plan} was made from ${gone.join(', ')}, not found from ${process.cwd()}: run apply where plan ran, or pass the configuration paths`);
    }
  }
  const { result, client } = await planFromFiles(paths, settings, 'plan', false);
  try {
    const plan = result.plan;
    if (saved && saved.fingerprint !== plan.fingerprint) {
      const items = staleItems(saved, plan);
      const named = items.length > 0 ? `: ${items.join(', ')}` : ' (no item changed: the prune settings changed, or the plan file was edited)';
      throw new HogsyncError('stale_plan', `the plan ${opts.plan} is stale, live state or files changed since it was made${named}. Run plan again.`);
    }
    const edited = saved ? tamperedItems(saved, plan) : [];
    if (edited.length > 0) {
      const shown = edited.slice(0, 5).map(printable).join(', ') + (edited.length > 5 ? ` and ${edited.length - 5} more` : '');
      throw new HogsyncError('stale_plan', `the plan ${opts.plan} was edited: its contents do not match its fingerprint (${shown}). Nothing was applied; run plan again.`);
    }
    const violations = safetyViolations(result, safety);
    if (violations.length > 0) {
      for (const v of violations) process.stderr.write(`refused: ${printable(v.message)}; to allow it, pass ${v.allowWith}\n`);
      process.stderr.write('Nothing was applied.\n');
      return EXIT_SAFETY;
    }
    // The plan warned with the default safety settings; these flags passed the rules.
    const defaultRefusals = new Set(safetyWarnings(result));
    plan.warnings = plan.warnings.filter((w) => !defaultRefusals.has(w));
    if (plan.changes.length === 0) {
      if (format === 'json') process.stdout.write(renderApplyJson({ outcomes: [], summary: { applied: 0, failed: 0, skipped: 0 }, warnings: [] }, { base_url: plan.base_url, fingerprint: plan.fingerprint }));
      else process.stdout.write('No changes. Live state matches the configuration.\n');
      return 0;
    }
    if (opts.autoApprove !== true) {
      if (!process.stdin.isTTY) {
        throw new HogsyncError('usage', 'apply needs confirmation but there is no terminal to ask on: review the plan, then pass --auto-approve');
      }
      process.stderr.write(renderText(plan, { color: useColor(opts, process.stderr) }));
      if (!(await confirm(plan.changes.length))) {
        process.stderr.write('Apply cancelled; nothing was changed.\n');
        return 1;
      }
    } else if (format === 'text') {
      process.stdout.write(renderText(plan, { color: useColor(opts) }));
    }

    // First Ctrl-C: start nothing new, let the changes in flight finish and report them all.
    const controller = new AbortController();
    const onSignal = () => {
      if (!controller.signal.aborted) process.stderr.write('\ninterrupted: finishing the changes in flight, starting no more (Ctrl-C again to force)\n');
      else process.exit(130);
      controller.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const live = progressLine();
    const perLine = process.stderr.isTTY !== true;
    let report;
    try {
      report = await executePlan(result, client, {
        parallelism: settings.parallelism,
        signal: controller.signal,
        onStart: (change, started, total) => live.update(`[${started}/${total}] ${SYMBOL[change.action]} ${printable(change.address)} …`),
        onOutcome: (o: ChangeOutcome, done, total) => { if (perLine) process.stderr.write(`${outcomeLine(o, done, total)}\n`); },
      });
    } finally {
      live.done();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    if (report.summary.applied > 0) report.warnings.push(...(await verify(result, report, client, settings.parallelism)));
    process.stdout.write(format === 'json' ? renderApplyJson(report, { base_url: plan.base_url, fingerprint: plan.fingerprint }) : renderApplyText(report));
    return report.summary.failed + report.summary.skipped === 0 ? 0 : 1;
  } finally {
    await client.close();
  }
}
