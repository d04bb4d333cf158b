// Experiments in the sandbox, as the real API keeps them (products/experiments/backend/
// presentation/views.py and serializers.py, experiment_service.py; ee/clickhouse/views/
// experiments.py before them):
//   - the list hides archived experiments unless `?archived=true` (then it answers only them);
//     deleted ones never show; DELETE answers 405 (PATCH {"deleted": true});
//   - a create needs `name` and `feature_flag_key`; it makes the flag (inactive, its variants
//     from parameters.feature_flag_variants: fewer than 21, one keyed control), or takes an
//     existing one only when it is multivariate with control as the first of 2 or more variants;
//   - `parameters` is stored whole as sent; after launch its variant keys cannot change; the
//     holdout cannot change while it runs; feature_flag_key never changes; saved metrics must
//     exist in the project;
//   - each metric gets a `uuid` and a `fingerprint`, the ordered uuid lists follow the metrics,
//     stats_config gets the team's defaults, exposure_criteria `filterTestAccounts: true`;
//   - POST launch/, pause/, resume/, end/, ship_variant/, archive/, unarchive/ move it along its
//     lifecycle, each refusing (400) from the wrong place; pausing turns the flag off, resuming
//     on, shipping rewrites the flag's split to 100% for the variant (and ends a running one);
//   - its flag answers `experiment_set` (held by it: never pruned, deletion refused while running);
//   - the organization's `experiments` feature: without it every path answers 404.
// Seeded per project under `experiments`.
import { notFound, validationError } from '../../sandbox/errors.js';
import { hasFeature } from '../../sandbox/features.js';
import { nowIso } from '../../sandbox/ids.js';
import { clone, isObject, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf, type KindContext, type SandboxModel } from '../../sandbox/kind-model.js';
import type { Handler, RequestContext } from '../../sandbox/router.js';
import { projectOf } from '../../sandbox/routes/common.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';
import type { FeatureFlagState, SandboxState } from '../../sandbox/state.js';
import { booleanRule, stringRule, untypedRule, validatePartial } from '../../sandbox/validation.js';
import { HOLDOUTS, holdoutOfFlag } from '../experiment_holdout/sandbox.js';
import { SAVED_METRICS, stampMetric } from '../experiment_saved_metric/sandbox.js';
import { createFlag, renderFlagMinimal } from '../feature_flag/sandbox.js';

const COLLECTION = 'experiments';
const base = '/api/projects/:project/experiments/';
const CONCLUSIONS = ['won', 'lost', 'inconclusive', 'stopped_early', 'invalid', '', null];
/** What the team's defaults add to stats_config (the API's team setting). */
const STATS_DEFAULTS: JsonObject = { method: 'bayesian' };

const RULES = {
  name: stringRule({ max: 400 }),
  description: stringRule({ max: 400, nullable: true, allowBlank: true }),
  type: (value: Json, attr: string): Json => {
    if (value !== null && value !== '' && value !== 'web' && value !== 'product') throw validationError(attr, `"${String(value)}" is not a valid choice.`, 'invalid_choice');
    return value;
  },
  archived: booleanRule(),
  deleted: booleanRule({ nullable: true }),
  parameters: untypedRule(),
  metrics: untypedRule(),
  metrics_secondary: untypedRule(),
  exposure_criteria: untypedRule(),
  stats_config: untypedRule(),
  holdout_id: untypedRule(),
  saved_metrics_ids: untypedRule(),
  conclusion: (value: Json, attr: string): Json => {
    if (!CONCLUSIONS.includes(value as string | null)) throw validationError(attr, `"${String(value)}" is not a valid choice.`, 'invalid_choice');
    return value;
  },
  conclusion_comment: stringRule({ nullable: true, allowBlank: true }),
};

const refuse = (detail: string): never => { throw validationError(null, detail, 'invalid_input'); };
const experimentsOf = (state: SandboxState): JsonObject[] => recordsOf(state, { collection: COLLECTION });
const flagOf = (state: SandboxState, e: JsonObject): FeatureFlagState | undefined => state.feature_flags.find((f) => f.id === e.feature_flag_id);

function variantsOf(parameters: Json | undefined): JsonObject[] {
  return isObject(parameters) && Array.isArray(parameters.feature_flag_variants) ? parameters.feature_flag_variants.filter(isObject) : [];
}

