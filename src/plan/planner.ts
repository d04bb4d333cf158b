// The planner: a pure function of (desired, live, options) → plan. Generic over resource
// kinds: it reads what is special about a kind from the kind, and never names one.
import { createHash, hash } from 'node:crypto';
import type { DesiredItem, DesiredOrganization, DesiredState } from '../config/model.js';
import { HogsyncError } from '../errors.js';
import { aLabelOf, identityFieldsOf, identityOf, keyInScope, labelOf, parentAddressKey, parentKeyOf, type Companions, type HeldBy, type HoldView, type LiveRecord, type ResourceKind, type Scope } from '../resources/kind.js';
import { KINDS, kindByName, type Kinds } from '../resources/registry.js';
import type { LiveState } from './live.js';
import { canonicalJson, dropServerKeys, mergedUpdate, RULES, sameField, serverKeysOf, sortKeys } from './normalize.js';
import type { ChangeView } from '../resources/kind.js';
import {
  addressOf, changeKey, heldByText, SENSITIVE, type Change, type Execution, type FieldChange, type ManagedItem, type Plan, type PlanResult, type PlanTargets, type UnmanagedItem,
} from './types.js';
import { declaredAt } from '../config/shared.js';
import { itemAddressKey } from '../config/merge.js';
import type { FilePosition } from '../errors.js';
import { targetsOfPlan } from './targeting.js';
import { Deferred, holdsDeferred, ReferenceIndex } from './references.js';
import { itemsIn, lookupScopes, plannedScopes, pruned, scopeOfItem, wholeListAt } from './scopes.js';
import { findCycle } from '../util/find-cycle.js';
import { keyedCreate, keyedUpdate } from './keyed-fields.js';
import { ConfigErrors, sortProblems } from '../config/problems.js';
import { splitSteps } from './steps.js';

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
 * annotations, added beside it (src/plan/annotate.ts); what the kinds' checks found is in
 * `checks`.
 */
export function computePlan(desired: DesiredState, live: LiveState, options: PlanOptions): PlanResult {
  const builder = new PlanBuilder(desired, options);
  for (const unit of builder.units()) builder.planUnit(unit, live);
  return builder.finish();
}

/**
 * What is planned together: the organization-level kinds of one organization (and the kinds
 * held by their items), or every kind of one project. A project's unit can be planned as soon
 * as its own collections are read (src/usecases/plan.ts streams them), before the rest arrive;
 * one that refers to organization-level items waits for the organization's unit.
 */
export interface PlanUnit {
  organization: string;
  /** The project, or null for the organization-level unit. */
  project: number | null;
  /** Its collections in planning order (kinds in registry order). */
  scopes: ReadonlyArray<{ kind: ResourceKind; scope: Scope }>;
  /** Collections read only to resolve references by name. */
  lookups: ReadonlyArray<{ kind: ResourceKind; scope: Scope }>;
  /** Whether it waits for its organization's unit (it refers to organization-level items). */
  afterOrganization: boolean;
}

/** What one collection's planning produced, kept until the plan is assembled in canonical order. */
interface ScopeOut {
  changes: Array<{ change: Change; execution: Execution; after: string[] }>;
  unmanaged: UnmanagedItem[];
  managed: ManagedItem[];
  unchanged: number;
  leftOut: number;
  /** What the kind's check said (warnings), and the errors the files caused here (references, creates, the kind's check). */
  checks: string[];
  errors: HogsyncError[];
}

interface OrgState {
  org: DesiredOrganization;
  refs: ReferenceIndex;
  /** Canonical order of its collections: `kind index|scope key` → its output. */
  slots: Map<string, ScopeOut>;
}

/**
 * Builds a plan unit by unit (PlanUnit), in any order the reads complete, and assembles it in
 * the canonical order (organizations, kinds, collections) by finish(): the same plan whatever
 * the order of the reads. Errors the files cause (a missing item, a pin to no item, a kind's
 * check) are raised by finish() in that order too.
 */
export class PlanBuilder {
  private readonly kinds: Kinds;
  private readonly targets: ReturnType<typeof targetsOfPlan> | undefined;
  private readonly orgs = new Map<string, OrgState>();
  private readonly liveCounts = new Map<string, number>();
  private readonly missing: DesiredItem[] = [];
  /** Items declared absent whose live record something holds (an experiment's flag). */
  private readonly heldAbsent: Array<{ kind: ResourceKind; item: DesiredItem; held: readonly HeldBy[] }> = [];
  /** Pins to ids their collection does not hold: named where the id is, once every collection was seen. */
  private readonly pinMisses: Array<{ kind: ResourceKind; scope: Scope; item: DesiredItem }> = [];
  /** Where each live id of a kind whose names repeat was seen (`kind|id` → where), for pins to another project. */
  private readonly seenIds = new Map<string, string>();
  /** Declared fields the live records of a kind do not carry at all: `kind|field` → how many items declare it. */
  private readonly absentFields = new Map<string, { kind: ResourceKind; field: string; items: number }>();
  /** Declared items standing on ones the plan deletes (see contradictions). */
  private readonly contradictions: HogsyncError[] = [];
  /** Live items that declared present items stand for (`kind|organization|id`, kinds whose names repeat): never deleted. */
  private readonly kept = new Set<string>();

