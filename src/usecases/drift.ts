// The drift use case: the plan read as a report of where live state left the files, with who
// changed each drifted item and when (activity log). No previews: a scheduled job reports
// state, and may hold a read-only key.
import { planFiles, type Planned } from './plan.js';
import type { ApiSettings, Observer } from './session.js';
import type { TargetRequest } from './targeted.js';

export async function driftFiles(paths: string[], settings: ApiSettings, observer: Observer = {}, targeting: TargetRequest = {}): Promise<Planned> {
  return planFiles(paths, settings, { kind: 'drift', previews: false, safetyWarnings: true, attribution: true }, observer, targeting);
}
