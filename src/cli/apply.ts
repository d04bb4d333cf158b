// `hogsync apply`: the apply use case on a terminal: confirmation, Ctrl-C, the report and
// the exit code (3 when a safety rule refuses).
import { createInterface } from 'node:readline/promises';
import { HogsyncError } from '../errors.js';
import type { Plan } from '../plan/types.js';
import { renderApplyJson, renderApplyText } from '../render/apply-report.js';
import { printable } from '../util/printable.js';
import { renderText } from '../render/text.js';
import { applyFiles } from '../usecases/apply.js';
import { terminalObserver } from './context.js';
import { apiSettings, previewOptions, safetyOptions, targetOptions } from './options.js';
import { useColor } from './output.js';

export const EXIT_SAFETY = 3;

async function ask(count: number): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`\nApply ${count} change${count === 1 ? '' : 's'}? Only 'yes' is accepted: `);
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}

export async function run(args: string[], opts: Record<string, unknown>): Promise<number> {
  const settings = apiSettings(opts);
  const format = String(opts.format ?? 'text');
  const safety = safetyOptions(opts);

  const confirm = async (plan: Plan): Promise<boolean> => {
    if (opts.autoApprove === true) {
      if (format === 'text') process.stdout.write(renderText(plan, { color: useColor(opts) }));
      return true;
    }
    if (!process.stdin.isTTY) {
      throw new HogsyncError('usage', 'apply needs confirmation but there is no terminal to ask on: review the plan, then pass --auto-approve');
    }
    process.stderr.write(renderText(plan, { color: useColor(opts, process.stderr) }));
    return ask(plan.changes.length);
  };

  // First Ctrl-C while changes run: start nothing new, let those in flight finish and report them all.
  const interruptible = async <T>(execute: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    const onSignal = () => {
      if (!controller.signal.aborted) process.stderr.write('\ninterrupted: finishing the changes in flight, starting no more (Ctrl-C again to force)\n');
      else process.exit(130);
      controller.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      return await execute(controller.signal);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  };
  const planFile = typeof opts.plan === 'string' ? opts.plan : undefined;
  // The plan is shown before confirmation (and with --auto-approve in text): with its blast radius.
  const { previews, maxPreviews } = previewOptions(opts);
  const showPlan = (format === 'text' || opts.autoApprove !== true) && previews;
  const result = await applyFiles({ paths: args, planFile, safety, confirm, interruptible, showPlan, ...(maxPreviews === undefined ? {} : { maxPreviews }), targets: targetOptions(opts).addresses }, settings, terminalObserver(opts));

  const meta = { base_url: result.plan.base_url, fingerprint: result.plan.fingerprint };
  switch (result.status) {
    case 'refused':
      for (const v of result.violations) process.stderr.write(`refused: ${printable(v.message)}; to allow it, pass ${v.allowWith}\n`);
      process.stderr.write('Nothing was applied.\n');
      return EXIT_SAFETY;
    case 'no-changes':
      if (format === 'json') process.stdout.write(renderApplyJson({ outcomes: [], summary: { applied: 0, failed: 0, skipped: 0 }, warnings: [], notes: new Map() }, meta));
      else process.stdout.write('No changes. Live state matches the configuration.\n');
      return 0;
    case 'cancelled':
      process.stderr.write('Apply cancelled; nothing was changed.\n');
      return 1;
    case 'applied': {
      const { report } = result;
      process.stdout.write(format === 'json' ? renderApplyJson(report, meta) : renderApplyText(report));
      // Changes that could not be re-read are unverified: not a success either.
      return report.summary.failed + report.summary.skipped + (report.summary.pending ?? 0) === 0 && report.unverified === undefined ? 0 : 1;
    }
  }
}