  constructor(private readonly desired: DesiredState, private readonly options: PlanOptions) {
    this.kinds = options.kinds ?? KINDS;
    this.targets = options.targets ? targetsOfPlan(options.targets) : undefined;
    for (const org of desired.organizations) this.orgs.set(org.id, { org, refs: new ReferenceIndex(org.id, this.kinds, org.items), slots: new Map() });
  }

  /** The units of the desired state, in canonical order: each organization's own unit, then its projects'. */
  units(): PlanUnit[] {
    const out: PlanUnit[] = [];
    // Kinds of projects that refer to organization-level kinds wait for the organization's unit.
    const orgLevel = new Set(this.kinds.filter((k) => k.parent === 'organization').map((k) => k.name));
    const refersUp = (kind: ResourceKind) => (kind.references ?? []).some((site) => orgLevel.has(site.kind));
    for (const { org } of this.orgs.values()) {
      const byProject = new Map<number | null, { scopes: Array<{ kind: ResourceKind; scope: Scope }>; lookups: Array<{ kind: ResourceKind; scope: Scope }> }>();
      const unitOf = (project: number | null) => {
        let u = byProject.get(project);
        if (!u) {
          u = { scopes: [], lookups: [] };
          byProject.set(project, u);
        }
        return u;
      };
      unitOf(null);
      for (const kind of this.kinds) for (const scope of plannedScopes(kind, org, this.kinds)) unitOf(scope.project).scopes.push({ kind, scope });
      for (const lookup of lookupScopes(org, this.kinds)) unitOf(lookup.scope.project).lookups.push(lookup);
      for (const [project, u] of byProject) {
        out.push({
          organization: org.id, project, scopes: u.scopes, lookups: u.lookups,
          afterOrganization: project !== null && u.scopes.some(({ kind }) => refersUp(kind)),
        });
      }
    }
    return out;
  }

  /**
   * The collections of a unit whose held-back records (archived flags) must be read before it is
   * planned: those where a declared item has no live match in the default list, so the plan would
   * create it (a held-back record may hold its key), or take it for absent already (an archived
   * item declared absent is deleted). Asked before planning, so nothing is planned twice.
   */
  heldBackNeeds(unit: PlanUnit, live: LiveState): Array<{ kind: ResourceKind; scope: Scope }> {
    const state = this.orgs.get(unit.organization);
    if (!state) return [];
    return unit.scopes.filter(({ kind, scope }) => {
      if (!kind.heldBack) return false;
      // Every project's flags pass here: one set of keys, without the arrays between.
      const keys = new Set<string>();
      for (const r of live.find(kind, scope) ?? []) if (!kind.isGone(r)) keys.add(kind.matchKey(kind.displayKey(identityOf(kind, r))));
      // Absent ones too: an archived item declared absent is deleted like any other.
      return itemsIn(state.org, kind, scope).some((item) => item.pin === undefined && !keys.has(kind.matchKey(item.key))
        && (item.renamedFrom === undefined || !keys.has(kind.matchKey(item.renamedFrom)))
        && (!this.targets || this.targets.matches(addressOf(kind.name, state.org.id, keyInScope(scope, item.key)))));
    });
  }

  /** Plans one unit from live state holding (at least) its collections. */
  planUnit(unit: PlanUnit, live: LiveState): void {
    const state = this.orgs.get(unit.organization);
    if (!state) throw new HogsyncError('internal', `no organization ${unit.organization} in the desired state`);
    // Kinds the files only refer to by name, where they plan none: known for resolving, never listed.
    for (const { kind, scope } of unit.lookups) state.refs.register(kind, scope, [], live.find(kind, scope)?.filter((r) => !kind.isGone(r)));
    for (const { kind, scope } of unit.scopes) {
      // The scope as read: with its parent's id where the reader found one (a role's memberships).
      const out = this.planScope(state, kind, live.scopeOf?.(kind, scope) ?? scope, live);
      state.slots.set(`${this.kinds.indexOf(kind)}|${parentKeyOf(scope) ?? ''}`, out);
    }
    if (unit.project !== null) state.refs.release(unit.project);
  }

  private readonly declaredSets = new WeakMap<DesiredOrganization, Set<string>>();

  /** Whether the files declare an item of a kind present in the organization (what a kind's prepareCreate may ask). */
  private declaredIn(org: DesiredOrganization): (kind: string, key: string) => boolean {
    let set = this.declaredSets.get(org);
    if (!set) {
      set = new Set(org.items.filter((i) => i.ensure === 'present').map((i) => `${i.kind}|${kindByName(i.kind, this.kinds).matchKey(i.key)}`));
      this.declaredSets.set(org, set);
    }
    const found = set;
    return (kind, key) => found.has(`${kind}|${kindByName(kind, this.kinds).matchKey(key)}`);
  }

  private absent(kind: ResourceKind): (field: string) => void {
    return (field) => {
      const key = `${kind.name}|${field}`;
      const seen = this.absentFields.get(key) ?? { kind, field, items: 0 };
      seen.items++;
      this.absentFields.set(key, seen);
    };
  }

