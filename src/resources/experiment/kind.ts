// Experiments of a project: identity = name (archived ones too: the API lists them only with
// `?archived=true`, read where a declared name is not in the default list). What the real API does
// that hogsync must meet (products/experiments/backend/presentation/views.py and serializers.py,
// experiment_service.py; ee/clickhouse/views/experiments.py before them):
//   - the create makes the experiment's flag (`feature_flag_key`), inactive while draft, its
//     variants from `parameters.feature_flag_variants` (2–20, one keyed `control`); an existing
//     flag is taken only when it is multivariate with `control` first; the key never changes;
//   - `parameters` is replaced whole on a write: hogsync sends it whole, the live keys it does
//     not manage kept;
//   - the lifecycle is a set of actions, not fields: POST launch/ (draft → running), pause/ and
//     resume/ (the flag off and on again), end/ (`conclusion`, `conclusion_comment`),
//     ship_variant/ (`variant_key`: the flag serves that variant to everyone, and a running
//     experiment ends), archive/ (only once ended); the files say where it should be
//     (`status`, `ship_variant`, `archived`) and the plan sends the calls that get it there, in
//     order (`followUps`); it never goes back; a create that launches, and an archive after
//     other changes, are later steps of their own (`laterSteps`);
//   - after launch the variant keys cannot change, and a running experiment's holdout cannot;
//   - the API adds `uuid` and `fingerprint` to each metric, the ordered uuid lists, team defaults
//     to `stats_config` and `filterTestAccounts: true` to `exposure_criteria`: never compared;
//   - DELETE answers 405: `PATCH {"deleted": true}`; its activity's scope is `Experiment`;
//   - without the organization's enterprise features these paths answer 404 or 403.
import type { ChangeView, HttpCall, LiveRecord, ReferenceSite, ResourceKind, ScopeCheck, ScopeView, Scope } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { restCollection } from '../rest-collection.js';

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/experiments/`;
const fields = lazy(() => fieldsFromSchema('experiment', ['name']));

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const STATUSES = ['draft', 'running', 'paused', 'stopped'] as const;
type Status = (typeof STATUSES)[number];
/** How far along the lifecycle a status is: running and paused are the same step (either way is allowed). */
const STEP: Record<Status, number> = { draft: 0, running: 1, paused: 1, stopped: 2 };

/** The status the API's record implies: dates, and the flag on or off while running. */
export function statusOf(r: Obj): Status {
  if (typeof r.status === 'string' && (STATUSES as readonly string[]).includes(r.status)) return r.status as Status;
  if (!r.start_date) return 'draft';
  if (r.end_date) return 'stopped';
  return isObj(r.feature_flag) && r.feature_flag.active === false ? 'paused' : 'running';
}

/** The variant the flag serves to everyone after ship_variant/ (100%, the others 0), or null. */
function shippedOf(r: Obj): string | null {
  if (!r.start_date || !isObj(r.feature_flag) || !isObj(r.feature_flag.filters)) return null;
  const variants = list(isObj(r.feature_flag.filters.multivariate) ? r.feature_flag.filters.multivariate.variants : undefined).filter(isObj);
  const full = variants.filter((v) => v.rollout_percentage === 100);
  return full.length === 1 && variants.every((v) => v === full[0] || v.rollout_percentage === 0) ? String(full[0]?.key) : null;
}

/** The file's variants as the API's `feature_flag_variants` (split_percent → rollout_percentage). */
function toApiVariants(variants: unknown): unknown {
  return list(variants).map((v) => {
    if (!isObj(v)) return v;
    const { split_percent, ...rest } = v;
    return split_percent === undefined ? rest : { ...rest, rollout_percentage: split_percent };
  });
}

function fromApiVariants(variants: unknown): unknown {
  return list(variants).map((v) => {
    if (!isObj(v)) return v;
    const { rollout_percentage, ...rest } = v;
    return { ...rest, ...(rollout_percentage === undefined ? {} : { split_percent: rollout_percentage }) };
  });
}

/** The saved metrics of a record as files write them: ids by their `metadata.type`. */
function savedMetricsOf(r: Obj): Obj {
  const primary: unknown[] = [];
  const secondary: unknown[] = [];
  for (const link of list(r.saved_metrics_ids ?? r.saved_metrics)) {
    if (!isObj(link)) continue;
    const id = link.saved_metric ?? link.id;
    (isObj(link.metadata) && link.metadata.type === 'secondary' ? secondary : primary).push(id);
  }
  return { primary, secondary };
}

/** Saved metrics compared without empty lists (none written and `[]` are the same). */
function normalizeSavedMetrics(value: unknown): unknown {
  if (!isObj(value)) return value ?? null;
  const out: Obj = {};
  for (const k of ['primary', 'secondary']) if (list(value[k]).length > 0) out[k] = value[k];
  return out;
}

/** What a write sends for the changed fields besides the lifecycle (parameters whole, references as the API names them). */
function patchBody(values: Obj, live: LiveRecord | undefined): Obj {
  const body: Obj = {};
  for (const [k, v] of Object.entries(values)) {
    if (LIFECYCLE_FIELDS.has(k) || k === 'feature_flag') continue;
    if (k === 'variants') body.parameters = { ...(isObj(live?.parameters) ? live.parameters : {}), feature_flag_variants: toApiVariants(v) };
    else if (k === 'holdout') body.holdout_id = v ?? null;
    else if (k === 'saved_metrics') {
      const m = isObj(v) ? v : {};
      body.saved_metrics_ids = [
        ...list(m.primary).map((id) => ({ id, metadata: { type: 'primary' } })),
        ...list(m.secondary).map((id) => ({ id, metadata: { type: 'secondary' } })),
      ];
    } else body[k] = v;
  }
  return body;
}

const LIFECYCLE_FIELDS = new Set(['status', 'ship_variant', 'archived', 'conclusion', 'conclusion_comment']);

/**
 * The lifecycle calls that take an experiment from where it is (`live`; none: a new draft) to
 * where the values say, in order. Conclusions travel with end/ or ship_variant/; once ended they
 * are PATCHed (patchLifecycle).
 */
export function lifecycleCalls(path: string, values: Obj, live: LiveRecord | undefined): HttpCall[] {
  const from: Status = live ? statusOf(live) : 'draft';
  const to = (values.status as Status | undefined) ?? from;
  const ship = values.ship_variant as string | null | undefined;
  const conclusion = { ...('conclusion' in values ? { conclusion: values.conclusion } : {}), ...('conclusion_comment' in values ? { conclusion_comment: values.conclusion_comment } : {}) };
  const calls: HttpCall[] = [];
  const post = (action: string, body?: Obj) => calls.push({ method: 'POST', path: `${path}${action}/`, ...(body ? { body } : {}) });
  let at = from;
  if (at === 'draft' && (to !== 'draft' || typeof ship === 'string')) { post('launch'); at = 'running'; }
  if (at === 'running' && to === 'paused') { post('pause'); at = 'paused'; }
  if (at === 'paused' && to === 'running') { post('resume'); at = 'running'; }
  if (typeof ship === 'string') {
    // Shipping ends a running experiment; on an ended one only the flag changes.
    post('ship_variant', { variant_key: ship, ...(at === 'stopped' ? {} : conclusion) });
    if (at !== 'stopped') at = 'stopped';
  } else if (to === 'stopped' && at !== 'stopped') {
    post('end', conclusion);
    at = 'stopped';
  }
  if (values.archived === true && live?.archived !== true) post('archive', {});
  if (values.archived === false && live?.archived === true) post('unarchive');
  return calls;
}

/** Conclusions of an experiment that was already ended: a PATCH (end/ does not run again). */
function concludedPatch(values: Obj, live: LiveRecord | undefined): Obj {
  if (!live || statusOf(live) !== 'stopped') return {};
  const out: Obj = {};
  for (const k of ['conclusion', 'conclusion_comment']) if (k in values) out[k] = values[k];
  return out;
}

/** Every call of a change, in order: the fields' PATCH (when any), then the lifecycle. */
function callsOf(scope: Scope, id: string | number, values: Obj, live: LiveRecord | undefined): HttpCall[] {
  const path = `${base(scope)}${encodeURIComponent(String(id))}/`;
  const body = { ...patchBody(values, live), ...concludedPatch(values, live) };
  const lifecycle = lifecycleCalls(path, values, live);
  return [...(Object.keys(body).length > 0 || lifecycle.length === 0 ? [{ method: 'PATCH' as const, path, body }] : []), ...lifecycle];
}

function variantKeys(v: unknown): string {
  return JSON.stringify(list(v).map((x) => (isObj(x) ? String(x.key) : '')).sort());
}

/** Why a planned change of one experiment cannot be made (the API would refuse it, or it goes back), or undefined. */
function refusal(change: ChangeView): string | undefined {
  const { values, live } = change;
  const from: Status = live ? statusOf(live) : 'draft';
  const to = (values.status as Status | undefined) ?? from;
  const where = `experiment "${change.identity}"`;
  if (change.action === 'delete') return undefined;
  if (STEP[to] < STEP[from]) return `${where}: status moves forward only (draft → running ↔ paused → stopped): it is ${from}, the file says ${to}`;
  if (live && 'feature_flag' in values && values.feature_flag !== live.feature_flag) return `${where}: an experiment's flag cannot change (it is ${JSON.stringify(live.feature_flag)})`;
  if (live && from !== 'draft' && 'variants' in values && variantKeys(values.variants) !== variantKeys(live.variants)) return `${where}: variant keys cannot change after launch`;
  if (live && (from === 'running' || from === 'paused') && 'holdout' in values) return `${where}: a running experiment's holdout cannot change`;
  const archived = values.archived ?? live?.archived;
  const ship = values.ship_variant ?? live?.ship_variant;
  if (archived === true && to !== 'stopped' && typeof ship !== 'string') return `${where}: an experiment is archived only once stopped`;
  if (typeof values.ship_variant === 'string') {
    const keys = list(values.variants ?? live?.variants).map((v) => (isObj(v) ? v.key : undefined));
    if (!keys.includes(values.ship_variant)) return `${where}: ship_variant ${JSON.stringify(values.ship_variant)} is not one of its variants`;
  }
  if (live && typeof live.ship_variant === 'string' && 'ship_variant' in values && values.ship_variant !== live.ship_variant) return `${where}: a shipped variant cannot be taken back (it shipped ${JSON.stringify(live.ship_variant)})`;
  if ((values.conclusion !== undefined || values.conclusion_comment !== undefined) && to !== 'stopped' && typeof ship !== 'string') return `${where}: a conclusion is set when the experiment stops (status: stopped)`;
  return undefined;
}

