// Every resource kind hogsync manages, and what is derived from the list: which kinds sit at
// the top of a file, which are nested in which, which can be pruned. Adding a kind is one
// module and one line here. The engine takes the list as a parameter (defaulting to KINDS),
// so a test can run it over kinds of its own.
import { isChildOf, parentNames, type KindName, type ResourceKind } from './kind.js';
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
import { insight } from './insight/kind.js';
import { dashboard } from './dashboard/kind.js';
import { survey } from './survey/kind.js';
import { earlyAccessFeature } from './early_access_feature/kind.js';
import { experimentHoldout } from './experiment_holdout/kind.js';
import { experimentSavedMetric } from './experiment_saved_metric/kind.js';
import { experiment } from './experiment/kind.js';
import { alert } from './alert/kind.js';
import { subscription } from './subscription/kind.js';

/**
 * In the order plans list them and apply creates them; parents before their children, and kinds
 * referred to by name before the kinds that refer to them (members, then roles and their
 * memberships, then project access; actions, then cohorts, then flags; hog functions after actions;
 * insights after the actions and cohorts their queries name, alerts under their insight,
 * dashboards after the insights they show, subscriptions under their dashboard or insight;
 * surveys and early access features after the flags, actions and insights they name).
 */
export const KINDS: readonly ResourceKind[] = [project, proxyRecord, member, role, roleMembership, access, action, cohort, featureFlag, hogFunction, insight, alert, dashboard, subscription, survey, earlyAccessFeature, experimentHoldout, experimentSavedMetric, experiment, eventDefinition];

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
  return kinds.filter((k) => isChildOf(k, parent.name));
}

/** The kind whose items hold items of `child`, or undefined for a top-level kind. */
export function parentKind(child: ResourceKind, kinds: Kinds = KINDS): ResourceKind | undefined {
  return child.parent === 'organization' ? undefined : kindByName(child.parent, kinds);
}

/** Every kind whose items may hold items of `child` (a subscription: dashboards and insights). */
export function parentKinds(child: ResourceKind, kinds: Kinds = KINDS): ResourceKind[] {
  return parentNames(child).map((name) => kindByName(name, kinds));
}

/** Keys under `prune:`, one per prunable kind. */
export function pruneKeys(kinds: Kinds = KINDS): string[] {
  return kinds.filter((k) => k.prunable).map((k) => k.configKey);
}

/**
 * The key that names a kind on the command line (`export --kind`): the key of its row in the
 * kinds table. A kind held by items of a kind that is not a project's (a role's `members`) is
 * part of its parent's row, so `roles` names roles with their members, and `members` the
 * organization's members only, although both write the file key `members`.
 */
export function kindKey(kind: ResourceKind, kinds: Kinds = KINDS): string {
  const parent = parentKind(kind, kinds);
  // A kind held by items of several kinds (subscriptions) is no one parent's: it has its own row.
  return parent && !parent.projectKind && !kind.alsoUnder ? kindKey(parent, kinds) : kind.configKey;
}

/** The keys `--kind` takes, each once, in the kinds' order. */
export function kindKeys(kinds: Kinds = KINDS): string[] {
  return [...new Set(kinds.map((k) => kindKey(k, kinds)))];
}

/** The kinds the `--kind` keys name. */
export function kindsOfKeys(keys: readonly string[], kinds: Kinds = KINDS): ResourceKind[] {
  // A kind with its own row under several parents comes with each of them too (`--kind insights`: their subscriptions).
  const named = (k: ResourceKind): boolean => keys.includes(kindKey(k, kinds)) || (k.alsoUnder !== undefined && parentKinds(k, kinds).some(named));
  return kinds.filter(named);
}
