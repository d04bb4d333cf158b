// loadConfig's DesiredState: the shape the planner reads, file resolution, interpolation and
// the merge rules across files (see src/config/merge.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigErrors, formatConfigErrors, loadConfig } from '../src/config/load.js';
import type { DesiredState } from '../src/config/model.js';
import { isHogsyncError } from '../src/errors.js';
import { ROOT } from './support/cli.js';
import { ORG } from './support/constants.js';

const WEBHOOK = 'https://hooks.slack.com/services/T000/B000/SECRETSECRET';

let tmp: string | undefined;
afterEach(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = undefined;
});

/** Writes files into a fresh directory and returns it. */
function files(contents: Record<string, string>): string {
  tmp = mkdtempSync(join(tmpdir(), 'hogsync-load-'));
  for (const [name, text] of Object.entries(contents)) {
    mkdirSync(join(tmp, name, '..'), { recursive: true });
    writeFileSync(join(tmp, name), text);
  }
  return tmp;
}

async function problems(paths: string[], env: NodeJS.ProcessEnv = {}, cwd = ROOT): Promise<string[]> {
  try {
    await loadConfig(paths, env, { cwd });
  } catch (err) {
    if (err instanceof ConfigErrors) return err.problems.map((p) => `${p.position.file}:${p.position.line}:${p.position.col}: ${p.message}`);
    throw err;
  }
  throw new Error('expected the configuration to be invalid');
}

const load = (paths: string[], env: NodeJS.ProcessEnv = {}, cwd = ROOT): Promise<DesiredState> => loadConfig(paths, env, { cwd });

describe('examples/basic as DesiredState', () => {
  it('has one organization with its items in declaration order, fields and positions', async () => {
    const state = await load(['examples/basic']);
    const file = 'examples/basic/hogsync.yaml';
    expect(state.sources).toEqual([file]);
    expect(state.organizations).toHaveLength(1);
    const org = state.organizations[0]!;
    expect(org.id).toBe(ORG);
    expect(org.prune).toEqual({ proxy_records: true, members: false, roles: false, access: false, actions: false, cohorts: false, feature_flags: false, hog_functions: false, insights: false, dashboards: false });
    expect(org.items.map((i) => [i.kind, i.project, i.key, i.ensure])).toEqual([
      ['project', null, '12345', 'present'],
      ['feature_flag', 12345, 'new-checkout', 'present'],
      ['feature_flag', 12345, 'beta-banner', 'present'],
      ['project', null, '12346', 'present'],
      ['proxy_record', null, 'e.example.com', 'present'],
      ['role', null, 'Engineers', 'present'],
    ]);
    const [p1, flag, , p2, proxy, role] = org.items;
    expect(p1).toEqual({
      kind: 'project', organization: ORG, project: null, key: '12345', ensure: 'present',
      fields: { name: 'Web app', timezone: 'Europe/Berlin', anonymize_ips: true, session_recording_sample_rate: '0.5', week_start_day: 1 },
      interpolated: [], position: { file, line: 7, col: 5 },
    });
    expect(flag).toEqual({
      kind: 'feature_flag', organization: ORG, project: 12345, key: 'new-checkout', ensure: 'present',
      fields: { name: 'New checkout flow', active: true, filters: { groups: [{ properties: [], rollout_percentage: 20 }] } },
      interpolated: [], position: { file, line: 14, col: 9 },
    });
    expect(p2!.fields).toEqual({ name: 'Marketing site', timezone: 'Europe/Berlin', anonymize_ips: false });
    expect(proxy).toMatchObject({ key: 'e.example.com', fields: {}, position: { file, line: 39, col: 5 } });
    // A role's name is managed: it is how a change of case reaches the API.
    expect(role).toMatchObject({ key: 'Engineers', fields: { name: 'Engineers', feature_flags_access_level: 37 }, position: { file, line: 42, col: 5 } });
  });
});

