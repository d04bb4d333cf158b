// The schemas of the templates the files name that hogsync does not carry (the API has well over
// a hundred; templates.ts knows five), read from the API once per template per run, before
// anything is planned: which inputs are secret (masked, write-only, never compared), required
// and of which type (checked as validate checks a known template's). A template that neither
// hogsync nor the API knows is a plan error at the function's line, naming the nearest known id:
// the API would refuse the create only at apply ("Required." of its hog source).
import type { KindPort, LiveRecord, Located, PreparedItem, Scope } from '../kind.js';
import { suggest } from '../../config/suggest.js';
import { printable } from '../../util/printable.js';
import { registerSecret } from '../../util/secrets.js';
import { learnTemplate, TEMPLATES, templateById, type HogTemplate, type InputSchema } from './templates.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The types a file may declare; the template list is asked for these (it lists destinations only otherwise). */
const TYPES = 'destination,transformation,site_destination,site_app,source_webhook';

const templatesPath = (project: number, id?: string) =>
  `/api/projects/${encodeURIComponent(String(project))}/hog_function_templates/${id === undefined ? `?types=${TYPES}&limit=1000` : `${encodeURIComponent(id)}/`}`;

/** A template as the API answers it: its source as `code` (newer) or `hog` (older). */
function asTemplate(id: string, body: unknown): HogTemplate | undefined {
  if (!isObj(body) || !Array.isArray(body.inputs_schema)) return undefined;
  const inputs = body.inputs_schema.filter((s): s is InputSchema => isObj(s) && typeof s.key === 'string');
  const source = typeof body.code === 'string' ? body.code : typeof body.hog === 'string' ? body.hog : '';
  return { id, name: typeof body.name === 'string' ? body.name : id, type: body.type as HogTemplate['type'], status: 'beta', hog: source, inputs_schema: inputs };
}

/** Literal values of a template's secret inputs: masked from now on, and each one a warning that it belongs in the environment. */
export function literalSecrets(item: PreparedItem, template: HogTemplate): string[] {
  const inputs = isObj(item.fields.inputs) ? item.fields.inputs : {};
  const keys: string[] = [];
  for (const s of template.inputs_schema) {
    const input = inputs[s.key];
    if (s.secret !== true || !isObj(input) || input.value === undefined || input.value === null || input.value === '') continue;
    registerSecret(input.value);
    if (!item.interpolated.includes(`inputs.${s.key}`) && !(item.interpolated.includes('inputs') && !item.interpolated.some((p) => p.startsWith('inputs.')))) keys.push(s.key);
  }
  return keys;
}

export const literalSecretWarning = (key: string, whose: string) =>
  `input "${key}" is secret (${whose}) and written as a literal: it is masked, but it belongs in the environment (value: "\${env:NAME}")`;

export async function learnTemplates(items: readonly PreparedItem[], port: KindPort, check: (entry: Obj) => Array<{ path: ReadonlyArray<string | number>; message: string }>,
  anyProject?: number): Promise<{ problems: Located[]; warnings: Located[] }> {
  const problems: Located[] = [];
  const warnings: Located[] = [];
  // Each template not carried, once, asked in the project of the first function that names it.
  const naming = new Map<string, PreparedItem[]>();
  for (const item of items) {
    const id = item.fields.template_id;
    if (item.ensure !== 'present' || typeof id !== 'string' || TEMPLATES.some((t) => t.id === id)) continue;
    naming.set(id, [...(naming.get(id) ?? []), item]);
  }
  const unknown: string[] = [];
  let project: number | undefined;
  for (const [id, named] of naming) {
    // Templates are the same in every project: asked in one that exists (a project the plan
    // creates has none yet); without any, its functions show no input (see secretInputs).
    const at = named.find((i) => i.project !== null)?.project ?? anyProject;
    if (at === undefined || at === null) continue;
    project ??= at;
    if (templateById(id)) continue;
    const { status, body } = await port.request('GET', templatesPath(at, id), { okStatuses: [404] });
    const template = status === 404 ? undefined : asTemplate(id, body);
    if (template) learnTemplate(template);
    else unknown.push(id);
  }
  if (unknown.length > 0 && project !== undefined) {
    // Said with the nearest id the API lists (one request, only when a template is unknown).
    const { body } = await port.request('GET', templatesPath(project), { okStatuses: [403, 404] });
    const listed = isObj(body) && Array.isArray(body.results) ? body.results.flatMap((t) => (isObj(t) && typeof t.id === 'string' ? [t.id] : [])) : [];
    const known = [...new Set([...TEMPLATES.map((t) => t.id), ...listed])];
    for (const id of unknown) {
      const near = suggest(id, known);
      for (const item of naming.get(id) ?? []) {
        problems.push({ position: item.position, message: `template_id: "${printable(id)}" is a template neither hogsync nor the API knows (the API would refuse to create the function)${near ? `: did you mean "${near}"?` : ''}` });
      }
    }
  }
  // Functions of templates read from the API: checked, masked and warned about as a carried template's are at validate.
  for (const [id, named] of naming) {
    const template = templateById(id);
    if (!template) continue;
    for (const item of named) {
      for (const p of check(item.fields)) problems.push({ position: item.position, message: `${p.path.join('.')}: ${p.message}` });
      for (const key of literalSecrets(item, template)) warnings.push({ position: item.position, message: `inputs.${key}.value: ${literalSecretWarning(key, `template ${id}`)}` });
    }
  }
  return { problems, warnings };
}

/**
 * Before export or show: the templates of live functions that hogsync does not carry, read once
 * each, so that a function made from one is written as its template_id and inputs (not the
 * source and schema the API copied from it), with its secret inputs as placeholders.
 */
export async function learnExportedTemplates(records: ReadonlyArray<{ record: LiveRecord; scope: Scope }>, port: KindPort): Promise<void> {
  const asked = new Set<string>();
  for (const { record, scope } of records) {
    const id = isObj(record.template) ? record.template.id : undefined;
    if (typeof id !== 'string' || typeof scope.project !== 'number' || asked.has(id) || templateById(id)) continue;
    asked.add(id);
    const { status, body } = await port.request('GET', templatesPath(scope.project, id), { okStatuses: [403, 404] });
    const template = status === 200 ? asTemplate(id, body) : undefined;
    if (template) learnTemplate(template);
  }
}
