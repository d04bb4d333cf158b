// Hog functions in the sandbox, as the real API keeps them (posthog/api/hog_function.py,
// HogFunctionSerializer and HogFunctionViewSet; posthog/cdp/validation.py):
//   - the list is abridged (HogFunctionMinimalSerializer: no inputs, inputs_schema, masking,
//     mappings), holds destinations only unless `type` names types (comma-separated), leaves out
//     deleted functions and is ordered by execution_order, then created_at;
//   - type is required on create, one of the API's choices, and cannot change ("Cannot modify
//     the type of an existing function"); template_id is write-only (read back as template);
//     a function from a template takes its hog and inputs_schema unless given; without hog
//     (nor a template) the API answers {"hog": "Required."};
//   - inputs are validated against the inputs schema (validate_inputs): a required input without
//     a value is refused ("This field is required."), a string, boolean or dictionary of another
//     type too; inputs the schema does not name are dropped; `bytecode` is computed;
//   - a secret input is stored apart and read back as {"secret": true}; sending that marker keeps
//     the stored value (the encrypted inputs);
//   - a new transformation without execution_order goes last (the highest + 1), as does one
//     enabled again or undeleted without one; the list is ordered by execution_order, then the
//     newest updated_at;
//   - a transformation being enabled (created enabled, or enabled) when 20 run is refused
//     ({"type": "Maximum of 20 enabled transformation functions allowed per team. …"});
//   - mappings replace the event filters: `filters.events` and `filters.actions` are dropped;
//   - deleted by PATCH {"deleted": true} (DELETE answers 405: ForbidDestroyModel); the activity
//     log's scope is `HogFunction`. Seeded per project under `hog_functions` (internal_destination
//     ones too: what alerts and notifications own, listed only when asked for by type).
import { validationError } from '../../sandbox/errors.js';
import { nowIso, uuidv7 } from '../../sandbox/ids.js';
import { clone, isObject, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf, type KindContext, type SandboxModel } from '../../sandbox/kind-model.js';
import { paginate } from '../../sandbox/pagination.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';
import type { SandboxState } from '../../sandbox/state.js';
import { booleanRule, integerRule, stringRule, validatePartial } from '../../sandbox/validation.js';
import type { Handler } from '../../sandbox/router.js';
import { notFound } from '../../sandbox/errors.js';
import { projectOf } from '../../sandbox/routes/common.js';
import { SANDBOX_ONLY_TEMPLATES, TEMPLATES, type HogTemplate } from './templates.js';

/** The templates the sandbox has: those hogsync carries and some it does not (as the API has well over a hundred). */
const CATALOG: readonly HogTemplate[] = [...TEMPLATES, ...SANDBOX_ONLY_TEMPLATES];
const templateById = (id: unknown): HogTemplate | undefined => CATALOG.find((t) => t.id === id);

/** A template as the API answers it (HogFunctionTemplateSerializer): newer versions carry the source as `code`. */
function renderTemplate(t: HogTemplate): JsonObject {
  return {
    id: t.id, name: t.name, description: null, code: t.hog, code_language: 'hog', inputs_schema: clone(t.inputs_schema as unknown as Json[]),
    type: t.type, status: t.status === 'free' ? 'stable' : t.status, category: [], free: t.status === 'free', icon_url: null,
    filters: null, masking: null, mapping_templates: null,
  };
}

/** GET …/hog_function_templates/: destinations unless `type` or `types` names others; `template_id` narrows to one. */
const listTemplates: Handler = (ctx) => ctx.store.read((state) => {
  projectOf(ctx, state);
  const q = ctx.url.searchParams;
  const types = q.get('type') ? [q.get('type') as string] : (q.get('types') ?? 'destination').split(',');
  const id = q.get('template_id');
  const found = CATALOG.filter((t) => types.includes(t.type) && (id === null || t.id === id));
  return { status: 200, body: paginate(found, renderTemplate, ctx.url) as unknown as JsonObject };
});

/** GET …/hog_function_templates/{template_id}/: any template by id; 404 for one the API does not have. */
const readTemplate: Handler = (ctx) => ctx.store.read((state) => {
  projectOf(ctx, state);
  const t = templateById(ctx.params.template_id);
  if (!t) throw notFound();
  return { status: 200, body: renderTemplate(t) };
});

