// The plan: a value computed once from desired and live state, read by every renderer,
// by the safety rules and by apply. Its JSON form (format_version "1") is a contract.
// Nothing changes a plan once computed: annotations (a kind's previews, warnings) make a
// new plan (src/plan/annotate.ts), safety is evaluated from (plan, options) when needed.
import type { ChangeAnnotations, HeldBy, KindName, LiveRecord, ResourceKind, Scope } from '../resources/kind.js';

export type { BlastRadius, ChangeAnnotations, HeldBy } from '../resources/kind.js';
import type { Attribution } from './attribution.js';

export type { Attribution } from './attribution.js';

export type Action = 'create' | 'update' | 'delete';

export const SENSITIVE = '(sensitive)';

export interface FieldChange {
  path: string;
  before: unknown;
  after: unknown;
  sensitive: boolean;
  /** A secret the API never reads back (a hog function's secret inputs): shown `(sensitive, write-only)`. */
  write_only?: true;
  /** Drift attribution: who made the live value, from the activity log (an annotation, src/plan/attribution.ts). */
  attribution?: Attribution;
}

export interface Change extends ChangeAnnotations {
  address: string;
  kind: KindName;
  organization: string;
  project: number | null;
  key: string;
  action: Action;
  fields: FieldChange[];
  /** Drift attribution: the newest change of this item's drifted fields (else of the item), from the activity log. */
  attribution?: Attribution;
  /**
   * Where the line that caused the change is (`file:line:col`): the item's declaration, then
   * where its changed fields came from when that is elsewhere (an override, `defaults`); for a
   * delete by prune, the `prune` setting. Advice for reviewers: not part of the fingerprint.
   */
  declared_at?: string[];
  /** The live item's previous identity, when the change renames it in place (`renamed_from`). */
  renamed_from?: string;
  /**
   * One of the ordered changes an item's change was split into (a kind's `laterSteps`: an
   * experiment ended, then archived): which, of how many. Each keeps the item's address.
   */
  step?: ChangeStep;
}

export interface ChangeStep { number: number; of: number }

/**
 * What apply, the dependencies and the executions key a change by: its address, and for a
 * later step of an item's change the address with that step after a NUL (which `--target`
 * refuses; two changes meeting on one key are refused by the planner), so every step is a change of its own.
 */
export function changeKey(change: { address: string; step?: ChangeStep }): string {
  return change.step && change.step.number > 1 ? `${change.address}\u0000step ${change.step.number}` : change.address;
}

/** What a targeted plan (`--target`, `--changed-since`) is limited to. */
export interface PlanTargets {
  /** The `--target` addresses given (globs), if any. */
  addresses: string[];
  /** What `--changed-since` derived, if it was given. */
  changed_since?: {
    revision: string;
    commit: string;
    /** The addresses and scopes whose declarations differ, and why. */
    derived: { address: string; reason: string }[];
  };
  /**
   * What `drift --since` derived from the activity logs: the items their entries name, and every
   * kind the logs do not record (`KIND:ORG/*`), each with why.
   */
  since?: {
    /** The window's start (the report's `since`). */
    start: string;
    /** Where each organization's entries were read: its organization-wide log, or each declared project's. */
    logs: Array<{ organization: string; log: 'organization' | 'projects' }>;
    /** Entries read inside the window (each once). */
    entries: number;
    derived: { address: string; reason: string }[];
  };
  /** Declared items the targets leave out (not read, not planned). */
  left_out: number;
}

export interface UnmanagedItem {
  address: string;
  kind: KindName;
  organization: string;
  key: string;
  /** What holds the item (an experiment holding a flag): it is never pruned. */
  held_by?: HeldBy[];
}

/** A managed item (declared, or owned through prune) and the digest of its desired + live state. */
export interface ManagedItem {
  address: string;
  digest: string;
}

export interface PlanSummary { create: number; update: number; delete: number; unchanged: number; unmanaged: number }

export interface Plan {
  format_version: '1';
  kind: 'plan' | 'drift';
  base_url: string;
  sources: string[];
  fingerprint: string;
  summary: PlanSummary;
  changes: Change[];
  unmanaged: UnmanagedItem[];
  warnings: string[];
  managed: ManagedItem[];
  /** Present when the plan is targeted: it covers only the items these match. */
  targets?: PlanTargets;
  /**
   * A `drift --since` report: the start of its window (ISO 8601). It covers what the activity
   * logs name since then, and the kinds they do not record (`targets.since` says which).
   */
  since?: string;
  /**
   * A drift report run with `--fail-on-unmanaged`: unmanaged items are findings (they fail the
   * run as drift does), counted in `findings` with the changes. Absent otherwise.
   */
  fail_on_unmanaged?: true;
  findings?: number;
}

/** Changes, and unmanaged items where the report counts them as drift (`--fail-on-unmanaged`). */
export function findingsOf(plan: Plan): number {
  return plan.changes.length + (plan.fail_on_unmanaged ? plan.unmanaged.length : 0);
}

/** The report of `drift --fail-on-unmanaged`: its unmanaged items are findings in every format. */
export function failingOnUnmanaged(plan: Plan): Plan {
  const marked: Plan = { ...plan, fail_on_unmanaged: true };
  return { ...marked, findings: findingsOf(marked) };
}

/** What apply needs to carry out one change; never serialized (it holds real, secret values). */
export interface Execution {
  kind: ResourceKind;
  scope: Scope;
  /** The identity value as the API takes it (a flag's key without its project). */
  identity: string;
  /** API id of the live item (update/delete). */
  id: string | number | null;
  /** Declared values of the changed fields, unredacted. */
  values: Record<string, unknown>;
  /** The live record as planned (updates and deletes). */
  live?: LiveRecord;
  /** A later step of an item's change: the key of the step before, which must have been applied first. */
  follows?: string;
}

/** A plan together with what is needed to execute it and to check its safety. */
export interface PlanResult {
  plan: Plan;
  /** By change key (changeKey): the address, or the address and step of a later step. */
  executions: Map<string, Execution>;
  /** Live item count per `kind|organization` (for the delete-share safety rule). */
  liveCounts: Map<string, number>;
  /** What the kinds' plan-time checks said (kind.check): warnings shown with the plan. */
  checks?: string[];
  /** Pairs [before, after] of change addresses that references ask apply to respect (see src/plan/references.ts). */
  dependencies?: Array<[string, string]>;
  /**
   * What the planner found that the user must hear, shown as the plan's warnings (the use case
   * annotates the plan with them): e.g. declared fields this API version does not have.
   */
  notices?: string[];
}

export function addressOf(kind: KindName, organization: string, key: string): string {
  return `${kind}:${organization}/${key}`;
}

/** `held by experiment "Checkout test" and survey 7`: what holds an item, in words. */
export function heldByText(held: readonly HeldBy[]): string {
  const names = held.map((h) => `${h.kind.replace(/_/g, ' ')} ${h.name === null ? String(h.id) : JSON.stringify(h.name)}`);
  return `held by ${names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] as string}`}`;
}