  private planScope(state: OrgState, kind: ResourceKind, scope: Scope, live: LiveState): ScopeOut {
    const { org, refs } = state;
    const targets = this.targets;
    const out: ScopeOut = { changes: [], unmanaged: [], managed: [], unchanged: 0, leftOut: 0, checks: [], errors: [] };
    const read = live.find(kind, scope) ?? [];
    const all = distinctRecords(kind, read.filter((r) => !kind.isGone(r)));
    if (kind.idPin) for (const r of all) this.seenIds.set(`${kind.name}|${String(kind.liveId(r))}`, scope.project !== null ? `project ${scope.project}` : `organization ${scope.organization}`);
    // Held-back records (archived flags) are matched to declared items, and otherwise left alone.
    const heldBack = kind.heldBack;
    const records = heldBack ? all.filter((r) => !heldBack.holds(r)) : all;
    const countKey = `${kind.name}|${org.id}`;
    this.liveCounts.set(countKey, (this.liveCounts.get(countKey) ?? 0) + records.length);
    const items = itemsIn(org, kind, scope);
    refs.register(kind, scope, items, all);
    const matcher = new Matcher(kind, scope, all, items, (item) => this.pinMisses.push({ kind, scope, item }));
    const matched = new Set<LiveRecord>();
    // What holds the scope's records (never pruned), asked of the kind once, when first needed.
    let holds: ReadonlyMap<LiveRecord, readonly HeldBy[]> | undefined;
    const heldBy = (record: LiveRecord): readonly HeldBy[] => {
      if (!kind.heldBy) return [];
      holds ??= kind.heldBy({ records, items: holdItems(items), prune: pruned(kind, org), holders: holdersOf(kind, scope, org, live, this.kinds) });
      return holds.get(record) ?? [];
    };
    // Every item is matched first, so references among items of one scope (a flag's dependency) resolve.
    const planned: Array<{ item: DesiredItem; address: string; record: LiveRecord | undefined }> = [];
    for (const item of items) {
      const address = addressOf(kind.name, org.id, keyInScope(scope, item.key));
      if (targets && !targets.matches(address)) {
        out.leftOut++;
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
        if (kind.idPin && item.ensure === 'present') this.kept.add(`${kind.name}|${org.id}|${String(kind.liveId(record))}`);
      }
      if (record && item.ensure === 'absent' && heldBy(record).length > 0) this.heldAbsent.push({ kind, item, held: heldBy(record) });
      planned.push({ item, address, record });
    }
    const ranks = kind.orderedBy ? ranksOf(kind.orderedBy, items) : undefined;
    const companions = (live.metaOf?.(kind, scope)?.companions ?? {}) as Companions;
    // A parent the plan creates (a new role): its items are created after it, with the id it gets.
    // An item of a parent inside a project (an insight's alert) also runs after its parent's own change.
    const parentFirst = scope.parent && (scope.parent.id === null || (scope.project !== null && scope.parent.project !== true))
      ? [addressOf(scope.parent.kind, org.id, parentAddressKey(scope) as string)] : [];
    const fail = (message: string, item: DesiredItem) => { out.errors.push(new HogsyncError('config', message, { position: item.position })); };
    const absent = this.absent(kind);
    for (const { item, address, record } of planned) {
      const resolved = item.ensure === 'present' ? refs.resolveFields(kind, scope, item) : { fields: item.fields, after: [] };
      // Every reference that does not resolve is said, each at its line; the item is not planned.
      if ('errors' in resolved && resolved.errors) {
        out.errors.push(...resolved.errors);
        continue;
      }
      const rank = ranks?.get(item);
      if (rank !== undefined && kind.orderedBy) resolved.fields = { ...resolved.fields, [kind.orderedBy.field]: rank };
      // An item that waits (an open invite, a member still to accept one): a note, neither a change nor drift.
      const pending = record && item.ensure === 'present' ? kind.pendingNote?.(record) : undefined;
      if (pending !== undefined) {
        out.managed.push({ address, digest: itemDigest(kind, item, record, resolved.fields) });
        out.checks.push(`${address}: ${pending}`);
        out.unchanged++;
        continue;
      }
      const createdFirst: string[] = [];
      const prepared = !record && item.ensure === 'present' && kind.canCreate && kind.creatable?.(item.key) !== false ? kind.prepareCreate?.(item.key, {
        companions,
        declared: this.declaredIn(org),
        declaredKeys: (of) => org.items.filter((i) => i.kind === of && i.parent === undefined && i.ensure === 'present').map((i) => i.key),
        createdId: (of, key) => {
          const target = kindByName(of, this.kinds);
          const declared = org.items.find((i) => i.kind === of && i.parent === undefined && i.ensure === 'present' && target.matchKey(i.key) === target.matchKey(key));
          if (!declared) return undefined;
          const address = addressOf(of, org.id, declared.key);
          createdFirst.push(address);
          return new Deferred(address, 'string');
        },
      }) : undefined;
      if (prepared && ('wait' in prepared || 'error' in prepared)) {
        out.managed.push({ address, digest: itemDigest(kind, item, record, resolved.fields) });
        if ('wait' in prepared) out.checks.push(`${address}: ${prepared.wait}`);
        else fail(prepared.error, item);
        continue;
      }
      const same: string[] = [];
      const change = diffItem(kind, scope, address, item, record, resolved, refs, absent, same);
      out.managed.push({ address, digest: itemDigest(kind, item, record, resolved.fields, same) });
      if (change === 'missing') this.missing.push(item);
      else if (change === null) out.unchanged++;
      else {
        const protectedBecause = record ? kind.protects?.(record, companions) : undefined;
        if (protectedBecause !== undefined) {
          fail(`${labelOf(kind)} "${item.key}" ${protectedBecause}: hogsync never ${change.change.action === 'delete' ? 'removes' : 'changes'} it, `
            + `whatever the files say; ${change.change.action === 'delete' ? 'remove ensure: absent' : `remove the ${change.change.fields.map((f) => f.path).join(', ')} it asks for`}`, item);
          continue;
        }
        if (prepared) change.execution.values = { ...change.execution.values, ...prepared.values };
        if (kind.requestValues && change.change.action !== 'delete') change.execution.values = kind.requestValues(change.execution.values, companions);
        out.changes.push({ ...change, after: [...parentFirst, ...createdFirst, ...resolved.after] });
      }
    }
    const unmatched = kind.listsUnmanaged !== false ? records.filter((r) => !matched.has(r)) : [];
    // Most scopes have none: then the loop is not entered at all, which also keeps its optimised
    // code (V8's, for this long function) from being thrown away and compiled again when one has.
    if (unmatched.length > 0) {
      for (const [record, key] of matcher.unmanagedKeys(unmatched)) {
        const address = addressOf(kind.name, org.id, keyInScope(scope, key));
        if (targets && !targets.matches(address)) continue;
        const held = heldBy(record);
        // A record a declared item replaces (a hog function whose type changed) goes, pruned or not;
        // so does one a whole list leaves out (a role's members).
        const replaced = kind.replacedBy?.(record, holdItems(items)) === true;
        const movedTo = kind.parentFixed ? movedItem(kind, org, scope, key, live) : undefined;
        const whole = wholeListAt(kind, org, scope);
        const owned = pruned(kind, org) || replaced || movedTo !== undefined || whole !== undefined;
        if (owned && kind.canDelete !== false && held.length === 0 && kind.protects?.(record, companions) === undefined) {
          out.managed.push({ address, digest: itemDigest(kind, undefined, record) });
          const pruneAt = whole ?? org.pruneAt?.[kind.configKey];
          out.changes.push({
            change: {
              address, kind: kind.name, organization: org.id, project: scope.project, key: keyInScope(scope, key), action: 'delete', fields: [],
              ...(movedTo ? { declared_at: [formatAt(movedTo.position)], notes: [`moved to ${addressOf(kind.name, org.id, keyInScope(scopeOfItem(movedTo), movedTo.key))}: ${kind.parentFixed as string}, so it is deleted here and created there`] }
                : pruneAt ? { declared_at: [formatAt(pruneAt)] } : {}),
            },
            execution: { kind, scope, identity: key, id: kind.liveId(record), values: {}, live: record },
            after: [],
          });
        } else {
          out.unmanaged.push({ address, kind: kind.name, organization: org.id, key: keyInScope(scope, key), ...(held.length > 0 ? { held_by: [...held] } : {}) });
        }
      }
    }
    this.check(kind, scope, items, read, live, out);
    // Sorted here, while other reads are in flight: finish() sorts the whole plan's items after the
    // last answer, and runs already in order (as scopes are, in canonical order) merge in one pass.
    out.managed.sort(byAddress);
    return out;
  }