function checkParameters(parameters: Json): void {
  const variants = variantsOf(parameters);
  if (variants.length >= 21) refuse('Feature flag variants must be less than 21');
  if (variants.length > 0 && !variants.some((v) => v.key === 'control')) refuse('Feature flag variants must contain a control variant');
}

/** The flag's variants from the experiment's: each keeps its share, those without one split the rest evenly. */
function flagVariants(variants: JsonObject[]): JsonObject[] {
  const given = variants.reduce((sum, v) => sum + (typeof v.rollout_percentage === 'number' ? v.rollout_percentage : 0), 0);
  const open = variants.filter((v) => typeof v.rollout_percentage !== 'number');
  const each = open.length > 0 ? Math.floor((100 - given) / open.length) : 0;
  let extra = open.length > 0 ? 100 - given - each * open.length : 0;
  return variants.map((v) => {
    if (typeof v.rollout_percentage === 'number') return { key: v.key ?? null, name: v.name ?? null, rollout_percentage: v.rollout_percentage };
    const pct = each + extra;
    extra = 0;
    return { key: v.key ?? null, name: v.name ?? null, rollout_percentage: pct };
  });
}

/** Metrics as stored: each with a uuid and a fingerprint. */
function stampMetrics(value: Json | undefined): Json[] {
  return (Array.isArray(value) ? value : []).map((m) => stampMetric(m));
}

function checkSavedMetrics(state: SandboxState, project: number, value: Json): Json[] {
  if (value === null) return [];
  if (!Array.isArray(value)) return refuse('Saved metrics must be a list');
  const known = new Set(recordsOf(state, { collection: SAVED_METRICS }).filter((m) => m.project === project).map((m) => m.id));
  for (const link of value) {
    if (!isObject(link) || link.id === undefined) refuse('Saved metric must have an id');
    if (!isObject((link as JsonObject).metadata) || !('type' in ((link as JsonObject).metadata as JsonObject))) refuse('Metadata must have a type key');
    if (!known.has((link as JsonObject).id as Json)) refuse('Saved metric does not exist or does not belong to this project');
  }
  return clone(value);
}

function holdoutIn(state: SandboxState, project: number, id: Json | undefined): JsonObject | undefined {
  if (id === null || id === undefined) return undefined;
  const h = recordsOf(state, { collection: HOLDOUTS }).find((r) => r.project === project && r.id === id);
  return h ?? refuse(`Invalid pk "${String(id)}" - object does not exist.`);
}

/** Writes what the experiment says into its flag: who it is held by, whether it runs, its holdout. */
function syncFlag(state: SandboxState, e: JsonObject): void {
  const flag = flagOf(state, e);
  if (!flag) return;
  const others = ((flag.experiments as FeatureFlagState['experiments'] | undefined) ?? []).filter((x) => x.id !== e.id);
  const mine = e.deleted === true ? [] : [{ id: e.id as number, name: String(e.name), running: Boolean(e.start_date) && !e.end_date }];
  flag.experiments = [...others, ...mine];
  flag.experiment_ids = flag.experiments.map((x) => x.id);
  const holdout = holdoutIn(state, e.project as number, e.holdout_id ?? null);
  flag.filters = { ...flag.filters, holdout: holdoutOfFlag(holdout) };
}

