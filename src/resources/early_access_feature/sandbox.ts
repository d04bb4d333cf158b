// Early access features in the sandbox, as the real API keeps them
// (products/early_access_features/backend/api.py):
//   - POST takes `feature_flag_id` (create only; a PATCH ignores it): the flag must exist in the
//     project ("Feature Flag with this ID does not exist"), back no other feature ("Linked feature
//     flag KEY already has a feature attached to it."), not be group-based ("Group-based feature
//     flags are not supported for Early Access Features.") nor multivariate ("Multivariate feature
//     flags are not supported for Early Access Features."). Without it the API makes a flag keyed
//     by the slug of the name (rollout 0 %, creation_context early_access_features);
//   - `name` (≤ 200) and `stage` are required; `documentation_url` a URL or blank; `payload` any
//     JSON object, replaced whole; `assignee` null or `{type: user | role, id}` of the project's
//     organization (a new feature is assigned to its creator);
//   - alpha, beta and general-availability write `feature_enrollment: true` into the flag's
//     filters, the other stages (and a DELETE) remove it: the flag's version moves, its conditions
//     do not;
//   - a concept feature gets a waitlist survey (an API survey named after the feature), whose id
//     is written into `payload.survey_id`;
//   - the flag's record lists the feature under `features` (MinimalEarlyAccessFeatureSerializer),
//     and the flag cannot be deleted while it does; the activity scope is `EarlyAccessFeature`.
// Seeded per project under `early_access_features` (the bodies a POST takes).
import { createFlag, renderFlagMinimal } from '../feature_flag/sandbox.js';
import { validationError } from '../../sandbox/errors.js';
import { nowIso, uuidv7 } from '../../sandbox/ids.js';
import { clone, isObject, type Json, type JsonObject } from '../../sandbox/json.js';
import { recordsOf, type KindContext, type SandboxModel } from '../../sandbox/kind-model.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';
import type { FeatureFlagState, SandboxState } from '../../sandbox/state.js';
import { integerRule, stringRule, validatePartial, type Rule } from '../../sandbox/validation.js';

const COLLECTION = 'early_access_features';
const STAGES = ['draft', 'concept', 'alpha', 'beta', 'general-availability', 'archived'];
/** The stages whose flag carries enrollment keys (EarlyAccessFeature.ActiveStage). */
const ACTIVE = ['alpha', 'beta', 'general-availability'];

const refuse = (detail: string): never => { throw validationError(null, detail, 'invalid_input'); };

const stageRule: Rule = (value, attr) => {
  if (typeof value !== 'string' || !STAGES.includes(value)) throw validationError(attr, `"${String(value)}" is not a valid choice.`, 'invalid_choice');
  return value;
};
const urlRule: Rule = (value, attr) => {
  const text = stringRule({ max: 800, allowBlank: true })(value, attr) as string;
  if (text !== '' && !/^https?:\/\/[^\s/]+\S*$/.test(text)) throw validationError(attr, 'Enter a valid URL.', 'invalid');
  return text;
};

const RULES: Readonly<Record<string, Rule>> = {
  name: stringRule({ max: 200 }),
  description: stringRule({ allowBlank: true }),
  stage: stageRule,
  documentation_url: urlRule,
  feature_flag_id: integerRule(),
};

const featuresOf = (state: SandboxState): JsonObject[] => recordsOf(state, { collection: COLLECTION });

/** Django's slugify: lower-case, word characters, spaces and hyphens to single hyphens. */
function slugify(name: string): string {
  return name.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().toLowerCase().replace(/[-\s]+/g, '-');
}

/** Writes or removes the enrollment keys the stage puts in the flag's filters. */
function enroll(state: SandboxState, flagId: Json | undefined, stage: Json | undefined): void {
  const flag = typeof flagId === 'number' ? state.feature_flags.find((f) => f.id === flagId) : undefined;
  if (!flag) return;
  const { feature_enrollment: _was, super_groups: _old, ...rest } = flag.filters;
  flag.filters = ACTIVE.includes(String(stage)) ? { ...rest, feature_enrollment: true } : rest;
  flag.version += 1;
  flag.updated_at = nowIso();
}

