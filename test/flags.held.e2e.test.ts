// Flags that something else owns (PRODUCT.md "Flags that something else owns"): prune never
// deletes a flag that an experiment, an early access feature, a survey or an active flag holds.
// It stays unmanaged and says what holds it, in every format; plain undeclared flags are still
// pruned; `ensure: absent` on a held flag is a plan error naming the owner. Against the sandbox
// (api_version 2026, which names experiments), through the CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, inProcessSandbox, stopAllSandboxes, type Api } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

type Rec = Record<string, unknown>;
const ALL = { groups: [{ properties: [], rollout_percentage: 100 }] };
const ON = (id: number) => ({ groups: [{ properties: [{ key: String(id), type: 'flag', operator: 'flag_evaluates_to', value: true }] }] });

let ws: Workspace;
let http: Api;
const liveKeys = async (): Promise<string[]> => ((await http.get('/api/projects/12345/feature_flags/?limit=100')).body as { results: Rec[] }).results.map((f) => f.key as string).sort();

const FILES = config(`projects:
  - id: 12345
    feature_flags:
      - key: kept
      - key: child
prune:
  feature_flags: true
`);

beforeAll(async () => {
  const sandbox = await inProcessSandbox({
    seed: {
      api_version: 2026,
      organizations: [{
        id: ORG,
        projects: [{
          id: 12345,
          feature_flags: [
            { key: 'base', filters: ALL }, // id 1: the declared "child" depends on it
            { key: 'child', filters: ON(1) },
            { key: 'checkout', filters: ALL, experiments: [{ id: 41, name: 'Checkout test' }] },
            { key: 'nps', filters: ALL, surveys: ['NPS survey'] },
            { key: 'beta', filters: ALL, early_access_features: ['Beta dashboard'] },
            { key: 'kept', filters: ALL },
            { key: 'stale-1', filters: ALL },
            { key: 'stale-2', filters: ALL },
          ],
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

describe('prune and flags that something else owns', () => {
  it('lists held flags as unmanaged with what holds them, in JSON, text, Markdown and JUnit, and prunes only the plain ones', async () => {
    const file = ws.write('flags.yaml', FILES);
    const json = JSON.parse((await ws.cli(['plan', file, '--format', 'json'])).stdout) as { changes: Rec[]; unmanaged: Rec[] };
    expect(json.changes.map((c) => `${c.action as string} ${c.key as string}`).sort()).toEqual(['delete 12345/stale-1', 'delete 12345/stale-2']);
    const held = Object.fromEntries(json.unmanaged.map((u) => [u.key, u.held_by]));
    expect(held['12345/checkout']).toEqual([{ kind: 'experiment', id: 41, name: 'Checkout test' }]);
    expect(held['12345/nps']).toEqual([{ kind: 'survey', id: expect.any(String), name: 'NPS survey' }]);
    expect(held['12345/beta']).toEqual([{ kind: 'early_access_feature', id: expect.any(String), name: 'Beta dashboard' }]);
    expect(held['12345/base']).toEqual([{ kind: 'feature_flag', id: 2, name: 'child' }]);

    const text = (await ws.cli(['plan', file])).stdout;
    expect(text).toContain(`? feature_flag:${ORG}/12345/checkout (held by experiment "Checkout test": never pruned)`);
    expect(text).toContain(`? feature_flag:${ORG}/12345/nps (held by survey "NPS survey": never pruned)`);
    expect(text).toContain(`? feature_flag:${ORG}/12345/beta (held by early access feature "Beta dashboard": never pruned)`);
    expect(text).toContain(`? feature_flag:${ORG}/12345/base (held by feature flag "child": never pruned)`);
    const markdown = (await ws.cli(['plan', file, '--format', 'markdown'])).stdout;
    expect(markdown).toContain(`- \`feature_flag:${ORG}/12345/checkout\` (held by experiment &quot;Checkout test&quot;: never pruned)`);
    const junit = (await ws.cli(['drift', file, '--format', 'junit'])).stdout;
    expect(junit).toContain(`feature_flag:${ORG}/12345/checkout (held by experiment &quot;Checkout test&quot;: never pruned)`);

    const apply = await ws.cli(['apply', file, '--auto-approve']);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(await liveKeys()).toEqual(['base', 'beta', 'checkout', 'child', 'kept', 'nps']);
    expect((await ws.cli(['plan', file, '--detailed-exitcode'])).code).toBe(0);
  });

  it('refuses ensure: absent on a held flag at plan time, naming what holds it', async () => {
    for (const [key, owner] of [['checkout', 'experiment "Checkout test"'], ['nps', 'survey "NPS survey"']]) {
      const file = ws.write(`absent-${key as string}.yaml`, config(`projects:
  - id: 12345
    feature_flags:
      - key: ${key as string}
        ensure: absent
`));
      const r = await ws.cli(['plan', file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`absent-${key as string}.yaml:5:9: feature flag "12345/${key as string}" has ensure: absent, but it is held by ${owner as string}`);
    }
    expect(await liveKeys()).toContain('checkout');
  });
});