export function createExperiment(state: SandboxState, project: number, body: JsonObject): JsonObject {
  const fields = validatePartial(RULES, body);
  if (fields.name === undefined) throw validationError('name', 'This field is required.', 'required');
  const key = body.feature_flag_key;
  if (typeof key !== 'string' || key === '') throw validationError('feature_flag_key', 'This field is required.', 'required');
  checkParameters(fields.parameters ?? null);
  const savedLinks = checkSavedMetrics(state, project, fields.saved_metrics_ids ?? null);
  holdoutIn(state, project, fields.holdout_id ?? null);
  let flag = state.feature_flags.find((f) => f.project === project && f.key === key && !f.deleted);
  if (flag) {
    const variants = isObject(flag.filters.multivariate) && Array.isArray(flag.filters.multivariate.variants) ? flag.filters.multivariate.variants.filter(isObject) : [];
    if (variants.length < 2) refuse('Feature flag is not eligible for experiments.');
    if (variants[0]?.key !== 'control') refuse('Feature flag must have control as the first variant.');
  } else {
    const variants = flagVariants(variantsOf(fields.parameters ?? null));
    if (variants.length < 2) refuse('Feature flag variants must have at least 2 variants');
    flag = createFlag(state, project, {
      key, name: `Feature Flag for Experiment ${String(fields.name)}`, active: false, creation_context: 'experiments',
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants }, aggregation_group_type_index: null },
    });
  }
  const ids = state.next_ids as unknown as Record<string, number>;
  const id = ids.experiment ?? 1;
  ids.experiment = id + 1;
  const now = nowIso();
  const metrics = stampMetrics(fields.metrics);
  const secondary = stampMetrics(fields.metrics_secondary);
  const record: JsonObject = {
    id, project, name: fields.name, description: fields.description ?? null, type: fields.type ?? 'product',
    feature_flag_id: flag.id, feature_flag_key: key, holdout_id: fields.holdout_id ?? null,
    parameters: clone(fields.parameters ?? null), metrics, metrics_secondary: secondary,
    primary_metrics_ordered_uuids: metrics.map((m) => (isObject(m) ? m.uuid ?? null : null)),
    secondary_metrics_ordered_uuids: secondary.map((m) => (isObject(m) ? m.uuid ?? null : null)),
    saved_metrics_ids: savedLinks,
    exposure_criteria: { filterTestAccounts: true, ...(isObject(fields.exposure_criteria) ? clone(fields.exposure_criteria) : {}) },
    stats_config: { ...STATS_DEFAULTS, ...(isObject(fields.stats_config) ? clone(fields.stats_config) : {}) },
    start_date: null, end_date: null, archived: fields.archived === true, deleted: false,
    conclusion: fields.conclusion ?? null, conclusion_comment: fields.conclusion_comment ?? null,
    created_at: now, updated_at: now, filters: {},
  };
  experimentsOf(state).push(record);
  syncFlag(state, record);
  return record;
}

function update(record: JsonObject, body: JsonObject, ctx: KindContext): JsonObject {
  const state = ctx.state;
  const changes = validatePartial(RULES, body);
  const launched = Boolean(record.start_date);
  const running = launched && !record.end_date;
  if (body.feature_flag_key !== undefined && body.feature_flag_key !== record.feature_flag_key) refuse("Can't update keys: feature_flag_key on Experiment");
  if (changes.parameters !== undefined) {
    checkParameters(changes.parameters);
    const before = variantsOf(record.parameters).map((v) => v.key).sort();
    const after = variantsOf(changes.parameters).map((v) => v.key).sort();
    if (launched && JSON.stringify(before) !== JSON.stringify(after)) refuse("Can't update feature_flag_variants on Experiment");
    const flag = flagOf(state, record);
    if (!launched && flag && after.length > 0) {
      flag.filters = { ...flag.filters, multivariate: { ...(isObject(flag.filters.multivariate) ? flag.filters.multivariate : {}), variants: flagVariants(variantsOf(changes.parameters)) } };
    }
  }
  if (changes.holdout_id !== undefined && changes.holdout_id !== record.holdout_id) {
    if (running) refuse("Can't update holdout on running Experiment");
    holdoutIn(state, record.project as number, changes.holdout_id);
  }
  if (changes.saved_metrics_ids !== undefined) changes.saved_metrics_ids = checkSavedMetrics(state, record.project as number, changes.saved_metrics_ids);
  if (changes.metrics !== undefined) {
    changes.metrics = stampMetrics(changes.metrics);
    changes.primary_metrics_ordered_uuids = (changes.metrics as Json[]).map((m) => (isObject(m) ? m.uuid ?? null : null));
  }
  if (changes.metrics_secondary !== undefined) {
    changes.metrics_secondary = stampMetrics(changes.metrics_secondary);
    changes.secondary_metrics_ordered_uuids = (changes.metrics_secondary as Json[]).map((m) => (isObject(m) ? m.uuid ?? null : null));
  }
  if (changes.exposure_criteria !== undefined) changes.exposure_criteria = { filterTestAccounts: true, ...(isObject(changes.exposure_criteria) ? changes.exposure_criteria : {}) };
  if (changes.stats_config !== undefined) changes.stats_config = { ...STATS_DEFAULTS, ...(isObject(changes.stats_config) ? changes.stats_config : {}) };
  changes.updated_at = nowIso();
  return changes;
}

