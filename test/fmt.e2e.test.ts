// `hogsync fmt` through the real CLI: --check changes nothing and exits 2 naming the files that
// differ; fmt rewrites them into the canonical layout (the schema's key order, two-space
// indents; comments, anchors, quoting and ${env:…} kept), names them, and then --check passes;
// a file that does not parse is an error at file:line:col and nothing is written at all.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ORG, workspace, type Workspace } from './support/workspace.js';

let ws: Workspace;
beforeEach(() => {
  ws = workspace({ baseUrl: 'http://127.0.0.1:9', apiKey: 'phx_unused_key_for_fmt_tests' });
});
afterEach(() => ws.remove());

const MESSY = `# yaml-language-server: $schema=../schemas/hogsync.schema.json
# Flags of the web app.
prune:
    feature_flags: true     # this file owns them
x-rollout: &half { groups: [ { rollout_percentage: 50, properties: [] } ] }
projects:
    -   feature_flags:
            -   filters: *half
                name: "New checkout"
                key: new-checkout

        id: 12345
        timezone: Europe/Berlin
        name: 'Web app'
        slack_incoming_webhook: \${env:SLACK_WEBHOOK}
organization: ${ORG}
`;

const FORMATTED = `# yaml-language-server: $schema=../schemas/hogsync.schema.json
# Flags of the web app.
organization: ${ORG}
x-rollout: &half { groups: [ { rollout_percentage: 50, properties: [] } ] }
projects:
  - id: 12345
    name: 'Web app'
    slack_incoming_webhook: \${env:SLACK_WEBHOOK}
    timezone: Europe/Berlin
    feature_flags:
      - key: new-checkout
        name: "New checkout"
        filters: *half
prune:
  feature_flags: true # this file owns them
`;

// Property filters written in any order, in every kind that has them, and flow mappings written
// over several lines or too wide for one: fmt writes filters as key, type, operator, value, and
// such flow collections in block style (never joined into one long line).
const EVERY_FILTER = `organization: ${ORG}
projects:
  - id: 12345
    feature_flags:
      - key: staff-preview
        filters: {
          groups: [ { rollout_percentage: 100, properties: [ { value: "@example.com", operator: icontains, type: person, key: email } ] } ]
        }
    actions:
      - name: Signed up
        steps: [ { event: \$pageview, properties: [ { value: /welcome, operator: icontains, type: event, key: \$current_url } ] } ]
    cohorts:
      - name: Staff
        filters: { properties: { type: OR, values: [ { type: person, value: "@example.com", operator: icontains, key: email } ] } }
      - name: Signers
        filters:
          properties:
            type: OR
            values:
              - type: behavioral
                key: signed_up
                value: performed_event
                event_type: events
                time_value: 30
                time_interval: day
                event_filters: [ { value: [pro], operator: exact, type: event, key: plan } ]
    hog_functions:
      - name: Signups to webhook
        type: destination
        filters: { events: [ { id: signed_up, type: events } ], properties: [ { value: "@example.com", operator: not_icontains, type: person, key: email } ] }
`;

const EVERY_FILTER_FORMATTED = `organization: ${ORG}
projects:
  - id: 12345
    actions:
      - name: Signed up
        steps:
          - event: \$pageview
            properties: [ { key: \$current_url, type: event, operator: icontains, value: /welcome } ]
    cohorts:
      - name: Staff
        filters:
          properties:
            type: OR
            values: [ { key: email, type: person, operator: icontains, value: "@example.com" } ]
      - name: Signers
        filters:
          properties:
            type: OR
            values:
              - key: signed_up
                type: behavioral
                value: performed_event
                event_type: events
                time_value: 30
                time_interval: day
                event_filters: [ { key: plan, type: event, operator: exact, value: [ pro ] } ]
    feature_flags:
      - key: staff-preview
        filters:
          groups:
            - properties:
                - { key: email, type: person, operator: icontains, value: "@example.com" }
              rollout_percentage: 100
    hog_functions:
      - name: Signups to webhook
        type: destination
        filters:
          events: [ { id: signed_up, type: events } ]
          properties:
            - { key: email, type: person, operator: not_icontains, value: "@example.com" }
`;

describe('hogsync fmt', () => {
  it('--check names what differs and changes nothing (exit 2); fmt rewrites it and names it; then --check passes', async () => {
    const messy = ws.write('config/flags.yaml', MESSY);
    ws.write('config/roles.yaml', `organization: ${ORG}\nroles:\n  - name: Engineers\n    feature_flags_access_level: 37\n`);
    const check = await ws.cli(['fmt', '--check', 'config']);
    expect(check).toEqual({ code: 2, stdout: 'config/flags.yaml: not in the canonical layout\n1 of 2 files would be reformatted: run hogsync fmt.\n', stderr: '' });
    expect(readFileSync(messy, 'utf8')).toBe(MESSY);

    const fmt = await ws.cli(['fmt', 'config']);
    expect(fmt).toEqual({ code: 0, stdout: 'formatted config/flags.yaml\nFormatted 1 of 2 files.\n', stderr: '' });
    expect(readFileSync(messy, 'utf8')).toBe(FORMATTED);
    expect(await ws.cli(['fmt', '--check', 'config'])).toEqual({ code: 0, stdout: '2 files in the canonical layout.\n', stderr: '' });
    // The formatted files still validate, the variable read as before.
    const valid = await ws.cli(['validate', 'config'], { SLACK_WEBHOOK: 'https://hooks.slack.com/services/T0/B0/x' });
    expect(valid.stdout).toBe('2 files valid: 1 organization, 1 project, 1 role, 1 feature flag\n');
  });

  it('a file that does not parse: its error at file:line:col, exit 1, and no file is written', async () => {
    const messy = ws.write('config/a.yaml', MESSY);
    ws.write('config/b.yaml', `organization: ${ORG}\nroles: [ { name: "Engineers }\n`);
    const r = await ws.cli(['fmt', 'config']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^config\/b\.yaml:2:18: unclosed string: the double quote \(\"\) that opens here is never closed/);
    expect(r.stderr).toMatch(/\n1 error in 1 file\nNothing was written\.\n$/);
    expect(readFileSync(messy, 'utf8')).toBe(MESSY);
  });

  it('writes every kind\'s property filters as key, type, operator, value, and a flow mapping over several lines or wider than 100 columns in block style', async () => {
    const file = ws.write('kinds.yaml', EVERY_FILTER);
    expect(await ws.cli(['fmt', 'kinds.yaml'])).toEqual({ code: 0, stdout: 'formatted kinds.yaml\nFormatted 1 of 1 file.\n', stderr: '' });
    const formatted = readFileSync(file, 'utf8');
    expect(formatted).toBe(EVERY_FILTER_FORMATTED);
    for (const line of formatted.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    expect((await ws.cli(['fmt', '--check', 'kinds.yaml'])).code).toBe(0);
  });
});
