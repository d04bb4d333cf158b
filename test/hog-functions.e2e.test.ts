// Hog functions end to end, through the real CLI against one sandbox: a destination with a
// secret input (from the environment), a webhook destination filtered by an action named in the
// files, and a transformation chain converge and plan empty; a second run keeps the stored secret;
// a rotated secret is sent only with --resend-secrets; export writes the secret as a placeholder
// and names the variable, and plans empty; a changed type is a delete and a create; more than 20
// enabled transformations is a plan warning; functions of alerts are never listed. No secret
// value appears in anything any step printed or wrote.
import { readdirSync, readFileSync } from 'node:fs';
import { expectCanonical } from './support/canonical.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { expectNoSecret } from './support/secrets.js';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { config, ORG, workspace, type Workspace } from './support/workspace.js';
import type { CliResult } from './support/cli.js';

type Rec = Record<string, unknown>;
const P = 111;
const FIRST = 'SG.first-rotation-4f9a2c81d7e3';
const SECOND = 'SG.second-rotation-7b1e3d60a94f';

let sandbox: SandboxHandle;
let ws: Workspace;
let http: Api;
const outputs: Array<{ label: string; text: string }> = [];

beforeAll(async () => {
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{
        id: ORG,
        projects: [{
          id: P, name: 'Web',
          actions: [{ name: 'Signed up', steps: [{ event: 'signed_up' }] }],
          // What an alert owns: never listed, pruned or changed.
          hog_functions: [{ name: 'Alert: errors spike', type: 'internal_destination', hog: 'return' }],
        }],
      }],
    },
  });
  ws = workspace(sandbox);
  http = api(sandbox.baseUrl, sandbox.apiKey);
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

async function cli(label: string, args: string[], env: Rec = {}): Promise<CliResult> {
  const r = await ws.cli(args, { SENDGRID_KEY: FIRST, ...env } as Record<string, string>);
  outputs.push({ label: `${label}: stdout`, text: r.stdout }, { label: `${label}: stderr`, text: r.stderr });
  return r;
}
const stored = () => (sandbox.store.snapshot().hog_functions as Rec[]).filter((f) => f.deleted !== true);
const secretOf = (name: string) => ((stored().find((f) => f.name === name)?.secrets as Rec | undefined)?.api_key as Rec | undefined)?.value;

const FUNCTIONS = `    hog_functions:
      - name: Contacts to Sendgrid
        type: destination
        template_id: template-sendgrid
        enabled: true
        inputs:
          api_key: { value: "\${env:SENDGRID_KEY}" }
          email: { value: "{person.properties.email}" }
          properties: { value: { city: "{person.properties.city}" } }
      - name: Signups to webhook
        type: WEBHOOK_TYPE
        template_id: template-webhook
        enabled: true
        inputs:
          url: { value: "https://hooks.example.com/signups" }
        filters: { actions: [ { id: { action: Signed up }, type: actions, name: Signed up } ] }
      - name: GeoIP
        type: transformation
        template_id: template-geoip
        enabled: true
      - name: Anonymize IPs
        type: transformation
        template_id: template-ip-anonymization
        enabled: true
`;
const file = (webhookType = 'destination') => config(`projects:\n  - id: ${P}\n${FUNCTIONS.replace('WEBHOOK_TYPE', webhookType)}`);

