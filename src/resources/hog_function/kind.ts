// Hog functions of a project (destinations, transformations, site destinations and apps):
// identity = type and name (`PROJECT/TYPE/NAME`), which the API does not keep unique (an `id:`
// pins one). What the real API does to them that hogsync must meet (posthog/api/hog_function.py,
// HogFunctionSerializer and HogFunctionViewSet; posthog/cdp/validation.py):
//   - the list is abridged (HogFunctionMinimalSerializer: no inputs, inputs_schema, masking,
//     mappings): declared functions are read again in full (abridgedList), one GET each;
//   - the list holds destinations only unless `type` names the types: the path names the five
//     this kind manages, never `internal_destination` (functions of alerts and notifications);
//   - `type` cannot change ("Cannot modify the type of an existing function"): a declared
//     function whose type differs from the live one of its name replaces it (replacedBy: the old
//     one is deleted, the new one created), and a pinned one with another type is a plan error;
//   - `template_id` is write-only (read back as `template.id`): sent on create only;
//   - `inputs` is replaced whole on every write; a secret input (its schema's `secret: true`)
//     reads back as `{"secret": true}`, and sending that keeps the stored value: compared as the
//     same unless `--resend-secrets`, sent as the marker unless resent, never shown;
//   - `bytecode` (of inputs, filters, masking) and an input's `order` and `transpiled` are
//     computed; `hog` comes back trimmed; deleted with PATCH {"deleted": true} (DELETE is 405);
//   - at most 20 enabled transformations per project: a plan that creates one past it is an error.
import type { ComparedItem, EntryProblem, LiveRecord, ResourceKind, Scope, ScopeCheck, ScopeView } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { resendSecrets } from '../write-only.js';
import { templateById, TEMPLATES, type InputSchema } from './templates.js';
import { learnExportedTemplates, learnTemplates, literalSecretWarning } from './learn-templates.js';
import { suggest } from '../../config/suggest.js';
import { propertyValueProblems } from '../feature_flag/rules.js';

/** The types this kind manages: the list names them (older API versions list destinations only otherwise). */
export const MANAGED_TYPES = ['destination', 'transformation', 'site_destination', 'site_app', 'source_webhook'] as const;
/** The types that are one kind of function, a destination run on the server or in the browser: a change between them replaces it. */
const DESTINATIONS = ['destination', 'site_destination'];
/** The API's limit of enabled transformations per project. */
export const MAX_ENABLED_TRANSFORMATIONS = 20;

const base = (s: Scope) => `/api/projects/${encodeURIComponent(String(s.project))}/hog_functions/`;
const fields = lazy(() => fieldsFromSchema('hog_function', ['name', 'type']));

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The API's answer for a secret input that holds a value. */
const isSecretMarker = (v: unknown): boolean => isObj(v) && v.secret === true && !('value' in v);

/** Keys of the secret inputs a schema declares. */
const secretKeysOf = (schema: unknown): string[] => (Array.isArray(schema) ? schema.filter((s) => isObj(s) && s.secret === true).map((s) => String((s as Obj).key)) : []);

/** The inputs schema a declared function is checked against: its own, else its template's. */
function declaredSchema(entry: Obj | undefined): InputSchema[] | undefined {
  if (!entry) return undefined;
  if (Array.isArray(entry.inputs_schema)) return entry.inputs_schema as InputSchema[];
  return templateById(entry.template_id)?.inputs_schema;
}

/** Secret input keys, from what the file declares and what the API answered. */
function secretInputs(declared: Obj | undefined, live: LiveRecord | undefined): Set<string> {
  const keys = new Set<string>([...secretKeysOf(declaredSchema(declared)), ...secretKeysOf(live?.inputs_schema)]);
  if (live && isObj(live.inputs)) for (const [k, v] of Object.entries(live.inputs)) if (isSecretMarker(v)) keys.add(k);
  // A new function of a template whose schema no one could read (its project does not exist yet):
  // which inputs are secret is unknown, so none is shown.
  if (!live && declared && !declaredSchema(declared) && declared.template_id !== undefined && isObj(declared.inputs)) for (const k of Object.keys(declared.inputs)) keys.add(k);
  return keys;
}

/** An input as compared: its value and templating, not what the API computes (bytecode, order, transpiled). */
function normalizeInputs(value: unknown): unknown {
  if (!isObj(value)) return value ?? {};
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    if (!isObj(v)) { out[k] = v; continue; }
    const input: Obj = {};
    for (const [ik, iv] of Object.entries(v)) if (ik !== 'bytecode' && ik !== 'order' && ik !== 'transpiled' && !(ik === 'templating' && iv === 'hog')) input[ik] = iv;
    out[k] = input;
  }
  return out;
}

