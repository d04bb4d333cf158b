// `hogsync drift`: not built yet.
import { HogsyncError } from '../errors.js';

export async function run(_args: string[], _opts: Record<string, unknown>): Promise<number> {
  throw new HogsyncError('usage', 'drift is not built yet');
}
