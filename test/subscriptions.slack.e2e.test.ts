// A subscription delivered to a Slack channel, through the real CLI against one sandbox seeded
// with examples/analytics (Web (dev) has the Slack integration "Acme Slack" with #growth and
// #general; here also a GitHub integration, and another project's Slack integration): declared
// by channel and integration name under the Growth dashboard it converges and plans empty, the
// channels are read only for the changes that send one, a change of channel sends a delivery;
// export and show write it back by names and the export plans empty; validate refuses offline
// what is knowable, the plan refuses an unknown integration or channel at the line, and the
// sandbox refuses what the API's serializer refuses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedFile } from '../src/sandbox/seed.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { api, inProcessSandbox, ROOT, stopAllSandboxes, type Api } from './support/sandbox.js';
import { ORG, workspace, type Workspace } from './support/workspace.js';
import { fixtureProblems, recordCliRequests, type SentRequest } from './support/cli-requests.js';

type Rec = Record<string, unknown>;
type PlanJson = { changes: Array<Rec & { address: string; action: string }> };
const ADDRESS = `subscription:${ORG}/3001/dashboard/Growth/Growth to Slack`;

/** A key with every scope of dashboards and their subscriptions but not `integration:read`. */
const NO_INTEGRATIONS_KEY = 'phx_subscriptions_without_integrations_000';
let sandbox: SandboxHandle;
let ws: Workspace;
let http: Api;
/** What the CLI sent (its user agent) to subscriptions and integrations. */
let sent: SentRequest[] = [];

const declared = (lines: string) => `organization: ${ORG}
projects:
  - id: 3001
    dashboards:
      - name: Growth
        subscriptions:
          - title: Growth to Slack
            frequency: weekly
            byweekday: [ monday ]
            start_date: 2026-01-05T09:00:00Z
${lines}`;

