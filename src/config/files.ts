// Which files a command reads, and reading them safely: a directory means every *.yaml /
// *.yml directly in it (sorted, dotfiles skipped); no argument means ./hogsync.yaml.
// Paths keep the user's spelling so that errors point where the user looks.
import { isUtf8 } from 'node:buffer';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { HogsyncError, type FilePosition } from '../errors.js';
import type { ConfigProblem } from './problems.js';

export const DEFAULT_CONFIG_FILE = 'hogsync.yaml';
/** Configuration is small; anything bigger is a mistake or an attack on the parser. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;

const YAML_FILE = /\.ya?ml$/i;

function fsError(err: unknown, path: string): HogsyncError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const reason = code === 'ENOENT' ? 'no such file or directory'
    : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : code === 'ENOTDIR' ? 'not a directory'
    : (err as Error | undefined)?.message ?? String(err);
  return new HogsyncError('config', `cannot read ${path}: ${reason}`, { cause: err });
}

/** The files named by the arguments, in order, each once. */
export async function resolveConfigPaths(paths: readonly string[], cwd: string = process.cwd()): Promise<string[]> {
  const given = paths.length === 0 ? [DEFAULT_CONFIG_FILE] : paths;
  const files: string[] = [];
  const seen = new Set<string>();
  const add = async (file: string) => {
    // The same file named twice (or a file and its directory) must not look like duplicates.
    const real = await realpath(resolve(cwd, file)).catch(() => resolve(cwd, file));
    if (seen.has(real)) return;
    seen.add(real);
    files.push(file);
  };
  for (const path of given) {
    let info;
    try {
      info = await stat(resolve(cwd, path));
    } catch (err) {
      if (paths.length === 0 && (err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new HogsyncError('config', `no ${DEFAULT_CONFIG_FILE} in the current directory; pass configuration files or directories`);
      }
      throw fsError(err, path);
    }
    if (info.isDirectory()) {
      let names: string[];
      try {
        names = await readdir(resolve(cwd, path));
      } catch (err) {
        throw fsError(err, path);
      }
      const yamlNames = names.filter((n) => YAML_FILE.test(n) && !n.startsWith('.')).sort();
      if (yamlNames.length === 0) throw new HogsyncError('config', `${path}: no *.yaml or *.yml files in this directory`);
      for (const name of yamlNames) await add(join(path, name));
    } else {
      await add(path);
    }
  }
  return files;
}

export type ReadResult = { text: string } | { problem: ConfigProblem };

/** Reads one file as UTF-8, refusing oversized and non-UTF-8 files as problems of that file. */
export async function readConfigFile(file: string, cwd: string = process.cwd()): Promise<ReadResult> {
  const at = { file, line: 1, col: 1 };
  const full = resolve(cwd, file);
  let bytes: Buffer;
  try {
    const info = await stat(full);
    if (!info.isFile()) return { problem: { position: at, message: 'not a regular file' } };
    if (info.size > MAX_FILE_BYTES) {
      return { problem: { position: at, message: `file is too large: ${info.size} bytes (the limit is ${MAX_FILE_BYTES} bytes, 5 MiB)` } };
    }
    bytes = await readFile(full);
  } catch (err) {
    throw fsError(err, file);
  }
  // The file may have grown between stat and read.
  if (bytes.length > MAX_FILE_BYTES) {
    return { problem: { position: at, message: `file is too large: ${bytes.length} bytes (the limit is ${MAX_FILE_BYTES} bytes, 5 MiB)` } };
  }
  if (!isUtf8(bytes)) return { problem: { position: firstInvalidByte(file, bytes), message: 'file is not valid UTF-8 text; save it as UTF-8' } };
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const control = FORBIDDEN.exec(text);
  if (control) {
    const before = text.slice(0, control.index).split('\n');
    const code = `U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    const what = control[0] === '\u0000' ? `a raw NUL byte (${code})` : `a raw control character (${code})`;
    return { problem: { position: { file, line: before.length, col: before[before.length - 1]!.length + 1 }, message: `${what} is not allowed in YAML; remove it (inside double quotes, write it as an escape such as "\\t")` } };
  }
  // Terraform's habit (`apply plan.json`): said in one line, instead of every schema error of a plan read as configuration.
  if (isSavedPlan(text)) {
    throw new HogsyncError('usage', `this is a saved plan (plan --out), not configuration: run \`hogsync apply --plan ${file}\``, { position: at });
  }
  return { text };
}

/** Whether a file is a plan written by `plan --out` (a JSON object of kind "plan" with a format_version). */
function isSavedPlan(text: string): boolean {
  if (!text.trimStart().startsWith('{')) return false;
  try {
    const doc = JSON.parse(text) as unknown;
    return doc !== null && typeof doc === 'object' && (doc as { kind?: unknown }).kind === 'plan' && (doc as { format_version?: unknown }).format_version !== undefined;
  } catch {
    return false;
  }
}

/** Characters YAML does not allow in a stream: C0 controls except tab and line breaks, DEL, C1 controls except NEL. */
const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f]/;

/** Where decoding first failed: the first replacement character, unless the file has real ones. */
function firstInvalidByte(file: string, bytes: Buffer): FilePosition {
  const text = bytes.toString('utf8');
  const at = text.indexOf('\uFFFD');
  if (at === -1 || bytes.includes(Buffer.from([0xef, 0xbf, 0xbd]))) return { file, line: 1, col: 1 };
  const before = text.slice(0, at).split('\n');
  return { file, line: before.length, col: before[before.length - 1]!.length + 1 };
}
