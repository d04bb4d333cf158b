// The drift use case: the plan read as a report of where live state left the files, with who
// changed each drifted item and when (activity log). No previews: a scheduled job reports
// state, and may hold a read-only key.
import { failingOnUnmanaged } from '../plan/types.js';
import { planFiles, type Planned } from './plan.js';
import type { ApiSettings, Observer } from './session.js';
import type { TargetRequest } from './targeted.js';

/** `failOnUnmanaged`: live items no file declares are findings of the report (`--fail-on-unmanaged`). */
export async function driftFiles(paths: string[], settings: ApiSettings, observer: Observer = {}, targeting: TargetRequest = {}, failOnUnmanaged = false): Promise<Planned> {
  const planned = await planFiles(paths, settings, { kind: 'drift', previews: false, safetyWarnings: true, attribution: true }, observer, targeting);
  return failOnUnmanaged ? { ...planned, plan: failingOnUnmanaged(planned.plan) } : planned;
}
