// `hogsync plan`: read live state, show what apply would change; optionally save the plan.
import { renderJson } from '../render/json.js';
import { renderPlan } from '../render/index.js';
import { planFiles } from '../usecases/plan.js';
import { printable } from '../util/printable.js';
import { writeOutFile } from '../util/out-file.js';
import { terminalObserver } from './context.js';
import { apiSettings, previewOptions, targetOptions } from './options.js';
import { useColor } from './output.js';
import { planAnnotations, writeAnnotations } from './annotations.js';

export async function run(args: string[], opts: Record<string, unknown>): Promise<number> {
  const settings = apiSettings(opts);
  const { plan } = await planFiles(args, settings, {
    kind: 'plan', ...previewOptions(opts), safetyWarnings: true,
    // --attribute: who set each live value the plan changes (off by default: plans run on every pull request).
    attribution: opts.attribute === true,
  }, terminalObserver(opts), targetOptions(opts));
  if (typeof opts.out === 'string') await writeOutFile(opts.out, renderJson(plan));
  const format = String(opts.format ?? 'text');
  process.stdout.write(renderPlan(plan, format, { color: useColor(opts) }));
  writeAnnotations(planAnnotations(plan));
  if (typeof opts.out === 'string' && format !== 'json') process.stderr.write(`Saved the plan to ${printable(opts.out)}; apply it with: hogsync apply --plan ${printable(opts.out)}\n`);
  const changed = plan.changes.length > 0;
  return opts.detailedExitcode === true && changed ? 2 : 0;
}