/** Filters as compared: without what the API computes, and without empty lists it fills in. */
function normalizeFilters(value: unknown): unknown {
  if (!isObj(value)) return value ?? {};
  const out: Obj = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'bytecode' || k === 'bytecode_error' || k === 'transpiled' || v === null) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    out[k] = v;
  }
  return out;
}

/** The schema of a function: the file's (its own, or its template's), else the one the API answered. */
function schemaOf(declared: Obj | undefined, live: LiveRecord | undefined): InputSchema[] {
  return declaredSchema(declared) ?? (Array.isArray(live?.inputs_schema) ? live.inputs_schema as InputSchema[] : []);
}

/** Required inputs with a default: the API refuses a function without them, and hogsync completes them. */
function defaultedInputs(declared: Obj | undefined, live: LiveRecord | undefined): string[] {
  return schemaOf(declared, live).filter((s) => s.required === true && s.default !== undefined).map((s) => s.key);
}

/**
 * Inputs as sent (the API replaces them whole): every declared one, and each required input the
 * file leaves out completed by the schema, with what the API holds for it, else its default.
 */
function completeInputs(values: Obj, live: LiveRecord | undefined): Obj {
  if (!isObj(values.inputs)) return {};
  const held = isObj(live?.inputs) ? live.inputs : {};
  const inputs: Obj = {};
  for (const s of schemaOf(values, live)) {
    if (s.key in values.inputs || s.required !== true || s.default === undefined) continue;
    inputs[s.key] = isObj(held[s.key]) && !isSecretMarker(held[s.key]) ? { value: (held[s.key] as Obj).value } : { value: s.default };
  }
  return Object.keys(inputs).length === 0 ? {} : { inputs: { ...inputs, ...values.inputs } };
}

/**
 * A secret input is never compared, whatever the API answers for it (its marker, or a value in
 * clear): the declared one takes the live one's place. With --resend-secrets every secret the
 * API holds counts as changed (it is sent again), and is still never compared to what it answered.
 */
function compareInputs(declared: unknown, live: unknown, item?: ComparedItem): [unknown, unknown] {
  if (!isObj(declared) || !isObj(live)) return [declared, live];
  const secrets = secretInputs(item?.declared, item?.record);
  for (const [k, v] of Object.entries(live)) if (isSecretMarker(v)) secrets.add(k);
  const d: Obj = { ...declared };
  const l: Obj = { ...live };
  // A required input the file leaves out is completed (its default, or what the API holds): not compared.
  for (const k of defaultedInputs(item?.declared, item?.record)) if (!(k in d) && k in l) d[k] = l[k];
  for (const k of secrets) {
    if (!(k in l)) continue;
    if (resendSecrets()) l[k] = { secret: true };
    else if (k in d) d[k] = l[k];
  }
  return [d, l];
}

/** Property filters of the function, its events and its actions, checked as a flag's are (each value's shape for its operator). */
function filterProblems(filters: unknown): EntryProblem[] {
  if (!isObj(filters)) return [];
  const problems = propertyValueProblems(filters.properties, ['filters', 'properties']);
  for (const list of ['events', 'actions'] as const) {
    const items = filters[list];
    if (Array.isArray(items)) items.forEach((item, i) => { if (isObj(item)) problems.push(...propertyValueProblems(item.properties, ['filters', list, i, 'properties'])); });
  }
  return problems;
}