describe('examples/multi-file', () => {
  it('merges three files into one organization, flags under projects declared elsewhere', async () => {
    const state = await load(['examples/multi-file'], { SLACK_WEBHOOK: WEBHOOK });
    expect(state.sources).toEqual(['examples/multi-file/flags.yaml', 'examples/multi-file/org.yaml', 'examples/multi-file/projects.yaml']);
    expect(state.organizations).toHaveLength(1);
    const items = state.organizations[0]!.items;
    expect(items.filter((i) => i.kind === 'feature_flag').map((i) => `${i.project}/${i.key}`)).toEqual(['12345/new-checkout', '12345/dark-mode', '12346/pricing-page-v2']);
    const web = items.find((i) => i.kind === 'project' && i.key === '12345')!;
    // The project's fields and position come from its full declaration in projects.yaml.
    expect(web.position).toEqual({ file: 'examples/multi-file/projects.yaml', line: 7, col: 5 });
    expect(web.fields.slack_incoming_webhook).toBe(WEBHOOK);
    expect(web.interpolated).toEqual(['slack_incoming_webhook']);
    expect(state.organizations[0]!.prune).toEqual({ proxy_records: true, members: false, roles: false, access: false, actions: false, cohorts: false, feature_flags: false, hog_functions: false, insights: false, dashboards: false });
  });

  it('needs SLACK_WEBHOOK, and says so at the value', async () => {
    expect(await problems(['examples/multi-file'])).toEqual([
      'examples/multi-file/projects.yaml:9:29: environment variable SLACK_WEBHOOK is not set',
    ]);
  });
});

describe('paths', () => {
  it('reads ./hogsync.yaml by default', async () => {
    const dir = files({ 'hogsync.yaml': `organization: ${ORG}\n` });
    expect((await load([], {}, dir)).sources).toEqual(['hogsync.yaml']);
  });

  it('says when there is no ./hogsync.yaml', async () => {
    const dir = files({ 'other.yaml': `organization: ${ORG}\n` });
    await expect(load([], {}, dir)).rejects.toThrow('no hogsync.yaml in the current directory; pass configuration files or directories');
  });

  it('reads every *.yaml and *.yml of a directory, sorted, but not dotfiles, other files or subdirectories', async () => {
    const dir = files({
      'b.yml': `organization: ${ORG}\n`, 'a.yaml': `organization: ${ORG}\n`, 'c.YAML': `organization: ${ORG}\n`,
      '.hidden.yaml': 'not: valid', 'notes.txt': 'x', 'sub/d.yaml': 'not: valid',
    });
    expect((await load(['.'], {}, dir)).sources).toEqual(['a.yaml', 'b.yml', 'c.YAML']);
  });

  it('reads a file named twice (or a file and its directory) once', async () => {
    const dir = files({ 'conf/a.yaml': `organization: ${ORG}\nroles: [ { name: R } ]\n` });
    const state = await load(['conf', 'conf/a.yaml', './conf/a.yaml'], {}, dir);
    expect(state.sources).toEqual(['conf/a.yaml']);
  });

  it('refuses a missing path and an empty directory with one line', async () => {
    const dir = files({ 'empty/.keep': '' });
    const missing = await load(['nope.yaml'], {}, dir).catch((e: unknown) => e);
    expect(isHogsyncError(missing) && missing.format()).toBe('cannot read nope.yaml: no such file or directory');
    await expect(load(['empty'], {}, dir)).rejects.toThrow('empty: no *.yaml or *.yml files in this directory');
  });

  it('keeps paths as given in positions', async () => {
    const dir = files({ 'conf/a.yaml': `organization: ${ORG}\nroles: [ { name: R, extra: 1 } ]\n` });
    expect(await problems(['conf/'], {}, dir)).toEqual(['conf/a.yaml:2:21: unknown field "extra" in role; expected "name", "renamed_from", "feature_flags_access_level", "ensure" or "members"']);
  });
});

