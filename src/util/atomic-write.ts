// Writes a file so that readers see the old content or the new, never a torn one.
import { renameSync, writeFileSync, rmSync } from 'node:fs';
import { HogsyncError } from '../errors.js';

export function writeFileAtomic(path: string, content: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, content, { mode: 0o644 });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    // Name the file the user asked for, not the temporary one.
    const why = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
    throw new HogsyncError('usage', `cannot write ${path}: ${why}`);
  }
}
