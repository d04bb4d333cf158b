// Insights of a project: identity = name among saved, named insights (names are optional and not
// unique in the API: an `id:` in the file pins one); deleted with PATCH {"deleted": true}. What the
// real API does to insights that hogsync must meet (posthog/api/insight.py, posthog/schema.py,
// posthog/schema_migrations/):
//   - only saved, named insights are items: unnamed or unsaved ones (those experiments, notebooks
//     and the AI assistant make) are dropped as the list is read, never unmanaged or pruned;
//   - insight endpoints have their own tight throttle: insights are read from one `basic=true`
//     list per project (it carries name, query, tags and tiles), never one GET each; created with
//     `saved: true`;
//   - the query is compared as the API keeps it (query.ts): reads upgrade it and a background job
//     rewrites it, so both sides pass through one normalisation;
//   - `sql:` / `sql_file:` are shorthand for a HogQL chart; validate checks what the query parser
//     refuses offline (query.ts queryProblems);
//   - references by name inside the query: `{ action: NAME }` where a series or a retention entity
//     takes an action id, `{ cohort: NAME }` in cohort properties.
import type { EntryProblem, ResourceKind, Scope } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { normalizeTags } from '../tags.js';
import { normalizeQuery, plainSql, queryProblems, sqlQuery } from './query.js';
import { alertProblems } from '../alert/rules.js';
import { alertsDeletedWith } from '../alert/cascade.js';
import { restCollection } from '../rest-collection.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/insights/`;
const fields = lazy(() => fieldsFromSchema('insight', ['name']));

function validateInsightEntry(entry: Record<string, unknown>): EntryProblem[] {
  const shorthands = ['sql', 'sql_file'].filter((k) => k in entry);
  if (shorthands.length > 1 || (shorthands.length === 1 && 'query' in entry)) {
    const [first, second] = [...shorthands, ...('query' in entry ? ['query'] : [])];
    return [{ path: [second as string], at: 'key', message: `an insight's query is written once: \`${first}\` or \`${second}\`, not both` }];
  }
  const query = 'sql' in entry ? sqlQuery(String(entry.sql)) : entry.query;
  const alerts = Array.isArray(entry.alerts) ? entry.alerts : [];
  // What the API refuses of an alert on this query (an insight's alerts are checked against it).
  const ofAlerts = query === undefined ? [] : alerts.flatMap((a, i): EntryProblem[] => (a !== null && typeof a === 'object' && !Array.isArray(a) && (a as Record<string, unknown>).ensure !== 'absent'
    ? alertProblems(a as Record<string, unknown>, query).map((p) => ({ path: ['alerts', i, ...p.path], message: p.message })) : []));
  if (!('query' in entry)) return ofAlerts;
  return [...queryProblems(entry.query).map((p): EntryProblem => ({ path: ['query', ...p.path], message: p.message, ...(p.at ? { at: p.at } : {}) })), ...ofAlerts];
}

export const insight: ResourceKind = {
  name: 'insight',
  configKey: 'insights',
  prunable: true,
  identityField: 'name',
  parent: 'project',
  shared: true,
  read: 'list',
  // Written by export only when --kind names it: every project's insights are a list under the insight throttle.
  exportedByDefault: false,
  canCreate: true,
  renamable: true,
  idPin: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  references: [
    { field: 'query', path: '**', when: { kind: 'ActionsNode' }, key: 'id', kind: 'action' },
    { field: 'query', path: '**', when: { type: 'actions' }, key: 'id', kind: 'action' },
    { field: 'query', path: '**', when: { type: 'cohort' }, key: 'value', kind: 'cohort' },
  ],
  unsetValues: { description: '', tags: [], favorited: false },
  normalizers: { query: normalizeQuery, tags: normalizeTags },
  textFiles: { sql_file: 'sql' },
  expand: (entry) => {
    if (typeof entry.sql !== 'string') return entry;
    const { sql, ...rest } = entry;
    return { ...rest, query: sqlQuery(sql as string) };
  },
  listed: (r) => r.saved === true && typeof r.name === 'string' && r.name !== '',
  // The query as the file would write it: without the upgrade's stamps, `sql:` for a plain HogQL chart.
  exported: (_record, data) => {
    if (!('query' in data)) return data;
    const sql = plainSql(data.query);
    if (sql === undefined) return { ...data, query: normalizeQuery(data.query) };
    const { query: _query, ...rest } = data;
    return { ...rest, sql };
  },
  ...restCollection({ base, deletes: 'soft', identityField: 'name' }),
  // One list per project, without results: the insight endpoints' throttle is tight.
  collectionPath: (s) => `${base(s)}?basic=true`,
  createCall: (s, name, values) => ({ method: 'POST', path: base(s), body: { ...values, name, saved: true } }),
  activity: { scopes: ['Insight'], log: 'parent' },
  validateEntry: validateInsightEntry,
  // The API deletes an insight's alerts with it, or with a query that cannot carry them: said beside the change.
  preview: alertsDeletedWith,
  previewActions: ['update', 'delete'],
  previewFields: ['query'],
  previewAlways: true,
  previewName: 'alerts deleted with it',
};
