// The planner: a pure function of (desired, live, options) → plan. Generic over resource
// kinds: it reads what is special about a kind from the kind, and never names one.
import { hash } from 'node:crypto';
import type { DesiredItem, DesiredOrganization, DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import { keyInScope, labelOf, parentKeyOf, type HeldBy, type HoldView, type LiveRecord, type ResourceKind, type Scope } from '../resources/kind.js';
import { KINDS, kindByName, type Kinds } from '../resources/registry.js';
import type { LiveState } from './live.js';
import { canonicalJson, dropServerKeys, mergedUpdate, RULES, sameField, serverKeysOf } from './normalize.js';
import {
  addressOf, heldByText, SENSITIVE, type Change, type Execution, type FieldChange, type ManagedItem, type Plan, type PlanResult, type PlanTargets, type UnmanagedItem,
} from './types.js';
import { declaredAt } from '../config/shared.js';
import { itemAddressKey } from '../config/merge.js';
import type { FilePosition } from '../errors.js';
import { targetsOfPlan } from './targeting.js';
import { holdsDeferred, ReferenceIndex } from './references.js';
import { itemsIn, lookupScopes, plannedScopes, pruned } from './scopes.js';

export interface PlanOptions {
  baseUrl: string;
  kind?: 'plan' | 'drift';
  /** The kinds to plan (default: every registered kind), parents before their children. */
  kinds?: Kinds;
  /**
   * Limit the plan to the items these match (`--target`, `--changed-since`): others are not
   * planned, listed or pruned, only counted; the live records read still count for safety.
   */
  targets?: Omit<PlanTargets, 'left_out'>;
}

// One-shot hashing: it runs once per managed item.
const sha256 = (text: string) => hash('sha256', text, 'hex');

/**
 * The plan, with what apply needs to execute it. Its `warnings` are empty: warnings are
 * annotations, added beside it (src/plan/annotate.ts).
 */
export function computePlan(desired: DesiredState, live: LiveState, options: PlanOptions): PlanResult {
  const kinds = options.kinds ?? KINDS;
  const changes: Change[] = [];
  const unmanaged: UnmanagedItem[] = [];
  const managed: ManagedItem[] = [];
  const executions = new Map<string, Execution>();
  const liveCounts = new Map<string, number>();
  const missing: DesiredItem[] = [];
  /** Items declared absent whose live record something holds (an experiment's flag). */
  const heldAbsent: Array<{ kind: ResourceKind; item: DesiredItem; held: readonly HeldBy[] }> = [];
  /** Declared fields the live records of a kind do not carry at all: `kind|field` → how many items declare it. */
  const absentFields = new Map<string, { kind: ResourceKind; field: string; items: number }>();
  let unchanged = 0;
  const targets = options.targets ? targetsOfPlan(options.targets) : undefined;
  let leftOut = 0;

  const dependencies: Array<[string, string]> = [];
  /** Live items that declared present items stand for (`kind|organization|id`): never deleted. */
  const kept = new Set<string>();
  const absent = (kind: ResourceKind) => (field: string) => {
    const key = `${kind.name}|${field}`;
    const seen = absentFields.get(key) ?? { kind, field, items: 0 };
    seen.items++;
    absentFields.set(key, seen);
  };

  for (const org of desired.organizations) {
    const refs = new ReferenceIndex(org.id, kinds);
    // Kinds the files only refer to by name, where they plan none: known for resolving, never listed.
    for (const { kind, scope } of lookupScopes(org, kinds)) refs.register(kind, scope, [], live.find(kind, scope)?.filter((r) => !kind.isGone(r)));
    const orgChanges: Array<{ change: Change; execution: Execution; after: string[] }> = [];
    for (const kind of kinds) {
      for (const scope of plannedScopes(kind, org, kinds)) {
        const all = distinctRecords(kind, (live.find(kind, scope) ?? []).filter((r) => !kind.isGone(r)));
        // Held-back records (archived flags) are matched to declared items, and otherwise left alone.
        const heldBack = kind.heldBack;
        const records = heldBack ? all.filter((r) => !heldBack.holds(r)) : all;
        const countKey = `${kind.name}|${org.id}`;
        liveCounts.set(countKey, (liveCounts.get(countKey) ?? 0) + records.length);
        const items = itemsIn(org, kind, scope);
        refs.register(kind, scope, items, all);
        const matcher = new Matcher(kind, scope, all, live, items);
        const matched = new Set<LiveRecord>();
        // What holds the scope's records (never pruned), asked of the kind once, when first needed.
        let holds: ReadonlyMap<LiveRecord, readonly HeldBy[]> | undefined;
        const heldBy = (record: LiveRecord): readonly HeldBy[] => {
          if (!kind.heldBy) return [];
          holds ??= kind.heldBy({ records, items: holdItems(items), prune: pruned(kind, org), holders: holdersOf(kind, scope, org, live, kinds) });
          return holds.get(record) ?? [];
        };
        // Every item is matched first, so references among items of one scope (a flag's dependency) resolve.
        const planned: Array<{ item: DesiredItem; address: string; record: LiveRecord | undefined }> = [];
        for (const item of items) {
          const address = addressOf(kind.name, org.id, keyInScope(scope, item.key));
          if (targets && !targets.matches(address)) {
            leftOut++;
            // Its live record is its own, not an unmanaged one (were it read).
            const own = matcher.own(item);
            if (own) {
              matched.add(own);
              refs.matched(kind, scope, item, own);
            }
            continue;
          }
          const record = matcher.find(item);
          if (record) {
            matched.add(record);
            refs.matched(kind, scope, item, record);
            if (item.ensure === 'present') kept.add(`${kind.name}|${org.id}|${String(kind.liveId(record))}`);
          }
          if (record && item.ensure === 'absent' && heldBy(record).length > 0) heldAbsent.push({ kind, item, held: heldBy(record) });
          planned.push({ item, address, record });
        }
        for (const { item, address, record } of planned) {
          const resolved = item.ensure === 'present' ? refs.resolveFields(kind, scope, item) : { fields: item.fields, after: [] };
          managed.push({ address, digest: itemDigest(kind, address, item, record, resolved.fields) });
          const change = diffItem(kind, scope, address, item, record, resolved.fields, refs, absent(kind));
          if (change === 'missing') missing.push(item);
          else if (change === null) unchanged++;
          else orgChanges.push({ ...change, after: resolved.after });
        }
        if (kind.listsUnmanaged === false) continue;
        const unmatched = records.filter((r) => !matched.has(r));
        for (const [record, key] of matcher.unmanagedKeys(unmatched)) {
          const address = addressOf(kind.name, org.id, keyInScope(scope, key));
          if (targets && !targets.matches(address)) continue;
          const held = heldBy(record);
          if (pruned(kind, org) && kind.canDelete !== false && held.length === 0) {
            managed.push({ address, digest: itemDigest(kind, address, undefined, record) });
            const pruneAt = org.pruneAt?.[kind.configKey];
            orgChanges.push({
              change: {
                address, kind: kind.name, organization: org.id, project: scope.project, key: keyInScope(scope, key), action: 'delete', fields: [],
                ...(pruneAt ? { declared_at: [formatAt(pruneAt)] } : {}),
              },
              execution: { kind, scope, identity: key, id: kind.liveId(record), values: {}, live: record },
              after: [],
            });
          } else {
            unmanaged.push({ address, kind: kind.name, organization: org.id, key: keyInScope(scope, key), ...(held.length > 0 ? { held_by: [...held] } : {}) });
          }
        }
      }
    }
    dependencies.push(...referenceOrder(orgChanges, refs));
    for (const { change, execution } of orgChanges) {
      changes.push(change);
      executions.set(change.address, execution);
    }
  }

  if (missing.length > 0) {
    const first = missing[0] as DesiredItem;
    const kind = kindByName(first.kind, kinds);
    const more = missing.length > 1 ? ` (and ${missing.length - 1} more)` : '';
    const why = kind.notCreated ?? `${labelOf(kind)} items cannot be created`;
    const where = first.project !== null && !kind.projectKind ? `project ${first.project}` : `organization ${first.organization}`;
    throw new HogsyncError('config', `${labelOf(kind)} "${first.key}" does not exist in ${where}: ${why}${more}`, { position: first.position });
  }

  if (heldAbsent.length > 0) {
    const { kind, item, held } = heldAbsent[0] as (typeof heldAbsent)[number];
    const more = heldAbsent.length > 1 ? ` (and ${heldAbsent.length - 1} more)` : '';
    throw new HogsyncError('config', `${labelOf(kind)} "${itemAddressKey(item)}" has ensure: absent, but it is ${heldByText(held)}: `
      + `it is not deleted while that holds it; remove ensure: absent, or release it there first${more}`, { position: item.position });
  }

  assertOneChangePerItem(changes, executions, desired, kinds, kept);

  const plan: Plan = {
    format_version: '1',
    kind: options.kind ?? 'plan',
    base_url: options.baseUrl,
    sources: desired.sources,
    fingerprint: fingerprintOf(managed, desired),
    summary: {
      create: changes.filter((c) => c.action === 'create').length,
      update: changes.filter((c) => c.action === 'update').length,
      delete: changes.filter((c) => c.action === 'delete').length,
      unchanged,
      unmanaged: unmanaged.length,
    },
    changes,
    unmanaged,
    warnings: [],
    managed: managed.sort(byAddress),
    ...(options.targets ? { targets: { ...options.targets, left_out: leftOut } } : {}),
  };
  if (options.targets) plan.fingerprint = fingerprintOf(managed, desired, options.targets);
  const deleteNotes = changes.filter((c) => c.action === 'delete').flatMap((c) => {
    const note = executions.get(c.address)?.kind.deleteNote;
    return note ? [`${c.address}: ${note}`] : [];
  });
  const notices = [...absentFields.values()].map(({ kind, field, items }) =>
    `${labelOf(kind)} field ${field} is not kept by this API (its ${labelOf(kind)} records have no such field): `
    + `not managed here, no change planned (declared for ${items} item${items === 1 ? '' : 's'}); remove it from the files`)
    .concat(deleteNotes);
  return { plan, executions, liveCounts, notices, ...(dependencies.length > 0 ? { dependencies } : {}) };
}

/** Declared items as the kinds' hooks see them. */
function holdItems(items: readonly DesiredItem[]): HoldView['items'] {
  return items.map((i) => ({ key: i.key, ensure: i.ensure, fields: i.fields, position: i.position, ...(i.pin !== undefined ? { pin: i.pin } : {}) }));
}

/** The kinds that may hold a kind's items (its `heldByKinds`), in the same scope, where their collections were read. */
function holdersOf(kind: ResourceKind, scope: Scope, org: DesiredOrganization, live: LiveState, kinds: Kinds): HoldView['holders'] {
  if (!kind.heldByKinds?.length) return undefined;
  const out = new Map<string, Omit<HoldView, 'holders'>>();
  for (const name of kind.heldByKinds) {
    const holder = kinds.find((k) => k.name === name);
    const records = holder ? live.find(holder, scope) : undefined;
    if (!holder || !records) continue;
    out.set(name, { records: records.filter((r) => !holder.isGone(r)), items: holdItems(itemsIn(org, holder, scope)), prune: pruned(holder, org) });
  }
  return out;
}

/** A record read twice (a list that shifted between its pages) is one record: the same API id. */
function distinctRecords(kind: ResourceKind, records: LiveRecord[]): LiveRecord[] {
  const seen = new Set<string>();
  const out: LiveRecord[] = [];
  for (const r of records) {
    const id = `${typeof kind.liveId(r)}:${String(kind.liveId(r))}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(r);
  }
  return out;
}

function identityCollision(kind: ResourceKind, scope: Scope, a: LiveRecord, b: LiveRecord): HogsyncError {
  const key = keyInScope(scope, kind.displayKey(b[kind.identityField]));
  return new HogsyncError('api', `the API lists two ${kind.name}s as ${addressOf(kind.name, scope.organization, key)} (ids ${String(kind.liveId(a))} and ${String(kind.liveId(b))}): `
    + 'hogsync cannot tell which one the files mean, so it plans nothing; remove or rename one of them in the web app');
}

/**
 * The last line of defence: one change per item, and never a delete of an item the files
 * declare present. A plan that breaks either is refused, never applied.
 */
function assertOneChangePerItem(changes: readonly Change[], executions: ReadonlyMap<string, Execution>, desired: DesiredState, kinds: Kinds, kept: ReadonlySet<string>): void {
  const matchOf = (kind: ResourceKind, organization: string, project: number | null, key: string) => `${kind.name}|${organization}|${project ?? ''}|${kind.matchKey(key)}`;
  const declared = new Set<string>();
  for (const org of desired.organizations) {
    for (const item of org.items) {
      const kind = kinds.find((k) => k.name === item.kind);
      // Identities that repeat in the API are checked by the live ids the declared items matched.
      if (kind && !kind.idPin && item.ensure === 'present') declared.add(matchOf(kind, org.id, item.project, item.key));
    }
  }
  const seen = new Set<string>();
  for (const change of changes) {
    if (seen.has(change.address)) throw new HogsyncError('internal', `refusing a plan with two changes of ${change.address}`);
    seen.add(change.address);
    const run = executions.get(change.address);
    if (change.action === 'delete' && run && (declared.has(matchOf(run.kind, run.scope.organization, run.scope.project, run.identity))
      || (run.id !== null && kept.has(`${run.kind.name}|${run.scope.organization}|${String(run.id)}`)))) {
      throw new HogsyncError('internal', `refusing a plan that deletes ${change.address}, which the files declare`);
    }
  }
}

/** Code-unit order: stable across machines and locales (localeCompare is neither, and slow). */
function byAddress(a: ManagedItem, b: ManagedItem): number {
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}

function groupBy<T>(list: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of list) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

function isSensitive(kind: ResourceKind, item: DesiredItem, field: string, record?: LiveRecord): boolean {
  return isLiveSecret(kind, item, field, record) || item.interpolated.includes(field);
}

/**
 * Whether the live value of a field is itself a secret (a sensitive field, encrypted payloads).
 * A file value that came through ${env:…} is masked, but the live value beside it is shown
 * unless it is a secret of its own.
 */
function isLiveSecret(kind: ResourceKind, item: DesiredItem, field: string, record?: LiveRecord): boolean {
  return kind.fields[field]?.sensitive === true || (kind.secretFields?.(item.fields, record).includes(field) ?? false);
}

/** A sensitive value is never shown, but whether one is set is: `(sensitive)`, or null when none is. */
function shown(value: unknown, sensitive: boolean): unknown {
  if (value === undefined || value === null) return null;
  return sensitive ? SENSITIVE : value;
}

/**
 * A declared field that the live record does not carry at all (the key is absent, not null)
 * is one this API version does not have (roles' feature_flags_access_level on newer versions,
 * projects' slack_incoming_webhook since 2026, silently dropped from a PATCH): it is not
 * manageable there. `onAbsent` hears of it; no change is planned for it, so it never drifts.
 */
function diffItem(kind: ResourceKind, scope: Scope, address: string, item: DesiredItem, record: LiveRecord | undefined,
  resolvedFields: Record<string, unknown>, refs: ReferenceIndex,
  onAbsent: (field: string) => void = () => undefined): { change: Change; execution: Execution } | 'missing' | null {
  const base = { address, kind: kind.name, organization: item.organization, project: item.project, key: keyInScope(scope, item.key) };
  const target = { kind, scope, identity: item.key };
  const at = (fields?: readonly string[]) => ({ declared_at: declaredAt(item, fields).map(formatAt) });
  if (item.ensure === 'absent') {
    if (!record) return null;
    return { change: { ...base, action: 'delete', fields: [], ...at([]) }, execution: { ...target, id: kind.liveId(record), values: {}, live: record } };
  }
  const declared = withIdentity(kind, item, resolvedFields);
  if (!record) {
    if (!kind.canCreate) return 'missing';
    const fields = Object.entries(withIdentity(kind, item)).map(([path, after]) => {
      const sensitive = isSensitive(kind, item, path);
      return { path, before: null, after: shown(after, sensitive), sensitive };
    });
    const values = kind.completeValues ? { ...resolvedFields, ...kind.completeValues(resolvedFields, undefined) } : resolvedFields;
    return { change: { ...base, action: 'create', fields, ...at() }, execution: { ...target, id: null, values } };
  }
  const fields: FieldChange[] = [];
  const values: Record<string, unknown> = {};
  // Renamed in place (renamed_from): the identity changes with the other fields, by one PATCH.
  const liveKey = kind.displayKey(record[kind.identityField]);
  const renamed = kind.matchKey(liveKey) !== kind.matchKey(item.key) ? liveKey : undefined;
  if (renamed !== undefined) {
    fields.push({ path: kind.identityField, before: liveKey, after: item.key, sensitive: false });
    values[kind.identityField] = item.key;
  }
  for (const [path, after] of Object.entries(declared)) {
    if (renamed !== undefined && path === kind.identityField) continue;
    const spec = kind.fields[path];
    if (!spec) continue;
    if (!Object.prototype.hasOwnProperty.call(record, path)) {
      onAbsent(path);
      continue;
    }
    const deferred = holdsDeferred(after);
    if (!deferred && sameField(kind, path, after, record[path])) continue;
    const sensitive = isSensitive(kind, item, path, record);
    const liveSecret = isLiveSecret(kind, item, path, record);
    // Shown by name where the files wrote a name, and live ids by name where the project knows them.
    const written = item.fields[path] ?? after;
    const before = refs.liveByName(kind, scope, path, comparable(kind, path, record[path], written));
    fields.push({ path, before: shown(before, liveSecret), after: shown(comparable(kind, path, written, written), sensitive), sensitive });
    // A merged field keeps keys that are not sent: the ones the file dropped go as null (not the
    // keys the server adds or owns: an empty default, a value another feature owns).
    values[path] = spec.merge ? mergedUpdate(after, dropServerKeys(record[path], after, serverKeysOf(kind, path)), spec.merge) : after;
  }
  if (fields.length === 0) return null;
  const complete = kind.completeValues ? { ...values, ...kind.completeValues(values, record) } : values;
  const change: Change = { ...base, action: 'update', fields, ...at(fields.map((f) => f.path)), ...(renamed !== undefined ? { renamed_from: renamed } : {}) };
  return { change, execution: { ...target, id: kind.liveId(record), values: complete, live: record } };
}

/**
 * A value as it is compared, for showing: untyped values without server keys and nulls, with
 * sorted keys, so a diff shows only what differs (not nulls or the order keys were written in).
 */
function comparable(kind: ResourceKind, path: string, value: unknown, declared: unknown): unknown {
  const normalize = kind.normalizers?.[path];
  if (normalize) return JSON.parse(canonicalJson(normalize(value))) as unknown;
  if (kind.fields[path]?.compare !== 'untyped') return value;
  return JSON.parse(canonicalJson(RULES.untyped.normalize(dropServerKeys(value, declared, serverKeysOf(kind, path)))));
}

/** Declared fields, plus the identity when the kind manages it as a field (a role's name, whose case may change). */
function withIdentity(kind: ResourceKind, item: DesiredItem, fields: Record<string, unknown> = item.fields): Record<string, unknown> {
  return kind.identityField in kind.fields ? { [kind.identityField]: item.key, ...fields } : fields;
}

/** Digest of the desired and live state of one item; secrets enter only as their own digests. */
function itemDigest(kind: ResourceKind, address: string, item: DesiredItem | undefined, record: LiveRecord | undefined, fields?: Record<string, unknown>): string {
  const declared = item ? withIdentity(kind, item, fields) : {};
  const value = (field: string, v: unknown): string => {
    const json = canonicalJson(v);
    const secret = (kind.fields[field]?.sensitive || item?.interpolated.includes(field) || kind.secretFields?.(item?.fields, record).includes(field)) && v != null;
    return secret ? `"sha256:${sha256(json)}"` : json;
  };
  let text = `${address}\n${item ? item.ensure : '-'}\n${record ? String(kind.liveId(record)) : '-'}`;
  for (const field of Object.keys(declared).sort()) {
    text += `\n${field}=${value(field, declared[field])}`;
    if (record) text += `|${value(field, record[field])}`;
  }
  return sha256(text).slice(0, 16);
}

function fingerprintOf(managed: ManagedItem[], desired: DesiredState, targets?: Omit<PlanTargets, 'left_out'>): string {
  // Already sorted by computePlan; sorting again keeps the fingerprint independent of callers.
  const items = [...managed].sort(byAddress).map((m) => [m.address, m.digest]);
  const prune = desired.organizations.map((o) => [o.id, o.prune]);
  // A targeted plan stands for its targets too: applied with others, it would be another plan.
  const scope = targets ? { targets: targets.addresses, derived: targets.changed_since?.derived.map((d) => d.address) ?? null } : {};
  return `sha256:${sha256(canonicalJson({ items, prune, ...scope }))}`;
}

const formatAt = (p: FilePosition) => `${p.file}:${p.line}:${p.col}`;


/**
 * Which live record a declared item stands for, in one scope: the one with its identity; for
 * an item `renamed_from` another identity that only the old one holds live, the old one (renamed
 * in place when the kind allows it; both live is an error naming both; neither, a create). For
 * kinds whose identities repeat in the API (idPin), an `id:` pin wins over the identity, and two
 * live records of one declared identity are an error naming both ids; for the others, two live
 * records of one identity are an error at once (which one a file means cannot be known).
 */
class Matcher {
  private readonly byMatch = new Map<string, LiveRecord[]>();
  private readonly byId = new Map<string, LiveRecord>();
  private readonly pinned = new Set<LiveRecord>();

  constructor(private readonly kind: ResourceKind, private readonly scope: Scope, records: readonly LiveRecord[], private readonly live: LiveState, items: readonly DesiredItem[]) {
    for (const r of records) {
      const m = kind.matchKey(kind.displayKey(r[kind.identityField]));
      const list = this.byMatch.get(m);
      if (list) {
        if (!kind.idPin) throw identityCollision(kind, scope, list[0] as LiveRecord, r);
        list.push(r);
      } else {
        this.byMatch.set(m, [r]);
      }
      if (kind.idPin) this.byId.set(String(kind.liveId(r)), r);
    }
    // A record an item pins is that item's, whatever its name: no other item matches it by name.
    for (const item of items) {
      const r = item.pin === undefined ? undefined : this.byId.get(String(item.pin));
      if (r) this.pinned.add(r);
    }
  }

  private named(key: string): LiveRecord[] {
    return (this.byMatch.get(this.kind.matchKey(key)) ?? []).filter((r) => !this.pinned.has(r));
  }

  /** An item's record without judging it (an item a targeted plan leaves out). */
  own(item: DesiredItem): LiveRecord | undefined {
    if (item.pin !== undefined) return this.byId.get(String(item.pin));
    const found = this.named(item.key);
    return found.length === 1 ? found[0] : undefined;
  }

  find(item: DesiredItem): LiveRecord | undefined {
    const { kind, scope } = this;
    const label = labelOf(kind);
    if (item.pin !== undefined) {
      const record = this.byId.get(String(item.pin));
      if (record) return record;
      throw new HogsyncError('config', `${label} "${keyInScope(scope, item.key)}" is pinned to id ${String(item.pin)}, ${this.elsewhere(item.pin)}: correct the id, or remove it to match by ${kind.identityField}`, { position: item.position });
    }
    const found = this.named(item.key);
    if (found.length > 1) throw this.ambiguous(item, item.key, found);
    const record = found[0];
    if (item.renamedFrom === undefined || item.ensure !== 'present') return record;
    const olds = this.named(item.renamedFrom);
    if (olds.length > 1) throw this.ambiguous(item, item.renamedFrom, olds);
    const old = olds[0];
    if (!old || old === record) return record;
    if (record) {
      throw new HogsyncError('config', `${label} "${keyInScope(scope, item.key)}" has renamed_from: "${item.renamedFrom}", but both are live `
        + `(ids ${String(kind.liveId(old))} and ${String(kind.liveId(record))}): remove renamed_from, or delete one of them first`, { position: item.position });
    }
    if (!kind.renamable) {
      throw new HogsyncError('config', `${label} items cannot be renamed in place: remove renamed_from`, { position: item.position });
    }
    return old;
  }

  /** Where an id that is not in this scope is: in another collection of the kind that was read, or nowhere. */
  private elsewhere(id: string | number): string {
    for (const c of this.live.collections) {
      if (c.kind.name !== this.kind.name || (c.scope.project === this.scope.project && c.scope.parent?.key === this.scope.parent?.key)) continue;
      if (c.records.some((r) => String(this.kind.liveId(r)) === String(id) && !this.kind.isGone(r))) {
        return `which is a ${labelOf(this.kind)} of ${c.scope.project !== null ? `project ${c.scope.project}` : `organization ${c.scope.organization}`}, not of ${this.where()}`;
      }
    }
    return `but ${this.where()} has no ${labelOf(this.kind)} with that id`;
  }

  private where(): string {
    return this.scope.parent ? `${this.scope.parent.kind.replace(/_/g, ' ')} ${this.scope.parent.key}` : this.scope.project !== null ? `project ${this.scope.project}` : `organization ${this.scope.organization}`;
  }

  private ambiguous(item: DesiredItem, key: string, found: readonly LiveRecord[]): HogsyncError {
    const ids = found.map((r) => String(this.kind.liveId(r)));
    return new HogsyncError('config', `${found.length} live ${this.kind.configKey.replace(/_/g, ' ')} of ${this.where()} are named "${key}" (ids ${ids.join(', ')}): `
      + `pin the one these files mean with \`id: ${ids[0]}\` (an id wins over the ${this.kind.identityField}), and rename or delete the other`, { position: item.position });
  }

  /** Keys of unmatched records in addresses: the identity, with `#ID` where live records repeat it. */
  unmanagedKeys(records: readonly LiveRecord[]): Array<[LiveRecord, string]> {
    return records.map((r) => {
      const key = this.kind.displayKey(r[this.kind.identityField]);
      const repeated = (this.byMatch.get(this.kind.matchKey(key))?.length ?? 0) > 1;
      return [r, repeated ? `${key}#${String(this.kind.liveId(r))}` : key];
    });
  }
}

