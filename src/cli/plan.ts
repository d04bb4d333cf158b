// `hogsync plan`: read live state, show what apply would change; optionally save the plan.
import { renderJson } from '../render/json.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderText } from '../render/text.js';
import { printable } from '../render/printable.js';
import { writeOutFile } from '../util/out-file.js';
import { apiSettings, planFromFiles } from './context.js';
import { useColor } from './output.js';

export async function run(args: string[], opts: Record<string, unknown>): Promise<number> {
  const settings = apiSettings(opts);
  const { result, client } = await planFromFiles(args, settings, 'plan');
  await client.close();
  const plan = result.plan;
  if (typeof opts.out === 'string') await writeOutFile(opts.out, renderJson(plan));
  const format = String(opts.format ?? 'text');
  process.stdout.write(format === 'json' ? renderJson(plan) : format === 'markdown' ? renderMarkdown(plan) : renderText(plan, { color: useColor(opts) }));
  if (typeof opts.out === 'string' && format !== 'json') process.stderr.write(`Saved the plan to ${printable(opts.out)}; apply it with: hogsync apply --plan ${printable(opts.out)}\n`);
  const changed = plan.changes.length > 0;
  return opts.detailedExitcode === true && changed ? 2 : 0;
}