const COLLECTION = 'hog_functions';
const TYPES = ['destination', 'site_destination', 'internal_destination', 'source_webhook', 'site_app', 'transformation'];
const MAX_ENABLED_TRANSFORMATIONS = 20;

const RULES = {
  name: stringRule({ max: 400, nullable: true, allowBlank: true }),
  description: stringRule({ allowBlank: true }),
  enabled: booleanRule(),
  hog: stringRule({ allowBlank: true }),
  icon_url: stringRule({ nullable: true, allowBlank: true }),
  execution_order: integerRule({ min: 0, max: 32767, nullable: true }),
  deleted: booleanRule(),
};

const functionsOf = (state: SandboxState): JsonObject[] => recordsOf(state, { collection: COLLECTION });

/** What the API computes from a templated value (generate_template_bytecode): a stand-in. */
const bytecodeOf = (value: Json): Json[] => ['_H', 1, 32, JSON.stringify(value)];

/**
 * Inputs as validate_inputs takes them, against the schema: each schema key's input validated and
 * kept (secret ones into `secrets`, where a marker keeps what was stored), every other key dropped.
 */
function takeInputs(schema: Json, body: Json, stored: { inputs: JsonObject; secrets: JsonObject }): { inputs: JsonObject; secrets: JsonObject } {
  if (body !== undefined && body !== null && !isObject(body)) throw validationError('inputs', 'Expected a dictionary of items.', 'not_a_dict');
  const given = (body ?? {}) as JsonObject;
  const inputs: JsonObject = {};
  const secrets: JsonObject = {};
  for (const [i, s] of (Array.isArray(schema) ? schema : []).entries()) {
    if (!isObject(s)) continue;
    const key = String(s.key);
    const raw = given[key];
    if (s.secret === true && isObject(raw) && raw.secret === true && !('value' in raw)) {
      if (stored.secrets[key] !== undefined) secrets[key] = stored.secrets[key] as Json;
      continue;
    }
    const value = isObject(raw) ? raw.value : undefined;
    const empty = value === undefined || value === null || value === '' || value === false;
    if (s.required === true && empty) throw validationError(`inputs__${key}`, 'This field is required.', 'invalid_input');
    if (!empty) {
      if (s.type === 'string' && typeof value !== 'string') throw validationError(`inputs__${key}`, 'Value must be a string.', 'invalid_input');
      if (s.type === 'boolean' && typeof value !== 'boolean') throw validationError(`inputs__${key}`, 'Value must be a boolean.', 'invalid_input');
      if (s.type === 'dictionary' && !isObject(value)) throw validationError(`inputs__${key}`, 'Value must be a dictionary.', 'invalid_input');
    }
    if (raw === undefined) continue;
    const input: JsonObject = { value: clone(value ?? null), order: i };
    if (isObject(raw) && typeof raw.templating === 'string') input.templating = raw.templating;
    if (!empty && ['string', 'dictionary', 'json'].includes(String(s.type))) input.bytecode = bytecodeOf(value as Json);
    if (s.secret === true) secrets[key] = input;
    else inputs[key] = input;
  }
  return { inputs, secrets };
}

function minimal(record: JsonObject, ctx: KindContext): JsonObject {
  return {
    id: record.id ?? null,
    type: record.type ?? null,
    name: record.name ?? null,
    description: record.description ?? '',
    created_at: record.created_at ?? null,
    created_by: clone(ctx.state.user),
    updated_at: record.updated_at ?? null,
    enabled: record.enabled ?? false,
    hog: record.hog ?? '',
    filters: clone(record.filters ?? {}),
    icon_url: record.icon_url ?? null,
    template: record.template_id ? { id: record.template_id, name: templateById(record.template_id)?.name ?? String(record.template_id) } : null,
    status: { state: 1, rating: 1, tokens: 10000 },
    execution_order: record.execution_order ?? null,
  };
}

function render(record: JsonObject, ctx: KindContext): JsonObject {
  const inputs = clone((record.inputs ?? {}) as JsonObject);
  for (const key of Object.keys((record.secrets ?? {}) as JsonObject)) inputs[key] = { secret: true };
  return {
    ...minimal(record, ctx),
    bytecode: ['_H', 1],
    transpiled: null,
    inputs_schema: clone(record.inputs_schema ?? []),
    inputs,
    masking: clone(record.masking ?? null),
    mappings: clone(record.mappings ?? null),
  };
}