export const experiment: ResourceKind = {
  name: 'experiment',
  configKey: 'experiments',
  prunable: true,
  identityField: 'name',
  parent: 'project',
  read: 'list',
  canCreate: true,
  renamable: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  unsetValues: { description: null, type: 'product', variants: [], holdout: null, metrics: [], metrics_secondary: [], exposure_criteria: null, stats_config: null, conclusion: null, conclusion_comment: null, ship_variant: null, archived: false, saved_metrics: { primary: [], secondary: [] } },
  references: [
    { field: 'holdout', path: '', key: '', kind: 'experiment_holdout' },
    { field: 'saved_metrics', path: 'primary[]', key: '', kind: 'experiment_saved_metric' },
    { field: 'saved_metrics', path: 'secondary[]', key: '', kind: 'experiment_saved_metric' },
    ...['metrics', 'metrics_secondary'].flatMap((field): ReferenceSite[] => [
      { field, path: '**', when: { kind: 'ActionsNode' }, key: 'id', kind: 'action' },
      { field, path: '**', when: { type: 'cohort' }, key: 'value', kind: 'cohort' },
    ]),
  ],
  // What the API adds: each metric's uuid and fingerprint, the team's default stats settings,
  // and exposure's filterTestAccounts.
  computedKeys: {
    metrics: ['[].uuid', '[].fingerprint'],
    metrics_secondary: ['[].uuid', '[].fingerprint'],
    stats_config: ['method', 'version'],
    exposure_criteria: ['filterTestAccounts'],
  },
  normalizers: { saved_metrics: normalizeSavedMetrics },
  owns: { field: 'feature_flag', kind: 'feature_flag' },
  heldBack: {
    query: 'archived=true',
    holds: (r) => r.archived === true,
    holdsAfter: (values) => values.archived === true,
  },
  unavailable: 'experiments are not available here: the API answers experiments, holdouts and saved metrics only where the organization has its enterprise features',
  ...restCollection({ base, deletes: 'soft' }),
  readAs: (r) => ({
    ...r,
    feature_flag: isObj(r.feature_flag) ? r.feature_flag.key : r.feature_flag_key ?? null,
    variants: fromApiVariants(isObj(r.parameters) ? r.parameters.feature_flag_variants : undefined),
    holdout: r.holdout_id ?? (isObj(r.holdout) ? r.holdout.id : null) ?? null,
    saved_metrics: savedMetricsOf(r),
    status: statusOf(r),
    ship_variant: shippedOf(r),
  }),
  createCall: (s, name, values) => {
    const { feature_flag: key, ...rest } = values;
    return { method: 'POST', path: base(s), body: { name, feature_flag_key: key, ...patchBody(rest, undefined), parameters: { feature_flag_variants: toApiVariants(values.variants ?? []) } } };
  },
  updateCall: (s, id, values, live) => callsOf(s, id, values, live)[0] as HttpCall,
  // Ended then archived (or created, then launched) are ordered changes of their own: each
  // reported, and after a failure between them the next plan has only what is left.
  laterSteps: ({ action, values, live }) => [
    ...(action === 'create' && ((values.status !== undefined && values.status !== 'draft') || typeof values.ship_variant === 'string') ? [['status', 'ship_variant', 'conclusion', 'conclusion_comment']] : []),
    ...(values.archived === true && live?.archived !== true ? [['archived']] : []),
  ],
  followUps: (action, s, id, values, live) => (action === 'create' ? lifecycleCalls(experiment.itemPath(s, id), values, undefined) : callsOf(s, id, values, live).slice(1)),
  activity: { scopes: ['Experiment'], log: 'parent', type: null },
  explainFailure: (op, message) => (op === 'create' && /not eligible for experiments|must have control as the first variant/i.test(message)
    ? `${message} — a flag with this key exists: an experiment takes an existing flag only when it is multivariate with control as the first of 2 or more variants; give the experiment a new key, or make that flag so (not retried)`
    : undefined),
  // What the schema cannot say of the variants: one keyed control (the API refuses the create otherwise), keys unique.
  validateEntry(entry) {
    const keys = list(entry.variants).map((v) => (isObj(v) ? v.key : undefined));
    if (!Array.isArray(entry.variants) || keys.length < 2) return [];
    const controls = keys.filter((k) => k === 'control').length;
    if (controls !== 1) return [{ path: ['variants'], message: `exactly one must be keyed control (the API refuses an experiment without one: "Feature flag variants must contain a control variant"), found ${controls}` }];
    const seen = new Set<unknown>();
    for (const [i, k] of keys.entries()) {
      if (seen.has(k)) return [{ path: ['variants', i, 'key'], message: `${JSON.stringify(k)} is already the key of another variant` }];
      seen.add(k);
    }
    return [];
  },
  check(view: ScopeView): ScopeCheck {
    const warnings: string[] = [];
    for (const change of view.changes) {
      const why = refusal(change);
      if (!why) continue;
      // Drift shows what someone moved on (launched, ended) and says the file must follow it.
      if (view.purpose === 'drift') warnings.push(`${why}: apply would refuse this; the file must move with it`);
      else return { error: why, errorAt: view.items.find((i) => i.key === change.identity)?.position };
    }
    return { warnings };
  },
  // Settings the API filled only with its own keys say nothing (their keys are never compared).
  exported: (_record, data) => Object.fromEntries(Object.entries(data).filter(([k, v]) => !((k === 'exposure_criteria' || k === 'stats_config') && isObj(v) && Object.keys(v).length === 0))),
  describeField(path, before, after) {
    if (path === 'status' && typeof after === 'string') {
      const from = typeof before === 'string' ? before : 'draft';
      const calls = lifecycleCalls('', { status: after }, { status: from } as LiveRecord).map((c) => c.path.replace(/\/$/, ''));
      const words: Record<string, string> = { launch: 'launch/ (its flag turns on, the experiment starts)', pause: 'pause/ (its flag turns off)', resume: 'resume/ (its flag turns on again)', end: 'end/ (results stop counting)' };
      return [{ kind: 'text', sign: '~', text: `${from} → ${after}: ${calls.map((c) => words[c] ?? c).join(', then ') || 'no call'}` }];
    }
    if (path === 'archived' && after === true) return [{ kind: 'text', sign: '~', text: 'archive/ (the list hides it)' }];
    if (path === 'ship_variant' && typeof after === 'string') {
      return [{ kind: 'text', sign: '~', text: `ships ${JSON.stringify(after)}: rewrites the flag for everyone it serves to this variant (100%, the others 0%), and ends the experiment if it is running${before === null || before === undefined ? '' : ` (was ${JSON.stringify(before)})`}` }];
    }
    return undefined;
  },
};
