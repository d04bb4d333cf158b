// Experiment saved metrics in the sandbox, as the real API keeps them
// (ee/clickhouse/views/experiment_saved_metrics.py, ExperimentSavedMetricSerializer):
//   - limit/offset list; name required (400 chars), description nullable, tags as every tagged
//     kind keeps them;
//   - `query` required ("Query is required to create a saved metric"), its kind one of
//     ExperimentMetric, ExperimentTrendsQuery, ExperimentFunnelsQuery; an ExperimentMetric gets a
//     `uuid` and a `fingerprint` (a digest of the metric) on every write;
//   - hard DELETE (204); logged under the `Experiment` scope.
// Seeded per project under `experiment_saved_metrics`.
import { createHash } from 'node:crypto';
import { validationError } from '../../sandbox/errors.js';
import { randomUUID } from 'node:crypto';
import { clone, isObject, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf, type KindContext, type SandboxModel } from '../../sandbox/kind-model.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';
import type { SandboxState } from '../../sandbox/state.js';
import { nowIso } from '../../sandbox/ids.js';
import { stringRule, tagsRule, type Rule } from '../../sandbox/validation.js';

export const SAVED_METRICS = 'experiment_saved_metrics';
const KINDS = ['ExperimentMetric', 'ExperimentTrendsQuery', 'ExperimentFunnelsQuery'];

/** A metric as the API stores it: an ExperimentMetric keeps (or gets) its uuid, and gets a fingerprint of the rest. */
export function stampMetric(metric: Json): Json {
  if (!isObject(metric) || metric.kind !== 'ExperimentMetric') return clone(metric);
  const { uuid, fingerprint: _f, ...rest } = metric;
  return { ...clone(rest), uuid: typeof uuid === 'string' ? uuid : randomUUID(), fingerprint: createHash('sha256').update(JSON.stringify(rest)).digest('hex') };
}

const queryRule: Rule = (value, attr) => {
  if (!isObject(value) || Object.keys(value).length === 0) throw validationError(attr, 'Query is required to create a saved metric', 'invalid_input');
  if (typeof value.kind !== 'string' || !KINDS.includes(value.kind)) throw validationError(attr, "Metric query kind must be 'ExperimentMetric', 'ExperimentTrendsQuery' or 'ExperimentFunnelsQuery'", 'invalid_input');
  return stampMetric(value);
};

export function createSavedMetric(state: SandboxState, project: number, body: JsonObject): JsonObject {
  const name = stringRule({ max: 400 })(body.name ?? null, 'name');
  const description = body.description === undefined ? null : stringRule({ nullable: true, allowBlank: true })(body.description, 'description');
  const query = queryRule(body.query ?? null, 'query');
  const tags = body.tags === undefined ? [] : tagsRule()(body.tags, 'tags');
  const ids = state.next_ids as unknown as Record<string, number>;
  const id = ids.experiment_saved_metric ?? 1;
  ids.experiment_saved_metric = id + 1;
  const now = nowIso();
  const record: JsonObject = { id, project, name, description, query, tags, created_by: state.user.id, created_at: now, updated_at: now };
  recordsOf(state, { collection: SAVED_METRICS }).push(record);
  return record;
}

function render(record: JsonObject, ctx: KindContext): JsonObject {
  return {
    id: record.id ?? null, name: record.name ?? null, description: record.description ?? null, query: clone(record.query ?? null), tags: clone(record.tags ?? []),
    created_by: clone(ctx.state.user), created_at: record.created_at ?? null, updated_at: record.updated_at ?? null,
  };
}

export const model: SandboxModel = {
  kind: 'experiment_saved_metric',
  collection: SAVED_METRICS,
  path: '/api/projects/:project/experiment_saved_metrics/',
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
    query: { rule: queryRule },
    tags: { rule: tagsRule() },
  },
  activity: { scope: 'Experiment', type: 'shared_metric', name: (r) => String(r.name), ignored: ['project', 'created_by'] },
  hooks: {
    createReply: (ctx) => ({ status: 201, body: render(createSavedMetric(ctx.state, ctx.project?.id as number, ctx.request.body), ctx) }),
    update: (_record, changes) => { changes.updated_at = nowIso(); },
    render,
  },
  seeds: [{
    key: 'experiment_saved_metrics',
    at: 'project',
    apply: (state, { project }, value, where, fail) => {
      for (const [i, entry] of seedList(value, where, fail).entries()) seedApply(`${where}[${i}]`, fail, () => createSavedMetric(state, project?.id as number, entry));
    },
  }],
  contract: {
    item: { name: 'Contract metric', description: 'Page views', query: { kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: '$pageview' } } },
    update: { tags: ['growth'] },
    drift: { description: 'Changed in the web app' },
  },
};
