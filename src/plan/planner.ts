// The planner: a pure function of (desired, live, options) → plan. Generic over resource
// kinds: it reads what is special about a kind from the kind, and never names one.
import { hash } from 'node:crypto';
import type { DesiredItem, DesiredOrganization, DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import { labelOf, type HeldBy, type LiveRecord, type ResourceKind, type Scope } from '../resources/kind.js';
import { KINDS, kindByName, type Kinds } from '../resources/registry.js';
import type { LiveState } from './live.js';
import { canonicalJson, dropServerKeys, mergedUpdate, RULES, sameField, serverKeysOf } from './normalize.js';
import {
  addressOf, heldByText, SENSITIVE, type Change, type Execution, type FieldChange, type ManagedItem, type Plan, type PlanResult, type PlanTargets, type UnmanagedItem,
} from './types.js';
import { declaredAt } from '../config/shared.js';
import type { FilePosition } from '../errors.js';
import { targetsOfPlan } from './targeting.js';

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

  for (const org of desired.organizations) {
    const itemsByScope = groupBy(org.items, (i) => `${i.kind}|${i.project ?? ''}`);
    for (const kind of kinds) {
      for (const scope of scopesOf(kind, org)) {
        const all = distinctRecords(kind, (live.find(kind, scope) ?? []).filter((r) => !kind.isGone(r)));
        // Held-back records (archived flags) are matched to declared items, and otherwise left alone.
        const heldBack = kind.heldBack;
        const records = heldBack ? all.filter((r) => !heldBack.holds(r)) : all;
        const held = heldBack ? all.filter((r) => heldBack.holds(r)) : [];
        const countKey = `${kind.name}|${org.id}`;
        liveCounts.set(countKey, (liveCounts.get(countKey) ?? 0) + records.length);
        const byMatch = new Map<string, LiveRecord>();
        for (const r of [...records, ...held]) {
          const m = kind.matchKey(kind.displayKey(r[kind.identityField]));
          const other = byMatch.get(m);
          // Two live records claiming one identity: which one a file means cannot be known.
          if (other) throw identityCollision(kind, scope, other, r);
          byMatch.set(m, r);
        }
        const matched = new Set<LiveRecord>();
        const items = itemsByScope.get(`${kind.name}|${scope.project ?? ''}`) ?? [];
        // What holds the scope's records (never pruned), asked of the kind once, when first needed.
        let holds: ReadonlyMap<LiveRecord, readonly HeldBy[]> | undefined;
        const heldBy = (record: LiveRecord): readonly HeldBy[] => {
          if (!kind.heldBy) return [];
          holds ??= kind.heldBy({ records, items: items.map((i) => ({ key: i.key, ensure: i.ensure, fields: i.fields, position: i.position })), prune: kind.prunable && org.prune[kind.configKey] === true });
          return holds.get(record) ?? [];
        };
        for (const item of items) {
          const address = addressOf(kind.name, org.id, itemKey(scope, item.key));
          if (targets && !targets.matches(address)) {
            leftOut++;
            // Its live record is its own, not an unmanaged one (were it read).
            const own = byMatch.get(kind.matchKey(item.key));
            if (own) matched.add(own);
            continue;
          }
          const record = findRecord(kind, scope, item, byMatch);
          if (record) matched.add(record);
          if (record && item.ensure === 'absent' && heldBy(record).length > 0) heldAbsent.push({ kind, item, held: heldBy(record) });
          managed.push({ address, digest: itemDigest(kind, address, item, record) });
          const change = diffItem(kind, scope, address, item, record, (field) => {
            const key = `${kind.name}|${field}`;
            const seen = absentFields.get(key) ?? { kind, field, items: 0 };
            seen.items++;
            absentFields.set(key, seen);
          });
          if (change === 'missing') missing.push(item);
          else if (change === null) unchanged++;
          else {
            changes.push(change.change);
            executions.set(address, change.execution);
          }
        }
        for (const record of records) {
          if (matched.has(record)) continue;
          const key = kind.displayKey(record[kind.identityField]);
          const address = addressOf(kind.name, org.id, itemKey(scope, key));
          if (targets && !targets.matches(address)) continue;
          const held = heldBy(record);
          if (kind.prunable && org.prune[kind.configKey] === true && held.length === 0) {
            managed.push({ address, digest: itemDigest(kind, address, undefined, record) });
            const pruneAt = org.pruneAt?.[kind.configKey];
            changes.push({
              address, kind: kind.name, organization: org.id, project: scope.project, key: itemKey(scope, key), action: 'delete', fields: [],
              ...(pruneAt ? { declared_at: [formatAt(pruneAt)] } : {}),
            });
            executions.set(address, { kind, scope, identity: key, id: kind.liveId(record), values: {}, live: record });
          } else {
            unmanaged.push({ address, kind: kind.name, organization: org.id, key: itemKey(scope, key), ...(held.length > 0 ? { held_by: [...held] } : {}) });
          }
        }
      }
    }
  }

  if (missing.length > 0) {
    const first = missing[0] as DesiredItem;
    const kind = kindByName(first.kind, kinds);
    const more = missing.length > 1 ? ` (and ${missing.length - 1} more)` : '';
    const why = kind.notCreated ?? `${labelOf(kind)} items cannot be created`;
    throw new HogsyncError('config', `${first.kind} ${first.key} does not exist in organization ${first.organization} (${why})${more}`, { position: first.position });
  }

  if (heldAbsent.length > 0) {
    const { kind, item, held } = heldAbsent[0] as (typeof heldAbsent)[number];
    const more = heldAbsent.length > 1 ? ` (and ${heldAbsent.length - 1} more)` : '';
    throw new HogsyncError('config', `${labelOf(kind)} "${item.project === null ? item.key : `${item.project}/${item.key}`}" has ensure: absent, but it is ${heldByText(held)}: `
      + `it is not deleted while that holds it; remove ensure: absent, or release it there first${more}`, { position: item.position });
  }

  assertOneChangePerItem(changes, executions, desired, kinds);

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
  return { plan, executions, liveCounts, notices };
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
  const key = itemKey(scope, kind.displayKey(b[kind.identityField]));
  return new HogsyncError('api', `the API lists two ${kind.name}s as ${addressOf(kind.name, scope.organization, key)} (ids ${String(kind.liveId(a))} and ${String(kind.liveId(b))}): `
    + 'hogsync cannot tell which one the files mean, so it plans nothing; remove or rename one of them in the web app');
}

