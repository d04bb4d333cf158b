// Feature flags of a project: identity = key. DELETE answers 405 on the real API, so a flag
// is deleted with PATCH {"deleted": true}; deleted flags still listed are ignored. A change
// of release conditions is previewed: the API tells how many users the new conditions reach.
import { isHogsyncError } from '../errors.js';
import { describeFlagFilters } from './flag-filters.js';
import type { BlastRadius, KindPort, PreviewInput, PreviewResult, ResourceKind, Scope } from './kind.js';
import { fieldsFromSchema, lazy } from './schema.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/feature_flags/`;
const fields = lazy(() => fieldsFromSchema('feature_flag', ['key']));

export const featureFlag: ResourceKind = {
  name: 'feature_flag',
  configKey: 'feature_flags',
  prunable: true,
  identityField: 'key',
  parent: 'project',
  read: 'list',
  canCreate: true,
  get fields() { return fields(); },
  // Inside `filters`: defaults the API fills in when a file leaves them out (ignored while
  // empty), and values it computes (always ignored).
  serverAddedKeys: { filters: ['payloads', 'multivariate', 'aggregation_group_type_index', 'groups[].variant', 'groups[].aggregation_group_type_index'] },
  computedKeys: { filters: ['groups[].sort_key', 'groups[].users_affected'] },
  createStatuses: [200, 201],
  deleteStatuses: [200],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key,
  collectionPath: base,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as number,
  isGone: (r) => r.deleted === true,
  createCall: (s, key, values) => ({ method: 'POST', path: base(s), body: { ...values, key } }),
  updateCall: (s, id, values) => ({ method: 'PATCH', path: featureFlag.itemPath(s, id), body: values }),
  deleteCall: (s, id) => ({ method: 'PATCH', path: featureFlag.itemPath(s, id), body: { deleted: true } }),
  preview: blastRadiusPreview,
  activity: { scopes: ['FeatureFlag'], log: 'parent' },
  // Release conditions as the web app shows them: condition sets, variants, payloads.
  describeField: (path, before, after, context) => (path === 'filters' && !context.sensitive
    ? describeFlagFilters(before, after, { redacted: context.redacted })
    : undefined),
};

/** Reads both answer shapes: {affected, total} and the older {users_affected, total_users}. */
export function parseBlastRadius(body: unknown): BlastRadius | null {
  if (body === null || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const affected = b.affected ?? b.users_affected;
  const total = b.total ?? b.total_users;
  return typeof affected === 'number' && typeof total === 'number' && affected >= 0 && total >= 0 ? { affected, total } : null;
}

type Group = Record<string, unknown>;

function groupsOf(filters: unknown): Group[] {
  if (filters === null || typeof filters !== 'object') return [];
  const groups = (filters as { groups?: unknown }).groups;
  return Array.isArray(groups) ? groups.filter((g): g is Group => g !== null && typeof g === 'object') : [];
}

/** Blast radius of a change that sets release conditions: one user_blast_radius per condition. */
async function blastRadiusPreview(input: PreviewInput, port: KindPort): Promise<PreviewResult | undefined> {
  if (!input.changed.includes('filters') || input.scope.project === null) return undefined;
  const filters = input.values.filters;
  const groupTypeIndex = (filters as { aggregation_group_type_index?: unknown } | undefined)?.aggregation_group_type_index ?? null;
  const path = `${base(input.scope)}user_blast_radius/`;
  try {
    let affected = 0;
    let total = 0;
    for (const condition of groupsOf(filters)) {
      const { body } = await port.request('POST', path, { body: { key: input.identity, condition, group_type_index: groupTypeIndex }, okStatuses: [200, 201], idempotent: true });
      const radius = parseBlastRadius(body);
      if (!radius) throw new Error('the API answered with an unexpected body');
      affected += radius.affected;
      total = Math.max(total, radius.total);
    }
    // Conditions may overlap: the sum is an upper bound, and never more than everyone.
    return { annotations: { blast_radius: { affected: Math.min(affected, total), total } } };
  } catch (err) {
    const why = isHogsyncError(err) ? err.format() : err instanceof Error ? err.message : String(err);
    return { warning: `blast radius of ${input.address} is unknown: ${why}` };
  }
}