  /** The kind's plan-time check of one collection (kind.check): its warnings, and the first error it finds. */
  private check(kind: ResourceKind, scope: Scope, items: readonly DesiredItem[], read: readonly LiveRecord[], live: LiveState, out: ScopeOut): void {
    if (!kind.check) return;
    const meta = live.metaOf?.(kind, scope);
    const changes = out.changes.map(({ change, execution: e }): ChangeView => ({
      address: change.address, action: change.action, identity: e.identity, scope: e.scope, values: e.values, ...(e.live ? { live: e.live } : {}),
    }));
    try {
      const checked = kind.check({
        scope,
        items: holdItems(items),
        records: read.filter((r) => !kind.isGone(r)),
        gone: read.filter((r) => kind.isGone(r)),
        changes,
        ...(meta ? { meta } : {}),
        purpose: this.options.kind ?? 'plan',
      });
      // Raised by finish(), in canonical order, not in the order collections happened to arrive.
      if (checked.error) out.errors.push(new HogsyncError('config', checked.error, checked.errorAt ? { position: checked.errorAt as FilePosition } : undefined));
      out.checks.push(...(checked.warnings ?? []));
    } catch (err) {
      if (!(err instanceof HogsyncError)) throw err;
      out.errors.push(err);
    }
  }

  /** The plan, assembled in canonical order; raises the first error the files caused. */
  finish(): PlanResult {
    const changes: Change[] = [];
    const unmanaged: UnmanagedItem[] = [];
    const managed: ManagedItem[] = [];
    const executions = new Map<string, Execution>();
    const dependencies: Array<[string, string]> = [];
    const checks: string[] = [];
    const errors: HogsyncError[] = [];
    let unchanged = 0;
    let leftOut = 0;
    for (const state of this.orgs.values()) {
      const orgChanges: ScopeOut['changes'] = [];
      for (const [index, kind] of this.kinds.entries()) {
        for (const scope of plannedScopes(kind, state.org, this.kinds)) {
          const out = state.slots.get(`${index}|${parentKeyOf(scope) ?? ''}`);
          if (!out) throw new HogsyncError('internal', `${kind.name} of ${parentKeyOf(scope) ?? state.org.id} was not planned`);
          orgChanges.push(...out.changes);
          unmanaged.push(...out.unmanaged);
          managed.push(...out.managed);
          unchanged += out.unchanged;
          leftOut += out.leftOut;
          errors.push(...out.errors);
          checks.push(...out.checks);
        }
      }
      this.contradictions.push(...contradictions(state.org, orgChanges.map((c) => c.change), this.kinds));
      dependencies.push(...referenceOrder(orgChanges));
      // A drift report says what differs; a plan says the steps that take it there, in order.
      for (const planned of orgChanges) {
        for (const { change, execution } of this.options.kind === 'drift' ? [planned] : splitSteps(planned)) {
          changes.push(change);
          executions.set(changeKey(change), execution);
          if (execution.follows !== undefined) dependencies.push([execution.follows, changeKey(change)]);
        }
      }
    }
    throwAll([...this.raise(), ...errors, ...this.contradictions], this.desired.sources);
    assertOneChangePerItem(changes, executions, this.desired, this.kinds, this.kept);

    const { desired, options } = this;
    const plan: Plan = {
      format_version: '1',
      kind: options.kind ?? 'plan',
      base_url: options.baseUrl,
      sources: desired.sources,
      fingerprint: '',
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
    plan.fingerprint = fingerprintOf(plan.managed, desired, options.targets);
    const deleteNotes = changes.filter((c) => c.action === 'delete').flatMap((c) => {
      const run = executions.get(changeKey(c));
      const note = run?.kind.deleteNote?.(run.live);
      return note ? [`${c.address}: ${note}`] : [];
    });
    const notices = [...this.absentFields.values()].map(({ kind, field, items }) =>
      `${labelOf(kind)} field ${field} is not kept by this API (its ${labelOf(kind)} records have no such field): `
      + `not managed here, no change planned (declared for ${items} item${items === 1 ? '' : 's'}); remove it from the files`)
      .concat(deleteNotes);
    return { plan, executions, liveCounts: this.liveCounts, notices, checks, ...(dependencies.length > 0 ? { dependencies } : {}) };
  }

  /** The errors the files caused beyond those of each collection, in the order of the desired state. */
  private raise(): HogsyncError[] {
    const errors: HogsyncError[] = [];
    // The files' order, listed only when there is something to raise (a plan declares thousands of items).
    let declared: Map<DesiredItem, number> | undefined;
    const order = (item: DesiredItem): number => {
      if (!declared) {
        declared = new Map();
        let n = 0;
        for (const state of this.orgs.values()) for (const i of state.org.items) declared.set(i, n++);
      }
      return declared.get(item) ?? 0;
    };
    const inOrder = <T extends { item: DesiredItem }>(list: readonly T[]): T[] => [...list].sort((a, b) => order(a.item) - order(b.item));
    for (const { kind, scope, item } of inOrder(this.pinMisses)) {
      const where = scope.parent ? `${scope.parent.kind.replace(/_/g, ' ')} ${scope.parent.key}` : scope.project !== null ? `project ${scope.project}` : `organization ${scope.organization}`;
      const seen = this.seenIds.get(`${kind.name}|${String(item.pin)}`);
      const elsewhere = seen && seen !== where ? `which is ${aLabelOf(kind)} of ${seen}, not of ${where}` : `but ${where} has no ${labelOf(kind)} with that id`;
      errors.push(new HogsyncError('config', `${labelOf(kind)} "${keyInScope(scope, item.key)}" is pinned to id ${String(item.pin)}, ${elsewhere}: correct the id, or remove it to match by ${kind.identityField}`, { position: item.position }));
    }
    for (const { item: missing } of inOrder(this.missing.map((item) => ({ item })))) {
      const kind = kindByName(missing.kind, this.kinds);
      const why = kind.notCreated ?? `${labelOf(kind)} items cannot be created`;
      const where = missing.project !== null && !kind.projectKind ? `project ${missing.project}` : `organization ${missing.organization}`;
      errors.push(new HogsyncError('config', `${labelOf(kind)} "${missing.key}" does not exist in ${where}: ${why}`, { position: missing.position }));
    }
    for (const { kind, item, held } of inOrder(this.heldAbsent)) {
      errors.push(new HogsyncError('config', `${labelOf(kind)} "${itemAddressKey(item)}" has ensure: absent, but it is ${heldByText(held)}: `
        + 'it is not deleted while that holds it; remove ensure: absent, or release it there first', { position: item.position }));
    }
    return errors;
  }
}

/**
 * Every declared item that stands on an item the plan deletes (a role's member whom
 * `prune.members` removes from the organization): the files contradict themselves, and applying
 * would succeed and leave the next plan failing. Each said at the declared item's line.
 */
function contradictions(org: DesiredOrganization, changes: readonly Change[], kinds: Kinds): HogsyncError[] {
  const deletes = changes.filter((c) => c.action === 'delete' && c.project === null);
  if (deletes.length === 0) return [];
  const deleted = new Map(deletes.map((c) => [`${c.kind}|${kindByName(c.kind, kinds).matchKey(c.key)}`, c]));
  const errors: HogsyncError[] = [];
  for (const item of org.items) {
    if (item.ensure !== 'present') continue;
    const needs = kinds.find((k) => k.name === item.kind)?.requires?.(item.key);
    const change = needs && deleted.get(`${needs.kind}|${kindByName(needs.kind, kinds).matchKey(needs.key)}`);
    if (!needs || !change) continue;
    const needed = kindByName(needs.kind, kinds);
    const by = change.declared_at?.[0];
    errors.push(new HogsyncError('config', `${labelOf(kindByName(item.kind, kinds))} "${itemAddressKey(item)}" needs ${labelOf(needed)} ${needs.key}, `
      + `which this plan deletes (${change.address}${by ? `, by ${by}` : ''}): the files contradict themselves; declare ${needs.key} under ${needed.configKey}, or remove this entry`, { position: item.position }));
  }
  return errors;
}

/**
 * Raises what the files caused, all of it: one error as it is, several (each at its file:line:col)
 * together, in the files' order, so a user fixes them in one pass. An error without a position
 * (rare: a kind's check that cannot say where) is raised alone, first.
 */
function throwAll(errors: readonly HogsyncError[], sources: readonly string[]): void {
  if (errors.length === 0) return;
  const unplaced = errors.find((e) => e.position === undefined);
  if (errors.length === 1 || unplaced) throw unplaced ?? errors[0];
  throw new ConfigErrors(sortProblems(errors.map((e) => ({ position: e.position as FilePosition, message: e.message })), sources));
}

/** Each item's rank in the files' order among those the kind orders, unless one of them declares the field itself. */
function ranksOf(ordered: NonNullable<ResourceKind['orderedBy']>, items: readonly DesiredItem[]): Map<DesiredItem, number> | undefined {
  const among = items.filter((i) => i.ensure === 'present' && ordered.among(i.key));
  if (among.some((i) => i.fields[ordered.field] !== undefined)) return undefined;
  return new Map(among.map((i, n) => [i, n + 1]));
}

/**
 * The item a live one no file declares where it is has moved to (kind.parentFixed): declared
 * present, of the same identity, under another parent item of the project, where it does not
 * exist yet. Its project's collections are planned together (one unit), so that one was read.
 */
function movedItem(kind: ResourceKind, org: DesiredOrganization, scope: Scope, key: string, live: LiveState): DesiredItem | undefined {
  const match = kind.matchKey(key);
  return org.items.find((i) => i.kind === kind.name && i.ensure === 'present' && i.project === scope.project && i.parent !== undefined
    && (i.parent.kind !== scope.parent?.kind || i.parent.key !== scope.parent.key) && kind.matchKey(i.key) === match
    && !(live.find(kind, scopeOfItem(i)) ?? []).some((r) => !kind.isGone(r) && kind.matchKey(kind.displayKey(identityOf(kind, r))) === match));
}

/** The declared items as kinds see them: themselves, through the view's narrower type (a copy of each was an object for each of 20 000 flags, for every check). */
function holdItems(items: readonly DesiredItem[]): HoldView['items'] {
  return items;
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
  const key = keyInScope(scope, kind.displayKey(identityOf(kind, b)));
  return new HogsyncError('api', `the API lists two ${kind.name}s as ${addressOf(kind.name, scope.organization, key)} (ids ${String(kind.liveId(a))} and ${String(kind.liveId(b))}): `
    + 'hogsync cannot tell which one the files mean, so it plans nothing; remove or rename one of them in the web app');
}

/**
 * The last line of defence: one change per item, and never a delete of an item the files
 * declare present. A plan that breaks either is refused, never applied.
 */
function assertOneChangePerItem(changes: readonly Change[], executions: ReadonlyMap<string, Execution>, desired: DesiredState, kinds: Kinds, kept: ReadonlySet<string>): void {
  const matchOf = (kind: ResourceKind, organization: string, project: number | null, parent: string | undefined, key: string) =>
    `${kind.name}|${organization}|${project ?? ''}|${parent?.toLowerCase() ?? ''}|${kind.matchKey(key)}`;
  const declared = new Set<string>();
  // Only a delete can take what the files declare: without one, the declared items are not listed.
  const deletes = changes.some((c) => c.action === 'delete');
  for (const org of deletes ? desired.organizations : []) {
    for (const item of org.items) {
      const kind = kinds.find((k) => k.name === item.kind);
      // Identities that repeat in the API are checked by the live ids the declared items matched.
      if (kind && !kind.idPin && item.ensure === 'present') declared.add(matchOf(kind, org.id, item.project, item.parent?.key, item.key));
    }
  }
  const seen = new Set<string>();
  for (const change of changes) {
    const key = changeKey(change);
    if (seen.has(key)) throw new HogsyncError('internal', `refusing a plan with two changes of ${change.address}${change.step ? ` (step ${change.step.number})` : ''}`);
    seen.add(key);
    const run = executions.get(key);
    if (change.action === 'delete' && run && (declared.has(matchOf(run.kind, run.scope.organization, run.scope.project, run.scope.parent?.key, run.identity))
      || (run.id !== null && kept.has(`${run.kind.name}|${run.scope.organization}|${String(run.id)}`)))) {
      throw new HogsyncError('internal', `refusing a plan that deletes ${change.address}, which the files declare`);
    }
  }
}

/** Code-unit order: stable across machines and locales (localeCompare is neither, and slow). */
function byAddress(a: ManagedItem, b: ManagedItem): number {
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
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
  resolved: { fields: Record<string, unknown>; after: readonly string[] }, refs: ReferenceIndex,
  onAbsent: (field: string) => void = () => undefined, same: string[] = []): { change: Change; execution: Execution } | 'missing' | null {
  const resolvedFields = resolved.fields;
  // Ids only apply can fill in stand for items the plan creates first (`after`): without any,
  // no field is searched for one.
  const mayDefer = resolved.after.length > 0;
  if (item.ensure === 'absent') {
    if (!record) return null;
    return { change: { ...changeBase(kind, scope, address, item), action: 'delete', fields: [], ...declaredAtOf(item, []) }, execution: { ...executionTarget(kind, scope, item), id: kind.liveId(record), values: {}, live: record } };
  }
  const declared = withIdentity(kind, item, resolvedFields);
  if (!record) {
    if (!kind.canCreate || kind.creatable?.(item.key) === false) return 'missing';
    const fields = Object.entries(withIdentity(kind, item)).flatMap(([path, after]): FieldChange[] => {
      const keyed = kind.keyedFields ? keyedCreate(kind, item, path, after) : undefined;
      if (keyed) return keyed;
      const sensitive = isSensitive(kind, item, path);
      return [{ path, before: null, after: shown(after, sensitive), sensitive, ...(sensitive && kind.writeOnlyFields?.includes(path) ? { write_only: true as const } : {}) }];
    });
    const values = kind.completeValues ? { ...resolvedFields, ...kind.completeValues(resolvedFields, undefined) } : resolvedFields;
    return { change: { ...changeBase(kind, scope, address, item), action: 'create', fields, ...declaredAtOf(item) }, execution: { ...executionTarget(kind, scope, item), id: null, values } };
  }
  const fields: FieldChange[] = [];
  const values: Record<string, unknown> = {};
  // Renamed in place (renamed_from): the identity changes with the other fields, by one PATCH.
  const liveKey = kind.displayKey(identityOf(kind, record));
  const renamed = kind.matchKey(liveKey) !== kind.matchKey(item.key) ? liveKey : undefined;
  if (renamed !== undefined) {
    fields.push({ path: kind.identityField, before: identityValue(kind, liveKey), after: identityValue(kind, item.key), sensitive: false });
    Object.assign(values, identityFieldsOf(kind, item.key));
  }
  for (const path in declared) {
    const after = declared[path];
    if (renamed !== undefined && path === kind.identityField) continue;
    const spec = kind.fields[path];
    if (!spec || spec.createOnly) continue;
    if (!Object.prototype.hasOwnProperty.call(record, path)) {
      onAbsent(path);
      continue;
    }
    const deferred = mayDefer && holdsDeferred(after);
    if (!deferred && sameField(kind, path, after, record[path], { declared: item.fields, record })) {
      same.push(path);
      continue;
    }
    const keyed = kind.keyedFields ? keyedUpdate(kind, item, path, after, record[path], record) : undefined;
    if (keyed) {
      fields.push(...keyed);
      values[path] = after;
      continue;
    }
    const sensitive = isSensitive(kind, item, path, record);
    const liveSecret = isLiveSecret(kind, item, path, record);
    // Shown by name where the files wrote a name, and live ids by name where the project knows them.
    // As compared: what the kind fills in from the live value (a survey question's live id) shows as kept, not as removed.
    const together = sensitive ? undefined : kind.comparedTogether?.[path];
    const written = together ? together(item.fields[path] ?? after, record[path])[0] : item.fields[path] ?? after;
    const before = refs.liveByName(kind, scope, path, comparable(kind, path, record[path], written));
    fields.push({ path, before: shown(before, liveSecret), after: shown(comparable(kind, path, written, written), sensitive), sensitive,
      ...(sensitive && kind.writeOnlyFields?.includes(path) ? { write_only: true as const } : {}) });
    // A merged field keeps keys that are not sent: the ones the file dropped go as null (not the
    // keys the server adds or owns: an empty default, a value another feature owns).
    values[path] = spec.merge ? mergedUpdate(after, dropServerKeys(record[path], after, serverKeysOf(kind, path)), spec.merge) : after;
  }
  if (fields.length === 0) return null;
  const complete = kind.completeValues ? { ...values, ...kind.completeValues(values, record) } : values;
  const change: Change = { ...changeBase(kind, scope, address, item), action: 'update', fields, ...declaredAtOf(item, fields.map((f) => f.path)), ...(renamed !== undefined ? { renamed_from: String(identityValue(kind, renamed)) } : {}) };
  return { change, execution: { ...executionTarget(kind, scope, item), id: kind.liveId(record), values: complete, live: record } };
}

/** An identity as the file writes its identity field (`renamed_from`): a hog function's name, not its TYPE/NAME key. */
function identityValue(kind: ResourceKind, key: string): unknown {
  return identityFieldsOf(kind, key)[kind.identityField] ?? key;
}

/** What a change says of its item; made for a change only (most items compared have none), as the two below. */
function changeBase(kind: ResourceKind, scope: Scope, address: string, item: DesiredItem) {
  return { address, kind: kind.name, organization: item.organization, project: item.project, key: keyInScope(scope, item.key) };
}

function executionTarget(kind: ResourceKind, scope: Scope, item: DesiredItem) {
  return { kind, scope, identity: item.key };
}

function declaredAtOf(item: DesiredItem, fields?: readonly string[]) {
  return { declared_at: declaredAt(item, fields).map(formatAt) };
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

/**
 * Digest of the desired and live state of one item; secrets enter only as their own digests. A
 * live value the comparison found the same as the declared one (`same`) enters as that finding:
 * whatever it becomes, the plan stays the same while it compares the same, and writing it out
 * again (the live value with the keys the server adds) was half of every digest's work.
 */
function itemDigest(kind: ResourceKind, item: DesiredItem | undefined, record: LiveRecord | undefined, fields?: Record<string, unknown>,
  same: readonly string[] = []): string {
  // The fields as withIdentity gives them, without building that object: this runs for every item.
  const declared = item ? fields ?? item.fields : {};
  const names = Object.keys(declared);
  const identity = item !== undefined && kind.identityField in kind.fields && !Object.prototype.hasOwnProperty.call(declared, kind.identityField);
  if (identity) names.push(kind.identityField);
  if (names.length > 1) sortKeys(names);
  // Which fields are secret is asked once per item (it runs for every declared item).
  const secret = kind.secretFields?.(item?.fields, record);
  const isSecret = (field: string) => kind.fields[field]?.sensitive === true || item?.interpolated.includes(field) === true || secret?.includes(field) === true;
  // Not the address: each digest is kept and compared beside its address.
  let text = `${item ? item.ensure : '-'}\n${record ? String(kind.liveId(record)) : '-'}`;
  for (const field of names) {
    const hidden = isSecret(field);
    text += `\n${field}=${digestValue(identity && field === kind.identityField ? item.key : declared[field], hidden)}`;
    if (record) text += same.includes(field) ? '|=' : `|${digestValue(record[field], hidden)}`;
  }
  return sha256(text).slice(0, 16);
}

function digestValue(value: unknown, secret: boolean): string {
  const json = canonicalJson(value);
  return secret && value != null ? `"sha256:${sha256(json)}"` : json;
}

/** What JSON.stringify escapes in a string: quotes, backslashes, control characters, lone surrogates. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The plan's fingerprint; `items` in address order (finish sorts them). */
function fingerprintOf(items: readonly ManagedItem[], desired: DesiredState, targets?: Omit<PlanTargets, 'left_out'>): string {
  const prune = desired.organizations.map((o) => [o.id, o.prune]);
  // A targeted plan stands for its targets too: applied with others, it would be another plan.
  const scope = targets ? {
    targets: targets.addresses, derived: targets.changed_since?.derived.map((d) => d.address) ?? null,
    ...(targets.since ? { since: targets.since.derived.map((d) => d.address) } : {}),
  } : {};
  // The digest of canonicalJson({ items: [[address, digest], …], prune, …scope }), fed to the
  // hash a few hundred items at a time: tens of thousands of items are megabytes of text.
  const whole: Record<string, unknown> = { items: null, prune, ...scope };
  const digest = createHash('sha256');
  let text = '{';
  for (const key of Object.keys(whole).sort()) {
    if (whole[key] === undefined) continue;
    text += `${text === '{' ? '' : ','}${JSON.stringify(key)}:`;
    if (key !== 'items') {
      text += canonicalJson(whole[key]);
      continue;
    }
    text += '[';
    for (let i = 0; i < items.length; i++) {
      const m = items[i] as ManagedItem;
      // A digest is hex; an address is quoted as JSON.stringify would, without calling it for
      // the many that need no escape.
      text += `${i === 0 ? '' : ','}[${NEEDS_ESCAPE.test(m.address) ? JSON.stringify(m.address) : `"${m.address}"`},"${m.digest}"]`;
      if (i % 512 === 511) {
        digest.update(text);
        text = '';
      }
    }
    text += ']';
  }
  digest.update(`${text}}`);
  return `sha256:${digest.digest('hex')}`;
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
export class Matcher {
  private readonly byMatch = new Map<string, LiveRecord[]>();
  private readonly byId = new Map<string, LiveRecord>();
  private readonly pinned = new Set<LiveRecord>();

  constructor(private readonly kind: ResourceKind, private readonly scope: Scope, records: readonly LiveRecord[], items: readonly DesiredItem[],
    private readonly onMissingPin: (item: DesiredItem) => void) {
    for (const r of records) {
      const m = kind.matchKey(kind.displayKey(identityOf(kind, r)));
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
    if (item.pin !== undefined) {
      const record = this.byId.get(String(item.pin));
      // Named once every collection was read: the id may be another project's (PlanBuilder.raise).
      if (!record) this.onMissingPin(item);
      return record;
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
      throw new HogsyncError('config', `${labelOf(kind)} "${keyInScope(scope, item.key)}" has renamed_from: "${item.renamedFrom}", but both are live `
        + `(ids ${String(kind.liveId(old))} and ${String(kind.liveId(record))}): remove renamed_from, or delete one of them first`, { position: item.position });
    }
    if (!kind.renamable) {
      throw new HogsyncError('config', `${labelOf(kind)} items cannot be renamed in place: remove renamed_from`, { position: item.position });
    }
    return old;
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
      const key = this.kind.displayKey(identityOf(this.kind, r));
      const repeated = (this.byMatch.get(this.kind.matchKey(key))?.length ?? 0) > 1;
      return [r, repeated ? `${key}#${String(this.kind.liveId(r))}` : key];
    });
  }
}

/**
 * The order references ask of apply, as [before, after] address pairs: a create after the
 * creates whose ids it refers to (a change of an item that refers to another before that
 * other's delete: src/plan/change-order.ts). A cycle of creates (each waiting for another's id) is refused.
 */
function referenceOrder(entries: ReadonlyArray<{ change: Change; execution: Execution; after: string[] }>): Array<[string, string]> {
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
  return pairs;
}

