// `hogsync validate` through the real CLI: the examples pass with a summary, invalid files
// print file:line:col lines and a count on stderr with exit 1, and nothing prints a stack.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const WEBHOOK = 'https://hooks.slack.com/services/T000/B000/SECRETSECRET';
const noStack = /\n\s+at /;

describe('hogsync validate', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'hogsync-validate-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('accepts examples/basic with a summary on stdout', async () => {
    const r = await runCli(['validate', 'examples/basic']);
    expect(r).toEqual({ code: 0, stdout: '1 file valid: 1 organization, 2 projects, 1 proxy record, 1 role, 2 feature flags\n', stderr: '' });
  });

  it('accepts examples/multi-file when SLACK_WEBHOOK is set, and never prints it', async () => {
    const r = await runCli(['validate', 'examples/multi-file'], { env: { SLACK_WEBHOOK: WEBHOOK } });
    expect(r).toEqual({ code: 0, stdout: '3 files valid: 1 organization, 2 projects, 2 proxy records, 2 roles, 3 feature flags\n', stderr: '' });
  });

  it('warns at the field\'s line where a file declares the deprecated access_control, and still validates', async () => {
    const file = join(tmp, 'deprecated.yaml');
    writeFileSync(file, 'organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nprojects:\n  - id: 12345\n    access_control: true\n');
    const r = await runCli(['validate', file]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`${file}:4:5: warning: access_control is deprecated: the API refuses every value of it with 400 (use its access control settings instead); remove it from the file\n`);
    expect(r.stdout).toContain('1 file valid');
  });

  it('names the missing variable of examples/multi-file', async () => {
    const r = await runCli(['validate', 'examples/multi-file'], { env: { SLACK_WEBHOOK: undefined } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('examples/multi-file/projects.yaml:9:29: environment variable SLACK_WEBHOOK is not set\n1 error in 1 file\n');
  });

  it('validates several paths together: the examples plus a file of the same organization', async () => {
    const extra = join(tmp, 'extra.yaml');
    writeFileSync(extra, 'organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nroles:\n  - name: Support\n');
    const r = await runCli(['validate', 'examples/basic', extra]);
    expect(r.stdout).toBe('2 files valid: 1 organization, 2 projects, 1 proxy record, 2 roles, 2 feature flags\n');
    expect(r.code).toBe(0);
  });

  it('reports a duplicate across paths at the second place, naming both', async () => {
    const extra = join(tmp, 'dup.yaml');
    writeFileSync(extra, 'organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nroles:\n  - name: engineers\n');
    const r = await runCli(['validate', 'examples/basic', extra]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${extra}:3:5: role "engineers" is declared twice: examples/basic/hogsync.yaml:42:5 and ${extra}:3:5 (role names ignore case: "Engineers" and "engineers")\n1 error in 1 file\n`);
  });

  it('reads ./hogsync.yaml by default', async () => {
    const dir = mkdtempSync(join(tmp, 'cwd-'));
    writeFileSync(join(dir, 'hogsync.yaml'), 'organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nproxy_records: [ { domain: e.example.com } ]\n');
    const r = await runCli(['validate'], { cwd: dir });
    expect(r).toEqual({ code: 0, stdout: '1 file valid: 1 organization, 1 proxy record\n', stderr: '' });
  });

  it('says there is no ./hogsync.yaml in one line', async () => {
    const r = await runCli(['validate'], { cwd: tmp });
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'error: no hogsync.yaml in the current directory; pass configuration files or directories\n' });
  });

  it('refuses a missing path in one line, with no stack trace even when --verbose is not given', async () => {
    const r = await runCli(['validate', 'does/not/exist.yaml']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: 'error: cannot read does/not/exist.yaml: no such file or directory\n' });
  });

  it('prints every error of every file, then the count', async () => {
    const r = await runCli(['validate', 'test/fixtures/invalid/errors-in-every-file']);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(noStack);
    expect(r.stderr.trim().split('\n')).toEqual([
      'test/fixtures/invalid/errors-in-every-file/a.yaml:4:5: unknown field "anonymise_ips" in project; did you mean "anonymize_ips"?',
      'test/fixtures/invalid/errors-in-every-file/b.yaml:2:8: unclosed [: the inline list that opens here is never closed with ] (the parser read on to line 3 looking for it)',
      'test/fixtures/invalid/errors-in-every-file/c.yaml:1:1: missing required field "organization"',
      'test/fixtures/invalid/errors-in-every-file/c.yaml:3:21: week_start_day: must be 0 or 1, got number 2',
      '4 errors in 3 files',
    ]);
  });

  it('accepts anchors in x- fields, aliases, $${ escapes and absent items', async () => {
    const r = await runCli(['validate', 'test/fixtures/valid/anchors-and-escapes.yaml'], { env: { APP_SUFFIX: '(prod)' } });
    expect(r).toEqual({ code: 0, stdout: '1 file valid: 1 organization, 2 projects, 1 role, 2 feature flags\n', stderr: '' });
  });
});

describe('hogsync validate: project fields of the real API', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'hogsync-validate-fields-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const file = (name: string, body: string): string => {
    const path = join(tmp, name);
    writeFileSync(path, `organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nprojects:\n  - id: 12345\n${body}`);
    return path;
  };

  it('takes the writable fields newer API versions added, within their bounds', async () => {
    const ok = file('new.yaml', [
      '    session_recording_masking_config: { maskAllInputs: true, blockSelector: .private }',
      '    flags_persistence_default: true',
      '    receive_org_level_activity_logs: false',
      '    cookieless_server_hash_mode: 1',
      '    session_recording_retention_period: 90d',
      '    session_recording_trigger_match_type_config: any',
      '    base_currency: EUR',
      '    business_model: b2c',
      '    capture_dead_clicks: true',
      '',
    ].join('\n'));
    expect(await runCli(['validate', ok])).toMatchObject({ code: 0, stderr: '' });
    const bad = file('bad.yaml', '    cookieless_server_hash_mode: 3\n    session_recording_masking_config: { maskEverything: true }\n    base_currency: euro\n');
    const r = await runCli(['validate', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}:4:34:`);
    expect(r.stderr).toContain(`${bad}:5:`);
    expect(r.stderr).toContain(`${bad}:6:20:`);
    expect(r.stderr).toContain('3 errors in 1 file');
  });

  it('refuses empty entries of app_urls and recording_domains at their place (the API would drop them)', async () => {
    const bad = file('empty.yaml', '    app_urls:\n      - https://app.example.com\n      - ""\n    recording_domains: [""]\n');
    const r = await runCli(['validate', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}:6:9:`);
    expect(r.stderr).toContain(`${bad}:7:25:`);
    expect(r.stderr).toContain("app_urls[1]: must not be empty");
  });
});

describe('hogsync validate: proxy domains by the web app rule (the API checks nothing)', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'hogsync-validate-domains-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('accepts lower-case letters, digits, dots and hyphens up to 64 characters', async () => {
    const path = join(tmp, 'ok.yaml');
    const longest = `${'a'.repeat(52)}.example.com`;
    writeFileSync(path, `organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nproxy_records:\n  - domain: e-1.example.com\n  - domain: ${longest}\n  - domain: 0.example.io\n`);
    expect(longest).toHaveLength(64);
    expect(await runCli(['validate', path])).toMatchObject({ code: 0, stderr: '' });
  });

  it('refuses every other domain at file:line:col with what to write instead', async () => {
    const path = join(tmp, 'bad.yaml');
    const domains = ['E.Example.com', 'two.example.com.', 'https://three.example.com/', '"*.example.com"', 'bad_domain.example.com', '-lead.example.com', 'e example.com', 'e.example.com-', `${'a'.repeat(53)}.example.com`];
    writeFileSync(path, `organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nproxy_records:\n${domains.map((d) => `  - domain: ${d}\n`).join('')}`);
    const r = await runCli(['validate', path]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(noStack);
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1)).toBe(`${domains.length} errors in 1 file`);
    for (let i = 0; i < domains.length; i++) expect(lines[i]).toMatch(new RegExp(`^${bad(path)}:${i + 3}:13: `));
    expect(lines[0]).toContain('must be a lower-case domain name such as e.example.com');
    expect(lines[0]).toContain('; write it as "e.example.com"');
    expect(lines[1]).toContain('; write it as "two.example.com"');
    expect(lines[2]).toContain('; write it as "three.example.com"');
    expect(lines[3]).toContain('(wildcards are not allowed)');
    expect(lines[4]).toContain('got string "bad_domain.example.com"');
    expect(lines[8]).toContain('must be at most 64 characters long, got 65');
  });

  it('points a YAML syntax error where the construct opens, saying what is unclosed (validate and plan alike)', async () => {
    const quote = join(tmp, 'quote.yaml');
    writeFileSync(quote, 'organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nprojects:\n  - id: 12345\n    name: "Web app\n    timezone: UTC\nroles:\n  - name: Engineers\n');
    const flow = join(tmp, 'flow.yaml');
    writeFileSync(flow, "organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nroles: [ { name: 'it''s' }, { name: x }\nprune: { roles: true }\n");
    const r = await runCli(['validate', quote, flow]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${quote}:4:11: unclosed string: the double quote (") that opens here is never closed (the parser read on to line 8 looking for it); close it, or write the value without quotes\n`
      + `${flow}:2:8: unclosed [: the inline list that opens here is never closed with ] (the parser read on to line 3 looking for it)\n2 errors in 2 files\n`);
    const planned = await runCli(['plan', quote], { env: { HOGSYNC_API_KEY: 'phx_unused_key_for_this_test', HOGSYNC_BASE_URL: 'http://127.0.0.1:9' } });
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain(`${quote}:4:11: unclosed string: the double quote (")`);
  });

  it('keeps plan from sending a domain the web app would refuse', async () => {
    const path = join(tmp, 'plan.yaml');
    writeFileSync(path, 'organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\nproxy_records:\n  - domain: E.example.com\n');
    const r = await runCli(['plan', path], { env: { HOGSYNC_API_KEY: 'phx_unused_key_for_this_test', HOGSYNC_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${path}:3:13: domain: must be a lower-case domain name`);
  });
});

function bad(path: string): string {
  return path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('hogsync validate: every mistake in one run', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'hogsync-validate-onerun-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const ORG_LINE = 'organization: 0190d1c4-6a1e-7c3d-8e4f-5a6b7c8d9e0f\n';

  it('prints the warnings of a file that also has errors, beside them', async () => {
    const file = join(tmp, 'both.yaml');
    writeFileSync(file, `${ORG_LINE}projects:\n  - id: 12345\n    access_control: true\n    anonymise_ips: true\n`);
    const r = await runCli(['validate', file]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      `${file}:4:5: warning: access_control is deprecated: the API refuses every value of it with 400 (use its access control settings instead); remove it from the file`,
      `${file}:5:5: unknown field "anonymise_ips" in project; did you mean "anonymize_ips"?`,
      '1 error in 1 file',
    ]);
  });

  it('plan too prints the warnings beside the errors', async () => {
    const file = join(tmp, 'both-plan.yaml');
    writeFileSync(file, `${ORG_LINE}projects:\n  - id: 12345\n    access_control: true\n    anonymise_ips: true\n`);
    const r = await runCli(['plan', file], { env: { HOGSYNC_API_KEY: 'phx_unused_key_0123456789', HOGSYNC_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:4:5: warning: access_control is deprecated`);
    expect(r.stderr).toContain(`${file}:5:5: unknown field "anonymise_ips" in project`);
  });

  it('warns at each reference to a name no file declares, naming a declared one close to it', async () => {
    const file = join(tmp, 'refs.yaml');
    writeFileSync(file, `${ORG_LINE}projects:
  - id: 111
    cohorts:
      - name: Staff
        filters: { properties: { type: OR, values: [ { type: AND, values: [ { key: email, type: person, value: x, operator: icontains } ] } ] } }
    feature_flags:
      - key: a
        filters: { groups: [ { properties: [ { key: id, type: cohort, value: { cohort: Staf }, operator: in } ] } ] }
      - key: b
        filters: { groups: [ { properties: [ { key: id, type: cohort, value: { cohort: Beta testers }, operator: in } ] } ] }
`);
    const r = await runCli(['validate', file]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${file}:9:\\d+: warning: cohort "Staf" is not declared for project 111 in these files: plan resolves it against the live cohorts of project 111; did you mean "Staff"\\?$`));
    expect(lines[1]).toMatch(new RegExp(`^${file}:11:\\d+: warning: cohort "Beta testers" is not declared for project 111 .*cohorts of project 111$`));
  });

  it('warns once at a shared definition\'s reference, naming every project it reaches', async () => {
    const file = join(tmp, 'shared.yaml');
    writeFileSync(file, `${ORG_LINE}projects:
  - id: 111
  - id: 222
feature_flags:
  - key: gated
    filters: { groups: [ { properties: [ { key: id, type: cohort, value: { cohort: Beta }, operator: in } ] } ] }
`);
    const r = await runCli(['validate', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${file}:7:\\d+: warning: cohort "Beta" is not declared for project 111 and project 222 in these files: plan resolves it against the live cohorts of each$`)),
    ]);
  });

  it('in a GitHub Actions job, also writes each error and warning as an annotation at its line', async () => {
    const file = join(tmp, 'annotated.yaml');
    writeFileSync(file, `${ORG_LINE}projects:\n  - id: 12345\n    access_control: true\n    anonymise_ips: true\n`);
    const r = await runCli(['validate', 'annotated.yaml'], { cwd: tmp, env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: tmp } });
    expect(r.code).toBe(1);
    const commands = r.stderr.split('\n').filter((l) => l.startsWith('::'));
    expect(commands).toEqual([
      '::error file=annotated.yaml,line=5,col=5::unknown field "anonymise_ips" in project; did you mean "anonymize_ips"?',
      '::warning file=annotated.yaml,line=4,col=5::access_control is deprecated: the API refuses every value of it with 400 (use its access control settings instead); remove it from the file',
    ]);
    // Outside a job, none.
    expect((await runCli(['validate', file])).stderr).not.toContain('::');
  });
});