function render(record: JsonObject, ctx: KindContext | { state: SandboxState }): JsonObject {
  const state = ctx.state;
  const flag = flagOf(state, record);
  const holdout = record.holdout_id === null || record.holdout_id === undefined ? undefined : recordsOf(state, { collection: HOLDOUTS }).find((h) => h.id === record.holdout_id);
  const saved = recordsOf(state, { collection: SAVED_METRICS });
  return {
    id: record.id ?? null, name: record.name ?? null, description: record.description ?? null,
    start_date: record.start_date ?? null, end_date: record.end_date ?? null,
    feature_flag_key: record.feature_flag_key ?? null,
    // MinimalFeatureFlagSerializer, with the flag's evaluation tags (none here).
    feature_flag: flag ? { ...renderFlagMinimal(flag, state), evaluation_tags: [] } : null,
    holdout: holdout ? { id: holdout.id ?? null, name: holdout.name ?? null, description: holdout.description ?? null, filters: clone(holdout.filters ?? []), created_by: clone(state.user), created_at: holdout.created_at ?? null, updated_at: holdout.updated_at ?? null } : null,
    holdout_id: record.holdout_id ?? null,
    exposure_cohort: null,
    parameters: clone(record.parameters ?? null),
    secondary_metrics: [],
    saved_metrics: ((record.saved_metrics_ids as Json[] | undefined) ?? []).filter(isObject).map((link, i) => {
      const m = saved.find((s) => s.id === link.id);
      return { id: i + 1, experiment: record.id ?? null, saved_metric: link.id ?? null, metadata: clone(link.metadata ?? {}), created_at: record.created_at ?? null, query: clone(m?.query ?? null), name: m?.name ?? '' };
    }),
    saved_metrics_ids: clone(record.saved_metrics_ids ?? []),
    filters: {}, archived: record.archived ?? false, deleted: record.deleted ?? false,
    created_by: clone(state.user), created_at: record.created_at ?? null, updated_at: record.updated_at ?? null,
    type: record.type ?? 'product',
    exposure_criteria: clone(record.exposure_criteria ?? null), metrics: clone(record.metrics ?? []), metrics_secondary: clone(record.metrics_secondary ?? []),
    stats_config: clone(record.stats_config ?? null), conclusion: record.conclusion ?? null, conclusion_comment: record.conclusion_comment ?? null,
    primary_metrics_ordered_uuids: clone(record.primary_metrics_ordered_uuids ?? []), secondary_metrics_ordered_uuids: clone(record.secondary_metrics_ordered_uuids ?? []),
    user_access_level: 'editor',
  };
}

/** The experiment a lifecycle action names, in a project of an organization with experiments. */
function experimentIn(ctx: RequestContext, state: SandboxState): JsonObject {
  const project = projectOf(ctx, state);
  const org = state.organizations.find((o) => o.id === project.organization);
  if (!org || !hasFeature(org, 'experiments')) throw notFound();
  const e = experimentsOf(state).find((r) => r.project === project.id && String(r.id) === ctx.params.id && r.deleted !== true);
  if (!e) throw notFound();
  return e;
}

/** One lifecycle action: its refusals and its change, then the experiment as answered. */
function action(run: (e: JsonObject, body: JsonObject, state: SandboxState, flag: FeatureFlagState | undefined) => void): Handler {
  return (ctx) => ctx.store.write((state) => {
    const e = experimentIn(ctx, state);
    run(e, ctx.body, state, flagOf(state, e));
    e.updated_at = nowIso();
    syncFlag(state, e);
    return { status: 200, body: render(e, { state }) };
  });
}

function conclude(e: JsonObject, body: JsonObject): void {
  if ('conclusion' in body) e.conclusion = RULES.conclusion(body.conclusion ?? null, 'conclusion');
  if ('conclusion_comment' in body) e.conclusion_comment = RULES.conclusion_comment(body.conclusion_comment ?? null, 'conclusion_comment');
}

