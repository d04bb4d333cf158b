// Every writable field of a kind is in its schema: for each kind, the request bodies of its write
// endpoints (its create and update calls, matched in the real API's OpenAPI document,
// test/fixtures/posthog-openapi-subset.yaml) name the fields the API takes. Each writable,
// non-deprecated one is either a property of the kind's definition in the configuration schema
// (so validate takes it and plans manage it) or in the exclusion list below, which says why not.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KINDS } from '../src/resources/registry.js';
import { identityFieldsOf, type ResourceKind, type Scope } from '../src/resources/kind.js';
import { schemaDocument } from '../src/resources/schema.js';
import { OPENAPI_FILE, matchOperation } from './support/openapi.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace } from './support/workspace.js';

type Schema = { $ref?: string; readOnly?: boolean; deprecated?: boolean; properties?: Record<string, Schema>; allOf?: Schema[] };
const components = (parse(readFileSync(OPENAPI_FILE, 'utf8')) as { components: { schemas: Record<string, Schema> } }).components.schemas;

/**
 * Per kind: writable fields of the API that the files deliberately do not write, and why. Each
 * entry must still be a writable field of the API (checked below), so the list cannot go stale.
 */
const EXCLUDED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  member: {
    // A member is added by an invite (POST invites/): its body says how to invite, not who is a member.
    target_email: 'the member\'s email: the identity, sent by the kind itself',
    first_name: 'the invitee\'s name: theirs to set once they join',
    message: 'the invite e-mail\'s text, not a setting of the member',
    send_email: 'whether the invite is e-mailed, not a setting of the member',
    combine_pending_invites: 'how the API merges invites, not a setting of the member',
    private_project_access: 'project access is managed as `access` of each project',
  },
  action: {
    _create_in_folder: 'where the web app files a new action',
    pinned_at: 'the web app\'s pin of the action in its list',
    last_calculated_at: 'bookkeeping of the API\'s calculation',
  },
  cohort: {
    _create_in_folder: 'where the web app files a new cohort',
    _create_static_person_ids: 'a static cohort\'s persons are data, not configuration',
    cohort_type: 'derived by the API from the filters',
    groups: 'the legacy form of filters (the API rewrites it into filters)',
    query: 'a cohort made from an insight\'s query in the web app: not managed yet',
  },
  feature_flag: {
    _create_in_folder: 'where the web app files a new flag',
    _should_create_usage_dashboard: 'sent by hogsync itself on create (false), not a setting',
    analytics_dashboards: 'dashboards the web app links to the flag',
    created_at: 'a timestamp the API sets',
    creation_context: 'which part of the web app made the flag',
    last_called_at: 'a timestamp the API sets',
    is_remote_configuration: 'a remote-configuration flag (a payload served as configuration): not managed yet',
    has_enriched_analytics: 'enriched analytics of the flag\'s calls: not managed yet',
    evaluation_tags: 'evaluation environments: not managed yet',
    rollback_conditions: 'automatic rollback, owned by the web app',
    performed_rollback: 'set by the automatic rollback',
    version: 'the optimistic-concurrency counter (hogsync sends it from the record it read)',
  },
  hog_function: {
    _create_in_folder: 'where the web app files a new function',
    icon_url: 'the web app\'s picture of the destination (the template\'s)',
  },
  insight: {
    _create_in_folder: 'where the web app files a new insight',
    dashboards: 'the dashboards showing the insight: written from the dashboards\' tiles (by insight name), by hogsync itself',
    derived_name: 'the name the web app derives for an unnamed insight (unnamed insights are never managed)',
    order: 'the legacy order of an insight on a dashboard: layouts are managed through the dashboard\'s tiles',
  },
  dashboard: {
    _create_in_folder: 'where the web app files a new dashboard',
    breakdown_colors: 'the web app\'s colours of breakdown values: not managed yet',
    data_color_theme_id: 'a colour theme of the web app: not managed yet',
    delete_insights: 'an option of the delete, not a setting',
    last_accessed_at: 'a timestamp the API sets',
    last_refresh: 'a timestamp the API sets',
    use_dashboard: 'create-time copy of another dashboard, not a setting',
    use_template: 'create-time template, not a setting',
  },
  survey: {
    _create_in_folder: 'where the web app files a new survey',
    current_iteration: 'computed by the API from the iteration fields',
    current_iteration_start_date: 'computed by the API from the iteration fields',
    iteration_start_dates: 'computed by the API from the iteration fields',
    start_date: 'written through `status` (running)',
    end_date: 'written through `status` (stopped)',
    linked_flag_id: 'written as `linked_flag`, the flag by key',
    targeting_flag_filters: 'written as `targeting`',
    targeting_flag_id: 'the targeting flag the API makes from `targeting`',
    remove_targeting_flag: 'an instruction of one write (targeting removed), not a setting',
    response_sampling_daily_limits: 'computed by the API from the sampling fields',
  },
  experiment: {
    _create_in_folder: 'where the web app files a new experiment',
    start_date: 'written through `status` (the launch/ call)',
    end_date: 'written through `status` (the end/ call)',
    feature_flag_key: 'written as `feature_flag`, the key of the flag the create makes',
    filters: 'the legacy form of metrics (the API keeps it for old experiments)',
    holdout_id: 'written as `holdout`, the holdout by name',
    parameters: 'written as `variants` (sent whole in parameters.feature_flag_variants)',
    saved_metrics_ids: 'written as `saved_metrics`, the metrics by name',
    secondary_metrics: 'the legacy form of metrics_secondary',
    primary_metrics_ordered_uuids: 'the order of metric uuids the API keeps itself',
    secondary_metrics_ordered_uuids: 'the order of metric uuids the API keeps itself',
  },
  early_access_feature: {
    _create_in_folder: 'where the web app files a new feature',
    feature_flag_id: 'the identity: the flag, by key, sent by hogsync on create',
  },
  alert: {
    insight: 'the insight the alert is declared under: sent by the kind itself',
    detector_config: 'anomaly detection instead of a threshold: not managed yet',
    investigation_agent_enabled: 'the AI investigation of a firing alert: not managed yet',
    investigation_gates_notifications: 'the AI investigation of a firing alert: not managed yet',
    investigation_inconclusive_action: 'the AI investigation of a firing alert: not managed yet',
    schedule_restriction: 'quiet hours of the checks: not managed yet',
    snoozed_until: 'a snooze is a moment\'s state, set in the web app',
  },
  subscription: {
    dashboard: 'the dashboard the subscription is declared under: sent by the kind itself',
    insight: 'the insight the subscription is declared under: sent by the kind itself',
    invite_message: 'the text of the e-mail that invites new recipients, write-only',
    integration_id: 'the Slack integration of a Slack target: written by name as `integration`, sent by id by the kind itself',
  },
};

