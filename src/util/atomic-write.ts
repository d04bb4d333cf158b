// Writes a file so that readers see the old content or the new, never a torn one.
import { renameSync, writeFileSync, rmSync } from 'node:fs';

export function writeFileAtomic(path: string, content: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, content, { mode: 0o644 });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
