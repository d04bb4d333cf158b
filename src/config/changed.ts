// `--changed-since GIT_REF`: which items' declarations differ between the files at a git
// revision and the files now. Declarations are compared after expansion (shared flags,
// overrides, defaults), so a change to an organization-level flag or to `defaults` reaches
// every item it shapes, and moving a declaration between files or lines changes nothing.
// Where `prune` owns a kind (now or then) in a scope a change touches, the whole scope is
// targeted: what prune deletes there depends on everything declared in it.
import { HogsyncError } from '../errors.js';
import { KINDS } from '../resources/registry.js';
import { filesAtRevision } from './git.js';
import { loadConfig } from './load.js';
import { itemAddressKey } from './merge.js';
import type { DesiredItem, DesiredOrganization, DesiredState } from './model.js';
import { ConfigErrors, formatPosition } from './problems.js';

export type ChangeReason = 'added' | 'changed' | 'removed' | 'pruned_scope';

/** One derived target: an address, or a scope pattern (`feature_flag:ORG/111/*`). */
export interface DerivedTarget { address: string; reason: ChangeReason }

export interface ChangedSince {
  revision: string;
  commit: string;
  /** null: the files at the revision could not be compared, and every item is in scope. */
  targets: DerivedTarget[] | null;
  warning?: string;
}

/** JSON with sorted keys: the same value always gives the same text. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const addressOf = (item: DesiredItem) => `${item.kind}:${item.organization}/${itemAddressKey(item)}`;
/** What an item declares: everything but where it is declared. */
const declaration = (item: DesiredItem) => stable({ ensure: item.ensure, fields: item.fields, renamed_from: item.renamedFrom ?? null, interpolated: [...item.interpolated].sort() });

function byAddress(state: DesiredState): Map<string, { item: DesiredItem; org: DesiredOrganization }> {
  const out = new Map<string, { item: DesiredItem; org: DesiredOrganization }>();
  for (const org of state.organizations) for (const item of org.items) out.set(addressOf(item), { item, org });
  return out;
}

/** The targets that cover every difference between two desired states. */
export function diffDesired(then: DesiredState, now: DesiredState): DerivedTarget[] {
  const before = byAddress(then);
  const after = byAddress(now);
  const targets = new Map<string, ChangeReason>();
  const touched: DesiredItem[] = [];
  for (const [address, { item }] of after) {
    const old = before.get(address);
    if (!old) targets.set(address, 'added');
    else if (declaration(old.item) !== declaration(item)) targets.set(address, 'changed');
    else continue;
    touched.push(item);
  }
  for (const [address, { item }] of before) {
    if (after.has(address)) continue;
    targets.set(address, 'removed');
    touched.push(item);
  }

  // Scopes prune owns (now or then) that a change touches, or whose ownership changed.
  const orgs = new Map<string, { then?: DesiredOrganization; now?: DesiredOrganization }>();
  for (const org of then.organizations) orgs.set(org.id, { ...orgs.get(org.id), then: org });
  for (const org of now.organizations) orgs.set(org.id, { ...orgs.get(org.id), now: org });
  const scope = (kind: string, org: string, project: number | null) => `${kind}:${org}/${project === null ? '' : `${project}/`}*`;
  for (const [id, pair] of orgs) {
    for (const kind of KINDS) {
      if (!kind.prunable) continue;
      const key = kind.configKey;
      const ownedThen = pair.then?.prune[key] === true;
      const ownedNow = pair.now?.prune[key] === true;
      if (!ownedThen && !ownedNow) continue;
      if (ownedThen !== ownedNow) {
        targets.set(scope(kind.name, id, null), 'pruned_scope');
        continue;
      }
      const projects = new Set<number | null>();
      for (const item of touched) {
        if (item.organization !== id) continue;
        if (item.kind === kind.name) projects.add(item.project);
        // A parent that appears or disappears brings or takes its children's scope.
        const added = targets.get(addressOf(item));
        if (kind.parent !== 'organization' && item.kind === kind.parent && item.project === null && (added === 'added' || added === 'removed')) {
          projects.add(Number(item.key));
        }
      }
      for (const project of projects) targets.set(scope(kind.name, id, kind.parent === 'organization' ? null : project), 'pruned_scope');
    }
  }

  // A scope pattern covers the addresses inside it.
  const scopes = [...targets].filter(([, r]) => r === 'pruned_scope').map(([p]) => p.slice(0, -1));
  return [...targets]
    .filter(([address, reason]) => reason === 'pruned_scope' || !scopes.some((s) => address.startsWith(s)))
    .map(([address, reason]) => ({ address, reason }))
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

/**
 * The targets of `--changed-since REVISION` for the configuration `paths`, given the desired
 * state now. The files at the revision are read through git and loaded like the files now
 * (same environment), and `resolve` writes their organizations as `now` writes its own (UUIDs,
 * not slugs or `@current`: else every address differs and nothing live matches). When they do not load (the revision is broken, or needs a variable no
 * longer set), nothing can be compared: `targets` is null (plan everything) and `warning` says why.
 */
export async function changedSince(paths: string[], revision: string, now: DesiredState, env: NodeJS.ProcessEnv, cwd: string,
  resolve: (then: DesiredState) => Promise<void> = async () => undefined): Promise<ChangedSince> {
  const at = await filesAtRevision(paths, revision, cwd);
  let then: DesiredState;
  try {
    then = at.files.length === 0 ? { sources: [], organizations: [] } : await loadConfig(paths, env, { cwd, source: { files: at.files, read: at.read } });
  } catch (err) {
    if (!(err instanceof HogsyncError) || err.code !== 'config') throw err;
    const first = err instanceof ConfigErrors ? err.problems[0] : undefined;
    const why = first ? `${formatPosition(first.position)} at ${revision}: ${first.message}` : err.message;
    return {
      revision, commit: at.commit, targets: null,
      warning: `--changed-since ${revision}: the configuration at that revision does not load (${why}), so every item is planned`,
    };
  }
  // Addresses compare in one spelling: the organizations of both as their UUIDs (as `now`'s already are).
  await resolve(then);
  return { revision, commit: at.commit, targets: diffDesired(then, now) };
}