const ROLE_ID = '0190d1c4-6a1e-7c3d-8e4f-000000000001';
const scopeOf = (kind: ResourceKind): Scope => (kind.parent === 'organization' ? { organization: ORG, project: null }
  : kind.parent === 'project' ? { organization: ORG, project: 12345 }
    // Held by a project's item (an insight's alerts): in the project, under that item.
    : KINDS.find((k) => k.name === kind.parent)?.parent === 'project' ? { organization: ORG, project: 12345, parent: { kind: kind.parent, key: 'Growth', id: 7 } }
      : { organization: ORG, project: null, parent: { kind: kind.parent, key: 'Engineers', id: ROLE_ID } });
const sampleId = (kind: ResourceKind) => (kind.name === 'project' ? 12345 : kind.name === 'member' ? ROLE_ID : kind.name === 'event_definition' ? ROLE_ID : 7);

/** The properties of a request body schema, following $ref and allOf. */
function propertiesOf(schema: Schema | undefined): Record<string, Schema> {
  if (!schema) return {};
  if (schema.$ref) return propertiesOf(components[schema.$ref.replace('#/components/schemas/', '')]);
  return { ...Object.assign({}, ...(schema.allOf ?? []).map(propertiesOf)), ...(schema.properties ?? {}) };
}

/** Writable, non-deprecated fields of the bodies of a kind's create and update calls. */
function writableFields(kind: ResourceKind): string[] {
  const scope = scopeOf(kind);
  const calls = [kind.canCreate ? kind.createCall(scope, kind.identityFields ? 'destination/x' : 'x', {}) : undefined];
  try {
    calls.push(kind.updateCall(scope, sampleId(kind), {}));
  } catch {
    // A kind with nothing to update (proxy records) has no update call.
  }
  const out = new Set<string>();
  for (const call of calls) {
    if (!call) continue;
    const op = matchOperation(call.method, call.path);
    if (typeof op === 'string') throw new Error(`${kind.name}: ${op}`);
    const schema = op.operation.requestBody?.content?.['application/json']?.schema as Schema | undefined;
    for (const [name, prop] of Object.entries(propertiesOf(schema))) {
      const target = prop.$ref ? components[prop.$ref.replace('#/components/schemas/', '')] : prop;
      if (prop.readOnly === true || prop.deprecated === true || target?.readOnly === true) continue;
      out.add(name);
    }
  }
  return [...out].sort();
}