const launch = action((e, _b, _s, flag) => {
  if (e.start_date) refuse('Experiment has already been launched.');
  const variants = flag && isObject(flag.filters.multivariate) && Array.isArray(flag.filters.multivariate.variants) ? flag.filters.multivariate.variants : [];
  if (variants.length < 2) refuse('Feature flag is not eligible for experiments.');
  e.start_date = nowIso();
  if (flag) flag.active = true;
});
const pause = action((e, _b, _s, flag) => {
  if (!e.start_date) refuse('Experiment has not been launched.');
  if (e.end_date) refuse('Experiment has already ended.');
  if (!flag) refuse('Experiment has no feature flag.');
  if (flag?.active === false) refuse('Experiment is already paused.');
  if (flag) flag.active = false;
});
const resume = action((e, _b, _s, flag) => {
  if (!e.start_date) refuse('Experiment has not been launched.');
  if (e.end_date) refuse('Experiment has already ended.');
  if (!flag) refuse('Experiment has no feature flag.');
  if (flag?.active !== false) refuse('Experiment is not paused.');
  if (flag) flag.active = true;
});
const end = action((e, body) => {
  if (!e.start_date) refuse('Experiment has not been launched.');
  if (e.end_date) refuse('Experiment has already ended.');
  e.end_date = nowIso();
  conclude(e, body);
});
const shipVariant = action((e, body, _s, flag) => {
  if (!e.start_date) refuse('Experiment has not been launched.');
  if (!flag) refuse('Experiment has no feature flag.');
  const key = body.variant_key;
  if (typeof key !== 'string') throw validationError('variant_key', 'This field is required.', 'required');
  const multivariate = flag && isObject(flag.filters.multivariate) ? flag.filters.multivariate : {};
  const variants = Array.isArray(multivariate.variants) ? multivariate.variants.filter(isObject) : [];
  if (!variants.some((v) => v.key === key)) refuse(`Variant "${key}" is not a variant of the experiment's feature flag.`);
  if (flag) {
    flag.filters = { ...flag.filters, multivariate: { ...multivariate, variants: variants.map((v) => ({ ...v, rollout_percentage: v.key === key ? 100 : 0 })) } };
    flag.version = (flag.version ?? 1) + 1;
  }
  if (!e.end_date) e.end_date = nowIso();
  conclude(e, body);
});
const archive = action((e) => {
  if (e.archived === true) refuse('Experiment is already archived.');
  if (!e.end_date) refuse('Experiment must be ended before it can be archived.');
  e.archived = true;
});
const unarchive = action((e) => {
  if (e.archived !== true) refuse('Experiment is not archived.');
  e.archived = false;
});

export const model: SandboxModel = {
  kind: 'experiment',
  collection: COLLECTION,
  path: base,
  parent: 'project',
  feature: 'experiments',
  scopes: { read: 'experiment:read', write: 'experiment:write' },
  pagination: 'limit-offset',
  id: 'integer',
  create: { status: 201 },
  update: true,
  delete: 'soft',
  softDelete: 'deleted',
  fields: {},
  activity: { scope: 'Experiment', name: (r) => String(r.name), ignored: ['project', 'feature_flag_id', 'primary_metrics_ordered_uuids', 'secondary_metrics_ordered_uuids', 'filters'] },
  hooks: {
    listed: (r, ctx) => r.deleted !== true && (r.archived === true) === (ctx.request.url.searchParams.get('archived') === 'true'),
    createReply: (ctx) => ({ status: 201, body: render(createExperiment(ctx.state, ctx.project?.id as number, ctx.request.body), ctx) }),
    updateReply: (record, ctx) => {
      if (record.deleted === true) throw notFound();
      Object.assign(record, update(record, ctx.request.body, ctx));
      syncFlag(ctx.state, record);
      return { status: 200, body: render(record, ctx) };
    },
    render,
  },
  routes: [
    ...(['launch', 'pause', 'resume', 'end', 'ship_variant', 'archive', 'unarchive'] as const).map((name) => ({
      pattern: `${base}:id/${name}/`,
      methods: { POST: { scope: 'experiment:write' as const, handler: { launch, pause, resume, end, ship_variant: shipVariant, archive, unarchive }[name] } },
    })),
  ],
  seeds: [{
    key: 'experiments',
    at: 'project',
    apply: (state, { project }, value, where, fail) => {
      for (const [i, entry] of seedList(value, where, fail).entries()) seedApply(`${where}[${i}]`, fail, () => createExperiment(state, project?.id as number, entry));
    },
  }],
  contract: {
    item: { name: 'Contract experiment', description: 'Checkout test', feature_flag: 'contract-experiment', variants: [{ key: 'control', split_percent: 50 }, { key: 'test', split_percent: 50 }] },
    update: { metrics: [{ kind: 'ExperimentMetric', metric_type: 'mean', source: { kind: 'EventsNode', event: '$pageview' } }] },
    drift: { description: 'Changed in the web app' },
  },
};