/** What validate checks of a function's inputs against its template's (or own) inputs schema. */
export function validateHogFunctionEntry(entry: Obj): EntryProblem[] {
  const problems: EntryProblem[] = filterProblems(entry.filters);
  if (entry.template_id !== undefined && entry.inputs_schema === undefined && !templateById(entry.template_id)) {
    // Read from the API at plan time; one this close to a template hogsync carries is likely misspelt.
    const near = typeof entry.template_id === 'string' ? suggest(entry.template_id, TEMPLATES.map((t) => t.id)) : undefined;
    if (near) problems.push({ path: ['template_id'], warning: 'always', message: `"${entry.template_id}" is not a template hogsync knows offline (plan asks the API for it): did you mean "${near}"?` });
    return problems;
  }
  const schema = declaredSchema(entry);
  if (!schema) return problems;
  const inputs = isObj(entry.inputs) ? entry.inputs : {};
  const known = schema.map((s) => s.key);
  const whose = Array.isArray(entry.inputs_schema) ? 'its inputs_schema' : `template ${String(entry.template_id)}`;
  for (const key of Object.keys(inputs)) {
    if (known.includes(key)) continue;
    const near = suggest(key, known);
    problems.push({ path: ['inputs', key], at: 'key', message: `input "${key}" is not one of ${whose} (${known.join(', ') || 'none'})${near ? `: did you mean "${near}"?` : ''}; the API would drop it` });
  }
  if (entry.ensure === 'absent') return problems;
  for (const s of schema) {
    const input = inputs[s.key];
    // A secret is secret however it is written: a literal is masked too, and belongs in the environment.
    if (s.secret === true && isObj(input) && input.value !== undefined && input.value !== null && input.value !== '') {
      problems.push({ path: ['inputs', s.key, 'value'], warning: 'literal', message: literalSecretWarning(s.key, whose) });
    }
    // Written without { value: … }: the schema's message says how to write it; "required" would only repeat it.
    if (input !== undefined && input !== null && !isObj(input)) continue;
    const value = isObj(input) ? input.value : undefined;
    if (s.required && (value === undefined || value === null || value === '') && s.default === undefined) {
      problems.push({ path: ['inputs'], at: 'key', message: `input "${s.key}" is required by ${whose}: the API would refuse the function ("This field is required.")` });
      continue;
    }
    if (value === undefined || value === null) continue;
    const wrong = (want: string) => problems.push({ path: ['inputs', s.key, 'value'], message: `input "${s.key}" must be ${want} (${whose}): the API would refuse it` });
    if (s.type === 'string' && typeof value !== 'string') wrong('a string');
    else if (s.type === 'boolean' && typeof value !== 'boolean') wrong('a boolean');
    else if (s.type === 'dictionary' && !isObj(value)) wrong('a mapping of keys to values');
    else if (s.type === 'choice' && s.choices && !s.choices.some((c) => c.value === value)) wrong(`one of ${s.choices.map((c) => JSON.stringify(c.value)).join(', ')}`);
  }
  return problems;
}

/** Plan-time: the limit of enabled transformations, and a type no update can change. */
function check(view: ScopeView): ScopeCheck {
  const warnings: string[] = [];
  const changed = new Map(view.changes.filter((c) => c.live).map((c) => [c.live as LiveRecord, c]));
  let enabled = 0;
  for (const r of view.records) {
    const c = changed.get(r);
    if (c && c.action !== 'delete' && 'type' in c.values && c.values.type !== r.type) {
      return { error: `${c.address}: the API cannot change a function's type (${String(r.type)} → ${String(c.values.type)}); remove its id: pin, so the plan deletes it and creates a new one` };
    }
    if (c?.action === 'delete' || r.type !== 'transformation') continue;
    const on = c && 'enabled' in c.values ? c.values.enabled === true : r.enabled === true;
    if (on) enabled++;
  }
  const enabling = view.changes.filter((c) => c.action === 'create' && c.identity.startsWith('transformation/') && c.values.enabled === true);
  enabled += enabling.length;
  if (enabled > MAX_ENABLED_TRANSFORMATIONS && enabling.length > 0) {
    // An error before anything is sent (as the flags' limit): apply would meet the refusal half-way.
    const first = enabling[Math.max(0, enabling.length - (enabled - MAX_ENABLED_TRANSFORMATIONS))] as (typeof enabling)[number];
    return {
      error: `project ${String(view.scope.project)} would have ${enabled} enabled transformations after this plan; the API allows at most ${MAX_ENABLED_TRANSFORMATIONS} and refuses the ones past it (from ${first.address} on): disable or delete some first`,
      errorAt: view.items.find((i) => i.key === first.identity)?.position,
    };
  }
  if (enabled > MAX_ENABLED_TRANSFORMATIONS) {
    warnings.push(`project ${String(view.scope.project)} would have ${enabled} enabled transformations after this plan; the API allows at most ${MAX_ENABLED_TRANSFORMATIONS}: apply would be refused for the ones past it`);
  }
  return { warnings };
}

/** `TYPE/NAME` → its fields. */
function identityFields(key: string): Obj {
  const slash = key.indexOf('/');
  return { type: key.slice(0, slash), name: key.slice(slash + 1) };
}

