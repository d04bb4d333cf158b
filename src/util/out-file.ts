// Where the CLI's `--out FILE` goes. A regular file (or a path that does not exist yet) is
// replaced atomically; a symbolic link is followed and its target replaced, the link kept;
// a character device (`/dev/null`, a terminal) or a pipe that has a reader (`/dev/stdout`)
// is written in place, never renamed over; anything else (a directory, a block device, a
// socket, a FIFO nobody reads) is refused. Every write error (ENOSPC, EACCES, …) is an error,
// never "saved".
import { constants, type Stats } from 'node:fs';
import { open, readlink, realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { HogsyncError } from '../errors.js';
import { printable } from './printable.js';
import { writeFileAtomic } from './atomic-write.js';
import { maskSecrets } from './secrets.js';

function cannot(path: string, why: string, cause?: unknown): HogsyncError {
  return new HogsyncError('usage', `cannot write ${printable(path)}: ${why}`, { cause });
}

function errnoOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
}

function describe(s: Stats): string {
  if (s.isDirectory()) return 'it is a directory';
  if (s.isBlockDevice()) return 'it is a block device (a disk), not a file';
  if (s.isSocket()) return 'it is a socket, not a file';
  return 'it is not a regular file';
}

export async function writeOutFile(path: string, text: string): Promise<void> {
  // Reports hold API messages, which may echo a secret that was sent: masked like the terminal.
  const content = maskSecrets(text);
  let target: Stats;
  try {
    target = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A new file (or a link to one): created atomically where the link points.
    if (code === 'ENOENT') return atomically(path, await resolvedNew(path), content);
    throw cannot(path, errnoOf(err), err);
  }
  if (target.isFile()) return atomically(path, await realpath(path), content);
  if (target.isCharacterDevice() || target.isFIFO()) return inPlace(path, target, content);
  throw cannot(path, describe(target));
}

/** For a dangling link, the path it names; otherwise the path itself. */
async function resolvedNew(path: string): Promise<string> {
  try {
    return resolve(dirname(path), await readlink(path));
  } catch {
    return path;
  }
}

async function atomically(asked: string, real: string, content: string): Promise<void> {
  try {
    await writeFileAtomic(real, content);
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause ?? err;
    throw cannot(asked, errnoOf(cause), err);
  }
}

/** Devices and pipes are written through, never replaced. A FIFO without a reader is refused rather than waited on. */
async function inPlace(path: string, target: Stats, content: string): Promise<void> {
  if (target.isFIFO()) {
    try {
      const probe = await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
      await probe.close();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENXIO') throw cannot(path, 'it is a pipe that nothing reads');
      throw cannot(path, errnoOf(err), err);
    }
  }
  let handle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_NOCTTY);
    await handle.writeFile(content, 'utf8');
  } catch (err) {
    throw cannot(path, errnoOf(err), err);
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
