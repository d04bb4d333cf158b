// `hogsync export`: writes the live workspace of one organization (its UUID, slug or @current;
// default @current), optionally only some of its projects, as configuration YAML, to stdout or
// atomically to --out, with the variables to set for its secrets and the kinds it left out on stderr.
import { labelOf } from '../resources/kind.js';
import { KINDS } from '../resources/registry.js';
import { exportWorkspace } from '../usecases/export.js';
import { printable } from '../util/printable.js';
import { writeOutFile } from '../util/out-file.js';
import { terminalObserver } from './context.js';
import { apiSettings, kindOptions, organizationOption, projectOptions } from './options.js';

function plural(n: number, kind: string): string {
  const known = KINDS.find((k) => k.name === kind);
  const name = known ? labelOf(known) : kind.replace(/_/g, ' ');
  return `${n} ${n === 1 ? name : `${name}s`}`;
}

export async function run(_args: string[], opts: Record<string, unknown>): Promise<number> {
  const organization = organizationOption(opts.organization);
  const projects = projectOptions(opts.project);
  const settings = apiSettings(opts);
  const out = typeof opts.out === 'string' ? opts.out : undefined;
  const kinds = kindOptions(opts.kind);
  const result = await exportWorkspace({ organization, projects, shared: opts.shared === true, allFields: opts.allFields === true, outFile: out, kinds },
    settings, terminalObserver(opts));
  if (out) await writeOutFile(out, result.text);
  else process.stdout.write(result.text);

  for (const warning of result.warnings) process.stderr.write(`export: warning: ${printable(warning)}\n`);
  if (result.variables.length > 0) {
    process.stderr.write(`export: set these environment variables before plan: ${result.variables.map((v) => v.name).join(', ')}\n`);
  }
  // Kinds written only on request are named, so that leaving them out is never silent.
  const left = result.notExported.length === 0 ? ''
    : `${result.notExported.map((k) => `${labelOf(k)}s`).join(', ')} not exported: pass ${result.notExported.map((k) => `--kind ${k.configKey}`).join(' ')}`;
  if (out) {
    const counts = result.counts.map((c) => plural(c.count, c.kind)).join(', ');
    process.stderr.write(`Exported ${counts} to ${printable(out)}${left ? `; ${left}` : ''}\n`);
  } else if (left) {
    process.stderr.write(`export: ${left}\n`);
  }
  return 0;
}
