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
import type { EntryProblem, LiveRecord, ResourceKind, Scope, ScopeCheck, ScopeView } from '../kind.js';
import { fieldsFromSchema, lazy } from '../schema.js';
import { resendSecrets } from '../write-only.js';
import { templateById, type InputSchema } from './templates.js';
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

/** A secret input the API answers as `{"secret": true}` compares equal to any declared value, unless resent. */
function compareInputs(declared: unknown, live: unknown): [unknown, unknown] {
  if (!isObj(declared) || !isObj(live) || resendSecrets()) return [declared, live];
  const d: Obj = { ...declared };
  for (const [k, v] of Object.entries(live)) if (isSecretMarker(v) && k in d) d[k] = v;
  return [d, live];
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
  if (entry.template_id !== undefined && entry.inputs_schema === undefined && !templateById(entry.template_id)) return problems;
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
  writeOnlyFields: ['inputs'],
  // Transformations run in execution_order, which the files' order sets where none declares it.
  orderedBy: { field: 'execution_order', among: (key) => key.startsWith('transformation/') },
  secretFields: (declared, live) => (secretInputs(declared, live).size > 0 ? ['inputs'] : []),
  // Export writes each secret input (read back as a marker, kept as {} once its marker is dropped) as a placeholder.
  secretParts: (field, value) => (field === 'inputs' && isObj(value)
    ? Object.entries(value).filter(([, v]) => isSecretMarker(v) || (isObj(v) && Object.keys(v).length === 0)).map(([k]) => [k, 'value'])
    : [[]]),
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
  validateEntry: validateHogFunctionEntry,
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
      body.inputs = Object.fromEntries(Object.entries(body.inputs).map(([k, v]) => [k, secrets.has(k) ? { secret: true } : v]));
    }
    return { method: 'PATCH', path: hogFunction.itemPath(s, id), body };
  },
  deleteCall: (s, id) => ({ method: 'PATCH', path: hogFunction.itemPath(s, id), body: { deleted: true } }),
  activity: { scopes: ['HogFunction'], log: 'parent' },
};