export const hogFunction: ResourceKind = {
  name: 'hog_function',
  label: 'hog function',
  configKey: 'hog_functions',
  apiScope: 'hog_function',
  prunable: true,
  identityField: 'name',
  parent: 'project',
  shared: true,
  read: 'list',
  abridgedList: true,
  canCreate: true,
  renamable: true,
  idPin: true,
  get fields() { return fields(); },
  sandbox: () => import('./sandbox.js'),
  identityOf: (entry) => (typeof entry.name === 'string' && typeof entry.type === 'string' ? `${entry.type}/${entry.name}` : undefined),
  identityFields,
  // A destination declared as a site destination (or back) under its live name replaces the live
  // one; functions of other kinds may share a name on purpose, so across kinds nothing is deleted.
  replacedBy: (record, items) => items.some((i) => {
    const { name, type } = identityFields(i.key);
    return i.ensure === 'present' && i.pin === undefined && name === record.name && type !== record.type
      && DESTINATIONS.includes(String(type)) && DESTINATIONS.includes(String(record.type));
  }),
  references: [{ field: 'filters', path: 'actions[]', when: { type: 'actions' }, key: 'id', kind: 'action' }],
  computedKeys: { inputs: ['**.bytecode', '**.order', '**.transpiled', '**.secret'], filters: ['bytecode', 'bytecode_error', 'transpiled'], masking: ['bytecode'] },
  unsetValues: { description: '', mappings: null, masking: null, filters: {} },
  normalizers: { inputs: normalizeInputs, filters: normalizeFilters, hog: (v) => (typeof v === 'string' ? v.trim() : v), masking: (v) => (isObj(v) ? Object.fromEntries(Object.entries(v).filter(([k, x]) => k !== 'bytecode' && x !== null)) : v ?? null) },
  comparedTogether: { inputs: compareInputs },
  // Each input by its own path (inputs.url, inputs.token): a secret one never hides the others' changes.
  keyedFields: { inputs: secretInputs },
  writeOnlyFields: ['inputs'],
  // Transformations run in execution_order, which the files' order sets where none declares it.
  orderedBy: { field: 'execution_order', among: (key) => key.startsWith('transformation/') },
  secretFields: (declared, live) => (secretInputs(declared, live).size > 0 ? ['inputs'] : []),
  // Export writes each secret input (read back as a marker, kept as {} once its marker is dropped) as a placeholder.
  // A secret input is one however the API answers it (in clear too): the schema says which.
  secretParts: (field, value, record) => {
    if (field !== 'inputs' || !isObj(value)) return [[]];
    const secrets = secretInputs(undefined, record);
    return Object.entries(value).filter(([k, v]) => secrets.has(k) || isSecretMarker(v) || (isObj(v) && Object.keys(v).length === 0)).map(([k]) => [k, 'value']);
  },
  // Made from a template: its template_id and inputs (the API copied the template's hog and inputs
  // schema; written out they would only repeat it). Empty filters and no order say nothing.
  exported: (record, data) => {
    const out: Obj = { ...data };
    const template = isObj(record.template) ? templateById(record.template.id) : undefined;
    if (template && isObj(record.template)) {
      out.template_id = record.template.id;
      if (typeof record.hog === 'string' && record.hog.trim() === template.hog.trim()) delete out.hog;
      if (JSON.stringify(record.inputs_schema ?? []) === JSON.stringify(template.inputs_schema)) delete out.inputs_schema;
    }
    if (isObj(out.filters) && Object.keys(normalizeFilters(out.filters) as Obj).length === 0) delete out.filters;
    if (out.execution_order === null) delete out.execution_order;
    return out;
  },
  completeValues: completeInputs,
  validateEntry: validateHogFunctionEntry,
  // The values of its secret inputs (of a template hogsync carries, or its own schema): masked in everything written.
  secretValues: (fields) => {
    const inputs = isObj(fields.inputs) ? fields.inputs : {};
    return secretKeysOf(declaredSchema(fields)).map((k) => (isObj(inputs[k]) ? (inputs[k] as Obj).value : undefined));
  },
  prepareExport: learnExportedTemplates,
  prepare: (items, port, { anyProject }) => learnTemplates(items, port, (entry) => validateHogFunctionEntry(entry).filter((p) => !p.warning), anyProject),
  check,
  createStatuses: [201],
  deleteStatuses: [200],
  displayKey: (raw) => String(raw),
  matchKey: (key) => key,
  collectionPath: (s) => `${base(s)}?type=${MANAGED_TYPES.join(',')}`,
  itemPath: (s, id) => `${base(s)}${encodeURIComponent(String(id))}/`,
  liveId: (r) => r.id as string,
  isGone: (r) => r.deleted === true,
  createCall: (s, key, values) => ({ method: 'POST', path: base(s), body: { ...values, ...identityFields(key) } }),
  updateCall: (s, id, values, live) => {
    const body: Obj = { ...values };
    // Inputs are replaced whole: a secret stays as stored (its marker sent back) unless resent.
    if (isObj(body.inputs) && !resendSecrets()) {
      const secrets = secretInputs(undefined, live);
      const held = isObj(live?.inputs) ? live.inputs : {};
      // A secret the API holds stays as stored; one it holds none of yet is sent.
      body.inputs = Object.fromEntries(Object.entries(body.inputs).map(([k, v]) => [k, secrets.has(k) && k in held ? { secret: true } : v]));
    }
    return { method: 'PATCH', path: hogFunction.itemPath(s, id), body };
  },
  deleteCall: (s, id) => ({ method: 'PATCH', path: hogFunction.itemPath(s, id), body: { deleted: true } }),
  activity: { scopes: ['HogFunction'], log: 'parent' },
};