/** A concept feature's waitlist survey (the API's own), its id kept in the payload. */
function waitlist(state: SandboxState, record: JsonObject): void {
  if (record.stage !== 'concept') return;
  const payload = isObject(record.payload) ? record.payload : {};
  if (typeof payload.survey_id === 'string') return;
  const surveys = recordsOf(state, { collection: 'surveys' });
  const id = uuidv7();
  surveys.push({
    id, project: record.project ?? null, name: `${String(record.name)} waitlist (${id.slice(-6)})`, description: '', type: 'api', schedule: 'once',
    questions: [{ id: uuidv7(), type: 'open', question: `Join the waitlist for ${String(record.name)}?` }], conditions: null, appearance: null,
    linked_flag_id: null, start_date: nowIso(), end_date: null, archived: false, action_ids: [], created_at: nowIso(), created_by: state.user.id,
  });
  record.payload = { ...payload, survey_id: id };
}

function checkFlag(state: SandboxState, project: number, id: Json): FeatureFlagState {
  const flag = state.feature_flags.find((f) => f.project === project && f.id === id && !f.deleted);
  if (!flag) return refuse('Feature Flag with this ID does not exist');
  const taken = (flag.early_access_features ?? []).length > 0 || featuresOf(state).some((e) => e.feature_flag_id === flag.id);
  if (taken) refuse(`Linked feature flag ${flag.key} already has a feature attached to it.`);
  if ((flag.filters.aggregation_group_type_index ?? null) !== null) refuse('Group-based feature flags are not supported for Early Access Features.');
  const variants = isObject(flag.filters.multivariate) && Array.isArray(flag.filters.multivariate.variants) ? flag.filters.multivariate.variants : [];
  if (variants.length > 0) refuse('Multivariate feature flags are not supported for Early Access Features.');
  return flag;
}

function payloadOf(value: Json | undefined): JsonObject {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw validationError('payload', 'Value must be valid JSON.', 'invalid');
  return clone(value);
}

/** _validated_assignee_fields: null, or a user or role of the project's organization. */
function assignee(state: SandboxState, project: number, value: Json): { assigned_user_id: number | null; assigned_role_id: string | null } {
  if (value === null) return { assigned_user_id: null, assigned_role_id: null };
  if (!isObject(value) || (value.type !== 'user' && value.type !== 'role') || value.id === undefined || value.id === null || value.id === '') {
    throw validationError('assignee', 'Expected null or an object of shape {"type": "user" | "role", "id": ...}.', 'invalid_input');
  }
  const organization = state.projects.find((p) => p.id === project)?.organization;
  if (value.type === 'user') {
    const member = (state.memberships ?? []).some((m) => m.organization === organization && m.user_id === value.id);
    if (!member) throw validationError('assignee', 'Assignee user does not belong to this organization.', 'invalid_input');
    return { assigned_user_id: value.id as number, assigned_role_id: null };
  }
  if (!state.roles.some((r) => r.organization === organization && r.id === value.id)) {
    throw validationError('assignee', 'Assignee role does not belong to this organization.', 'invalid_input');
  }
  return { assigned_user_id: null, assigned_role_id: String(value.id) };
}

