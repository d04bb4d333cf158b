// export end to end: the real CLI against a sandbox whose workspace sets every field type;
// the exported file must be stable, hold no secret, and plan to no changes (also split over
// several files, and limited to some projects).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { api, inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, workspace, type Workspace } from './support/workspace.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import type { SeedDocument } from '../src/sandbox/seed.js';

const SECRET = 'https://hooks.slack.com/services/T000/B000/s3cr3t-w3bh00k';
const VARIABLE = 'HOGSYNC_PROJECT_12345_SLACK_INCOMING_WEBHOOK';

const SEED: SeedDocument = {
  organizations: [{
    id: ORG,
    projects: [
      {
        // Every field type of a project: strings, booleans, integers, a decimal string, string
        // lists, untyped objects and arrays (with nested nulls), nulls, and the sensitive webhook.
        id: 12345,
        name: 'Web app',
        product_description: 'Prices like ${price} stay literal', // a `${` that must survive interpolation
        app_urls: ['https://app.example.com', 'https://www.example.com'],
        slack_incoming_webhook: SECRET,
        anonymize_ips: true,
        completed_snippet_onboarding: true,
        test_account_filters: [{ key: 'email', value: '@example.com', operator: 'not_icontains', type: 'person' }],
        test_account_filters_default_checked: true,
        path_cleaning_filters: [{ alias: '<id>', regex: '\\d+' }],
        is_demo: false,
        timezone: 'Europe/Berlin',
        data_attributes: ['data-attr', 'data-test'],
        person_display_name_properties: ['email', 'name'],
        correlation_config: { excluded_person_property_names: ['$os'] },
        autocapture_opt_out: null,
        autocapture_exceptions_opt_in: true,
        autocapture_web_vitals_opt_in: false,
        autocapture_web_vitals_allowed_metrics: ['LCP', 'CLS'],
        autocapture_exceptions_errors_to_ignore: ['ResizeObserver loop limit exceeded'],
        capture_console_log_opt_in: false,
        capture_performance_opt_in: null,
        session_recording_opt_in: true,
        session_recording_sample_rate: '0.5', // stored and answered as "0.50"
        session_recording_minimum_duration_milliseconds: 2500,
        session_recording_linked_flag: { id: 1, key: 'recordings', variant: null },
        session_recording_network_payload_capture_config: { recordHeaders: true, recordBody: false },
        session_replay_config: { record_canvas: true, ai_config: null },
        survey_config: { appearance: { backgroundColor: '#ffffff', position: 'right' } },
        access_control: true,
        week_start_day: 1,
        primary_dashboard: 7,
        live_events_columns: ['event', 'person', 'url'],
        recording_domains: ['https://app.example.com'],
        inject_web_apps: true,
        extra_settings: { beta: 'on', multiline: 'first line\nsecond line' },
        modifiers: { personsOnEventsMode: 'person_id_no_override_properties_on_events' },
        has_completed_onboarding_for: { product_analytics: true, session_replay: false },
        surveys_opt_in: true,
        heatmaps_opt_in: false,
        feature_flags: [
          { key: 'simple-on' },
          {
            key: 'pricing-test', name: 'Pricing experiment', active: true,
            filters: {
              groups: [
                { properties: [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro'] }], rollout_percentage: 100, variant: 'test' },
                { properties: [], rollout_percentage: 33.5 },
              ],
              multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
              payloads: { test: '{"discount": 10}' },
            },
          },
          {
            key: 'new-checkout', name: 'New checkout', active: true,
            filters: { groups: [{ properties: [{ key: 'country', type: 'person', operator: 'exact', value: ['DE', 'FR'] }], rollout_percentage: 20 }] },
          },
          { key: 'gone-flag', deleted: true },
          { key: 'archived', name: '', active: false, ensure_experience_continuity: true, tags: ['billing', 'legacy'] },
        ],
      },
      {
        // Values the API holds but the configuration format rejects: left out, with a note.
        id: 12346,
        name: 'Mobile app',
        app_urls: ['https://m.example.com', null],
        primary_dashboard: 0,
        feature_flags: [{ key: 'dark-mode', name: 'Dark mode', filters: { groups: [{ properties: [], rollout_percentage: 30 }] } }],
      },
      { id: 12347, name: 'Marketing site', slack_incoming_webhook: '' },
    ],
    proxy_records: [{ domain: 'b.example.com', status: 'valid' }, { domain: 'a.example.com' }],
    roles: [{ name: 'Support', feature_flags_access_level: 21 }, { name: 'admins', feature_flags_access_level: 37 }, { name: 'Engineers', feature_flags_access_level: 37 }],
  }],
};

type Doc = { organization: string; projects: Array<Record<string, unknown> & { id: number; feature_flags?: Array<Record<string, unknown>> }>; proxy_records: unknown[]; roles: unknown[] };

let sandbox: SandboxHandle;
let ws: Workspace;

beforeEach(async () => {
  sandbox = await inProcessSandbox({ seed: SEED });
  ws = workspace(sandbox);
});
afterEach(async () => {
  ws.remove();
  await stopAllSandboxes();
});

async function exportTo(file: string, extra: string[] = []) {
  const r = await ws.cli(['export', '--organization', ORG, '--out', file, ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return { ...r, text: readFileSync(ws.path(file), 'utf8') };
}

function noSecret(...texts: string[]): void {
  for (const text of texts) expect(text).not.toContain('s3cr3t');
}

describe('export', () => {
  it('writes every project field, proxy record, role and flag, stably, without the secret', async () => {
    const first = await exportTo('x.yaml');
    const second = await exportTo('y.yaml');
    expect(second.text).toBe(first.text);
    const stdout = await ws.cli(['export', '--organization', ORG]);
    expect(stdout.code).toBe(0);
    expect(stdout.stdout).toBe(first.text);
    expect(first.stdout).toBe('');
    noSecret(first.text, first.stdout, first.stderr, stdout.stdout, stdout.stderr);
    expect(first.stderr).toContain(`export: set these environment variables before plan: ${VARIABLE}\n`);
    expect(first.stderr).toContain('Exported 3 projects, 2 proxy records, 1 member, 3 roles, 0 role memberships, 0 access rules, 0 actions, 0 cohorts, 5 feature flags, 0 hog functions to x.yaml');

    const lines = first.text.split('\n');
    // The modeline names this installation's schema by a path relative to the file: it exists.
    const modeline = /^# yaml-language-server: \$schema=(\S+)$/.exec(lines[0] ?? '');
    expect(modeline, lines[0]).not.toBeNull();
    expect(existsSync(resolve(dirname(ws.path('x.yaml')), modeline?.[1] ?? ''))).toBe(true);
    expect(first.text).toContain(`slack_incoming_webhook: \${env:${VARIABLE}} # sensitive: set ${VARIABLE} before plan (the live value is not exported)\n`);
    expect(first.text).toContain('product_description: Prices like $${price} stay literal');
    expect(first.text).toContain('beta: "on"');
    expect(first.text).toContain('session_recording_sample_rate: "0.50"');
    expect(first.text).not.toMatch(/[&*]a\d|!!/); // no anchors, aliases or tags

    const doc = parse(first.text) as Doc;
    expect(doc.organization).toBe(ORG);
    expect(doc.projects.map((p) => p.id)).toEqual([12345, 12346, 12347]);
    expect(doc.proxy_records).toEqual([{ domain: 'a.example.com' }, { domain: 'b.example.com' }]);
    expect(doc.roles).toEqual([
      { name: 'admins', feature_flags_access_level: 37 },
      { name: 'Engineers', feature_flags_access_level: 37 },
      { name: 'Support', feature_flags_access_level: 21 },
    ]);
    const [web, mobile, site] = doc.projects as [Doc['projects'][0], Doc['projects'][0], Doc['projects'][0]];
    // Every writable field, in schema order.
    const schema = JSON.parse(readFileSync(new URL('../schemas/hogsync.schema.json', import.meta.url), 'utf8'));
    // (Configuration-only fields such as `alias` are not the API's: export writes none.)
    // Fields that are web-app state (x-ui-state) are left out without --all-fields.
    // Deprecated ones (x-deprecated: the API refuses any value) are never written.
    const fields = Object.entries(schema.$defs.project.properties as Record<string, { 'x-config-only'?: boolean; 'x-ui-state'?: boolean; 'x-deprecated'?: string }>)
      .filter(([f, p]) => f !== 'ensure' && p['x-config-only'] !== true && p['x-ui-state'] !== true && p['x-deprecated'] === undefined)
      // Event definitions, insights and dashboards are exported only when --kind asks for them;
      // this project holds no actions, cohorts or hog functions, so it has no such lists.
      .filter(([f]) => !['access', 'event_definitions', 'insights', 'dashboards', 'actions', 'cohorts', 'hog_functions'].includes(f)).map(([f]) => f);
    expect(Object.keys(web)).toEqual(fields);
    expect(web).toMatchObject({
      id: 12345, timezone: 'Europe/Berlin', session_recording_minimum_duration_milliseconds: 2500, autocapture_opt_out: null,
      session_replay_config: { record_canvas: true, ai_config: null }, extra_settings: { beta: 'on', multiline: 'first line\nsecond line' },
      week_start_day: 1, app_urls: ['https://app.example.com', 'https://www.example.com'],
    });
    // Flags by key, deleted ones left out, empty server-added keys dropped, the rest kept.
    expect(web.feature_flags?.map((f) => f.key)).toEqual(['archived', 'new-checkout', 'pricing-test', 'simple-on']);
    expect(web.feature_flags?.find((f) => f.key === 'simple-on')).toEqual({
      // The API's default release condition for a flag created without filters.
      key: 'simple-on', name: '', active: true, filters: { groups: [{ properties: [], rollout_percentage: null }] }, ensure_experience_continuity: false, tags: [],
      archived: false, has_encrypted_payloads: false,
    });
    expect(web.feature_flags?.find((f) => f.key === 'archived')).toMatchObject({ active: false, ensure_experience_continuity: true, tags: ['billing', 'legacy'] });
    expect(web.feature_flags?.find((f) => f.key === 'pricing-test')?.filters).toEqual(SEED.organizations?.[0]?.projects?.[0]?.feature_flags?.[1]?.filters);
    // Live values the schema rejects are left out, said in the file and on stderr.
    // The API drops empty entries of app_urls: what it stores is valid.
    expect(mobile.app_urls).toEqual(['https://m.example.com']);
    expect(mobile.slack_incoming_webhook).toBeNull();
    expect(web).not.toHaveProperty('access_control');
    for (const uiState of ['primary_dashboard', 'completed_snippet_onboarding', 'has_completed_onboarding_for', 'live_events_columns']) {
      expect(web).not.toHaveProperty(uiState);
    }
    expect(site.slack_incoming_webhook).toBe('');
  });

  it('writes web-app state only with --all-fields, and both files plan to no changes', async () => {
    ws.write('sub/.keep', '');
    const all = await exportTo('sub/all.yaml', ['--all-fields']);
    const doc = parse(all.text) as Doc;
    const [web, mobile] = doc.projects as [Doc['projects'][0], Doc['projects'][0]];
    expect(web).toMatchObject({ primary_dashboard: 7, completed_snippet_onboarding: true, live_events_columns: ['event', 'person', 'url'],
      has_completed_onboarding_for: { product_analytics: true, session_replay: false } });
    // A live value the schema rejects is still left out, said in the file and on stderr.
    expect(mobile).not.toHaveProperty('primary_dashboard');
    expect(all.text).toMatch(/# left out primary_dashboard: .* \(must be >= 1\)\n {2}- id: 12346/);
    expect(all.stderr).toContain('export: warning: project 12346: left out primary_dashboard');
    const modeline = /^# yaml-language-server: \$schema=(\S+)$/.exec(all.text.split('\n')[0] ?? '');
    expect(existsSync(resolve(dirname(ws.path('sub/all.yaml')), modeline?.[1] ?? ''))).toBe(true);
    for (const file of ['sub/all.yaml']) {
      const plan = await ws.cli(['plan', file, '--detailed-exitcode'], { [VARIABLE]: SECRET });
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    }
    const settingsOnly = await exportTo('settings.yaml');
    expect(settingsOnly.text).not.toContain('primary_dashboard');
    const plan = await ws.cli(['plan', 'settings.yaml', '--detailed-exitcode'], { [VARIABLE]: SECRET });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it('plans to no changes once the variables are set, and names a missing variable otherwise', async () => {
    const { text } = await exportTo('x.yaml');
    const validate = await ws.cli(['validate', 'x.yaml'], { [VARIABLE]: SECRET });
    expect(validate.code, validate.stderr).toBe(0);
    const plan = await ws.cli(['plan', 'x.yaml', '--detailed-exitcode'], { [VARIABLE]: SECRET });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    noSecret(plan.stdout, plan.stderr);
    const json = await ws.cli(['plan', 'x.yaml', '--format', 'json'], { [VARIABLE]: SECRET });
    expect(JSON.parse(json.stdout)).toMatchObject({ changes: [], unmanaged: [], summary: { create: 0, update: 0, delete: 0, unmanaged: 0 } });

    const missing = await ws.cli(['plan', 'x.yaml'], { [VARIABLE]: undefined });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`environment variable ${VARIABLE} is not set`);

    // The file manages what it declares: a live change shows up.
    await api(sandbox.baseUrl, sandbox.apiKey).patch(`/api/organizations/${ORG}/projects/12345/`, { timezone: 'UTC', slack_incoming_webhook: 'https://hooks.slack.com/other' });
    const drifted = await ws.cli(['plan', 'x.yaml', '--detailed-exitcode'], { [VARIABLE]: SECRET });
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toContain('timezone: "UTC" → "Europe/Berlin"');
    expect(drifted.stdout).toContain('slack_incoming_webhook: (sensitive) → (sensitive)');
    expect(text).toBeTruthy();
  });

  it('plans to no changes when split over several files: organization settings, then flags per project', async () => {
    const { text } = await exportTo('x.yaml');
    const doc = parse(text) as Doc;
    const settings = { ...doc, projects: doc.projects.map(({ feature_flags: _flags, ...rest }) => rest) };
    ws.write('split/00-organization.yaml', stringify(settings, { lineWidth: 0 }));
    for (const p of doc.projects.filter((x) => x.feature_flags)) {
      ws.write(`split/flags-${p.id}.yaml`, stringify({ organization: ORG, projects: [{ id: p.id, feature_flags: p.feature_flags }] }, { lineWidth: 0 }));
    }
    const plan = await ws.cli(['plan', 'split', '--format', 'json', '--detailed-exitcode'], { [VARIABLE]: SECRET });
    expect(plan.code, plan.stderr).toBe(0);
    const parsed = JSON.parse(plan.stdout);
    expect(parsed.sources).toHaveLength(3);
    expect(parsed).toMatchObject({ changes: [], unmanaged: [] });
    // Projects, proxy records, roles, flags, and the one member (the key's own user).
    expect(parsed.summary.unchanged).toBe(3 + 2 + 3 + 5 + 1);
  });

  it('limits the export to the projects named with --project', async () => {
    const { text, stderr } = await exportTo('one.yaml', ['--project', '12346']);
    const doc = parse(text) as Doc;
    expect(doc.projects.map((p) => p.id)).toEqual([12346]);
    expect(doc.projects[0]?.feature_flags?.map((f) => f.key)).toEqual(['dark-mode']);
    expect(doc.roles).toHaveLength(3); // organization-level kinds are exported whole
    expect(stderr).not.toContain('set these environment variables');
    const plan = await ws.cli(['plan', 'one.yaml', '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);

    const missing = await ws.cli(['export', '--organization', ORG, '--project', '12345', '--project', '99999']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`error: project 99999 not found in organization ${ORG}\n`);
    expect(missing.stdout).toBe('');
  });

  it('refuses an organization id that is not a UUID and never prints the key', async () => {
    const r = await ws.cli(['export', '--organization', 'acme']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--organization must be an organization id (a UUID');
    const denied = await ws.cli(['export', '--organization', '0190d1c4-0000-7c3d-8e4f-5a6b7c8d9e0f']);
    expect(denied.code).toBe(1);
    expect(denied.stderr + denied.stdout).not.toContain(sandbox.apiKey);
  });
});

describe('export of proxy domains the API stored as sent', () => {
  it('writes a domain in another case or with a trailing dot in the web app form, leaves out one the web app refuses, and plans empty', async () => {
    await stopAllSandboxes();
    sandbox = await inProcessSandbox({
      seed: { organizations: [{ id: ORG, max_proxy_records: 5, projects: [{ id: 12345, name: 'Web app' }], proxy_records: [{ domain: 'E.Example.COM.', status: 'valid' }, { domain: 'bad_domain.example.com', status: 'erroring' }] }] },
    });
    ws.remove();
    ws = workspace(sandbox);
    const { text, stderr } = await exportTo('x.yaml');
    expect((parse(text) as Doc).proxy_records).toEqual([{ domain: 'e.example.com' }]);
    expect(stderr).toContain('proxy record bad_domain.example.com: left out: the live record is not valid in the configuration format (domain must be a lower-case domain name such as e.example.com');
    expect((await ws.cli(['validate', 'x.yaml'])).code).toBe(0);
    const plan = await ws.cli(['plan', 'x.yaml', '--format', 'json', '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({ changes: [], unmanaged: [expect.objectContaining({ address: `proxy_record:${ORG}/bad_domain.example.com` })] });
  });
});
