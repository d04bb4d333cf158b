// Configuration problems: a message at a file position. Loading collects every problem of
// every file and throws them together as one ConfigErrors, so a user fixes them in one pass.
import { HogsyncError, type FilePosition } from '../errors.js';
import { printable } from '../util/printable.js';

export interface ConfigProblem { position: FilePosition; message: string }

export function formatPosition(p: FilePosition): string {
  return `${p.file}:${p.line}:${p.col}`;
}

export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`;
}

/** Problems in a stable order: by file (in the order given), then line, then column. */
export function sortProblems(problems: readonly ConfigProblem[], files: readonly string[]): ConfigProblem[] {
  const rank = (f: string) => { const i = files.indexOf(f); return i === -1 ? files.length : i; };
  const seen = new Set<string>();
  return [...problems]
    .sort((a, b) => rank(a.position.file) - rank(b.position.file) || a.position.line - b.position.line
      || a.position.col - b.position.col || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0))
    .filter((p) => {
      const id = `${formatPosition(p.position)}\0${p.message}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
}

/** `file:line:col: message` per problem, then `N errors in M files`. */
export function formatConfigErrors(problems: readonly ConfigProblem[]): string {
  const files = new Set(problems.map((p) => p.position.file));
  // File names and messages quote what the files hold: made printable, like every untrusted string.
  const lines = problems.map((p) => printable(`${formatPosition(p.position)}: ${p.message}`));
  lines.push(`${plural(problems.length, 'error')} in ${plural(files.size, 'file')}`);
  return lines.join('\n');
}

export class ConfigErrors extends HogsyncError {
  readonly problems: readonly ConfigProblem[];
  /** What the same files would have been warned about (a deprecated field, `$SLACK_WEBHOOK`): said beside the errors, not dropped. */
  readonly warnings: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[], warnings: readonly ConfigProblem[] = []) {
    if (problems.length === 0) throw new Error('ConfigErrors needs at least one problem');
    const first = problems[0]!;
    super('config', first.message, { position: first.position });
    this.name = 'ConfigErrors';
    this.problems = problems;
    this.warnings = warnings;
  }

  /** Every problem, one per line, and the summary: what a user needs to fix the files. */
  override format(): string {
    return formatConfigErrors(this.problems);
  }
}