describe('interpolation', () => {
  it('replaces ${env:NAME} inside any string and records the field as interpolated', async () => {
    const dir = files({
      'a.yaml': `organization: ${ORG}\nprojects:\n  - id: 1\n    name: "\${env:ENV_NAME} app"\n    app_urls: ["https://\${env:HOST}/", "https://fixed/"]\n    anonymize_ips: true\n`,
    });
    const state = await load(['a.yaml'], { ENV_NAME: 'Staging', HOST: 'staging.example.com' }, dir);
    const item = state.organizations[0]!.items[0]!;
    expect(item.fields).toEqual({ name: 'Staging app', app_urls: ['https://staging.example.com/', 'https://fixed/'], anonymize_ips: true });
    expect(item.interpolated).toEqual(['name', 'app_urls']);
  });

  it('replaces ${env:NAME} whose $ a quoted string writes as an escape, in a file without a $ of its own', async () => {
    // Files without a `$` are not searched for ${env:…}: an escape is the other way to write one.
    const dir = files({ 'a.yaml': `organization: ${ORG}\nprojects:\n  - id: 1\n    name: "\\u0024{env:ENV_NAME} app"\n    timezone: "\\x24{env:TZ_NAME}"\n` });
    const state = await load(['a.yaml'], { ENV_NAME: 'Staging', TZ_NAME: 'Europe/Berlin' }, dir);
    const item = state.organizations[0]!.items[0]!;
    expect(item.fields).toEqual({ name: 'Staging app', timezone: 'Europe/Berlin' });
    expect(item.interpolated).toEqual(['name', 'timezone']);
  });

  it('treats $${ as a literal ${ and accepts an empty variable', async () => {
    const dir = files({ 'a.yaml': `organization: ${ORG}\nprojects:\n  - id: 1\n    name: "costs $\${env:X} \${env:EMPTY}$"\n` });
    const state = await load(['a.yaml'], { EMPTY: '' }, dir);
    expect(state.organizations[0]!.items[0]!.fields.name).toBe('costs ${env:X} $');
  });

  it('validates the interpolated value without ever printing it', async () => {
    const dir = files({
      'a.yaml': `organization: ${ORG}\nprojects:\n  - id: 1\n    anonymize_ips: \${env:FLAG}\n    slack_incoming_webhook: \${env:HOOK}\n  - id: 2\n    slack_incoming_webhook: 12345\n    timezone: \${env:TZ_NAME}\n`,
    });
    const out = await problems(['a.yaml'], { FLAG: 'true', HOOK: 'x'.repeat(501), TZ_NAME: 'Secret/Zone' }, dir);
    expect(out).toEqual([
      'a.yaml:4:20: anonymize_ips: must be a boolean, got the value of ${env:FLAG}',
      'a.yaml:5:29: slack_incoming_webhook: must be at most 500 characters long, got 501',
      'a.yaml:7:29: slack_incoming_webhook: must be a string, got a sensitive value (not shown)',
      'a.yaml:8:15: timezone: the value of ${env:TZ_NAME} is not a known time zone',
    ]);
    expect(out.join('\n')).not.toContain('Secret/Zone');
  });

  it('reports every bad ${…} of a string and every file at once', async () => {
    const dir = files({
      'a.yaml': `organization: ${ORG}\nroles:\n  - name: "\${env:A} \${env:B} \${env:}"\n`,
      'b.yaml': `organization: ${ORG}\nroles:\n  - name: \${env:C}\n`,
    });
    expect(await problems(['.'], {}, dir)).toEqual([
      'a.yaml:3:11: empty variable name in "${env:}"',
      'a.yaml:3:11: environment variable A is not set',
      'a.yaml:3:11: environment variable B is not set',
      'b.yaml:3:11: environment variable C is not set',
    ]);
  });
});

