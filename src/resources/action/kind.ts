// Actions of a project: identity = name, unique among the project's actions that are not
// deleted; deleted with PATCH {"deleted": true} (the API forbids DELETE). What the real API does to
// actions that hogsync must meet (products/actions/backend/api/action.py, .../models/action.py):
//   - steps are stored as `asdict(ActionStepJSON(**step))`: every step comes back with every key,
//     null where none was given, and `url_matching` "contains" where it was left out; the answer
//     adds `selector_regex`, computed from the selector: steps compare after the same rewriting;
//   - tags compare as a set, as flags' do (src/resources/tags.ts);
//   - the list is one plain `results` array, not paged, whatever the OpenAPI says;
//   - a renamed action keeps its id (`renamed_from`), so cohorts built on it keep it too.
import type { ResourceKind, Scope } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { normalizeTags } from '../tags.js';
import { restCollection } from '../rest-collection.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/actions/`;
const fields = lazy(() => fieldsFromSchema('action', ['name']));

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Step keys the API computes (never compared). */
const COMPUTED_STEP_KEYS = new Set(['selector_regex']);
/** Step keys the API trims (DRF CharFields without trim_whitespace=False). */
const TRIMMED_STEP_KEYS = new Set(['url', 'selector']);

/**
 * Steps as the API stores them: null and absent the same (and no property filters, [], as none),
 * `url_matching` "contains" unless given, url and selector trimmed, the computed `selector_regex`
 * left out.
 */
export function normalizeSteps(value: unknown): unknown {
  if (!Array.isArray(value)) return value ?? null;
  return value.map((step) => {
    if (!isObj(step)) return step;
    const out: Obj = {};
    for (const [k, v] of Object.entries(step)) {
      if (v === null || v === undefined || COMPUTED_STEP_KEYS.has(k)) continue;
      // No property filters, written as [] or left out, is the same step.
      if (k === 'properties' && Array.isArray(v) && v.length === 0) continue;
      out[k] = typeof v === 'string' && TRIMMED_STEP_KEYS.has(k) ? v.trim() : v;
    }
    out.url_matching ??= 'contains';
    return out;
  });
}

export const action: ResourceKind = {
  name: 'action',
  configKey: 'actions',
  apiScope: 'action',
  prunable: true,
  identityField: 'name',
  parent: 'project',
  shared: true,
  read: 'list',
  canCreate: true,
  renamable: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  unsetValues: { description: '', tags: [], post_to_slack: false, slack_message_format: '' },
  // The keys the API fills in as null (export leaves them out), and the one it computes.
  serverAddedKeys: { steps: ['tag_name', 'text', 'text_matching', 'href', 'href_matching', 'selector', 'url', 'event', 'properties'].map((k) => `[].${k}`) },
  computedKeys: { steps: ['[].selector_regex'] },
  normalizers: { steps: normalizeSteps, tags: normalizeTags },
  ...restCollection({ base, deletes: 'soft', identityField: 'name' }),
  activity: { scopes: ['Action'], log: 'parent' },
  explainFailure: (op, message) => (op === 'create' && /already has an action with this name/i.test(message)
    ? `${message} — an action the list does not show holds the name (one your key may not see); rename one of them (not retried)`
    : undefined),
};