// Kinds whose definition in the files is another shape than the API's record (a rule's level, an email).
const OWN_SHAPE = new Set(['access', 'role_membership']);

describe('every writable field of a kind is in its schema', () => {
  for (const kind of KINDS.filter((k) => !OWN_SHAPE.has(k.name))) {
    it(kind.name, () => {
      const definition = schemaDocument().$defs[kind.name]?.properties ?? {};
      const identity = Object.keys(identityFieldsOf(kind, kind.identityFields ? 'destination/x' : 'x'));
      const excluded = EXCLUDED[kind.name] ?? {};
      const missing = writableFields(kind).filter((f) => !(f in definition) && !identity.includes(f) && !(f in excluded) && f !== 'deleted');
      expect(missing, `${kind.name}: fields the API takes that the schema refuses`).toEqual([]);
      const stale = Object.keys(excluded).filter((f) => !writableFields(kind).includes(f) || f in definition);
      expect(stale, `${kind.name}: excluded fields the API does not take, or the schema has`).toEqual([]);
    });
  }
});

describe('fields the schema once refused', () => {
  afterAll(stopAllSandboxes);

  it('an action\'s post_to_slack and slack_message_format, a flag\'s evaluation_runtime: validate takes them, apply sends them, then plan is empty', async () => {
    const sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web' }] }] } });
    const ws = workspace(sandbox);
    try {
      const file = ws.write('h.yaml', config(`projects:
  - id: 12345
    actions:
      - name: Signed up
        steps: [ { event: signed_up } ]
        post_to_slack: true
        slack_message_format: "[person] signed up"
    feature_flags:
      - key: server-only
        active: true
        evaluation_runtime: server
`));
      const validated = await ws.cli(['validate', file]);
      expect(validated.code, validated.stderr).toBe(0);
      const applied = await ws.cli(['apply', file, '--auto-approve']);
      expect(applied.code, applied.stdout + applied.stderr).toBe(0);
      const stored = (sandbox.store.snapshot() as unknown as { actions: Array<Record<string, unknown>> }).actions.find((a) => a.name === 'Signed up');
      expect([stored?.post_to_slack, stored?.slack_message_format]).toEqual([true, '[person] signed up']);
      expect(sandbox.store.snapshot().feature_flags.find((f) => f.key === 'server-only')?.evaluation_runtime).toBe('server');
      expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    } finally {
      ws.remove();
    }
  });
});
