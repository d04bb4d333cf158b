// What a targeted plan adds to the plan use case: the reads narrowed to what the targets need
// (src/state/targeted-reads.ts), and the delete-share rule kept whole. The rule counts every
// live item of a kind in an organization; a targeted plan reads only some collections, so when
// it deletes items of a kind and what it read cannot prove the rule satisfied, every collection
// of that kind is read to count. More live items only lower the share, and fewer than the
// minimum only exempt a kind from the rule: once the deletes are within the share of the items
// already read (deletes × 100 ≤ threshold × items read), nothing more read can refuse them, so
// a one-flag removal reads one list whatever the size of the workspace.
import { changedSince } from '../config/changed.js';
import type { DesiredState } from '../config/model.js';
import { parseTargets, resolveAliases } from '../plan/targeting.js';
import type { PlanTargets } from '../plan/types.js';
import type { PlanResult } from '../plan/types.js';
import type { LiveRecord } from '../resources/kind.js';
import type { ApiPort } from '../http/port.js';
import { readCollections, type CollectionRead } from '../state/live-state.js';
import { withResolvedOrganizations, type ResolvedOrganizations } from './organizations.js';

/** Live items of a collection as the planner counts them: each API id once, gone ones left out. */
function countOf(read: CollectionRead, records: readonly LiveRecord[]): number {
  const ids = new Set(records.filter((r) => !read.kind.isGone(r)).map((r) => `${typeof read.kind.liveId(r)}:${String(read.kind.liveId(r))}`));
  return ids.size;
}

export async function countEveryLiveItem(
  result: PlanResult, all: readonly CollectionRead[], done: readonly CollectionRead[], port: ApiPort, parallelism: number, maxDeletePercent: number,
): Promise<PlanResult> {
  const deletes = new Map<string, number>();
  for (const c of result.plan.changes) if (c.action === 'delete') deletes.set(`${c.kind}|${c.organization}`, (deletes.get(`${c.kind}|${c.organization}`) ?? 0) + 1);
  const liveCounts = new Map(result.liveCounts);
  for (const [key, count] of deletes) {
    const partial = liveCounts.get(key) ?? 0;
    const [kind, organization] = key.split('|') as [string, string];
    const reads = all.filter((r) => r.kind.name === kind && r.scope.organization === organization);
    // restrictReads hands on the reads it keeps whole as they are: those are complete.
    const complete = reads.every((r) => done.includes(r));
    if (complete || count * 100 <= maxDeletePercent * partial) continue;
    const live = await readCollections(port, reads, parallelism);
    liveCounts.set(key, reads.reduce((n, r) => n + countOf(r, live.find(r.kind, r.scope) ?? []), 0));
  }
  return { ...result, liveCounts };
}

/** What the command line asks to limit a plan to. */
export interface TargetRequest {
  /** `--target` values, as given. */
  addresses?: readonly string[];
  /** `--changed-since`: a git revision. */
  changedSince?: string;
}

/** The `--target` addresses with project aliases as ids, checked: a bad one fails before any request. */
export function checkedTargets(desired: DesiredState, request: TargetRequest): string[] {
  const addresses = resolveAliases(request.addresses ?? [], aliasesOf(desired));
  if (addresses.length > 0) parseTargets(addresses);
  return addresses;
}

/**
 * The targets of a plan from the command line: the `--target` addresses and what `--changed-since`
 * derives from git, every organization as its UUID (`organizations`: how the files spell them →
 * UUID; `resolveThen` does the same for the files at the revision). Undefined: not targeted. When
 * the files at the revision do not load, `--changed-since` derives nothing and the warning says the
 * whole configuration is planned.
 */
export async function resolveTargets(paths: string[], desired: DesiredState, request: TargetRequest,
  organizations: ResolvedOrganizations = new Map(), resolveThen?: (then: DesiredState) => Promise<void>,
  env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()):
  Promise<{ targets?: Omit<PlanTargets, 'left_out'>; warnings: string[] }> {
  const addresses = withResolvedOrganizations(checkedTargets(desired, request), organizations);
  if (request.changedSince === undefined) return { targets: addresses.length > 0 ? { addresses } : undefined, warnings: [] };
  const changed = await changedSince(paths, request.changedSince, desired, env, cwd, resolveThen);
  if (changed.targets === null) return { targets: addresses.length > 0 ? { addresses } : undefined, warnings: changed.warning ? [changed.warning] : [] };
  return {
    targets: { addresses, changed_since: { revision: changed.revision, commit: changed.commit, derived: changed.targets } },
    warnings: [],
  };
}

/** Every project alias of the desired state (lower-cased) → the project's id. */
export function aliasesOf(desired: DesiredState): Map<string, string> {
  const out = new Map<string, string>();
  for (const org of desired.organizations) for (const [alias, key] of Object.entries(org.aliases ?? {})) out.set(alias.toLowerCase(), key);
  return out;
}
