// Crash-safe file replacement: write a sibling temp file, fsync it, rename it over the target,
// then fsync the directory. A reader (or a restart after SIGKILL) sees the old or the new
// content, never a torn one. Used for the sandbox's state and for the CLI's --out files.
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { HogsyncError } from '../errors.js';

export async function writeFileAtomic(path: string, content: string, mode = 0o644): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    const handle = await open(tmp, 'w', mode);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    // Name the file the caller asked for, not the temporary one.
    const why = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new HogsyncError('usage', `cannot write ${path}: ${why}`, { cause: err });
  }
  await syncDirectory(dirname(path));
}

/** Makes the rename itself durable; some platforms cannot open a directory, which is fine. */
async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Best effort only: the rename is already atomic.
  } finally {
    await handle?.close();
  }
}
