// Secrets of hog functions, however they are written or answered, through the real CLI against
// one sandbox: a webhook whose header is `Bearer ${env:TOKEN}` keeps every JSON output valid and
// every text plan whole, and its export and show write a placeholder that plans empty again; each
// input is shown by its own path, a secret one as (sensitive, write-only), so a secret hides no
// other change; an API that answers a secret input in clear neither drifts nor shows it; an input
// written without { value: … } says how to write it. No secret value appears anywhere.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { expectNoSecret } from './support/secrets.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { config, ORG, workspace, type Workspace } from './support/workspace.js';
import type { CliResult } from './support/cli.js';

type Rec = Record<string, unknown>;
interface PlanJson { changes: Array<{ address: string; action: string; fields: Array<{ path: string; before: unknown; after: unknown; sensitive: boolean; write_only?: true }> }> }
const P = 111;
const TOKEN = 'tok_9f3c1a7e52b8d04c6e';
const TOKEN2 = 'tok_27d5b0e91c4f8a36b1';
const SG_KEY = 'SG.secret-3e8a41c07b9d52f6';
const CLEAR = 'SG.answered-in-clear-5c0e7a9d';
const CIO_TOKEN = 'cio-token-literal-8d2f61a4b7';
const SG_LITERAL = 'SG.literal-in-file-4a7c29e1';

let sandbox: SandboxHandle;
let ws: Workspace;
const outputs: Array<{ label: string; text: string }> = [];
/** Every JSON document any step printed or wrote, by where it came from: each must parse. */
const jsonOutputs: Array<{ label: string; text: string }> = [];

beforeAll(async () => {
  sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [{ id: P, name: 'Web' }] }] } });
  ws = workspace(sandbox);
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

async function cli(label: string, args: string[], env: Rec = {}): Promise<CliResult> {
  const r = await ws.cli(args, { TOKEN, SG_KEY, ...env } as Record<string, string>);
  outputs.push({ label: `${label}: stdout`, text: r.stdout }, { label: `${label}: stderr`, text: r.stderr });
  if (args.includes('json')) jsonOutputs.push({ label, text: r.stdout });
  return r;
}
const planOf = (r: CliResult): PlanJson => JSON.parse(r.stdout) as PlanJson;
const paths = (plan: PlanJson) => plan.changes.flatMap((c) => c.fields.map((f) => f.path));

const HOOK = (other = 'plain') => `      - name: Hook
        type: destination
        template_id: template-webhook
        inputs:
          url: { value: "https://hooks.example.com/in" }
          headers: { value: { Authorization: "Bearer \${env:TOKEN}", X-Other: "${other}" } }
`;
const SENDGRID = (city = 'Paris') => `      - name: Contacts
        type: destination
        template_id: template-sendgrid
        inputs:
          api_key: { value: "\${env:SG_KEY}" }
          email: { value: "{person.properties.email}" }
          properties: { value: { city: "${city}" } }
`;
const file = (hook: string, sendgrid: string) => config(`projects:\n  - id: ${P}\n    hog_functions:\n${hook}${sendgrid}`);

