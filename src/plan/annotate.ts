// Annotations of a plan are values beside it (a kind's previews per change, warnings); these
// pure functions make the plan that shows them, leaving the computed plan as it was.
import { changeKey, type ChangeAnnotations, type Plan } from './types.js';

export interface PlanAnnotations {
  /** Per change key (changeKey): what the kind's preview found. */
  changes: ReadonlyMap<string, ChangeAnnotations>;
  warnings: readonly string[];
}

export const NO_ANNOTATIONS: PlanAnnotations = { changes: new Map(), warnings: [] };

/** A new plan with the annotations on its changes and its warnings after the plan's own. */
export function annotate(plan: Plan, annotations: PlanAnnotations): Plan {
  const changes = annotations.changes.size === 0
    ? plan.changes
    : plan.changes.map((change) => {
      const extra = annotations.changes.get(changeKey(change));
      return extra ? { ...change, ...extra } : change;
    });
  return { ...plan, changes, warnings: [...plan.warnings, ...annotations.warnings] };
}