describe('hog functions as code', () => {
  it('converge (secret input, action by name, transformation chain), plan empty, and keep the stored secret on a second run', async () => {
    const path = ws.write('hogsync.yaml', file());
    const planned = await cli('plan', ['plan', path]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain(`+ hog_function:${ORG}/${P}/destination/Contacts to Sendgrid`);
    expect(planned.stdout).toContain(`+ hog_function:${ORG}/${P}/transformation/GeoIP`);
    expect(planned.stdout).toContain('inputs.api_key: (sensitive, write-only)');
    expect(planned.stdout).not.toContain('Alert: errors spike');
    const applied = await cli('apply', ['apply', path, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr).not.toContain('did not take');
    expect(secretOf('Contacts to Sendgrid')).toBe(FIRST);
    // The webhook's filter holds the action's id; the chain runs in creation order.
    const action = ((await http.get(`/api/projects/${P}/actions/`)).body as { results: Rec[] }).results.find((a) => a.name === 'Signed up');
    const webhook = stored().find((f) => f.name === 'Signups to webhook') as { filters: { actions: Rec[] } };
    expect(Number(webhook.filters.actions[0]?.id)).toBe(action?.id);
    expect(stored().filter((f) => f.type === 'transformation').map((f) => [f.name, f.execution_order])).toEqual([['GeoIP', 1], ['Anonymize IPs', 2]]);
    // The secret reads back only as a marker.
    const sendgrid = stored().find((f) => f.name === 'Contacts to Sendgrid') as Rec;
    expect(((await http.get(`/api/projects/${P}/hog_functions/${String(sendgrid.id)}/`)).body as { inputs: Rec }).inputs.api_key).toEqual({ secret: true });

    const again = await cli('plan again', ['plan', path, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('No changes');
    const second = await cli('apply again', ['apply', path, '--auto-approve']);
    expect(second.code).toBe(0);
    expect(secretOf('Contacts to Sendgrid')).toBe(FIRST);
  });

  it('sends a rotated secret only with --resend-secrets, and never drifts on it', async () => {
    const path = ws.path('hogsync.yaml');
    const quiet = await cli('plan rotated', ['plan', path, '--detailed-exitcode'], { SENDGRID_KEY: SECOND });
    expect(quiet.code, quiet.stdout).toBe(0);
    const drift = await cli('drift rotated', ['drift', path], { SENDGRID_KEY: SECOND });
    expect(drift.code, drift.stdout).toBe(0);
    const resend = await cli('plan --resend-secrets', ['plan', path, '--resend-secrets', '--format', 'json'], { SENDGRID_KEY: SECOND });
    const plan = JSON.parse(resend.stdout) as { changes: Array<{ address: string; action: string; fields: Array<{ path: string; after: unknown; sensitive: boolean }> }> };
    expect(plan.changes.map((c) => [c.action, c.address])).toEqual([['update', `hog_function:${ORG}/${P}/destination/Contacts to Sendgrid`]]);
    expect(plan.changes[0]?.fields).toEqual([{ path: 'inputs.api_key', before: '(sensitive)', after: '(sensitive)', sensitive: true, write_only: true }]);
    const applied = await cli('apply --resend-secrets', ['apply', path, '--resend-secrets', '--auto-approve'], { SENDGRID_KEY: SECOND });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(secretOf('Contacts to Sendgrid')).toBe(SECOND);
    expect((await cli('plan after resend', ['plan', path, '--detailed-exitcode'], { SENDGRID_KEY: SECOND })).code).toBe(0);
  });

  it('exports secrets as ${env:…} placeholders, names the variables to set, and plans empty from the export', async () => {
    const out = ws.path('exported.yaml');
    const exported = await cli('export', ['export', '--organization', ORG, '--project', String(P), '--kind', 'hog_functions', '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expectCanonical(text);
    const variable = /\$\{env:(HOGSYNC_HOG_FUNCTION_[A-Z0-9_]*API_KEY[A-Z0-9_]*)\}/.exec(text)?.[1];
    expect(variable, text).toBeDefined();
    expect(exported.stdout + exported.stderr).toContain(variable as string);
    expect(text).toContain('template_id: template-sendgrid');
    expect(text).toMatch(/action: Signed up/);
    expect(text).not.toContain('Alert: errors spike');
    const replanned = await cli('plan export', ['plan', out, '--detailed-exitcode'], { [variable as string]: 'SG.placeholder-value-0000' });
    expect(replanned.code, replanned.stdout + replanned.stderr).toBe(0);
  });

  it('replaces a function whose type changed: a delete and a create, never a PATCH the API refuses', async () => {
    const path = ws.write('hogsync.yaml', file('site_destination'));
    const planned = await cli('plan type change', ['plan', path, '--format', 'json']);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string; action: string }> };
    expect(plan.changes.map((c) => [c.action, c.address]).sort()).toEqual([
      ['create', `hog_function:${ORG}/${P}/site_destination/Signups to webhook`],
      ['delete', `hog_function:${ORG}/${P}/destination/Signups to webhook`],
    ]);
    const applied = await cli('apply type change', ['apply', path, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(stored().filter((f) => f.name === 'Signups to webhook').map((f) => f.type)).toEqual(['site_destination']);
    expect((await cli('plan after type change', ['plan', path, '--detailed-exitcode'])).code).toBe(0);
  });

  it('never deletes a function of another kind that shares a name with a declared one (names repeat across kinds on purpose)', async () => {
    const extra = '      - name: Contacts to Sendgrid\n        type: transformation\n        template_id: template-geoip\n';
    const path = ws.write('same-name/hogsync.yaml', file('site_destination') + extra);
    const planned = await cli('plan same name', ['plan', path, '--format', 'json']);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string; action: string }> };
    expect(plan.changes.map((c) => [c.action, c.address])).toEqual([['create', `hog_function:${ORG}/${P}/transformation/Contacts to Sendgrid`]]);
  });

  it('runs transformations in the order the files list them: moving one reorders the chain', async () => {
    const swapped = file('site_destination').replace(/      - name: GeoIP\n(?:        .*\n)+?(?=      - name: Anonymize IPs)/, '')
      + '      - name: GeoIP\n        type: transformation\n        template_id: template-geoip\n        enabled: true\n';
    const path = ws.write('hogsync.yaml', swapped);
    const planned = await cli('plan reorder', ['plan', path, '--format', 'json']);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string; action: string; fields: Array<{ path: string; before: unknown; after: unknown }> }> };
    expect(plan.changes.map((c) => [c.address.split('/').pop(), c.fields.map((f) => [f.path, f.before, f.after])])).toEqual([
      ['Anonymize IPs', [['execution_order', 2, 1]]],
      ['GeoIP', [['execution_order', 1, 2]]],
    ]);
    expect((await cli('apply reorder', ['apply', path, '--auto-approve'])).code).toBe(0);
    expect(stored().filter((f) => f.type === 'transformation').map((f) => [f.name, f.execution_order])).toEqual([['GeoIP', 2], ['Anonymize IPs', 1]]);
    expect((await cli('plan after reorder', ['plan', path, '--detailed-exitcode'])).code).toBe(0);
    ws.write('hogsync.yaml', file('site_destination'));
    expect((await cli('apply order back', ['apply', path, '--auto-approve'])).code).toBe(0);
  });

  it('renames a function in place with renamed_from (same id, same type)', async () => {
    const before = stored().find((f) => f.name === 'Signups to webhook') as Rec;
    const renamed = file('site_destination').replace('      - name: Signups to webhook\n', '      - name: Signups to CRM\n        renamed_from: Signups to webhook\n');
    const path = ws.write('hogsync.yaml', renamed);
    const planned = await cli('plan rename', ['plan', path, '--format', 'json']);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string; action: string }> };
    expect(plan.changes.map((c) => [c.action, c.address])).toEqual([['update', `hog_function:${ORG}/${P}/site_destination/Signups to CRM`]]);
    expect((await cli('apply rename', ['apply', path, '--auto-approve'])).code).toBe(0);
    const after = stored().find((f) => f.name === 'Signups to CRM') as Rec;
    expect([after.id, after.type]).toEqual([before.id, 'site_destination']);
    expect((await cli('plan after rename', ['plan', path, '--detailed-exitcode'])).code).toBe(0);
    ws.write('hogsync.yaml', file('site_destination'));
    expect((await cli('apply rename back', ['apply', path, '--auto-approve'])).code).toBe(0);
  });

  it('refuses at plan time, at the line of the first one past it, a plan that would enable more than 20 transformations in a project', async () => {
    const many = Array.from({ length: 20 }, (_, i) => `      - name: Step ${i}\n        type: transformation\n        template_id: template-geoip\n        enabled: true\n`).join('');
    const path = ws.write('many.yaml', config(`projects:\n  - id: ${P}\n${FUNCTIONS.replace('WEBHOOK_TYPE', 'site_destination')}${many}`));
    const planned = await cli('plan many', ['plan', path]);
    expect(planned.code, planned.stderr).toBe(1);
    expect(planned.stderr).toMatch(/many\.yaml:\d+:\d+: project \d+ would have 22 enabled transformations after this plan; the API allows at most 20 and refuses the ones past it \(from hog_function:[^ ]+\/transformation\/Step 18 on\)/);
  });

  it('checks inputs against the template offline: unknown (with the nearest), required, wrong type', async () => {
    const path = ws.write('bad/hogsync.yaml', config(`projects:
  - id: ${P}
    hog_functions:
      - name: Hook
        type: destination
        template_id: template-webhook
        inputs:
          urll: { value: "https://x.example.com" }
          debug: { value: "yes" }
`));
    const r = await cli('validate bad', ['validate', path]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('hogsync.yaml:9:11: inputs.urll: input "urll" is not one of template template-webhook');
    expect(r.stdout + r.stderr).toContain('did you mean "url"?');
    expect(r.stdout + r.stderr).toMatch(/hogsync\.yaml:8:9: inputs: input "url" is required by template template-webhook/);
    expect(r.stdout + r.stderr).toMatch(/hogsync\.yaml:10:27: inputs\.debug\.value: input "debug" must be a boolean/);
  });

  it('checks property filters offline as a flag does (the shape of each value for its operator), in the filters of the function, of its events and of its actions', async () => {
    const path = ws.write('props/hogsync.yaml', config(`projects:
  - id: ${P}
    hog_functions:
      - name: Hook
        type: destination
        template_id: template-webhook
        inputs: { url: { value: "https://x.example.com" } }
        filters:
          properties:
            - { key: $browser, type: event, operator: regex, value: "([" }
          events:
            - id: $pageview
              type: events
              properties: [ { key: $os, type: person, operator: gt, value: many } ]
`));
    const r = await cli('validate props', ['validate', path]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/hogsync\.yaml:11:\d+: filters\.properties\[0\]\.value: not a valid regular expression/);
    expect(r.stdout + r.stderr).toMatch(/hogsync\.yaml:15:\d+: filters\.events\[0\]\.properties\[0\]\.value: operator gt compares numbers/);
  });

  it('leaves no secret value in anything printed or written', () => {
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    for (const f of files(ws.dir)) outputs.push({ label: f, text: readFileSync(f, 'utf8') });
    expectNoSecret(outputs, [FIRST, SECOND]);
  });
});
