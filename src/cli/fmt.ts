// `hogsync fmt [PATHS...] [--check]`: rewrites configuration files in one canonical layout
// (src/config/format.ts), each atomically, naming the files it changed; `--check` changes
// nothing and exits 2 naming the files that differ. A file that does not parse is an error at
// file:line:col (exit 1), and then nothing is written at all.
import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { readConfigFile, resolveConfigPaths } from '../config/files.js';
import { formatConfigText } from '../config/format.js';
import { formatConfigErrors, plural, type ConfigProblem } from '../config/problems.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { printable } from '../util/printable.js';

export async function run(args: string[], opts: Record<string, unknown>): Promise<number> {
  const files = await resolveConfigPaths(args);
  const problems: ConfigProblem[] = [];
  const differ: Array<{ file: string; text: string }> = [];
  for (const file of files) {
    const read = await readConfigFile(file);
    if ('problem' in read) {
      problems.push(read.problem);
      continue;
    }
    const result = formatConfigText(file, read.text);
    problems.push(...result.problems);
    if (result.text !== undefined && result.text !== read.text) differ.push({ file, text: result.text });
  }
  if (problems.length > 0) {
    process.stderr.write(`${formatConfigErrors(problems)}\nNothing was written.\n`);
    return 1;
  }
  if (opts.check === true) {
    for (const { file } of differ) process.stdout.write(`${printable(file)}: not in the canonical layout\n`);
    process.stdout.write(differ.length === 0
      ? `${plural(files.length, 'file')} in the canonical layout.\n`
      : `${differ.length} of ${plural(files.length, 'file')} would be reformatted: run hogsync fmt.\n`);
    return differ.length === 0 ? 0 : 2;
  }
  for (const { file, text } of differ) {
    // Through a link to the file it points at, keeping that file's permissions.
    const target = await realpath(resolve(file));
    await writeFileAtomic(target, text, (await stat(target)).mode & 0o7777);
    process.stdout.write(`formatted ${printable(file)}\n`);
  }
  process.stdout.write(differ.length === 0
    ? `${plural(files.length, 'file')} already in the canonical layout.\n`
    : `Formatted ${differ.length} of ${plural(files.length, 'file')}.\n`);
  return 0;
}
