// Actions in the sandbox, as the real API keeps them (products/actions/backend/api/action.py,
// ActionSerializer and ActionViewSet; products/actions/backend/models/action.py):
//   - the list is one plain answer `{count, results}` of every action not deleted (no `next`:
//     the view overrides DRF's pagination), ordered by last_calculated_at (newest first), then name;
//   - names are unique among the project's actions not deleted ("This project already has an
//     action with this name, ID N"; checked only when a write names one), and not blank;
//   - steps are stored as `asdict(ActionStepJSON(**step))`: every step has every key, null where
//     none was given, `url_matching` "contains" where it was left out; keys the step serializer does
//     not know are dropped; the matching choices are contains, regex and exact; the answer adds
//     `selector_regex`, computed from the selector;
//   - tags as every tagged kind keeps them; deleted by PATCH {"deleted": true} (DELETE answers
//     405: ForbidDestroyModel); the activity log's scope is `Action`.
// Seeded per project under `actions`.
import { validationError } from '../../sandbox/errors.js';
import { nowIso } from '../../sandbox/ids.js';
import { clone, isObject, pyTypeName, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf, type KindContext, type SandboxModel } from '../../sandbox/kind-model.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';
import type { SandboxState } from '../../sandbox/state.js';
import { booleanRule, stringRule, tagsRule, validatePartial } from '../../sandbox/validation.js';

const COLLECTION = 'actions';
const MATCHING = ['contains', 'regex', 'exact'];

const RULES = {
  name: stringRule({ max: 400, nullable: true, allowBlank: true }),
  description: stringRule({ allowBlank: true }),
  tags: tagsRule(),
  post_to_slack: booleanRule(),
  slack_message_format: stringRule({ max: 1200, allowBlank: true }),
  deleted: booleanRule(),
};

/** One step as ActionStepJSONSerializer takes it, then as the model stores it (every key, defaults). */
function step(raw: Json, i: number): JsonObject {
  if (!isObject(raw)) throw validationError(`steps__${i}__non_field_errors`, `Invalid data. Expected a dictionary, but got ${pyTypeName(raw)}.`, 'invalid');
  const text = (key: string, trim: boolean): Json => {
    const v = raw[key];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') throw validationError(`steps__${i}__${key}`, 'Not a valid string.', 'invalid');
    return trim ? v.trim() : v;
  };
  const choice = (key: string, fallback: string | null): Json => {
    if (!(key in raw)) return fallback;
    const v = raw[key] ?? null;
    if (v !== null && (typeof v !== 'string' || !MATCHING.includes(v))) throw validationError(`steps__${i}__${key}`, `"${String(v)}" is not a valid choice.`, 'invalid_choice');
    return v;
  };
  const properties = raw.properties ?? null;
  if (properties !== null && (!Array.isArray(properties) || !properties.every(isObject))) {
    throw validationError(`steps__${i}__properties`, 'Expected a list of items.', 'not_a_list');
  }
  return {
    tag_name: text('tag_name', false),
    text: text('text', false),
    text_matching: choice('text_matching', null),
    href: text('href', false),
    href_matching: choice('href_matching', null),
    selector: text('selector', true),
    url: text('url', true),
    url_matching: choice('url_matching', 'contains'),
    event: text('event', false),
    properties: clone(properties),
  };
}

function steps(value: Json, attr: string): Json[] {
  if (!Array.isArray(value)) throw validationError(attr, `Expected a list of items but got type "${pyTypeName(value)}".`, 'not_a_list');
  return value.map((s, i) => step(s, i));
}

/** What the API computes from a step's selector (build_selector_regex): a pattern, here a plain escape. */
function selectorRegex(selector: Json): Json {
  if (typeof selector !== 'string' || selector === '') return null;
  return `(^|;)${selector.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s*>\s*/g, '.*?;').replace(/\s+/g, '.*?;')}`;
}

