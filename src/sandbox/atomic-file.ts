// Crash-safe file replacement: write a sibling temp file, fsync it, rename it over the target,
// then fsync the directory. A reader (or a restart after SIGKILL) sees the old or the new
// content, never a torn one.
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
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
