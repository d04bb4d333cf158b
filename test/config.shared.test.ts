// Shared definitions (aliases, defaults, organization-level flags with overrides, renamed_from)
// as the loader expands them: the planner sees one item per PROJECT_ID/KEY, each knowing where
// it and its overridden or defaulted fields were declared. Errors are in the invalid corpus.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load.js';
import type { DesiredItem } from '../src/config/model.js';
import { declaredAt, projectBoundIds } from '../src/config/shared.js';
import { fieldsFromSchema } from '../src/resources/schema.js';
import { featureFlag } from '../src/resources/feature_flag/kind.js';
import { ROOT } from './support/cli.js';

const ORG = '0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f';
const EXAMPLE = ['examples/environments/projects.yaml', 'examples/environments/flags.yaml'];

let tmp: string | undefined;
afterEach(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

const at = (item: DesiredItem | undefined) => declaredAt(item!).map((p) => `${p.file}:${p.line}:${p.col}`);

describe('examples/environments: three projects from one definition', () => {
  it('expands organization-level flags to one flag per project, overrides replacing fields whole', async () => {
    const state = await loadConfig(EXAMPLE, {}, { cwd: ROOT });
    const org = state.organizations[0]!;
    const flags = org.items.filter((i) => i.kind === 'feature_flag');
    expect(flags.map((f) => `${f.project}/${f.key}`).sort()).toEqual([
      '2001/dark-mode', '2001/new-checkout', '2001/pricing-page-v2',
      '2002/dark-mode', '2002/new-checkout', '2002/pricing-page-v2',
      '2003/holiday-banner', '2003/new-checkout', '2003/pricing-page-v2',
    ]);
    const flag = (key: string) => flags.find((f) => `${f.project}/${f.key}` === key);
    expect(flag('2001/new-checkout')!.fields.filters).toEqual({ groups: [{ properties: [], rollout_percentage: 100 }] });
    expect(flag('2003/new-checkout')!.fields).toEqual({ name: 'New checkout flow', active: true, filters: { groups: [{ properties: [], rollout_percentage: 10 }] } });
    // An override replaces one field; the others stay shared.
    expect(flag('2001/pricing-page-v2')!.fields.active).toBe(true);
    expect(flag('2002/pricing-page-v2')!.fields.active).toBe(false);
    expect(flag('2001/pricing-page-v2')!.fields.filters).toEqual(flag('2003/pricing-page-v2')!.fields.filters);
  });

  it('says where each item was declared: the flag, and the override where one applies', async () => {
    const org = (await loadConfig(EXAMPLE, {}, { cwd: ROOT })).organizations[0]!;
    const item = (key: string) => org.items.find((i) => (i.project === null ? i.key : `${i.project}/${i.key}`) === key);
    const flags = 'examples/environments/flags.yaml';
    expect(at(item('2002/new-checkout'))).toEqual([`${flags}:20:5`]);
    expect(at(item('2003/new-checkout'))).toEqual([`${flags}:20:5`, `${flags}:30:9`]);
    expect(declaredAt(item('2003/new-checkout')!, ['active']).map((p) => p.line)).toEqual([20]);
    expect(at(item('2003/holiday-banner'))).toEqual([`${flags}:11:9`]);
  });

  it('gives every project the defaults it does not declare itself, and remembers where they came from', async () => {
    const org = (await loadConfig(EXAMPLE, {}, { cwd: ROOT })).organizations[0]!;
    const project = (id: string) => org.items.find((i) => i.kind === 'project' && i.key === id)!;
    expect(project('2001').fields).toEqual({ name: 'Shop (dev)', session_recording_sample_rate: '1.00', timezone: 'Europe/Berlin', anonymize_ips: true, session_recording_opt_in: true });
    expect(project('2002').fields.session_recording_sample_rate).toBe('0.50');
    expect(project('2003').fields.session_recording_sample_rate).toBe('0.10');
    expect(declaredAt(project('2002'), ['session_recording_sample_rate']).map((p) => `${p.file}:${p.line}`))
      .toEqual(['examples/environments/projects.yaml:12', 'examples/environments/projects.yaml:25']);
    expect(org.aliases).toEqual({ dev: '2001', staging: '2002', prod: '2003' });
    expect(org.pruneAt?.feature_flags?.line).toBe(28);
  });
});

describe('shared definitions, case by case', () => {
  async function load(text: string, env: NodeJS.ProcessEnv = {}) {
    tmp = mkdtempSync(join(tmpdir(), 'hogsync-shared-'));
    writeFileSync(join(tmp, 'h.yaml'), `organization: ${ORG}\n${text}`);
    return (await loadConfig(['h.yaml'], env, { cwd: tmp })).organizations[0]!;
  }

  it('applies a flag without `projects` to every declared project but those declared absent', async () => {
    const org = await load(`projects:
  - id: 1
  - id: 2
    feature_flags: []
  - id: 3
    ensure: absent
feature_flags:
  - key: f
    active: true
`);
    expect(org.items.filter((i) => i.kind === 'feature_flag').map((i) => i.project)).toEqual([1, 2]);
  });

  it('accepts ids and aliases alike, in `projects` and in `overrides`, aliases ignoring case', async () => {
    const org = await load(`projects:
  - id: 1
    alias: Dev
  - id: 2
feature_flags:
  - key: f
    projects: [dev, 2]
    active: true
    overrides:
      "2": { active: false }
      DEV: { name: Dev only }
`);
    expect(org.items.filter((i) => i.kind === 'feature_flag').map((i) => [i.project, i.fields])).toEqual([
      [1, { active: true, name: 'Dev only' }],
      [2, { active: false }],
    ]);
  });

  it('deletes a shared flag everywhere with ensure: absent, with no fields', async () => {
    const org = await load(`projects:
  - id: 1
  - id: 2
feature_flags:
  - key: gone
    ensure: absent
    name: ignored
`);
    expect(org.items.filter((i) => i.kind === 'feature_flag').map((i) => [i.project, i.ensure, i.fields])).toEqual([[1, 'absent', {}], [2, 'absent', {}]]);
  });

  it('treats a value taken from the environment as sensitive, in the flag and in an override', async () => {
    const org = await load(`projects:
  - id: 1
  - id: 2
defaults:
  projects:
    slack_incoming_webhook: \${env:HOOK}
feature_flags:
  - key: f
    name: \${env:NAME}
    overrides:
      "2": { name: plain }
`, { HOOK: 'https://hooks.example.com/x', NAME: 'From env' });
    const flags = org.items.filter((i) => i.kind === 'feature_flag');
    expect(flags.map((f) => [f.fields.name, f.interpolated])).toEqual([['From env', ['name']], ['plain', []]]);
    expect(org.items.filter((i) => i.kind === 'project').map((p) => p.interpolated)).toEqual([['slack_incoming_webhook'], ['slack_incoming_webhook']]);
  });

  it('carries renamed_from on roles and on flags, declared under a project or shared', async () => {
    const org = await load(`roles:
  - name: Platform engineers
    renamed_from: Engineers
projects:
  - id: 1
    feature_flags:
      - key: checkout-v2
        renamed_from: checkout
feature_flags:
  - key: banner-v2
    renamed_from: banner
`);
    expect(org.items.filter((i) => i.renamedFrom).map((i) => [i.kind, i.project, i.key, i.renamedFrom])).toEqual([
      ['feature_flag', 1, 'checkout-v2', 'checkout'],
      ['role', null, 'Platform engineers', 'Engineers'],
      ['feature_flag', 1, 'banner-v2', 'banner'],
    ]);
  });

  it('never sends configuration-only fields to the API', () => {
    expect(Object.keys(fieldsFromSchema('project', ['id']))).not.toContain('alias');
    expect(Object.keys(fieldsFromSchema('feature_flag', ['key']))).toEqual(['name', 'active', 'filters', 'ensure_experience_continuity', 'tags', 'archived', 'evaluation_runtime', 'has_encrypted_payloads']);
    expect(Object.keys(fieldsFromSchema('role', ['name']))).toEqual(['feature_flags_access_level']);
  });

  it('finds ids of one project at the flag kind\'s reference sites (cohorts, flag dependencies), not names', () => {
    const ids = (filters: unknown) => projectBoundIds(featureFlag, 'filters', filters);
    expect(ids({ groups: [{ properties: [{ key: 'id', type: 'cohort', value: 7 }, { key: 'plan', type: 'person', value: 'pro' }] }] })).toEqual([{ kind: 'cohort', id: 7 }]);
    expect(ids({ groups: [{ properties: [{ key: '12', type: 'flag', value: true, operator: 'flag_evaluates_to' }] }] })).toEqual([{ kind: 'feature_flag', id: 12 }]);
    expect(ids({ groups: [{ properties: [{ key: { feature_flag: 'other' }, type: 'flag', value: true }, { key: 'id', type: 'cohort', value: { cohort: 'Staff' } }] }] })).toEqual([]);
    expect(ids({ groups: [{ properties: [], rollout_percentage: 5 }] })).toEqual([]);
  });
});
