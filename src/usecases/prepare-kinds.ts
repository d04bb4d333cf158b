// Before anything is planned: what each kind reads of the API to check, mask and compare its
// declared items (ResourceKind.prepare; a hog function's template schemas). Every problem found is
// reported in one run, at its line, before a request that changes anything; warnings join the
// files' own (desired.warnings), said beside the plan.
import type { DesiredState } from '../config/model.js';
import { ConfigErrors, type ConfigProblem } from '../config/problems.js';
import type { ApiPort } from '../http/port.js';
import type { Kinds } from '../resources/registry.js';
import type { LiveState } from '../plan/live.js';
import { changeKey, type PlanResult } from '../plan/types.js';
import type { ResourceKind, SentChange } from '../resources/kind.js';
import { HogsyncError } from '../errors.js';

export async function prepareKinds(api: ApiPort, desired: DesiredState, kinds: Kinds): Promise<void> {
  const problems: ConfigProblem[] = [];
  // A project that exists, for what any project answers alike (an item's own may not exist yet).
  const anyProject = desired.organizations.flatMap((o) => o.items).find((i) => typeof i.project === 'number')?.project ?? undefined;
  for (const kind of kinds) {
    if (!kind.prepare) continue;
    const items = desired.organizations.flatMap((o) => o.items.filter((i) => i.kind === kind.name));
    if (items.length === 0) continue;
    const found = await kind.prepare(items, api, anyProject === null ? {} : { anyProject });
    problems.push(...found.problems);
    if (found.warnings.length > 0) desired.warnings = [...(desired.warnings ?? []), ...found.warnings];
  }
  if (problems.length > 0) throw new ConfigErrors(problems);
}

/** Before export or show writes live records: what each kind reads of the API for them (ResourceKind.prepareExport). */
export async function prepareExport(api: ApiPort, live: LiveState, kinds: Kinds): Promise<void> {
  for (const kind of kinds) {
    if (!kind.prepareExport) continue;
    const records = live.collections.filter((c) => c.kind === kind).flatMap((c) => c.records.map((record) => ({ record, scope: c.scope })));
    if (records.length > 0) await kind.prepareExport(records, api);
  }
}

/**
 * Once the plan is made: what each kind reads of the API for what its creates and updates send
 * (ResourceKind.prepareSends; a Slack channel's id by its name), only for those changes. Every
 * problem is said in one run, at the change's line, before anything is sent.
 */
export async function prepareSends(api: ApiPort, result: PlanResult): Promise<void> {
  const byKind = new Map<ResourceKind, SentChange[]>();
  const lines = new Map<string, string | undefined>();
  for (const change of result.plan.changes) {
    const execution = result.executions.get(changeKey(change));
    if (change.action === 'delete' || !execution?.kind.prepareSends) continue;
    const { scope, values, live } = execution;
    byKind.set(execution.kind, [...(byKind.get(execution.kind) ?? []), { address: change.address, action: change.action, scope, values, ...(live ? { live } : {}) }]);
    lines.set(change.address, change.declared_at?.[0]);
  }
  const problems: ConfigProblem[] = [];
  const unplaced: string[] = [];
  for (const [kind, sends] of byKind) {
    for (const p of await (kind.prepareSends as NonNullable<ResourceKind['prepareSends']>)(sends, api)) {
      const at = /^(.*):(\d+):(\d+)$/.exec(lines.get(p.address) ?? '');
      if (at) problems.push({ position: { file: at[1] as string, line: Number(at[2]), col: Number(at[3]) }, message: `${p.address}: ${p.message}` });
      else unplaced.push(`${p.address}: ${p.message}`);
    }
  }
  if (problems.length > 0) throw new ConfigErrors(problems);
  if (unplaced.length > 0) throw new HogsyncError('config', unplaced.join('; '));
}
