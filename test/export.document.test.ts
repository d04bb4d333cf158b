// The exporter without a network: live records → YAML text, its leaving-out rules, the
// placeholders for secrets and the escaping that interpolation must undo exactly.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'yaml';
import { liveStateOf, type LiveCollection } from '../src/plan/live.js';
import { loadSchemaValidator } from '../src/config/compiled.js';
import { expandString } from '../src/config/interpolate.js';
import { exportDocument } from '../src/export/document.js';
import { escapeInterpolation, exportedValue } from '../src/export/values.js';
import { VariableNamer } from '../src/export/variables.js';
import { kindByName } from '../src/resources/registry.js';
import type { LiveRecord } from '../src/resources/kind.js';
import { ORG } from './support/constants.js';

const org = { organization: ORG, project: null };

function run(parts: { projects?: LiveRecord[]; roles?: LiveRecord[]; proxies?: LiveRecord[]; flags?: Record<number, LiveRecord[]> }) {
  const collections: LiveCollection[] = [
    { kind: kindByName('project'), scope: org, records: parts.projects ?? [] },
    { kind: kindByName('proxy_record'), scope: org, records: parts.proxies ?? [] },
    { kind: kindByName('role'), scope: org, records: parts.roles ?? [] },
    ...Object.entries(parts.flags ?? {}).map(([project, records]) => ({ kind: kindByName('feature_flag'), scope: { organization: ORG, project: Number(project) }, records })),
  ];
  return exportDocument(liveStateOf(collections), { organization: ORG, schemaId: 'https://hogsync.dev/schemas/hogsync.schema.json', validate: loadSchemaValidator() });
}

describe('exported values', () => {
  const flag = kindByName('feature_flag');

  it('leaves out server-added keys that say nothing, and computed ones always', () => {
    const live = {
      groups: [{ properties: [], rollout_percentage: 20, variant: null, sort_key: 'b1c2', users_affected: 41 }, { properties: [], variant: 'test' }],
      payloads: {}, multivariate: null, aggregation_group_type_index: null,
    };
    expect(exportedValue(flag, 'filters', live)).toEqual({ groups: [{ properties: [], rollout_percentage: 20 }, { properties: [], variant: 'test' }] });
    const meaningful = { groups: [], payloads: { true: '{"a": 1}' }, multivariate: { variants: [] }, aggregation_group_type_index: 0 };
    expect(exportedValue(flag, 'filters', meaningful)).toEqual(meaningful);
    expect(live.payloads).toEqual({}); // the input is not changed
  });

  it('escapes ${ so that interpolation gives back every string exactly', () => {
    expect(escapeInterpolation({ a: ['x ${y}', 'z'], b: 1 })).toEqual({ a: ['x $${y}', 'z'], b: 1 });
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('$', '{', '}', 'e', 'n', 'v', ':', 'X', '$${') }), (s) => {
      const r = expandString(escapeInterpolation(s) as string, {});
      expect(r.errors).toEqual([]);
      expect(r.value).toBe(s);
    }));
  });

  it('names variables after kind, key and field, without collisions', () => {
    const namer = new VariableNamer();
    expect(namer.name('project', '12345', 'slack_incoming_webhook')).toBe('HOGSYNC_PROJECT_12345_SLACK_INCOMING_WEBHOOK');
    expect(namer.name('feature_flag', '12345/new-checkout', 'token')).toBe('HOGSYNC_FEATURE_FLAG_12345_NEW_CHECKOUT_TOKEN');
    expect(namer.name('feature_flag', '12345/new_checkout', 'token')).toBe('HOGSYNC_FEATURE_FLAG_12345_NEW_CHECKOUT_TOKEN_2');
  });
});

