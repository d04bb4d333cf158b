// `hogsync drift`: the plan read as a report of where live state left the files; exit 2 on drift.
// No blast radius here: a scheduled job reports state, and may hold a read-only key.
import { renderJson } from '../render/json.js';
import { renderJunit } from '../render/junit.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderText } from '../render/text.js';
import { closingLine } from '../render/values.js';
import { printable } from '../render/printable.js';
import { writeOutFile } from '../util/out-file.js';
import { apiSettings, planFromFiles } from './context.js';
import { useColor } from './output.js';

export async function run(args: string[], opts: Record<string, unknown>): Promise<number> {
  const settings = apiSettings(opts);
  const { result, client } = await planFromFiles(args, settings, 'drift', false);
  await client.close();
  const plan = result.plan;
  const format = String(opts.format ?? 'text');
  const toFile = typeof opts.out === 'string';
  const report = format === 'json' ? renderJson(plan)
    : format === 'markdown' ? renderMarkdown(plan)
    : format === 'junit' ? renderJunit(plan)
    : renderText(plan, { color: !toFile && useColor(opts) });
  if (toFile) {
    await writeOutFile(opts.out as string, report);
    process.stdout.write(`${closingLine(plan)} Report written to ${printable(opts.out as string)}.\n`);
  } else {
    process.stdout.write(report);
  }
  return plan.changes.length > 0 ? 2 : 0;
}
