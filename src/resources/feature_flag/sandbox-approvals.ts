// Approval-gated flag changes, as the real API's approvals (posthog/approvals) hold them: a
// project's policy names which flag changes need an approver ("feature_flag.enable",
// "feature_flag.disable", "feature_flag.update" = a changed rollout percentage). A gated PATCH
// is not applied: it answers 409 with a change request (`approval_required`), or with the open
// one (`change_request_pending`). Approving the request applies the PATCH as it was sent, if
// the flag has not changed since (its version), as the real ChangeRequestService does.
import { uuidv7, nowIso } from '../../sandbox/ids.js';
import { clone, type JsonObject } from '../../sandbox/json.js';
import type { ChangeRequestState, FeatureFlagState, SandboxState } from '../../sandbox/state.js';
import { rolloutPercentages } from './sandbox-filters.js';

export const APPROVAL_ACTIONS = ['feature_flag.enable', 'feature_flag.disable', 'feature_flag.update'] as const;

function stable(m: Map<string, unknown>): string {
  return JSON.stringify([...m.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

/** Which gated action a PATCH is, in the order the real approval_gate tries them; null when none applies. */
export function gatedAction(state: SandboxState, flag: FeatureFlagState, body: JsonObject): string | null {
  const policy = (state.flag_approvals ?? []).find((p) => p.project === flag.project);
  if (!policy || policy.actions.length === 0) return null;
  const active = body.active;
  const detected: string[] = [];
  if (active === true && !flag.active) detected.push('feature_flag.enable');
  if (active === false && flag.active) detected.push('feature_flag.disable');
  const togglesOnly = typeof active === 'boolean' && active !== flag.active && !('filters' in body);
  if (!togglesOnly && body.filters && stable(rolloutPercentages(flag.filters)) !== stable(rolloutPercentages(body.filters))) {
    detected.push('feature_flag.update');
  }
  return detected.find((a) => policy.actions.includes(a)) ?? null;
}

export function renderChangeRequest(cr: ChangeRequestState): JsonObject {
  return {
    id: cr.id,
    action_key: cr.action_key,
    resource_type: cr.resource_type,
    resource_id: cr.resource_id,
    state: cr.state,
    intent: clone(cr.intent),
    created_at: cr.created_at,
    applied_at: cr.applied_at,
    apply_error: cr.apply_error,
  };
}

/** The 409 answer of a gated PATCH; opens a change request unless one is open for the same action. */
export function holdForApproval(state: SandboxState, flag: FeatureFlagState, action: string, body: JsonObject): JsonObject {
  state.change_requests ??= [];
  const open = state.change_requests.find((cr) => cr.project === flag.project && cr.action_key === action
    && cr.resource_id === String(flag.id) && cr.state === 'pending');
  if (open) {
    return {
      code: 'change_request_pending',
      error: 'A pending approval request already exists for this action',
      resource_type: 'feature_flag',
      resource_id: String(flag.id),
      change_request_id: open.id,
      existing_change_request: renderChangeRequest(open),
    };
  }
  const cr: ChangeRequestState = {
    id: uuidv7(),
    project: flag.project,
    action_key: action,
    resource_type: 'feature_flag',
    resource_id: String(flag.id),
    state: 'pending',
    intent: { flag_id: flag.id, flag_key: flag.key, full_request_data: clone(body), preconditions: { version: flag.version } },
    created_at: nowIso(),
    created_by: state.user.id,
    applied_at: null,
    apply_error: null,
  };
  state.change_requests.push(cr);
  return {
    code: 'approval_required',
    status: 'approval_required',
    message: 'This change requires approval before it can be applied.',
    resource_type: 'feature_flag',
    resource_id: String(flag.id),
    change_request_id: cr.id,
    change_request: renderChangeRequest(cr),
    required_approvers: {},
  };
}

/** A seed project's `flag_approvals`: the flag changes its approval policy gates. */
export function seedApprovals(state: SandboxState, project: number, raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw) || !raw.every((a) => typeof a === 'string' && (APPROVAL_ACTIONS as readonly string[]).includes(a))) {
    return `must be a list of: ${APPROVAL_ACTIONS.join(', ')}`;
  }
  state.flag_approvals ??= [];
  state.flag_approvals.push({ project, actions: [...new Set(raw as string[])] });
  return null;
}
