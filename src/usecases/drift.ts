// The drift use case: the plan read as a report of where live state left the files, with who
// changed each drifted item and when (activity log). No previews: a scheduled job reports
// state, and may hold a read-only key. With `since`, a change feed: only what the activity logs
// name since then is read again (src/plan/since.ts), plus the kinds they do not record.
import { HogsyncError } from '../errors.js';
import { failingOnUnmanaged } from '../plan/types.js';
import { planFiles, type Planned } from './plan.js';
import type { ApiSettings, Observer } from './session.js';
import type { TargetRequest } from './targeted.js';

export interface DriftOptions {
  /** Live items no file declares are findings of the report (`--fail-on-unmanaged`). */
  failOnUnmanaged?: boolean;
  /** `--since`: the start of the window (see src/plan/since.ts parseSince). */
  since?: Date;
}

export async function driftFiles(paths: string[], settings: ApiSettings, observer: Observer = {}, targeting: TargetRequest = {}, options: DriftOptions = {}): Promise<Planned> {
  if (options.since && targeting.changedSince !== undefined) {
    // One asks what the files changed since a revision, the other what changed live since a time:
    // their intersection would be neither. Two runs answer both.
    throw new HogsyncError('usage', '--since and --changed-since cannot be combined: --since reports what changed live since a time, --changed-since what the files changed since a revision; run them as two drifts');
  }
  const planned = await planFiles(paths, settings, { kind: 'drift', previews: false, safetyWarnings: true, attribution: true, ...(options.since ? { since: options.since } : {}) }, observer, targeting);
  return options.failOnUnmanaged ? { ...planned, plan: failingOnUnmanaged(planned.plan) } : planned;
}