/**
 * The last line of defence: one change per item, and never a delete of an item the files
 * declare present. A plan that breaks either is refused, never applied.
 */
function assertOneChangePerItem(changes: readonly Change[], executions: ReadonlyMap<string, Execution>, desired: DesiredState, kinds: Kinds): void {
  const matchOf = (kind: ResourceKind, organization: string, project: number | null, key: string) => `${kind.name}|${organization}|${project ?? ''}|${kind.matchKey(key)}`;
  const declared = new Set<string>();
  for (const org of desired.organizations) {
    for (const item of org.items) {
      const kind = kinds.find((k) => k.name === item.kind);
      if (kind && item.ensure === 'present') declared.add(matchOf(kind, org.id, item.project, item.key));
    }
  }
  const seen = new Set<string>();
  for (const change of changes) {
    if (seen.has(change.address)) throw new HogsyncError('internal', `refusing a plan with two changes of ${change.address}`);
    seen.add(change.address);
    const run = executions.get(change.address);
    if (change.action === 'delete' && run && declared.has(matchOf(run.kind, run.scope.organization, run.scope.project, run.identity))) {
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

/** The collections of a kind the desired state covers: the organization's, or one per declared parent item. */
export function scopesOf(kind: ResourceKind, org: DesiredOrganization): Scope[] {
  if (kind.parent === 'organization') return [{ organization: org.id, project: null }];
  return org.items
    .filter((i) => i.kind === kind.parent && i.ensure === 'present')
    .map((i) => ({ organization: org.id, project: Number(i.key) }));
}

function itemKey(scope: Scope, key: string): string {
  return scope.project === null ? key : `${scope.project}/${key}`;
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
  onAbsent: (field: string) => void = () => undefined): { change: Change; execution: Execution } | 'missing' | null {
  const base = { address, kind: kind.name, organization: item.organization, project: item.project, key: itemKey(scope, item.key) };
  const target = { kind, scope, identity: item.key };
  const at = (fields?: readonly string[]) => ({ declared_at: declaredAt(item, fields).map(formatAt) });
  if (item.ensure === 'absent') {
    if (!record) return null;
    return { change: { ...base, action: 'delete', fields: [], ...at([]) }, execution: { ...target, id: kind.liveId(record), values: {}, live: record } };
  }
  const declared = withIdentity(kind, item);
  if (!record) {
    if (!kind.canCreate) return 'missing';
    const fields = Object.entries(declared).map(([path, after]) => {
      const sensitive = isSensitive(kind, item, path);
      return { path, before: null, after: shown(after, sensitive), sensitive };
    });
    const values = kind.completeValues ? { ...item.fields, ...kind.completeValues(item.fields, undefined) } : item.fields;
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
    if (sameField(kind, path, after, record[path])) continue;
    const sensitive = isSensitive(kind, item, path, record);
    const liveSecret = isLiveSecret(kind, item, path, record);
    fields.push({ path, before: shown(comparable(kind, path, record[path], after), liveSecret), after: shown(comparable(kind, path, after, after), sensitive), sensitive });
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
function withIdentity(kind: ResourceKind, item: DesiredItem): Record<string, unknown> {
  return kind.identityField in kind.fields ? { [kind.identityField]: item.key, ...item.fields } : item.fields;
}

/** Digest of the desired and live state of one item; secrets enter only as their own digests. */
function itemDigest(kind: ResourceKind, address: string, item: DesiredItem | undefined, record: LiveRecord | undefined): string {
  const declared = item ? withIdentity(kind, item) : {};
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
 * The live record a declared item stands for: the one with its identity, or, for an item
 * `renamed_from` another identity that only the old one holds live, the old one (renamed in
 * place when the kind allows it). Both live is an error naming both; neither, a create.
 */
function findRecord(kind: ResourceKind, scope: Scope, item: DesiredItem, byMatch: ReadonlyMap<string, LiveRecord>): LiveRecord | undefined {
  const record = byMatch.get(kind.matchKey(item.key));
  if (item.renamedFrom === undefined || item.ensure !== 'present') return record;
  const old = byMatch.get(kind.matchKey(item.renamedFrom));
  if (!old || old === record) return record;
  const label = labelOf(kind);
  if (record) {
    throw new HogsyncError('config', `${label} "${itemKey(scope, item.key)}" has renamed_from: "${item.renamedFrom}", but both are live `
      + `(ids ${String(kind.liveId(old))} and ${String(kind.liveId(record))}): remove renamed_from, or delete one of them first`, { position: item.position });
  }
  if (!kind.renamable) {
    throw new HogsyncError('config', `${label} items cannot be renamed in place: remove renamed_from`, { position: item.position });
  }
  return old;
}