export function createFeature(state: SandboxState, project: number, body: JsonObject): JsonObject {
  for (const field of ['name', 'stage']) if (body[field] === undefined) throw validationError(field, 'This field is required.', 'required');
  const fields = validatePartial(RULES, body);
  let flag: FeatureFlagState;
  if (fields.feature_flag_id !== undefined && fields.feature_flag_id !== null) flag = checkFlag(state, project, fields.feature_flag_id);
  else {
    const name = String(fields.name);
    flag = createFlag(state, project, {
      key: slugify(name), name: `Feature Flag for Early Access Feature ${name}`,
      filters: { groups: [{ properties: [], rollout_percentage: 0, variant: null }] }, creation_context: 'early_access_features',
    });
  }
  const record: JsonObject = {
    id: uuidv7(), project, name: fields.name ?? '', description: fields.description ?? '', stage: fields.stage ?? 'draft',
    documentation_url: fields.documentation_url ?? '', payload: payloadOf(body.payload), feature_flag_id: flag.id,
    created_at: nowIso(), created_by: state.user.id,
    // A new feature is assigned to its creator unless the request names someone.
    ...('assignee' in body ? assignee(state, project, body.assignee ?? null) : { assigned_user_id: state.user.id, assigned_role_id: null }),
  };
  if (ACTIVE.includes(String(record.stage))) enroll(state, flag.id, record.stage);
  waitlist(state, record);
  featuresOf(state).push(record);
  return record;
}

function updateFeature(state: SandboxState, record: JsonObject, body: JsonObject): void {
  const { feature_flag_id: _createOnly, ...fields } = validatePartial(RULES, body);
  if ('payload' in body) fields.payload = payloadOf(body.payload);
  if ('assignee' in body) Object.assign(fields, assignee(state, record.project as number, body.assignee ?? null));
  const stage = fields.stage;
  if (stage !== undefined && stage !== record.stage) {
    const wasActive = ACTIVE.includes(String(record.stage));
    if (ACTIVE.includes(String(stage)) !== wasActive || !ACTIVE.includes(String(stage))) enroll(state, record.feature_flag_id, stage);
  }
  Object.assign(record, fields);
  waitlist(state, record);
}

function render(record: JsonObject, ctx: KindContext): JsonObject {
  const flag = ctx.state.feature_flags.find((f) => f.id === record.feature_flag_id);
  return {
    id: record.id ?? null,
    feature_flag: flag ? { ...renderFlagMinimal(flag, ctx.state), evaluation_tags: [] } : null,
    name: record.name ?? '',
    description: record.description ?? '',
    stage: record.stage ?? 'draft',
    documentation_url: record.documentation_url ?? '',
    payload: clone(record.payload ?? {}),
    created_at: record.created_at ?? null,
    created_by: clone(ctx.state.user),
    assignee: typeof record.assigned_user_id === 'number' ? { type: 'user', id: record.assigned_user_id }
      : typeof record.assigned_role_id === 'string' ? { type: 'role', id: record.assigned_role_id } : null,
    user_access_level: 'editor',
  };
}

export const model: SandboxModel = {
  kind: 'early_access_feature',
  collection: COLLECTION,
  path: '/api/projects/:project/early_access_feature/',
  parent: 'project',
  scopes: { read: 'early_access_feature:read', write: 'early_access_feature:write' },
  pagination: 'limit-offset',
  id: 'uuid',
  create: { status: 201 },
  update: true,
  delete: 'hard',
  fields: {},
  activity: { scope: 'EarlyAccessFeature', name: (r) => String(r.name), ignored: ['project', 'created_by'] },
  hooks: {
    createReply: (ctx) => ({ status: 201, body: render(createFeature(ctx.state, ctx.project?.id as number, ctx.request.body), ctx) }),
    updateReply: (record, ctx) => {
      updateFeature(ctx.state, record, ctx.request.body);
      return { status: 200, body: render(record, ctx) };
    },
    remove: (record, ctx) => enroll(ctx.state, record.feature_flag_id, 'draft'),
    render,
  },
  seeds: [{
    key: 'early_access_features',
    at: 'project',
    apply: (state, { project }, value, where, fail) => {
      for (const [i, entry] of seedList(value, where, fail).entries()) {
        seedApply(`${where}[${i}]`, fail, () => createFeature(state, project?.id as number, entry));
      }
    },
  }],
  contract: {
    seed: { project: { feature_flags: [{ key: 'contract-eaf', active: true, filters: { groups: [{ properties: [], rollout_percentage: 0 }] } }] } },
    item: { feature_flag: 'contract-eaf', name: 'Contract feature', stage: 'beta' },
    update: { description: 'Try it early' },
    drift: { description: 'Changed in the web app' },
  },
};
