// Experiment saved metrics of a project: a metric defined once and shared by experiments
// (`saved_metrics: { primary: [ { experiment_saved_metric: NAME } ] }`). Identity = name; plain
// CRUD with a hard DELETE. What the real API does that hogsync must meet
// (ee/clickhouse/views/experiment_saved_metrics.py, ExperimentSavedMetricSerializer):
//   - `query` is required and its kind must be ExperimentMetric, ExperimentTrendsQuery or
//     ExperimentFunnelsQuery (400 otherwise);
//   - an ExperimentMetric query gets a `uuid` and a `fingerprint` from the API: never compared;
//   - tags as every tagged kind keeps them (a set); logged under the `Experiment` scope.
import type { ResourceKind, Scope } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { normalizeTags } from '../tags.js';
import { restCollection } from '../rest-collection.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/experiment_saved_metrics/`;
const fields = lazy(() => fieldsFromSchema('experiment_saved_metric', ['name']));

export const experimentSavedMetric: ResourceKind = {
  name: 'experiment_saved_metric',
  label: 'experiment saved metric',
  configKey: 'experiment_saved_metrics',
  prunable: true,
  identityField: 'name',
  parent: 'project',
  shared: true,
  read: 'list',
  canCreate: true,
  renamable: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  unsetValues: { description: null, tags: [] },
  computedKeys: { query: ['uuid', 'fingerprint'] },
  normalizers: { tags: normalizeTags },
  ...restCollection({ base, deletes: 'hard', identityField: 'name' }),
  unavailable: 'experiment saved metrics are not available here: the API answers experiments, holdouts and saved metrics only where the organization has its enterprise features',
  activity: { scopes: ['Experiment'], log: 'parent', type: 'shared_metric' },
};