describe('hog function secrets', () => {
  it('a Bearer header from the environment keeps plan JSON, saved plans and text plans whole', async () => {
    const path = ws.write('hogsync.yaml', file(HOOK(), SENDGRID()));
    const json = await cli('plan json', ['plan', path, '--format', 'json', '--out', ws.path('plan.json')]);
    expect(json.code, json.stderr).toBe(0);
    jsonOutputs.push({ label: 'plan --out', text: readFileSync(ws.path('plan.json'), 'utf8') });
    // Each input by its own path; the secret one write-only, the interpolated header masked whole.
    const created = planOf(json).changes.find((c) => c.address.endsWith('/Contacts'));
    expect(created?.fields.filter((f) => f.path.startsWith('inputs.'))).toEqual([
      { path: 'inputs.api_key', before: null, after: '(sensitive)', sensitive: true, write_only: true },
      { path: 'inputs.email', before: null, after: { value: '{person.properties.email}' }, sensitive: false },
      { path: 'inputs.properties', before: null, after: { value: { city: 'Paris' } }, sensitive: false },
    ]);
    const hook = planOf(json).changes.find((c) => c.address.endsWith('/Hook'));
    expect(hook?.fields.find((f) => f.path === 'inputs.headers')).toEqual({ path: 'inputs.headers', before: null, after: '(sensitive)', sensitive: true });
    const applied = await cli('apply', ['apply', '--plan', ws.path('plan.json'), '--auto-approve'], {});
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);

    // The token rotated: the live header (an old token no run registered) is the plan's `before`.
    for (const format of ['json', 'text', 'markdown']) {
      const r = await cli(`plan rotated ${format}`, ['plan', path, '--format', format], { TOKEN: TOKEN2 });
      expect(r.code, r.stderr).toBe(0);
      if (format !== 'json') {
        expect(r.stdout).toMatch(/inputs\.headers:? .*"X-Other":"plain"/);
        expect(r.stdout).not.toContain(TOKEN);
      }
    }
  });

  it('export and show write a placeholder for the live Bearer header (never a mask), and the export plans empty', async () => {
    const out = ws.path('exported.yaml');
    const exported = await cli('export', ['export', '--organization', ORG, '--project', String(P), '--kind', 'hog_functions', '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).not.toContain('redacted');
    const header = /Authorization: \$\{env:(HOGSYNC_[A-Z0-9_]*AUTHORIZATION)\}/.exec(text)?.[1];
    const key = /api_key:\n\s+value: \$\{env:(HOGSYNC_[A-Z0-9_]*API_KEY[A-Z0-9_]*)\}/.exec(text)?.[1];
    expect([header, key], text).toEqual([expect.any(String), expect.any(String)]);
    expect(exported.stderr).toContain(header as string);
    const shown = await cli('show json', ['show', `hog_function:${ORG}/*`, '--format', 'json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain('redacted');
    const replanned = await cli('plan export', ['plan', out, '--detailed-exitcode'], { [header as string]: `Bearer ${TOKEN}`, [key as string]: 'SG.placeholder-value-0000' });
    expect(replanned.code, replanned.stdout + replanned.stderr).toBe(0);
  });

  it('shows each input by its own path: a secret one hides no other change, with or without --resend-secrets', async () => {
    const path = ws.write('hogsync.yaml', file(HOOK(), SENDGRID('Lyon')));
    const quiet = planOf(await cli('plan input changed json', ['plan', path, '--format', 'json']));
    expect(quiet.changes.map((c) => [c.address.split('/').pop(), c.fields])).toEqual([
      ['Contacts', [{ path: 'inputs.properties', before: { value: { city: 'Paris' } }, after: { value: { city: 'Lyon' } }, sensitive: false }]],
    ]);
    const text = await cli('plan input changed', ['plan', path]);
    expect(text.stdout).toContain('inputs.properties: {"value":{"city":"Paris"}} → {"value":{"city":"Lyon"}}');
    expect(text.stdout).not.toContain('write-only');
    const resend = planOf(await cli('plan resend json', ['plan', path, '--format', 'json', '--resend-secrets']));
    const contacts = resend.changes.find((c) => c.address.endsWith('/Contacts'));
    expect(contacts?.fields.map((f) => [f.path, f.before, f.after])).toEqual([
      ['inputs.api_key', '(sensitive)', '(sensitive)'],
      ['inputs.properties', { value: { city: 'Paris' } }, { value: { city: 'Lyon' } }],
    ]);
    const resendText = await cli('plan resend', ['plan', path, '--resend-secrets']);
    expect(resendText.stdout).toContain('inputs.api_key: (sensitive, write-only) → (sensitive, write-only)');
    expect(resendText.stdout).toContain('inputs.properties: {"value":{"city":"Paris"}} → {"value":{"city":"Lyon"}}');
    expect((await cli('apply input', ['apply', path, '--auto-approve'])).code).toBe(0);
    expect((await cli('plan after input', ['plan', path, '--detailed-exitcode'])).code).toBe(0);
  });

  it('an unset secret variable is a note where nothing sends it (plan, drift, an update of another input), an error naming it where something would', async () => {
    const unset = { SG_KEY: undefined } as unknown as Rec;
    const path = ws.write('hogsync.yaml', file(HOOK(), SENDGRID('Nice')));
    const validate = await cli('validate unset', ['validate', path], unset);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stderr).toMatch(/hogsync\.yaml:\d+:\d+: note: environment variable SG_KEY is not set: a write-only secret/);
    const drift = await cli('drift unset', ['drift', path], unset);
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    const plan = await cli('plan unset', ['plan', path], unset);
    expect(plan.code, plan.stderr).toBe(0);
    for (const r of [drift, plan]) {
      expect(r.stdout + r.stderr).toMatch(/hogsync\.yaml:\d+:\d+: environment variable SG_KEY is not set: a write-only secret this run does not send/);
      expect(r.stdout + r.stderr).not.toMatch(/required|error:/);
    }
    const resend = await cli('plan unset resend', ['plan', path, '--resend-secrets'], unset);
    expect(resend.code).toBe(1);
    expect(resend.stderr).toMatch(/hogsync\.yaml:\d+:\d+: environment variable SG_KEY is not set, and hog_function:.*\/Contacts would send its value/);
    const created = ws.write('new/hogsync.yaml', config(`projects:\n  - id: ${P}\n    hog_functions:\n${SENDGRID().replace('Contacts', 'Contacts 2')}`));
    const create = await cli('plan unset create', ['plan', created], unset);
    expect(create.code).toBe(1);
    expect(create.stderr).toMatch(/new\/hogsync\.yaml:9:\d+: environment variable SG_KEY is not set, and .*\/Contacts 2 would send its value \(a create sends every input\)/);
    // Apply changes the other input and keeps the stored secret, without the variable.
    const applied = await cli('apply unset', ['apply', path, '--auto-approve'], unset);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const stored = (sandbox.store.snapshot().hog_functions as Rec[]).find((f) => f.name === 'Contacts') as { secrets: Rec; inputs: Rec };
    expect([(stored.secrets.api_key as Rec).value, (stored.inputs.properties as Rec).value]).toEqual([SG_KEY, { city: 'Nice' }]);
  });

  it('never shows nor compares a secret input that the API answers in clear', async () => {
    // The API answers the stored secret as a value instead of {"secret": true}.
    await sandbox.store.write((state) => {
      const fn = (state.hog_functions as Rec[]).find((f) => f.name === 'Contacts') as { inputs: Rec; secrets: Rec };
      fn.inputs.api_key = { value: CLEAR, order: 0 };
      delete fn.secrets.api_key;
    });
    const path = ws.path('hogsync.yaml');
    const drift = await cli('drift clear json', ['drift', path, '--format', 'json']);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    const plan = await cli('plan clear', ['plan', path, '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
    const resend = await cli('plan clear resend json', ['plan', path, '--resend-secrets', '--format', 'json']);
    expect(paths(planOf(resend))).toEqual(['inputs.api_key']);
    const exported = await cli('export clear', ['export', '--organization', ORG, '--project', String(P), '--kind', 'hog_functions']);
    expect(exported.stdout).toMatch(/api_key:\n\s+value: \$\{env:HOGSYNC_/);
    const shown = await cli('show clear json', ['show', `hog_function:${ORG}/${P}/destination/Contacts`, '--format', 'json']);
    expect(shown.code, shown.stderr).toBe(0);
    for (const r of [drift, plan, resend, exported, shown]) expect(r.stdout + r.stderr).not.toContain(CLEAR);
  });

  it('says how to write an input given without { value: … }', async () => {
    const path = ws.write('bare/hogsync.yaml', config(`projects:\n  - id: ${P}\n    hog_functions:\n      - name: Bare\n        type: destination\n        template_id: template-sendgrid\n        inputs:\n          api_key: \${env:SG_KEY}\n          email: { value: x }\n          properties: { value: {} }\n`));
    const r = await cli('validate bare', ['validate', path]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('hogsync.yaml:9:20: inputs.api_key: must be a mapping, got the value of ${env:SG_KEY}: write api_key: { value: … }');
    expect(r.stderr).not.toContain('"api_key" is required');
  });

  it('reads the schema of a template hogsync does not carry from the API (once per template): masks, checks and completes by it', async () => {
    const cio = (name: string, token: string) => `      - name: ${name}
        type: destination
        template_id: template-customerio
        inputs:
          site_id: { value: "site-1" }
          token: { value: "${token}" }
          identifiers: { value: { email: "{person.properties.email}" } }
`;
    const path = ws.write('cio/hogsync.yaml', config(`projects:\n  - id: ${P}\n    hog_functions:\n${cio('CIO literal', CIO_TOKEN)}${cio('CIO env', '\${env:SG_KEY}')}`));
    sandbox.stats.byRoute = {};
    const json = await cli('plan cio json', ['plan', path, '--format', 'json', '--out', ws.path('cio/plan.json')]);
    expect(json.code, json.stderr).toBe(0);
    jsonOutputs.push({ label: 'plan cio --out', text: readFileSync(ws.path('cio/plan.json'), 'utf8') });
    expect(sandbox.stats.byRoute['GET /api/projects/:project/hog_function_templates/:template_id/']).toBe(1);
    const plan = JSON.parse(json.stdout) as PlanJson & { warnings: string[] };
    for (const change of plan.changes) {
      expect(change.fields.find((f) => f.path === 'inputs.token')).toEqual({ path: 'inputs.token', before: null, after: '(sensitive)', sensitive: true, write_only: true });
    }
    // A literal secret is masked, and belongs in the environment; one from the environment is not warned about.
    expect(plan.warnings.filter((w) => w.includes('"token" is secret'))).toEqual([
      expect.stringMatching(/^.*cio\/hogsync\.yaml:\d+:\d+: inputs\.token\.value: input "token" is secret \(template template-customerio\) and written as a literal/),
    ]);
    // Completed by the schema (its required host has a default), created, and planned empty.
    const applied = await cli('apply cio', ['apply', path, '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect((await cli('plan cio again', ['plan', path, '--detailed-exitcode'])).code).toBe(0);
    // Exported by its template (not the source and schema the API copied), its secret as a placeholder: plans empty.
    const exported = ws.path('cio/exported.yaml');
    expect((await cli('export cio', ['export', '--organization', ORG, '--project', String(P), '--kind', 'hog_functions', '--out', exported])).code).toBe(0);
    const text = readFileSync(exported, 'utf8');
    expect(text).toContain('template_id: template-customerio');
    expect(text).not.toContain('inputs_schema');
    const variables = [...text.matchAll(/\$\{env:(HOGSYNC_[A-Z0-9_]+)\}/g)].map((m) => m[1] as string);
    expect(variables.filter((v) => v.includes('_CIO_') && v.endsWith('TOKEN_VALUE'))).toHaveLength(2);
    const env = Object.fromEntries(variables.map((v) => [v, v.includes('AUTHORIZATION') ? `Bearer ${TOKEN}` : 'placeholder-secret-0000']));
    const replanned = await cli('plan cio export', ['plan', exported, '--detailed-exitcode'], env);
    expect(replanned.code, replanned.stdout + replanned.stderr).toBe(0);
    // Checked by the schema: a required input left out is a plan error before anything is sent.
    const missing = ws.write('cio/missing.yaml', config(`projects:\n  - id: ${P}\n    hog_functions:\n      - name: CIO bare\n        type: destination\n        template_id: template-customerio\n        inputs: { site_id: { value: s } }\n`));
    const refused = await cli('plan cio missing', ['plan', missing]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/missing\.yaml:5:9: inputs: input "token" is required by template template-customerio/);
  });

  it('a template neither hogsync nor the API knows is a plan error at its function, naming the nearest id; validate warns of a literal secret', async () => {
    const path = ws.write('typo/hogsync.yaml', config(`projects:\n  - id: ${P}\n    hog_functions:\n      - name: Typo\n        type: destination\n        template_id: template-customeri\n      - name: Typo 2\n        type: destination\n        template_id: template-webhok\n      - name: Literal\n        type: destination\n        template_id: template-sendgrid\n        inputs:\n          api_key: { value: "${SG_LITERAL}" }\n          email: { value: x }\n          properties: { value: {} }\n`));
    const plan = await cli('plan typo', ['plan', path]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('typo/hogsync.yaml:5:9: template_id: "template-customeri" is a template neither hogsync nor the API knows (the API would refuse to create the function): did you mean "template-customerio"?');
    // Every unknown template in one run.
    expect(plan.stderr).toContain('typo/hogsync.yaml:8:9: template_id: "template-webhok" is a template neither hogsync nor the API knows (the API would refuse to create the function): did you mean "template-webhook"?');
    const validate = await cli('validate literal', ['validate', path]);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stderr).toContain('typo/hogsync.yaml:10:22: warning: template_id: "template-webhok" is not a template hogsync knows offline (plan asks the API for it): did you mean "template-webhook"?');
    expect(validate.stderr).toMatch(/typo\/hogsync\.yaml:15:\d+: warning: inputs\.api_key\.value: input "api_key" is secret \(template template-sendgrid\) and written as a literal: it is masked, but it belongs in the environment/);
  });

  it('every JSON output parses, and no secret appears in anything printed or written', () => {
    for (const { label, text } of jsonOutputs) expect(() => JSON.parse(text), `${label}: ${text}`).not.toThrow();
    expect(jsonOutputs.length).toBeGreaterThanOrEqual(6);
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    // The files that write a literal secret on purpose aside, everything hogsync wrote.
    const literal = [join('cio', 'hogsync.yaml'), join('typo', 'hogsync.yaml')];
    for (const f of files(ws.dir)) if (!literal.some((l) => f.endsWith(l))) outputs.push({ label: f, text: readFileSync(f, 'utf8') });
    expectNoSecret(outputs, [TOKEN, TOKEN2, SG_KEY, CLEAR, CIO_TOKEN, SG_LITERAL]);
  });
});
