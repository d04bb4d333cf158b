// `hogsync validate`: checks configuration files offline (schema, interpolation, duplicates)
// and prints every problem as file:line:col: message, then a summary; exit 0 valid, 1 invalid.
// Warnings are printed beside errors, never instead of them.
import { ConfigErrors, formatConfigErrors, loadConfig, type ConfigProblem } from '../config/load.js';
import type { DesiredState } from '../config/model.js';
import { formatPosition, plural, sortProblems } from '../config/problems.js';
import { undeclaredReferenceWarnings } from '../config/references.js';
import { labelOf } from '../resources/kind.js';
import { KINDS } from '../resources/registry.js';
import { printable } from '../util/printable.js';
import { unsetValues } from '../config/unset.js';
import { writeAnnotations } from './annotations.js';

/** `N files valid: 1 organization, 2 projects, …`: the kinds the files declare (a workspace has about thirty). */
export function summarize(state: DesiredState): string {
  const counts = KINDS.flatMap((kind) => {
    const n = state.organizations.reduce((sum, org) => sum + org.items.filter((i) => i.kind === kind.name).length, 0);
    return n > 0 ? [plural(n, labelOf(kind))] : [];
  });
  return `${plural(state.sources.length, 'file')} valid: ${[plural(state.organizations.length, 'organization'), ...counts].join(', ')}`;
}

function printWarnings(warnings: readonly ConfigProblem[]): void {
  for (const w of warnings) process.stderr.write(`${printable(`${formatPosition(w.position)}: warning: ${w.message}`)}\n`);
}

export async function run(args: string[], _opts: Record<string, unknown>): Promise<number> {
  let state: DesiredState;
  try {
    // An unset write-only secret is only needed by an apply that sends it (PRODUCT.md): a note here.
    state = await loadConfig(args, process.env, { deferUnsetWriteOnly: true });
  } catch (err) {
    if (!(err instanceof ConfigErrors)) throw err;
    printWarnings(err.warnings);
    process.stderr.write(`${formatConfigErrors(err.problems)}\n`);
    writeAnnotations([
      ...err.problems.map((p) => ({ level: 'error' as const, ...p })),
      ...err.warnings.map((w) => ({ level: 'warning' as const, ...w })),
    ]);
    return 1;
  }
  const warnings = sortProblems([...(state.warnings ?? []), ...undeclaredReferenceWarnings(state)], state.sources);
  printWarnings(warnings);
  writeAnnotations(warnings.map((w) => ({ level: 'warning' as const, ...w })));
  for (const { names, positions } of unsetValues().values()) {
    for (const position of positions) {
      process.stderr.write(`${printable(`${formatPosition(position)}: note: environment variable ${names.join(', ')} is not set: a write-only secret, needed only by an apply that sends it (a create, --resend-secrets)`)}\n`);
    }
  }
  process.stdout.write(`${summarize(state)}\n`);
  return 0;
}
