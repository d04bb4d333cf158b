// Experiment holdouts in the sandbox, as the real API keeps them
// (ee/clickhouse/views/experiment_holdouts.py, ExperimentHoldoutSerializer and its viewset):
//   - limit/offset list, newest first; name required (400 chars), description nullable;
//   - `filters` is a list of groups, each needing a rollout_percentage 0–100 ("Rollout
//     percentage must be present." / "... between 0 and 100."); a create without groups is
//     refused ("Filters are required to create an holdout group");
//   - after a create and on each write of filters, each group gets `variant: holdout-ID`;
//   - a write of filters rewrites the holdout in the flag of every experiment using it, a DELETE
//     (hard, 204) removes it from them;
//   - logged under the `Experiment` scope (type holdout).
// Seeded per project under `experiment_holdouts`.
import { validationError } from '../../sandbox/errors.js';
import { clone, isObject, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf, type KindContext, type SandboxModel } from '../../sandbox/kind-model.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';
import type { SandboxState } from '../../sandbox/state.js';
import { stringRule, type Rule } from '../../sandbox/validation.js';
import { nowIso } from '../../sandbox/ids.js';

export const HOLDOUTS = 'experiment_holdouts';
/** The experiments' collection (their model is src/resources/experiment/sandbox.ts). */
const EXPERIMENTS = 'experiments';

const filtersRule: Rule = (value, attr) => {
  if (!Array.isArray(value)) throw validationError(attr, `Expected a list of items but got type "${typeof value}".`, 'not_a_list');
  for (const group of value) {
    if (!isObject(group) || !('rollout_percentage' in group) || group.rollout_percentage === null) throw validationError(attr, 'Rollout percentage must be present.', 'invalid_input');
    const pct = group.rollout_percentage;
    if (typeof pct !== 'number' || pct < 0 || pct > 100) throw validationError(attr, 'Rollout percentage must be between 0 and 100.', 'invalid_input');
  }
  return clone(value);
};

const withVariant = (id: Json, filters: Json): Json[] => (Array.isArray(filters) ? filters : []).map((g) => (isObject(g) ? { ...clone(g), variant: `holdout-${String(id)}` } : g));

/** The flag filters' holdout of an experiment using this holdout (null: none). */
export function holdoutOfFlag(holdout: JsonObject | undefined): Json {
  return holdout ? { id: holdout.id ?? null, exclusion_percentage: Array.isArray(holdout.filters) && isObject(holdout.filters[0]) ? holdout.filters[0].rollout_percentage ?? null : null } : null;
}

/** Writes the holdout (or none) into the flags of every experiment using it, as the API does on a write or a delete. */
function rewriteFlags(state: SandboxState, holdout: JsonObject, gone: boolean): void {
  for (const e of recordsOf(state, { collection: EXPERIMENTS })) {
    if (e.holdout_id !== holdout.id || e.project !== holdout.project) continue;
    const flag = state.feature_flags.find((f) => f.id === e.feature_flag_id);
    if (flag) flag.filters = { ...flag.filters, holdout: gone ? null : holdoutOfFlag(holdout) };
    if (gone) e.holdout_id = null;
  }
}

export function createHoldout(state: SandboxState, project: number, body: JsonObject): JsonObject {
  const name = stringRule({ max: 400 })(body.name ?? null, 'name');
  const description = body.description === undefined ? null : stringRule({ nullable: true, allowBlank: true })(body.description, 'description');
  const filters = body.filters === undefined ? [] : filtersRule(body.filters, 'filters');
  if (!Array.isArray(filters) || filters.length === 0) throw validationError(null, 'Filters are required to create an holdout group', 'invalid_input');
  const ids = state.next_ids as unknown as Record<string, number>;
  const id = ids.experiment_holdout ?? 1;
  ids.experiment_holdout = id + 1;
  const now = nowIso();
  const record: JsonObject = { id, project, name, description, filters: withVariant(id, filters), created_by: state.user.id, created_at: now, updated_at: now };
  recordsOf(state, { collection: HOLDOUTS }).push(record);
  return record;
}

function render(record: JsonObject, ctx: KindContext): JsonObject {
  return {
    id: record.id ?? null, name: record.name ?? null, description: record.description ?? null, filters: clone(record.filters ?? []),
    created_by: clone(ctx.state.user), created_at: record.created_at ?? null, updated_at: record.updated_at ?? null,
  };
}

export const model: SandboxModel = {
  kind: 'experiment_holdout',
  collection: HOLDOUTS,
  path: '/api/projects/:project/experiment_holdouts/',
  parent: 'project',
  feature: 'experiments',
  scopes: { read: 'experiment:read', write: 'experiment:write' },
  pagination: 'limit-offset',
  id: 'integer',
  create: { status: 201 },
  update: true,
  delete: 'hard',
  fields: {
    name: { rule: stringRule({ max: 400 }) },
    description: { rule: stringRule({ nullable: true, allowBlank: true }) },
    filters: { rule: filtersRule },
  },
  activity: { scope: 'Experiment', type: 'holdout', name: (r) => String(r.name), ignored: ['project', 'created_by'] },
  hooks: {
    createReply: (ctx) => ({ status: 201, body: render(createHoldout(ctx.state, ctx.project?.id as number, ctx.request.body), ctx) }),
    update: (record, changes, _body, ctx) => {
      if (changes.filters === undefined) return;
      const changed = JSON.stringify(changes.filters) !== JSON.stringify((record.filters as Json[]).map((g) => (isObject(g) ? (({ variant: _v, ...rest }) => rest)(g) : g)));
      changes.filters = withVariant(record.id ?? null, changes.filters);
      changes.updated_at = nowIso();
      if (changed) rewriteFlags(ctx.state, { ...record, ...changes }, false);
    },
    remove: (record, ctx) => rewriteFlags(ctx.state, record, true),
    render,
  },
  seeds: [{
    key: 'experiment_holdouts',
    at: 'project',
    apply: (state, { project }, value, where, fail) => {
      for (const [i, entry] of seedList(value, where, fail).entries()) seedApply(`${where}[${i}]`, fail, () => createHoldout(state, project?.id as number, entry));
    },
  }],
  contract: {
    item: { name: 'Contract holdout', description: 'Kept out of experiments', filters: [{ properties: [], rollout_percentage: 10 }] },
    update: { filters: [{ properties: [], rollout_percentage: 20 }] },
    drift: { description: 'Changed in the web app' },
  },
};