function render(record: JsonObject, ctx: KindContext): JsonObject {
  return {
    id: record.id ?? null,
    name: record.name ?? null,
    description: record.description ?? '',
    tags: clone(record.tags ?? []),
    post_to_slack: record.post_to_slack ?? false,
    slack_message_format: record.slack_message_format ?? '',
    steps: ((record.steps as Json[] | undefined) ?? []).map((s) => (isObject(s) ? { ...clone(s), selector_regex: selectorRegex(s.selector ?? null) } : s)),
    created_at: record.created_at ?? null,
    created_by: clone(ctx.state.user),
    deleted: record.deleted ?? false,
    is_calculating: false,
    last_calculated_at: record.last_calculated_at ?? null,
    team_id: record.project ?? null,
    is_action: true,
    bytecode_error: null,
    pinned_at: null,
    creation_context: null,
    user_access_level: 'editor',
  };
}

const actionsOf = (state: SandboxState): JsonObject[] => recordsOf(state, { collection: COLLECTION });

/** The name, unless another action of the project that is not deleted holds it. */
function checkName(state: SandboxState, project: number, name: Json | undefined, self: JsonObject | undefined): void {
  if (name === undefined) return;
  if (name === null || (typeof name === 'string' && name.trim() === '')) throw validationError('name', 'This field may not be blank.', 'blank');
  const clash = actionsOf(state).find((a) => a.project === project && a !== self && a.deleted !== true && a.name === name);
  if (clash) throw validationError('name', `This project already has an action with this name, ID ${String(clash.id)}`, 'unique');
}

export function createAction(state: SandboxState, project: number, body: JsonObject): JsonObject {
  const fields = validatePartial(RULES, body);
  checkName(state, project, fields.name, undefined);
  const stored = body.steps === undefined ? [] : steps(body.steps, 'steps');
  const ids = state.next_ids as unknown as Record<string, number>;
  const now = nowIso();
  const record: JsonObject = {
    id: ids.action ?? 1, project, name: fields.name ?? null, description: fields.description ?? '', tags: fields.tags ?? [],
    post_to_slack: fields.post_to_slack ?? false, slack_message_format: fields.slack_message_format ?? '', steps: stored,
    deleted: fields.deleted === true, created_at: now, last_calculated_at: now,
  };
  ids.action = (ids.action ?? 1) + 1;
  actionsOf(state).push(record);
  return record;
}

function update(record: JsonObject, body: JsonObject, ctx: KindContext): JsonObject {
  const changes = validatePartial(RULES, body);
  checkName(ctx.state, record.project as number, changes.name, record);
  if (body.steps !== undefined) changes.steps = steps(body.steps, 'steps');
  return changes;
}

export const model: SandboxModel = {
  kind: 'action',
  collection: COLLECTION,
  path: '/api/projects/:project/actions/',
  parent: 'project',
  scopes: { read: 'action:read', write: 'action:write' },
  pagination: 'plain',
  id: 'integer',
  create: { status: 201 },
  update: true,
  delete: 'soft',
  softDelete: 'deleted',
  fields: {},
  activity: { scope: 'Action', name: (r) => String(r.name), ignored: ['project', 'last_calculated_at'] },
  hooks: {
    listReply: (ctx) => {
      const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const records = ctx.records().filter((r) => r.deleted !== true)
        .sort((a, b) => cmp(String(b.last_calculated_at), String(a.last_calculated_at)) || cmp(String(a.name), String(b.name)));
      return { status: 200, body: { count: records.length, results: records.map((r) => render(r, ctx)) } };
    },
    createReply: (ctx) => ({ status: 201, body: render(createAction(ctx.state, ctx.project?.id as number, ctx.request.body), ctx) }),
    updateReply: (record, ctx) => {
      Object.assign(record, update(record, ctx.request.body, ctx));
      return { status: 200, body: render(record, ctx) };
    },
    render,
  },
  seeds: [{
    key: 'actions',
    at: 'project',
    apply: (state, { project }, value, where, fail) => {
      for (const [i, entry] of seedList(value, where, fail).entries()) {
        seedApply(`${where}[${i}]`, fail, () => createAction(state, project?.id as number, entry));
      }
    },
  }],
  contract: {
    item: { name: 'Contract signup', description: 'Signed up', steps: [{ event: '$pageview', url: '/welcome', url_matching: 'contains' }] },
    update: { tags: ['growth'] },
    drift: { description: 'Changed in the web app' },
  },
};
