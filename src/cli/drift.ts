// `hogsync drift`: the plan read as a report of where live state left the files; exit 2 on drift.
import { renderPlan } from '../render/index.js';
import { closingLine, findingsOf } from '../render/values.js';
import { driftFiles } from '../usecases/drift.js';
import { printable } from '../util/printable.js';
import { writeOutFile } from '../util/out-file.js';
import { terminalObserver } from './context.js';
import { apiSettings, sinceOption, targetOptions } from './options.js';
import { useColor } from './output.js';

export async function run(args: string[], opts: Record<string, unknown>): Promise<number> {
  const since = typeof opts.since === 'string' ? sinceOption(opts.since, Date.now()) : undefined;
  const settings = apiSettings(opts);
  const { plan } = await driftFiles(args, settings, terminalObserver(opts), targetOptions(opts), { failOnUnmanaged: opts.failOnUnmanaged === true, ...(since ? { since } : {}) });
  const format = String(opts.format ?? 'text');
  const toFile = typeof opts.out === 'string';
  const report = renderPlan(plan, format, { color: !toFile && useColor(opts) });
  if (toFile) {
    await writeOutFile(opts.out as string, report);
    process.stdout.write(`${closingLine(plan)} Report written to ${printable(opts.out as string)}.\n`);
  } else {
    process.stdout.write(report);
  }
  // Live items that no file declares count as drift only when asked (the report says so too).
  return findingsOf(plan) > 0 ? 2 : 0;
}
