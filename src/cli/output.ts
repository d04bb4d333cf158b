// Terminal output shared by the verbs: colour decisions and the one-line error report.
import { isHogsyncError } from '../errors.js';
import { printable } from '../util/printable.js';
import { maskSecrets } from '../util/secrets.js';

export function useColor(opts: { color?: unknown }, stream: NodeJS.WriteStream = process.stdout): boolean {
  if (opts.color === false) return false;
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}

/**
 * Prints an error as one line (stack only with --verbose) and never the API key; under it, where
 * doing something can help, one `hint:` line saying what.
 */
export function reportError(err: unknown, verbose: boolean, hint?: string): void {
  const text = isHogsyncError(err) ? err.format() : err instanceof Error ? err.message : String(err);
  // API messages are untrusted text: no control characters reach the terminal.
  const lines = redactKey(text).split('\n').map(printable).join('\n');
  process.stderr.write(`error: ${lines}\n`);
  if (hint !== undefined) process.stderr.write(`hint: ${printable(redactKey(hint))}\n`);
  if (verbose && err instanceof Error && err.stack) process.stderr.write(`${redactKey(err.stack)}\n`);
}

/** Removes the API key and every known secret from any text that is about to leave the process. */
export function redactKey(text: string): string {
  return maskSecrets(text);
}