/** Filters as stored: what was sent, with the bytecode the API compiles. */
const takeFilters = (value: Json): JsonObject => {
  if (value !== undefined && value !== null && !isObject(value)) throw validationError('filters', 'Expected a dictionary of items.', 'not_a_dict');
  return { ...clone((value ?? {}) as JsonObject), bytecode: ['_H', 1, 29] };
};

function takeMasking(value: Json): Json {
  if (value === null || value === undefined) return null;
  if (!isObject(value)) throw validationError('masking', 'Expected a dictionary of items.', 'not_a_dict');
  const ttl = value.ttl;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 60 || ttl > 86400) throw validationError('masking__ttl', 'Ensure this value is greater than or equal to 60 and less than or equal to 86400.', 'invalid');
  if (typeof value.hash !== 'string') throw validationError('masking__hash', 'This field is required.', 'required');
  return { ttl, hash: value.hash, threshold: value.threshold ?? null, bytecode: bytecodeOf(value.hash) };
}

/**
 * A transformation being enabled (created enabled, or a disabled one enabled) when the project
 * already runs 20 is refused; one already enabled may be updated.
 */
function checkTransformationLimit(state: SandboxState, project: unknown, type: unknown, enabling: boolean): void {
  if (type !== 'transformation' || !enabling) return;
  const enabled = functionsOf(state).filter((f) => f.project === project && f.type === 'transformation' && f.enabled === true && f.deleted !== true).length;
  if (enabled >= MAX_ENABLED_TRANSFORMATIONS) {
    throw validationError('type', `Maximum of ${MAX_ENABLED_TRANSFORMATIONS} enabled transformation functions allowed per team. Please contact support if you need this limit increased, or disable some existing transformations.`, 'invalid_input');
  }
}

/** The highest execution_order among the project's transformations (0 when none). */
const highestOrder = (state: SandboxState, project: unknown): number =>
  Math.max(0, ...functionsOf(state).filter((f) => f.project === project && f.type === 'transformation' && f.deleted !== true).map((f) => Number(f.execution_order ?? 0)));

export function createHogFunction(state: SandboxState, project: number, body: JsonObject, seeded = false): JsonObject {
  const fields = validatePartial(RULES, body);
  const type = body.type;
  if (type === undefined) throw validationError('type', 'This field is required.', 'required');
  if (typeof type !== 'string' || !TYPES.includes(type)) throw validationError('type', `"${String(type)}" is not a valid choice.`, 'invalid_choice');
  const templateId = typeof body.template_id === 'string' ? body.template_id : null;
  const template = templateById(templateId);
  const hog = fields.hog || template?.hog;
  if (!hog) throw validationError('hog', 'Required.', 'invalid_input');
  const schema = Array.isArray(body.inputs_schema) && body.inputs_schema.length > 0 ? clone(body.inputs_schema) : clone((template?.inputs_schema ?? []) as unknown as Json[]);
  const { inputs, secrets } = takeInputs(schema, body.inputs, { inputs: {}, secrets: {} });
  if (!seeded) checkTransformationLimit(state, project, type, fields.enabled === true);
  const now = nowIso();
  const record: JsonObject = {
    id: uuidv7(), project, type, name: fields.name ?? null, description: fields.description ?? '', enabled: fields.enabled ?? false,
    hog: String(hog).trim(), inputs_schema: schema, inputs, secrets, filters: takeFilters(body.filters),
    masking: takeMasking(body.masking), mappings: clone((body.mappings ?? null) as Json), icon_url: fields.icon_url ?? null,
    template_id: templateId, deleted: false, created_at: now, updated_at: now,
    // A new transformation without an order goes last.
    execution_order: fields.execution_order ?? (type === 'transformation' ? highestOrder(state, project) + 1 : null),
  };
  functionsOf(state).push(record);
  return record;
}