beforeAll(async () => {
  const seed = await loadSeedFile(join(ROOT, 'examples/analytics/sandbox/seed.yaml')) as { organizations: Array<{ projects: Rec[] }> };
  const [dev, staging] = seed.organizations[0]!.projects as [Rec, Rec];
  dev.integrations = [...(dev.integrations as Rec[]), { kind: 'github', name: 'Acme GitHub' }, { kind: 'slack', name: 'Beta Slack', channels: ['general'] }];
  staging.integrations = [{ kind: 'slack', name: 'Staging Slack', channels: ['growth'] }];
  (seed as Rec).keys = [{ key: NO_INTEGRATIONS_KEY, scopes: ['organization:read', 'project:read', 'insight:read', 'dashboard:read', 'subscription:write'] }];
  sandbox = await inProcessSandbox({ seed: seed as never });
  ws = workspace(sandbox);
  http = api(sandbox.baseUrl, sandbox.apiKey);
  sent = recordCliRequests(sandbox, /\/(integrations|subscriptions)\//);
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const clean = (args: string[]) => ws.clean(args);
const integrations = async (p: number) => ((await http.get(`/api/projects/${p}/integrations/`)).body as { results: Rec[] }).results;
const subscriptions = async () => ((await http.get('/api/projects/3001/subscriptions/')).body as { results: Rec[] }).results;
const deliveries = async () => (await (await fetch(`${sandbox.baseUrl}/_sandbox/deliveries/`, { method: 'POST' })).json()) as Record<string, number>;
/** The CLI's reads of integrations and channels since `from` (an index of `sent`). */
const reads = (from: number, what: RegExp) => sent.slice(from).filter((r) => r.method === 'GET' && what.test(r.path)).length;

describe('a Slack subscription by channel and integration name', () => {
  it('converges under the Growth dashboard and plans empty; channels are read only for the changes that send one', async () => {
    const file = ws.write('hogsync.yaml', declared('            target_type: slack\n            target_value: "#growth"\n            integration: Acme Slack\n'));
    const planned = JSON.parse((await clean(['plan', file, '--format', 'json'])).stdout) as PlanJson;
    expect(planned.changes.find((c) => c.address === ADDRESS)).toMatchObject({ action: 'create', sends_delivery: true });
    await clean(['apply', file, '--auto-approve']);
    const acme = (await integrations(3001)).find((i) => i.display_name === 'Acme Slack') as Rec;
    const [live] = await subscriptions();
    expect(live).toMatchObject({ target_type: 'slack', target_value: expect.stringMatching(/^C\w+\|#growth$/), integration_id: acme.id });
    expect((await deliveries())[String((live as Rec).id)]).toBe(1);

    const before = sent.length;
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
    expect(reads(before, /\/integrations\/(\?limit=\d+)?$/)).toBe(1);
    expect(reads(before, /\/channels\//)).toBe(0);

    // Another channel: an update that sends a delivery, the channel found by its name.
    ws.write('hogsync.yaml', readFileSync(file, 'utf8').replace('"#growth"', '"#general"'));
    const text = (await clean(['plan', file])).stdout;
    expect(text).toContain('sends a delivery now');
    expect(text).toMatch(/- channel #growth\n.*\+ channel #general/s);
    await clean(['apply', file, '--auto-approve']);
    expect((await subscriptions())[0]).toMatchObject({ target_value: expect.stringMatching(/^C\w+\|#general$/), integration_id: acme.id });
    expect((await deliveries())[String((live as Rec).id)]).toBe(2);

    // Another workspace: the integration changed alone sends the channel again, found in that workspace.
    const acmeGeneral = ((await subscriptions())[0] as Rec).target_value;
    ws.write('hogsync.yaml', readFileSync(file, 'utf8').replace('integration: Acme Slack', 'integration: Beta Slack'));
    const moved = JSON.parse((await clean(['plan', file, '--format', 'json'])).stdout) as PlanJson;
    expect(moved.changes.find((c) => c.address === ADDRESS)).toMatchObject({ action: 'update', sends_delivery: true });
    await clean(['apply', file, '--auto-approve']);
    const beta = (await integrations(3001)).find((i) => i.display_name === 'Beta Slack') as Rec;
    const after = (await subscriptions())[0] as Rec;
    expect(after).toMatchObject({ target_value: expect.stringMatching(/^C\w+\|#general$/), integration_id: beta.id });
    expect(after.target_value).not.toBe(acmeGeneral);
    expect((await deliveries())[String((live as Rec).id)]).toBe(3);
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('export and show write it back by channel and integration name, and the export plans empty', async () => {
    await clean(['export', '--organization', ORG, '--project', '3001', '--kind', 'subscriptions', '--out', ws.path('exported.yaml')]);
    const exported = readFileSync(ws.path('exported.yaml'), 'utf8');
    expect(exported).toMatch(/- title: Growth to Slack\n(\s+\w+: .*\n)*?\s+target_type: slack\n\s+target_value: "#general"\n/);
    expect(exported).toMatch(/integration: Beta Slack/);
    const again = await ws.cli(['plan', ws.path('exported.yaml'), '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const shown = (await clean(['show', ADDRESS])).stdout;
    expect(shown).toMatch(/target_value: "#general"/);
    expect(shown).toMatch(/integration: Beta Slack/);
  });

  it('validate refuses offline a Slack target without its integration or with a list, and a channel or an integration for email', async () => {
    const bad = ws.write('bad.yaml', `organization: ${ORG}
projects:
  - id: 3001
    dashboards:
      - name: Growth
        subscriptions:
          - title: No integration
            target_type: slack
            target_value: "#growth"
          - title: Two channels
            target_type: slack
            target_value: [ "#growth", "#general" ]
            integration: Acme Slack
          - title: Channel by email
            target_type: email
            target_value: "#growth"
          - title: Email with integration
            target_type: email
            target_value: [ alice@example.com ]
            integration: Acme Slack
`);
    const r = await ws.cli(['validate', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.yaml:8:\d+: .*a Slack subscription needs `integration`: the project's Slack integration, by name/);
    expect(r.stderr).toMatch(/bad\.yaml:12:\d+: .*a Slack subscription delivers to one channel/);
    expect(r.stderr).toMatch(/bad\.yaml:16:\d+: .*an email subscription's target_value is a list of emails, not a Slack channel/);
    expect(r.stderr).toMatch(/bad\.yaml:20:\d+: .*`integration` names the Slack integration of a Slack subscription/);
  });

  it('the plan refuses, at the line, an integration the project has not (did you mean), one of another kind, and a channel the integration does not see', async () => {
    const names = ws.write('names.yaml', `organization: ${ORG}
projects:
  - id: 3001
    dashboards:
      - name: Growth
        subscriptions:
          - title: Typo
            target_type: slack
            target_value: "#growth"
            integration: Acme Slak
          - title: GitHub
            target_type: slack
            target_value: "#growth"
            integration: Acme GitHub
`);
    const r = await ws.cli(['plan', names]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/names\.yaml:7:\d+: subscription "Typo": integration: project 3001 has no Slack integration "Acme Slak" \(did you mean "Acme Slack"\?\); its Slack integrations: Acme Slack, Beta Slack/);
    expect(r.stderr).toMatch(/names\.yaml:11:\d+: subscription "GitHub": integration: "Acme GitHub" is a github integration of project 3001, and the API delivers Slack subscriptions only through a Slack integration/);

    const channel = ws.write('channel.yaml', declared('            target_type: slack\n            target_value: "#nope"\n            integration: Acme Slack\n'));
    const c = await ws.cli(['plan', channel]);
    expect(c.code).toBe(1);
    expect(c.stderr).toMatch(/channel\.yaml:7:\d+: .*Growth to Slack: target_value: the Slack integration "Acme Slack" sees no channel #nope/);
  });

  it('the sandbox refuses a Slack target without an integration, with another project\'s, or with one of another kind', async () => {
    const [own, other] = [await integrations(3001), await integrations(3002)];
    const github = own.find((i) => i.kind === 'github') as Rec;
    const dashboard = ((await subscriptions())[0] as Rec).dashboard;
    const base = { dashboard, target_type: 'slack', target_value: 'C001GROWTH|#growth', frequency: 'weekly', start_date: '2026-01-05T09:00:00Z' };
    const refusals: Array<[Rec, RegExp]> = [
      [{}, /A Slack integration is required for Slack subscriptions/],
      [{ integration_id: (other[0] as Rec).id }, /This integration does not exist or does not belong to your team/],
      [{ integration_id: github.id }, /Slack subscriptions require a Slack integration/],
    ];
    for (const [over, message] of refusals) {
      const r = await http.post('/api/projects/3001/subscriptions/', { ...base, ...over });
      expect(r.status, JSON.stringify(over)).toBe(400);
      expect(String((r.body as Rec).detail)).toMatch(message);
    }
    const id = ((await subscriptions())[0] as Rec).id;
    const patched = await http.patch(`/api/projects/3001/subscriptions/${String(id)}/`, { integration_id: null });
    expect(patched.status).toBe(400);
    expect(String((patched.body as Rec).detail)).toMatch(/A Slack integration is required/);
  });

  it('every subscription and integration request the CLI sent is one the OpenAPI fixture accepts', () => {
    expect(sent.some((r) => /\/channels\//.test(r.path))).toBe(true);
    const problems = fixtureProblems(sent);
    expect(problems).toEqual([]);
  });
});
describe('the key\'s scopes', () => {
  it('a Slack subscription needs integration:read: said before anything is read, with the other missing scopes', async () => {
    const limited = workspace({ baseUrl: sandbox.baseUrl, apiKey: NO_INTEGRATIONS_KEY });
    const file = limited.write('slack.yaml', declared('            target_type: slack\n            target_value: "#growth"\n            integration: Acme Slack\n'));
    const reads = () => Object.entries(sandbox.stats.byRoute).filter(([route]) => /dashboards|subscriptions|integrations/.test(route)).map(([, n]) => n);
    const before = JSON.stringify(reads());
    const r = await limited.cli(['plan', file]);
    limited.remove();
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/integration:read/);
    expect(r.stdout).toBe('');
    // Refused up front: not one dashboard, subscription or integration was read with this key.
    expect(JSON.stringify(reads())).toBe(before);
  });
});
