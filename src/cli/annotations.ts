// GitHub Actions workflow annotations: in a job (`GITHUB_ACTIONS=true`, which the Action sets),
// every error and warning at a file:line:col, and each planned change at its `declared_at`, is
// also written as a workflow command (`::error file=…,line=…,col=…::message`), so a pull
// request shows it on the line that caused it. They go to stderr: the runner reads workflow
// commands from both streams, and stdout may carry the plan's JSON or Markdown.
import { isAbsolute, relative, resolve } from 'node:path';
import { ConfigErrors } from '../config/problems.js';
import { HogsyncError, type FilePosition } from '../errors.js';
import type { Plan } from '../plan/types.js';
import { printable } from '../util/printable.js';
import { redactKey } from './output.js';

export type AnnotationLevel = 'error' | 'warning' | 'notice';

export function inGitHubActions(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GITHUB_ACTIONS === 'true';
}

/** A message as GitHub's toolkit escapes command data (`escapeData`). */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A property value as GitHub's toolkit escapes it (`escapeProperty`). */
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** The file as the repository names it: annotations are placed by paths relative to the checkout. */
function repositoryPath(file: string, env: NodeJS.ProcessEnv): string {
  const root = env.GITHUB_WORKSPACE || process.cwd();
  const absolute = isAbsolute(file) ? file : resolve(process.cwd(), file);
  const inside = relative(root, absolute);
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside.split('\\').join('/') : file;
}

/** One workflow command line (without its newline). */
export function annotation(level: AnnotationLevel, position: FilePosition, message: string, env: NodeJS.ProcessEnv = process.env): string {
  const where = `file=${printable(escapeProperty(repositoryPath(position.file, env)))},line=${position.line},col=${position.col}`;
  // Other control characters (which could forge a command of their own) are shown as escapes.
  return `::${level} ${where}::${printable(escapeData(redactKey(message)))}`;
}

/** Writes the annotations when running in a GitHub Actions job; nothing otherwise. */
export function writeAnnotations(items: ReadonlyArray<{ level: AnnotationLevel; position: FilePosition; message: string }>, env: NodeJS.ProcessEnv = process.env): void {
  if (!inGitHubActions(env) || items.length === 0) return;
  process.stderr.write(items.map((a) => `${annotation(a.level, a.position, a.message, env)}\n`).join(''));
}

/**
 * `file:line:col: message` lines (plan warnings are strings) and `file:line:col` (a change's
 * `declared_at`) split into a position and a message, where the file is one of `files`: only
 * positions in the configuration are annotated.
 */
export function positionedLine(line: string, files: readonly string[]): { position: FilePosition; message: string } | undefined {
  for (const file of files) {
    if (!line.startsWith(`${file}:`)) continue;
    const m = /^(\d+):(\d+)(?:: ([\s\S]*))?$/.exec(line.slice(file.length + 1));
    if (m) return { position: { file, line: Number(m[1]), col: Number(m[2]) }, message: m[3] ?? '' };
  }
  return undefined;
}

/** The annotations of an error the CLI reports: each problem of the files at its line (and the warnings beside them). */
export function errorAnnotations(err: unknown): Array<{ level: AnnotationLevel; position: FilePosition; message: string }> {
  if (err instanceof ConfigErrors) {
    return [
      ...err.problems.map((p) => ({ level: 'error' as const, ...p })),
      ...err.warnings.map((w) => ({ level: 'warning' as const, ...w })),
    ];
  }
  return err instanceof HogsyncError && err.position ? [{ level: 'error', position: err.position, message: err.message }] : [];
}

/** A plan's annotations: its warnings at their lines, and each change a notice at each line that caused it. */
export function planAnnotations(plan: Plan): Array<{ level: AnnotationLevel; position: FilePosition; message: string }> {
  const out: Array<{ level: AnnotationLevel; position: FilePosition; message: string }> = [];
  for (const warning of plan.warnings) {
    const at = positionedLine(warning, plan.sources);
    if (at) out.push({ level: 'warning', ...at });
  }
  for (const change of plan.changes) {
    const fields = change.fields.map((f) => f.path);
    const message = `${change.action} ${change.address}${change.action === 'update' && fields.length > 0 ? ` (${fields.join(', ')})` : ''}`;
    for (const declared of new Set(change.declared_at ?? [])) {
      const at = positionedLine(declared, plan.sources);
      if (at) out.push({ level: 'notice', position: at.position, message });
    }
  }
  return out;
}
