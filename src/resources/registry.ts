// Every resource kind hogsync manages, and what is derived from the list: which kinds sit at
// the top of a file, which are nested in which, which can be pruned. Adding a kind is one
// module and one line here. The engine takes the list as a parameter (defaulting to KINDS),
// so a test can run it over kinds of its own.
import type { KindName, ResourceKind } from './kind.js';
import { project } from './project/kind.js';
import { proxyRecord } from './proxy_record/kind.js';
import { role } from './role/kind.js';
import { member } from './member/kind.js';
import { roleMembership } from './role_membership/kind.js';
import { access } from './access/kind.js';
import { action } from './action/kind.js';
import { cohort } from './cohort/kind.js';
import { featureFlag } from './feature_flag/kind.js';
import { eventDefinition } from './event_definition/kind.js';
import { hogFunction } from './hog_function/kind.js';
import { experimentHoldout } from './experiment_holdout/kind.js';
import { experimentSavedMetric } from './experiment_saved_metric/kind.js';
import { experiment } from './experiment/kind.js';

/**
 * In the order plans list them and apply creates them; parents before their children, and kinds
 * referred to by name before the kinds that refer to them (members, then roles and their
 * memberships, then project access; actions, then cohorts, then flags; hog functions after actions).
 */
export const KINDS: readonly ResourceKind[] = [project, proxyRecord, member, role, roleMembership, access, action, cohort, featureFlag, hogFunction, eventDefinition, experimentHoldout, experimentSavedMetric, experiment];

export type Kinds = readonly ResourceKind[];

export function kindByName(name: KindName, kinds: Kinds = KINDS): ResourceKind {
  const kind = kinds.find((k) => k.name === name);
  if (!kind) throw new Error(`unknown resource kind ${name}`);
  return kind;
}

/** Kinds whose lists sit at the top level of a file. */
export function topKinds(kinds: Kinds = KINDS): ResourceKind[] {
  return kinds.filter((k) => k.parent === 'organization');
}

/** Kinds whose items are nested in items of `parent`. */
export function childKinds(parent: ResourceKind, kinds: Kinds = KINDS): ResourceKind[] {
  return kinds.filter((k) => k.parent === parent.name);
}

/** The kind whose items hold items of `child`, or undefined for a top-level kind. */
export function parentKind(child: ResourceKind, kinds: Kinds = KINDS): ResourceKind | undefined {
  return child.parent === 'organization' ? undefined : kindByName(child.parent, kinds);
}

/** Keys under `prune:`, one per prunable kind. */
export function pruneKeys(kinds: Kinds = KINDS): string[] {
  return kinds.filter((k) => k.prunable).map((k) => k.configKey);
}