/**
 * The order references ask of apply, as [before, after] address pairs: a create after the
 * creates whose ids it refers to, and a change of an item that refers to another now before
 * that other's delete. A cycle of creates (each waiting for another's id) is refused.
 */
function referenceOrder(entries: ReadonlyArray<{ change: Change; execution: Execution; after: string[] }>, refs: ReferenceIndex): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const waits = new Map<string, string[]>();
  for (const e of entries) {
    for (const a of e.after) pairs.push([a, e.change.address]);
    if (e.after.length > 0) waits.set(e.change.address, e.after);
  }
  const cycle = findCycle(waits);
  if (cycle) {
    throw new HogsyncError('config', `${cycle.join(' → ')}: these items refer to each other by name and none exists yet, so none could be created first; create one without the reference, then add it`);
  }
  const deletes = new Map<string, string>();
  for (const e of entries) {
    if (e.change.action === 'delete') deletes.set(`${e.execution.kind.name}|${e.execution.scope.project ?? ''}|${String(e.execution.id)}`, e.change.address);
  }
  if (deletes.size === 0) return pairs;
  for (const e of entries) {
    const live = e.execution.live;
    if (!live || !e.execution.kind.references) continue;
    for (const t of refs.liveTargets(e.execution.kind, live)) {
      const gone = deletes.get(`${t.kind}|${e.execution.scope.project ?? ''}|${String(t.id)}`);
      if (gone !== undefined && gone !== e.change.address) pairs.push([e.change.address, gone]);
    }
  }
  return pairs;
}

/** A cycle in a graph of addresses (each waits for the listed ones), or undefined. */
function findCycle(waits: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of waits.get(node) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of waits.keys()) {
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}