describe('merge', () => {
  it('merges files of the same organization (ids compared ignoring case) and keeps organizations apart', async () => {
    const other = '11111111-2222-4333-8444-555555555555';
    const dir = files({
      'a.yaml': `organization: ${ORG.toUpperCase()}\nroles: [ { name: A } ]\n`,
      'b.yaml': `organization: ${other}\nroles: [ { name: A } ]\n`,
      'c.yaml': `organization: ${ORG}\nroles: [ { name: C } ]\nprune: { roles: true }\n`,
    });
    const state = await load(['.'], {}, dir);
    expect(state.organizations.map((o) => [o.id, o.items.map((i) => i.key), o.prune.roles])).toEqual([
      [ORG, ['A', 'C'], true],
      [other, ['A'], false],
    ]);
  });

  it('lets a project repeat as id + feature_flags only, in any file order', async () => {
    const dir = files({
      'a-flags.yaml': `organization: ${ORG}\nprojects:\n  - id: 5\n    feature_flags: [ { key: f1 } ]\n`,
      'b-settings.yaml': `organization: ${ORG}\nprojects:\n  - id: 5\n    name: Five\n`,
      'c-more-flags.yaml': `organization: ${ORG}\nprojects:\n  - id: 5\n    feature_flags: [ { key: f2 } ]\n`,
    });
    const items = (await load(['.'], {}, dir)).organizations[0]!.items;
    expect(items.map((i) => `${i.kind}:${i.key}`)).toEqual(['project:5', 'feature_flag:f1', 'feature_flag:f2']);
    expect(items[0]).toMatchObject({ fields: { name: 'Five' }, position: { file: 'b-settings.yaml', line: 3, col: 5 } });
  });

  it('declares a project known only through references, with no fields', async () => {
    const dir = files({ 'a.yaml': `organization: ${ORG}\nprojects:\n  - id: 5\n    feature_flags: [ { key: f1 } ]\n` });
    const items = (await load(['a.yaml'], {}, dir)).organizations[0]!.items;
    expect(items[0]).toMatchObject({ kind: 'project', key: '5', ensure: 'present', fields: {} });
  });

  it('gives absent items no fields', async () => {
    const dir = files({ 'a.yaml': `organization: ${ORG}\nprojects:\n  - id: 777\n    ensure: absent\n    name: Old\nroles:\n  - name: Old\n    ensure: absent\n    feature_flags_access_level: 21\n` });
    const items = (await load(['a.yaml'], {}, dir)).organizations[0]!.items;
    expect(items.map((i) => [i.key, i.ensure, i.fields])).toEqual([['777', 'absent', {}], ['Old', 'absent', {}]]);
  });

  it('finds a proxy domain declared twice and matches role names ignoring case', async () => {
    const dir = files({
      'a.yaml': `organization: ${ORG}\nproxy_records: [ { domain: e.example.com } ]\nroles: [ { name: Admins } ]\n`,
      'b.yaml': `organization: ${ORG}\nproxy_records: [ { domain: e.example.com } ]\nroles: [ { name: ADMINS } ]\n`,
    });
    expect(await problems(['.'], {}, dir)).toEqual([
      'b.yaml:2:20: proxy record "e.example.com" is declared twice: a.yaml:2:20 and b.yaml:2:20',
      'b.yaml:3:12: role "ADMINS" is declared twice: a.yaml:3:12 and b.yaml:3:12 (role names ignore case: "Admins" and "ADMINS")',
    ]);
  });

  it('keeps flags of different projects apart', async () => {
    const dir = files({ 'a.yaml': `organization: ${ORG}\nprojects:\n  - id: 1\n    feature_flags: [ { key: same } ]\n  - id: 2\n    feature_flags: [ { key: same } ]\n` });
    expect((await load(['a.yaml'], {}, dir)).organizations[0]!.items.filter((i) => i.kind === 'feature_flag').map((i) => i.project)).toEqual([1, 2]);
  });

  it('ORs prune settings and accepts the same explicit value twice', async () => {
    const dir = files({
      'a.yaml': `organization: ${ORG}\nprune: { proxy_records: true, roles: false }\n`,
      'b.yaml': `organization: ${ORG}\nprune: { proxy_records: true, feature_flags: true }\n`,
    });
    expect((await load(['.'], {}, dir)).organizations[0]!.prune).toEqual({ proxy_records: true, members: false, roles: false, access: false, actions: false, cohorts: false, feature_flags: true, hog_functions: false, insights: false, dashboards: false });
  });

  it('reports duplicates together with schema errors of other files', async () => {
    const dir = files({
      'a.yaml': `organization: ${ORG}\nroles: [ { name: R } ]\n`,
      'b.yaml': `organization: ${ORG}\nroles: [ { name: R, feature_flags_access_level: 99 } ]\n`,
    });
    expect(await problems(['.'], {}, dir)).toEqual([
      'b.yaml:2:12: role "R" is declared twice: a.yaml:2:12 and b.yaml:2:12',
      'b.yaml:2:49: feature_flags_access_level: must be 21 or 37, got number 99',
    ]);
  });
});

describe('ConfigErrors', () => {
  it('carries every problem and formats them with a summary', async () => {
    const err = await load(['test/fixtures/invalid/errors-in-every-file']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigErrors);
    const errors = err as ConfigErrors;
    expect(errors.code).toBe('config');
    expect(errors.problems).toHaveLength(4);
    expect(errors.position).toEqual(errors.problems[0]!.position);
    expect(errors.format()).toBe(formatConfigErrors(errors.problems));
    expect(errors.format().split('\n').pop()).toBe('4 errors in 3 files');
  });
});
