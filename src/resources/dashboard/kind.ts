// Dashboards of a project: identity = name (names are optional and not unique in the API: an `id:`
// pins one); deleted with PATCH {"deleted": true}. What the real API does to dashboards that
// hogsync must meet (posthog/api/dashboards/dashboard.py):
//   - the list carries no tiles, filters or variables: only a dashboard whose file declares one of
//     them is read by GET (a GET marks it viewed and serves every tile's cached result);
//   - `tiles` (tiles.ts) is the dashboard's whole tile list; an insight goes on or off a
//     dashboard only through its own `dashboards` field, so a change of tiles is carried out by
//     several requests (afterWrite), one dashboard of a project at a time (they read and write
//     insights' `dashboards` whole);
//   - `{}` never clears `filters` or `variables` (the API writes only non-empty values): asking
//     for it is a plan error rather than a change that never converges;
//   - dashboards the API makes on its own are never items (never unmanaged, pruned or changed):
//     flag usage dashboards and other templates' "Generated Dashboard: …", and unlisted ones.
import type { ChangeView, EntryProblem, ResourceKind, Scope, ScopeCheck, ScopeView } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { normalizeTags } from '../tags.js';
import { describeTiles } from './grid.js';
import { compareTiles, syncTiles, writtenTiles } from './tiles.js';
import { restCollection } from '../rest-collection.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/dashboards/`;
const insights = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/insights/`;
const fields = lazy(() => fieldsFromSchema('dashboard', ['name']));

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const empty = (v: unknown) => v === null || (isObj(v) && Object.keys(v).length === 0);

/** What a dashboard's own write sends: `tiles` go their own way (afterWrite). */
function body(values: Record<string, unknown>): Record<string, unknown> {
  const { tiles: _tiles, ...rest } = values;
  return rest;
}

/** A file's tile `insight: NAME` is a reference by name to an insight of the same project. */
function expandTiles(entry: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(entry.tiles)) return entry;
  return { ...entry, tiles: entry.tiles.map((t) => (isObj(t) && typeof t.insight === 'string' ? { ...t, insight: { insight: t.insight } } : t)) };
}

/** `{}` cannot clear filters or variables: the API writes only a non-empty value. */
function checkEmptyClears(view: ScopeView): ScopeCheck {
  for (const change of view.changes) {
    if (change.action !== 'update') continue;
    for (const f of ['filters', 'variables']) {
      if (f in change.values && empty(change.values[f]) && !empty(change.live?.[f])) {
        const item = view.items.find((i) => i.key === change.identity);
        return {
          error: `dashboard "${change.identity}": ${f}: {} cannot clear the dashboard's ${f}: the API writes only a non-empty value (clear them in the web app, or leave ${f} out of the file)`,
          ...(item?.position ? { errorAt: item.position } : {}),
        };
      }
    }
  }
  return {};
}

/** A subscription delivers only insights the dashboard shows (the API refuses others), where the file declares the tiles. */
function subscriptionProblems(entry: Record<string, unknown>): EntryProblem[] {
  if (!Array.isArray(entry.tiles) || !Array.isArray(entry.subscriptions)) return [];
  const shown = new Set(entry.tiles.map((t) => (isObj(t) ? (isObj(t.insight) ? t.insight.insight : t.insight) : undefined)).filter((n) => typeof n === 'string'));
  return entry.subscriptions.flatMap((s, i): EntryProblem[] => (isObj(s) && Array.isArray(s.insights)
    ? s.insights.flatMap((n, j): EntryProblem[] => {
      const name = isObj(n) && isObj(n.insight) ? n.insight.insight : n;
      return typeof name === 'string' && !shown.has(name)
        ? [{ path: ['subscriptions', i, 'insights', j], message: `${name} is not on the dashboard: the API delivers only insights the dashboard shows (add a tile, or take it out of insights)` }] : [];
    }) : []));
}

/** A tile shows an insight or a text: one of them, never both. */
function validateDashboardEntry(entry: Record<string, unknown>): EntryProblem[] {
  if (!Array.isArray(entry.tiles)) return [];
  return [...subscriptionProblems(entry), ...entry.tiles.flatMap((t, i): EntryProblem[] => {
    if (!isObj(t)) return [];
    if ('insight' in t && 'text' in t) return [{ path: ['tiles', i, 'text'], at: 'key', message: 'a tile shows an insight or a text, not both: make two tiles' }];
    if (!('insight' in t) && !('text' in t)) return [{ path: ['tiles', i], message: 'a tile needs `insight` (an insight\'s name) or `text`' }];
    return [];
  })];
}

export const dashboard: ResourceKind = {
  name: 'dashboard',
  configKey: 'dashboards',
  prunable: true,
  identityField: 'name',
  parent: 'project',
  shared: true,
  read: 'list',
  // Written by export only when --kind names it: its tiles take a GET of each dashboard (which marks it viewed).
  exportedByDefault: false,
  abridgedList: true,
  detailedFields: ['tiles', 'filters', 'variables'],
  canCreate: true,
  renamable: true,
  idPin: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  // A file's tile names its insight (`insight: NAME`); a live tile holds the insight itself, by
  // which a tile the plan takes off is known to refer to it (the tile comes off before it goes).
  references: [{ field: 'tiles', path: '[]', key: 'insight', kind: 'insight' }, { field: 'tiles', path: '[].insight', key: 'id', kind: 'insight' }],
  unsetValues: { description: '', tags: [], pinned: false, filters: {}, variables: {}, restriction_level: 21 },
  normalizers: { tags: normalizeTags },
  comparedTogether: { tiles: compareTiles },
  expand: expandTiles,
  // Tiles as the file writes them: insights by name, text by text, the grid's numbers.
  exported: (_record, data) => ('tiles' in data ? { ...data, tiles: writtenTiles(data.tiles) } : data),
  // What the API made on its own: a template's "Generated Dashboard: …" (a flag's usage dashboard), and unlisted ones.
  listed: (r) => typeof r.name === 'string' && r.name !== '' && r.creation_mode !== 'unlisted'
    && !(r.creation_mode === 'template' && r.name.startsWith('Generated Dashboard: ')),
  ...restCollection({ base, deletes: 'soft', identityField: 'name', body }),
  afterWrite: async ({ scope, id, values, record }, port) => {
    if (!('tiles' in values)) return;
    await syncTiles(port, { dashboard: dashboard.itemPath(scope, id), insight: (i) => `${insights(scope)}${i}/` }, Number(id), values.tiles, record);
  },
  // Changes of tiles read and write insights' `dashboards` whole: one dashboard of a project at a time.
  order: (changes: readonly ChangeView[]) => {
    const tiled = changes.filter((c) => c.action !== 'delete' && 'tiles' in c.values);
    return tiled.slice(1).map((c, i) => [(tiled[i] as ChangeView).address, c.address] as [string, string]);
  },
  // Tiles in a reviewer's words, with the grid drawn before and after (the JSON plan keeps the numbers).
  describeField: (path, before, after) => (path === 'tiles' ? describeTiles(before, after) : undefined),
  check: checkEmptyClears,
  validateEntry: validateDashboardEntry,
  activity: { scopes: ['Dashboard'], log: 'parent' },
};