describe('exportDocument', () => {
  it('orders items by identity and writes only fields the API sends', () => {
    const result = run({
      projects: [{ id: 20, name: 'B' }, { id: 3, name: 'A', timezone: 'UTC', unknown_field: 1 }],
      roles: [{ id: 'r2', name: 'support' }, { id: 'r1', name: 'Admins', feature_flags_access_level: 37 }],
      proxies: [{ id: 'p1', domain: 'z.example.com', status: 'valid' }, { id: 'p2', domain: 'a.example.com' }],
      flags: { 3: [{ id: 2, key: 'b', deleted: false }, { id: 1, key: 'a', deleted: false }, { id: 9, key: 'c', deleted: true }] },
    });
    expect(parse(result.text)).toEqual({
      organization: ORG,
      projects: [{ id: 3, name: 'A', timezone: 'UTC', feature_flags: [{ key: 'a' }, { key: 'b' }] }, { id: 20, name: 'B' }],
      proxy_records: [{ domain: 'a.example.com' }, { domain: 'z.example.com' }],
      roles: [{ name: 'Admins', feature_flags_access_level: 37 }, { name: 'support' }],
    });
    expect(result.counts).toEqual([
      { kind: 'project', count: 2 }, { kind: 'proxy_record', count: 2 }, { kind: 'member', count: 0 }, { kind: 'role', count: 2 },
      { kind: 'role_membership', count: 0 }, { kind: 'access', count: 0 }, { kind: 'action', count: 0 }, { kind: 'cohort', count: 0 }, { kind: 'feature_flag', count: 2 }, { kind: 'hog_function', count: 0 },
      { kind: 'survey', count: 0 }, { kind: 'early_access_feature', count: 0 },
      { kind: 'experiment_holdout', count: 0 }, { kind: 'experiment_saved_metric', count: 0 }, { kind: 'experiment', count: 0 },
    ]);
    expect(result.warnings).toEqual([]);
    expect(result.variables).toEqual([]);
  });

  it('stands in for secrets with placeholders, but writes null and "" as they are', () => {
    const result = run({ projects: [{ id: 1, slack_incoming_webhook: 'https://hooks/secret' }, { id: 2, slack_incoming_webhook: null }, { id: 3, slack_incoming_webhook: '' }] });
    expect(result.text).not.toContain('hooks/secret');
    expect(result.variables).toEqual([{ name: 'HOGSYNC_PROJECT_1_SLACK_INCOMING_WEBHOOK', address: `project:${ORG}/1`, field: 'slack_incoming_webhook' }]);
    expect((parse(result.text) as { projects: unknown[] }).projects).toEqual([
      { id: 1, slack_incoming_webhook: '${env:HOGSYNC_PROJECT_1_SLACK_INCOMING_WEBHOOK}' },
      { id: 2, slack_incoming_webhook: null },
      { id: 3, slack_incoming_webhook: '' },
    ]);
  });

  it('leaves out values and items the schema rejects, and says so in the file and the warnings', () => {
    const result = run({
      projects: [{ id: 1, name: '', timezone: 'Mars/Olympus_Mons', week_start_day: 1 }],
      roles: [{ id: 'r', name: 'Ops', feature_flags_access_level: null }, { id: 'x', name: '' }],
      flags: { 1: [{ id: 1, key: 'ok', filters: { groups: [{ rollout_percentage: 150 }] } }] },
    });
    const doc = parse(result.text) as Record<string, unknown>;
    expect(doc).toEqual({
      organization: ORG,
      projects: [{ id: 1, week_start_day: 1, feature_flags: [{ key: 'ok' }] }],
      roles: [{ name: 'Ops' }],
    });
    expect(result.warnings.sort()).toEqual([
      'feature flag 1/ok: left out filters: the live value is not valid in the configuration format (filters.groups[0].rollout_percentage must be <= 100)',
      'project 1: left out name: the live value is not valid in the configuration format (must NOT have fewer than 1 characters)',
      'project 1: left out timezone: the live value is not valid in the configuration format (must be equal to one of the allowed values)',
      'role "": left out: the live record is not valid in the configuration format (name must NOT have fewer than 1 characters)',
      'role Ops: left out feature_flags_access_level: the live value is not valid in the configuration format (must be equal to one of the allowed values)',
    ]);
    expect(result.text).toContain('# role "": left out: the live record is not valid');
    expect(result.text).toMatch(/ {2}# left out name: .*\n {2}# left out timezone: .*\n {2}- id: 1\n/);
    expect(result.counts.find((c) => c.kind === 'role')?.count).toBe(1);
  });

  it('starts with the schema modeline and quotes strings YAML 1.1 would read as booleans', () => {
    const result = run({ projects: [{ id: 1, name: 'yes', extra_settings: { mode: 'off', n: 'N' } }] });
    expect(result.text.split('\n')[0]).toBe('# yaml-language-server: $schema=https://hogsync.dev/schemas/hogsync.schema.json');
    expect(result.text).toContain('name: "yes"');
    expect(result.text).toContain('mode: "off"');
    expect(result.text).toContain('"n": "N"');
  });
});
