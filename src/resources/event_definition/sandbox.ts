// Event definitions in the sandbox, as the real API keeps them (posthog/api/event_definition.py,
// ee/api/ee_event_definition.py): listed per project, ordered by name, narrowed by `search` (a
// case-insensitive match where every whitespace-separated term must match) or `names` (exact);
// read and updated by UUID; never deleted (405). With the organization's data-management
// feature the record carries description, verified, hidden and owner (an event cannot be both
// hidden and verified: setting one clears the other, both at once is refused); without it the
// API refuses those fields ("not supported by this deployment") and answers only the basic ones.
// Seeded per project under `event_definitions` (the events that have arrived).
import { validationError } from '../../sandbox/errors.js';
import { nowIso, uuidv7 } from '../../sandbox/ids.js';
import type { JsonObject } from '../../sandbox/json.js';
import type { KindContext, SandboxModel } from '../../sandbox/kind-model.js';
import { hasFeature } from '../../sandbox/features.js';
import { seedApply, seedList } from '../../sandbox/seed-kit.js';
import type { OrganizationState, SandboxState } from '../../sandbox/state.js';
import { booleanRule, integerRule, stringRule, tagsRule, validatePartial } from '../../sandbox/validation.js';
import { paginate } from '../../sandbox/pagination.js';

/** The organization feature the dictionary's fields need (AvailableFeature.INGESTION_TAXONOMY on the real API). */
export const DATA_MANAGEMENT = 'data_management';
const ENTERPRISE_FIELDS = ['description', 'verified', 'hidden', 'owner'] as const;

const RULES = {
  description: stringRule({ nullable: true, allowBlank: true }),
  tags: tagsRule(),
  verified: booleanRule(),
  hidden: booleanRule(),
  owner: integerRule({ nullable: true }),
};

function enterprise(org: OrganizationState): boolean {
  return hasFeature(org, DATA_MANAGEMENT);
}

function render(record: JsonObject, org: OrganizationState): JsonObject {
  const out: JsonObject = {
    id: record.id ?? null, name: record.name ?? null, created_at: record.created_at ?? null, last_seen_at: record.last_seen_at ?? null,
    tags: record.tags ?? [], is_action: false, action_id: null, is_calculating: false, last_calculated_at: null, created_by: null, post_to_slack: false,
  };
  if (!enterprise(org)) return out;
  return {
    ...out,
    description: record.description ?? null, owner: record.owner ?? null, updated_at: record.updated_at ?? null, updated_by: null,
    verified: record.verified ?? false, verified_at: record.verified_at ?? null, verified_by: null, hidden: record.hidden ?? false, default_columns: [],
  };
}

/** The API's `search`: every whitespace-separated term matches part of the name, in any case. */
function matchesSearch(name: string, search: string): boolean {
  const lower = name.toLowerCase();
  return search.trim().toLowerCase().split(/\s+/).filter((t) => t !== '').every((t) => lower.includes(t));
}

/** A PATCH as the real serializers take it; the changes to store. */
function patch(record: JsonObject, body: JsonObject, ctx: KindContext): JsonObject {
  if (!enterprise(ctx.organization)) {
    const unsupported = ENTERPRISE_FIELDS.filter((f) => f !== 'owner' && f in body);
    if (unsupported.length > 0) throw validationError(unsupported[0] as string, 'This field is not supported by this deployment.', 'invalid');
  }
  const changes = validatePartial(RULES, body);
  if (changes.hidden === true && changes.verified === true) throw validationError(null, 'An event cannot be both hidden and verified', 'invalid_input');
  if (changes.hidden === true) {
    changes.verified = false;
    changes.verified_at = null;
  } else if (changes.verified === true) {
    changes.hidden = false;
    if (record.verified !== true) changes.verified_at = nowIso();
  } else if (changes.verified === false) {
    changes.verified_at = null;
  }
  changes.updated_at = nowIso();
  return changes;
}

export function createDefinition(state: SandboxState, project: number, body: JsonObject): JsonObject {
  const name = stringRule({ max: 400 })(body.name ?? null, 'name') as string;
  const list = (state.event_definitions ??= []) as JsonObject[];
  if (list.some((d) => d.project === project && d.name === name)) throw validationError('name', `Event definition with name '${name}' already exists`, 'unique');
  const fields = validatePartial(RULES, Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'name' && k !== 'last_seen_at')));
  if (fields.hidden === true && fields.verified === true) throw validationError(null, 'An event cannot be both hidden and verified', 'invalid_input');
  const seen = typeof body.last_seen_at === 'string' ? body.last_seen_at : nowIso();
  const record: JsonObject = {
    id: uuidv7(), project, name, created_at: seen, last_seen_at: seen, updated_at: null, tags: [], description: null, verified: false,
    verified_at: null, hidden: false, owner: null, ...fields,
  };
  list.push(record);
  return record;
}

export const model: SandboxModel = {
  kind: 'event_definition',
  collection: 'event_definitions',
  path: '/api/projects/:project/event_definitions/',
  parent: 'project',
  scopes: { read: 'event_definition:read', write: 'event_definition:write' },
  pagination: 'limit-offset',
  id: 'uuid',
  create: false,
  update: true,
  delete: 'none',
  fields: {},
  activity: { scope: 'EventDefinition', name: (r) => String(r.name), ignored: ['project', 'last_seen_at', 'verified_at'] },
  hooks: {
    listReply: (ctx) => {
      const q = ctx.request.url.searchParams;
      const search = q.get('search');
      const names = q.getAll('names').flatMap((v) => v.split(',')).filter((n) => n !== '');
      const records = ctx.records()
        .filter((r) => (search === null || matchesSearch(String(r.name), search)) && (names.length === 0 || names.includes(String(r.name))))
        .sort((a, b) => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0));
      return { status: 200, body: paginateDefinitions(records, ctx) };
    },
    updateReply: (record, ctx) => {
      Object.assign(record, patch(record, ctx.request.body, ctx));
      return { status: 200, body: render(record, ctx.organization) };
    },
    render: (record, ctx) => render(record, ctx.organization),
  },
  seeds: [{
    key: 'event_definitions',
    at: 'project',
    apply: (state, { project }, value, where, fail) => {
      for (const [i, entry] of seedList(value, where, fail).entries()) {
        seedApply(`${where}[${i}]`, fail, () => createDefinition(state, project?.id as number, entry));
      }
    },
  }],
  contract: {
    // Event definitions exist once an event has arrived: the seed holds it, hogsync updates it.
    seed: { project: { event_definitions: [{ name: 'signed_up' }] } },
    item: { name: 'signed_up', description: 'A user finished signing up' },
    update: { tags: ['growth'] },
    drift: { description: 'Changed in the web app' },
    remove: false,
  },
};

function paginateDefinitions(records: JsonObject[], ctx: KindContext): JsonObject {
  return paginate(records, (r) => render(r, ctx.organization), ctx.request.url);
}