function update(record: JsonObject, body: JsonObject, ctx: KindContext): JsonObject {
  if ('type' in body && body.type !== record.type) throw validationError('type', 'Cannot modify the type of an existing function', 'invalid_input');
  const changes = validatePartial(RULES, body);
  if (typeof changes.hog === 'string') changes.hog = changes.hog.trim();
  if (body.inputs_schema !== undefined) changes.inputs_schema = clone(body.inputs_schema);
  if (body.inputs !== undefined) {
    const schema = (changes.inputs_schema ?? record.inputs_schema ?? []) as Json;
    const taken = takeInputs(schema, body.inputs, { inputs: (record.inputs ?? {}) as JsonObject, secrets: (record.secrets ?? {}) as JsonObject });
    changes.inputs = taken.inputs;
    changes.secrets = taken.secrets;
  }
  if (body.filters !== undefined) changes.filters = takeFilters(body.filters);
  if (body.masking !== undefined) changes.masking = takeMasking(body.masking);
  if (body.mappings !== undefined) {
    if (body.mappings !== null && !['destination', 'site_destination'].includes(String(record.type))) throw validationError('mappings', 'Mappings are only allowed for destinations.', 'invalid_input');
    changes.mappings = clone(body.mappings);
  }
  const enabling = changes.enabled === true && (record.enabled !== true || record.deleted === true);
  checkTransformationLimit(ctx.state, record.project, record.type, enabling);
  // Enabled again (or undeleted) without an order: it goes last.
  if (record.type === 'transformation' && ((record.deleted === true && changes.deleted === false) || (record.enabled !== true && changes.enabled === true && !('execution_order' in changes)))) {
    changes.execution_order = highestOrder(ctx.state, record.project) + 1;
  }
  // Mappings replace the event filters (their own filters say which events).
  if (isObject(changes.mappings ?? null) || Array.isArray(changes.mappings)) {
    const filters = { ...((changes.filters ?? record.filters ?? {}) as JsonObject) };
    delete filters.events;
    delete filters.actions;
    changes.filters = filters;
  }
  changes.updated_at = nowIso();
  return changes;
}

export const model: SandboxModel = {
  kind: 'hog_function',
  collection: COLLECTION,
  path: '/api/projects/:project/hog_functions/',
  aliases: ['/api/environments/:project/hog_functions/'],
  parent: 'project',
  scopes: { read: 'hog_function:read', write: 'hog_function:write' },
  pagination: 'limit-offset',
  id: 'uuid',
  create: { status: 201 },
  update: true,
  delete: 'soft',
  softDelete: 'deleted',
  // A deleted function answers 404 (the viewset leaves deleted ones out but to restore one).
  softDeleted: 'gone',
  fields: {},
  routes: [
    { pattern: '/api/projects/:project/hog_function_templates/', methods: { GET: { scope: 'hog_function:read', handler: listTemplates } } },
    { pattern: '/api/projects/:project/hog_function_templates/:template_id/', methods: { GET: { scope: 'hog_function:read', handler: readTemplate } } },
  ],
  activity: { scope: 'HogFunction', name: (r) => String(r.name), ignored: ['project', 'secrets', 'updated_at', 'bytecode'] },
  hooks: {
    listReply: (ctx) => {
      const asked = ctx.request.url.searchParams.get('type') ?? ctx.request.url.searchParams.get('types');
      const types = asked ? asked.split(',') : ['destination'];
      const order = (f: JsonObject) => (f.execution_order === null || f.execution_order === undefined ? Number.MAX_SAFE_INTEGER : Number(f.execution_order));
      const records = ctx.records().filter((r) => r.deleted !== true && types.includes(String(r.type)))
        .sort((a, b) => order(a) - order(b) || String(b.updated_at).localeCompare(String(a.updated_at)));
      return { status: 200, body: paginate(records, (r) => minimal(r, ctx), ctx.request.url) as unknown as JsonObject };
    },
    createReply: (ctx) => ({ status: 201, body: render(createHogFunction(ctx.state, ctx.project?.id as number, ctx.request.body), ctx) }),
    updateReply: (record, ctx) => {
      Object.assign(record, update(record, ctx.request.body, ctx));
      return { status: 200, body: render(record, ctx) };
    },
    render,
  },
  seeds: [{
    key: 'hog_functions',
    at: 'project',
    apply: (state, { project }, value, where, fail) => {
      for (const [i, entry] of seedList(value, where, fail).entries()) {
        seedApply(`${where}[${i}]`, fail, () => createHogFunction(state, project?.id as number, entry, true));
      }
    },
  }],
  contract: {
    item: { name: 'Contract webhook', type: 'destination', template_id: 'template-webhook', enabled: true, inputs: { url: { value: 'https://hooks.example.com/contract' } } },
    update: { description: 'Signups to the CRM' },
    drift: { enabled: false },
  },
};
