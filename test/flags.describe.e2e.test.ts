// Flag changes in the web app's words, end to end: the real CLI plans flags with several
// condition sets, multivariate splits, payloads and group aggregation against the sandbox,
// and the text and Markdown plans show the lines a reviewer reads; a shape it cannot
// describe shows the JSON diff of that part; JSON keeps the exact before/after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';
import type { SeedDocument } from '../src/sandbox/seed.js';
import type { SandboxHandle } from '../src/sandbox/server.js';

const country = (value: string[]) => ({ key: 'country', type: 'person', operator: 'exact', value });
const SEED: SeedDocument = {
  organizations: [{
    id: ORG,
    projects: [{
      id: 12345, name: 'Web app',
      feature_flags: [
        {
          key: 'experiment', name: 'Experiment', active: true,
          filters: {
            groups: [
              { properties: [country(['DE', 'FR'])], rollout_percentage: 50 },
              { properties: [{ key: 'email', type: 'person', operator: 'icontains', value: '@example.com' }], rollout_percentage: 100 },
              { properties: [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro'] }], rollout_percentage: 10, variant: 'test' },
            ],
            multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
            payloads: { control: { color: 'blue' }, test: { color: 'red' } },
          },
        },
        {
          key: 'per-company', name: 'Per company', active: true,
          filters: { groups: [{ properties: [], rollout_percentage: 30 }] },
        },
        {
          key: 'reordered', name: 'Reordered', active: true,
          filters: { groups: [{ properties: [country(['DE'])], rollout_percentage: 100 }, { properties: [], rollout_percentage: 5 }] },
        },
        {
          key: 'odd', name: 'Odd', active: true,
          filters: { groups: [{ properties: [{ key: 'age', type: 'person', operator: 'exact', value: ['30'] }], rollout_percentage: 100 }] },
        },
      ],
    }],
  }],
};

const FILES = config(`projects:
  - id: 12345
    feature_flags:
      - key: experiment
        filters:
          groups:
            - properties:
                - { key: country, type: person, operator: exact, value: [DE] }
                - { key: signed_up, type: person, operator: is_date_before, value: "2026-01-01" }
              rollout_percentage: 20
            - properties: [ { key: email, type: person, operator: icontains, value: "@example.com" } ]
              rollout_percentage: 100
            - properties: [ { key: plan, type: person, operator: exact, value: [pro] } ]
              rollout_percentage: 10
              variant: control
            - properties: [ { key: beta, type: person, operator: is_not_set } ]
              rollout_percentage: 5
          multivariate:
            variants:
              - { key: control, rollout_percentage: 40 }
              - { key: test, rollout_percentage: 30 }
              - { key: test-b, rollout_percentage: 30 }
          payloads:
            control: '{"color": "green"}'
            test: '{"color": "red"}'
            test-b: '{"color": "black"}'
      - key: per-company
        filters:
          aggregation_group_type_index: 0
          groups:
            - properties: [ { key: industry, type: group, group_type_index: 0, operator: exact, value: [tech] } ]
              rollout_percentage: 30
      - key: reordered
        filters:
          groups:
            - { properties: [], rollout_percentage: 5 }
            - { properties: [ { key: country, type: person, operator: exact, value: [DE] } ], rollout_percentage: 100 }
      - key: odd
        filters:
          groups:
            - properties: [ { key: age, type: person, operator: icontains_multi, value: ["1", "3"] } ]
              rollout_percentage: 100
      - key: fresh
        name: Fresh
        active: true
        filters:
          groups: [ { properties: [ { key: email, type: person, operator: icontains, value: "@example.com" } ], rollout_percentage: 30 } ]
          multivariate: { variants: [ { key: control, rollout_percentage: 50 }, { key: test, rollout_percentage: 50 } ] }
`);

let sandbox: SandboxHandle;
let ws: Workspace;
let file: string;
let text: string;
let markdown: string;

/** The block of a change in the text plan: its address line and the lines under it. */
function block(plan: string, key: string): string {
  const start = plan.indexOf(`~ feature_flag:${ORG}/12345/${key}\n`);
  expect(start, `no change of ${key} in:\n${plan}`).toBeGreaterThanOrEqual(0);
  const end = plan.indexOf('\n\n', start);
  return plan.slice(start, end);
}

beforeAll(async () => {
  sandbox = await inProcessSandbox({ seed: SEED });
  ws = workspace(sandbox);
  file = ws.write('hogsync.yaml', FILES);
  const t = await ws.cli(['plan', file]);
  expect(t.stderr).toBe('');
  text = t.stdout;
  markdown = (await ws.cli(['plan', file, '--format', 'markdown'])).stdout;
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

describe('flag changes in the web app\'s words', () => {
  it('reads condition sets, variants and payloads of a multivariate flag as a reviewer does (text)', () => {
    // (The line that says where the flag is declared comes first: test/render.targets.test.ts covers it.)
    expect(block(text, 'experiment').split('\n').slice(1).filter((l) => !l.includes('blast radius') && !l.includes('# declared at'))).toEqual([
      '      filters:',
      '        ~ condition set 1: rollout 50% → 20%',
      '        ~ condition set 1: country is one of DE, FR → country equals DE',
      '        + condition set 1: signed_up before 2026-01-01',
      '        ~ condition set 3: variant override test → control',
      '        + condition set 4: beta is not set, rollout 5%',
      '        ~ variant control 50% → 40%',
      '        ~ variant test 50% → 30%',
      '        + variant test-b 30%',
      '        ~ payload for control {"color":"blue"} → {"color":"green"}',
      '        + payload for test-b {"color":"black"}',
    ]);
  });

  it('says the flag-level aggregation once, a reordering as such, and shows what it cannot describe as JSON', () => {
    expect(block(text, 'per-company')).toContain([
      '      filters:',
      '        ~ match by users → group type 0',
      '        + condition set 1: industry (group type 0) equals tech',
    ].join('\n'));
    expect(block(text, 'reordered')).toContain('      filters:\n        ~ condition sets reordered: 1, 2 → 2, 1');
    const odd = block(text, 'odd');
    // The same property with an operator it does not know: that property as a JSON diff.
    expect(odd).toContain('      filters:\n        condition set 1: property age (as JSON):\n');
    expect(odd).toMatch(/\n {10}- {3}"operator": "exact",\n {10}\+ {3}"operator": "icontains_multi",\n/);
  });

  it('reads the release conditions of a flag to create the same way, every line added', () => {
    const start = text.indexOf(`+ feature_flag:${ORG}/12345/fresh\n`);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(text.slice(start, text.indexOf('\n\n', start))).toContain([
      '      filters:',
      '        + condition set 1: email contains @example.com, rollout 30%',
      '        + variant control 50%',
      '        + variant test 50%',
    ].join('\n'));
    expect(markdown).toContain('\n  filters:\n+   condition set 1: email contains @example.com, rollout 30%\n');
  });

  it('shows the same lines in Markdown, changed lines marked for diff highlighting', () => {
    for (const line of [
      '  filters:',
      '!   condition set 1: rollout 50% → 20%',
      '!   condition set 1: country is one of DE, FR → country equals DE',
      '+   condition set 1: signed_up before 2026-01-01',
      '!   condition set 3: variant override test → control',
      '+   condition set 4: beta is not set, rollout 5%',
      '!   variant control 50% → 40%',
      '+   variant test-b 30%',
      '!   payload for control {"color":"blue"} → {"color":"green"}',
      '!   match by users → group type 0',
      '!   condition sets reordered: 1, 2 → 2, 1',
      '    condition set 1: property age (as JSON):',
      '+       "operator": "icontains_multi",',
    ]) expect(markdown, line).toContain(`\n${line}\n`);
  });

  it('keeps the exact before/after in JSON', async () => {
    const plan = JSON.parse((await ws.cli(['plan', file, '--format', 'json'])).stdout) as { changes: Array<{ key: string; fields: Array<{ path: string; before: { groups: unknown[] }; after: { groups: unknown[] } }> }> };
    const change = plan.changes.find((c) => c.key === '12345/reordered');
    expect(change?.fields[0]?.before.groups).toEqual([
      expect.objectContaining({ rollout_percentage: 100 }), expect.objectContaining({ rollout_percentage: 5 }),
    ]);
    expect(JSON.stringify(plan)).not.toContain('condition set');
  });
});
