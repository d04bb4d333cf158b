// `--target ADDRESS` (and the targets `--changed-since` derives): which items a plan covers.
// An address is `KIND:ORG/KEY` (a flag's KEY is `PROJECT_ID/FLAG_KEY`); `*` matches any run of
// characters, `/` included. Pure: matching addresses, and telling whether a pattern could
// match anything under a prefix (a collection's scope), which is how only what targeted items
// need gets read. Keys compare as their kind compares them (role names ignore case).
import { HogsyncError } from '../errors.js';
import type { ResourceKind } from '../resources/kind.js';
import { KINDS } from '../resources/registry.js';
import type { Plan } from './types.js';

export interface Target {
  /** As given (or derived). */
  pattern: string;
  /** The kind named, or null when the kind part is a glob. */
  kind: ResourceKind | null;
  /** The pattern with its key part as the kind matches keys (lower-cased for case-insensitive kinds). */
  normalized: string;
}

export interface TargetSet {
  targets: Target[];
  /** Whether an item's address is targeted. */
  matches(address: string): boolean;
  /** Whether some address starting with `prefix` (`feature_flag:ORG/111/`) could be targeted. */
  couldMatchUnder(prefix: string): boolean;
}

const MAX_TARGETS = 10_000;
const MAX_LENGTH = 1_000;

/** A kind's key comparison, applied to the part of an address after `KIND:ORG/`. */
function normalizeAddress(address: string): string {
  const colon = address.indexOf(':');
  if (colon === -1) return address;
  const kind = KINDS.find((k) => k.name === address.slice(0, colon));
  if (!kind) return address;
  const slash = address.indexOf('/', colon + 1);
  if (slash === -1) return address;
  // The organization id is compared lower-cased, as the loader keys it.
  const org = address.slice(colon + 1, slash).toLowerCase();
  const rest = address.slice(slash + 1);
  if (kind.parent === 'organization') return `${kind.name}:${org}/${kind.matchKey(rest)}`;
  const inner = rest.indexOf('/');
  return inner === -1 ? `${kind.name}:${org}/${rest}` : `${kind.name}:${org}/${rest.slice(0, inner)}/${kind.matchKey(rest.slice(inner + 1))}`;
}

/** Parses `--target` values, refusing what cannot be an address. */
export function parseTargets(values: readonly string[], flag = '--target'): TargetSet {
  if (values.length > MAX_TARGETS) throw new HogsyncError('usage', `${flag}: at most ${MAX_TARGETS} targets`);
  const targets = values.map((pattern): Target => {
    const shown = JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 77)}...` : pattern);
    // eslint-disable-next-line no-control-regex
    if (pattern.length === 0 || pattern.length > MAX_LENGTH || /[\u0000-\u001f\u007f]/.test(pattern)) {
      throw new HogsyncError('usage', `${flag} ${shown}: not an address`);
    }
    const colon = pattern.indexOf(':');
    const kindPart = colon === -1 ? '' : pattern.slice(0, colon);
    const kind = KINDS.find((k) => k.name === kindPart) ?? null;
    const wild = colon === -1 ? pattern.includes('*') : !!kind || kindPart.includes('*');
    const shaped = colon === -1 || pattern.slice(colon + 1).includes('/') || pattern.endsWith('*');
    if (!wild || !shaped) {
      const kinds = KINDS.map((k) => k.name).join(', ');
      throw new HogsyncError('usage', `${flag} ${shown}: expected KIND:ORG/KEY with KIND one of ${kinds} (\`*\` matches anything), e.g. feature_flag:*/111/new-checkout or role:*/Engineers`);
    }
    return { pattern, kind, normalized: kind ? normalizeAddress(pattern) : pattern };
  });
  return targetSet(targets);
}

/** A set of already-checked targets (derived ones, or those of a saved plan). */
export function targetSet(targets: readonly Target[]): TargetSet {
  const compiled = targets.map((t) => ({ t, regex: globRegex(t.normalized) }));
  return {
    targets: [...targets],
    matches(address) {
      const normalized = normalizeAddress(address);
      return compiled.some(({ t, regex }) => (t.kind ? regex.test(normalized) : regex.test(address) || regex.test(normalized)));
    },
    couldMatchUnder(prefix) {
      const normalized = normalizeAddress(prefix);
      // Below a project (`feature_flag:ORG/111/`) keys hold no "/": `*` cannot reach into another
      // project. Keys made of several parts (a hog function's TYPE/NAME, an access rule's
      // role/NAME) do.
      const kind = KINDS.find((k) => prefix.startsWith(`${k.name}:`));
      // Items held by a project's items (an insight's alerts) have their parent's name in their key.
      const slashFree = kind !== undefined && kind.parent !== 'organization' && KINDS.find((k) => k.name === kind.parent)?.projectKind === true
        && !kind.identityOf && !kind.entriesOf && (prefix.match(/\//g) ?? []).length >= 2;
      return compiled.some(({ t }) => viable(t.normalized, normalized, slashFree) || (!t.kind && viable(t.pattern, prefix, slashFree)));
    },
  };
}

export function derivedTarget(address: string): Target {
  const colon = address.indexOf(':');
  const kind = KINDS.find((k) => k.name === address.slice(0, colon)) ?? null;
  return { pattern: address, kind, normalized: kind ? normalizeAddress(address) : address };
}

function globRegex(glob: string): RegExp {
  const body = glob.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('[\\s\\S]*');
  return new RegExp(`^${body}$`);
}

/** Whether some string that starts with `prefix` (and, if `slashFree`, has no "/" after it) matches the glob. */
function viable(glob: string, prefix: string, slashFree = false): boolean {
  // Positions in the glob still alive after reading the prefix; a `*` absorbs any character.
  let states = closure(glob, new Set([0]));
  for (const ch of prefix) {
    const next = new Set<number>();
    for (const s of states) {
      if (s >= glob.length) continue;
      if (glob[s] === '*') next.add(s);
      else if (glob[s] === ch) next.add(s + 1);
    }
    if (next.size === 0) return false;
    states = closure(glob, next);
  }
  if (!slashFree) return states.size > 0;
  return [...states].some((s) => !glob.slice(s).replace(/\*/g, '').includes('/'));
}

/** A `*` may also match nothing: the position after it is alive too. */
function closure(glob: string, states: Set<number>): Set<number> {
  const out = new Set(states);
  for (const s of [...out].sort((a, b) => a - b)) {
    let i = s;
    while (glob[i] === '*') out.add(++i);
  }
  return out;
}

/** Matches only what every one of the sets matches (`--target` together with `--changed-since`). */
export function allOf(sets: readonly TargetSet[]): TargetSet {
  return {
    targets: sets.flatMap((s) => s.targets),
    matches: (address) => sets.every((s) => s.matches(address)),
    couldMatchUnder: (prefix) => sets.every((s) => s.couldMatchUnder(prefix)),
  };
}

/** The targets a plan records (`Plan.targets`), as a set: what apply --plan re-plans with. */
export function targetsOfPlan(targets: { addresses: readonly string[]; changed_since?: { derived: readonly { address: string }[] }; since?: { derived: readonly { address: string }[] } }): TargetSet {
  const sets: TargetSet[] = [];
  if (targets.addresses.length > 0) sets.push(parseTargets(targets.addresses));
  if (targets.changed_since) sets.push(targetSet(targets.changed_since.derived.map((d) => derivedTarget(d.address))));
  if (targets.since) sets.push(targetSet(targets.since.derived.map((d) => derivedTarget(d.address))));
  return allOf(sets);
}

// `--target` addresses with project aliases (a flag target `feature_flag:ORG/prod/KEY`, a
// project target `project:ORG/prod`) written as the ids they stand for, so that they match
// addresses (which hold ids). ORG and KEY may be globs.
export function resolveAliases(addresses: readonly string[], aliases: ReadonlyMap<string, string>): string[] {
  if (aliases.size === 0) return [...addresses];
  return addresses.map((address) => {
    const colon = address.indexOf(':');
    const kind = KINDS.find((k) => k.name === address.slice(0, colon));
    const slash = address.indexOf('/', colon + 1);
    if (!kind || slash === -1) return address;
    const head = address.slice(0, slash + 1);
    const rest = address.slice(slash + 1);
    // Aliases name projects: in a project's address, and where a project is the parent.
    if (kind.projectKind) return head + (aliases.get(rest.toLowerCase()) ?? rest);
    if (!KINDS.find((k) => k.name === kind.parent)?.projectKind) return address;
    const inner = rest.indexOf('/');
    if (inner === -1) return address;
    const parent = rest.slice(0, inner);
    return head + (aliases.get(parent.toLowerCase()) ?? parent) + rest.slice(inner);
  });
}

/**
 * The `--target` addresses of a targeted plan that match none of its items, declared or live
 * (a typo in a kind, an organization or a key plans "no changes" otherwise). Only for plain
 * `--target` plans: with `--changed-since` or `--since` beside them, an address may rightly
 * match nothing that changed.
 */
export function unmatchedTargets(plan: Plan): string[] {
  const targets = plan.targets;
  if (!targets || targets.changed_since || targets.since || targets.addresses.length === 0) return [];
  return unmatchedPatterns(targets.addresses, [...plan.managed.map((m) => m.address), ...plan.unmanaged.map((u) => u.address)]);
}

/** The address patterns (as --target takes them) that match none of the addresses `items`. */
export function unmatchedPatterns(patterns: readonly string[], items: readonly string[], flag = '--target'): string[] {
  return patterns.filter((pattern) => {
    const set = parseTargets([pattern], flag);
    return !items.some((item) => set.matches(item));
  });
}

/**
 * What `--changed-since` derived from a declaration added or changed (or a scope prune owns) that
 * matches no item of the plan, declared or live: a plan of "no changes" would otherwise hide that
 * the derived addresses are not those the plan compares (an organization spelt another way).
 * A removed declaration rightly matches nothing once its item is gone.
 */
export function unmatchedDerived(plan: Plan): string[] {
  const changed = plan.targets?.changed_since;
  if (!changed) return [];
  const items = [...plan.managed.map((m) => m.address), ...plan.unmanaged.map((u) => u.address)];
  const exact = new Set(items);
  // A derived address names its kind and organization whole: only items under the same prefix can match it.
  const head = (address: string) => address.slice(0, address.indexOf('/') + 1).toLowerCase();
  const byHead = new Map<string, string[]>();
  for (const item of items) {
    const list = byHead.get(head(item));
    if (list) list.push(item);
    else byHead.set(head(item), [item]);
  }
  const matched = (address: string) => {
    if (exact.has(address)) return true;
    const set = targetSet([derivedTarget(address)]);
    return (byHead.get(head(address)) ?? []).some((item) => set.matches(item));
  };
  // Beside `--target`, a derived target outside those addresses is left out, not unmatched.
  const given = plan.targets?.addresses.length ? parseTargets(plan.targets.addresses) : undefined;
  const within = (address: string) => !given || given.couldMatchUnder(address.endsWith('*') ? address.slice(0, -1) : address);
  return changed.derived
    .filter((d) => d.reason !== 'removed' && within(d.address) && !matched(d.address))
    .map((d) => `--changed-since ${changed.revision}: ${d.address} (${d.reason}) matches no declared or live item, so nothing of it is planned, although the files changed it`);
}

/** What a plan says of a target that matched nothing. */
export function unmatchedMessage(address: string): string {
  return `--target ${address} matches no declared or live item, so nothing of it is planned: check its kind, organization and key (KIND:ORG/KEY, e.g. feature_flag:*/111/new-checkout or role:*/Engineers)`;
}
