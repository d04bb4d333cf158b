// The accepted half of the flag corpus (test/fixtures/flags-corpus/accept/), applied to one
// sandbox through the CLI in one run, then planned: the API took every flag as written, so the
// plan is empty. Files marked `# offline-only` hold references by name, which the plan resolves
// (another change): validate accepts them (test/flags.corpus.test.ts), apply cannot yet.
// Also: `groups: []` on a flag the plan creates is a plan error at the flag's line.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

const ACCEPT = fileURLToPath(new URL('./fixtures/flags-corpus/accept/', import.meta.url));

let ws: Workspace;
beforeAll(async () => {
  // Flag dependencies in the corpus name flag id 1: the seed's first flag; cohort conditions cohorts 42 and 43.
  const sandbox = await inProcessSandbox({
    seed: { organizations: [{ id: ORG, projects: [{ id: 12345, cohorts: [{ id: 42, name: 'Corpus cohort' }, { id: 43, name: 'Other corpus cohort' }], feature_flags: [{ key: 'base', active: true, filters: { groups: [{ rollout_percentage: 100 }] } }] }] }] },
  });
  ws = workspace(sandbox);
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

describe('flag corpus against the sandbox', () => {
  it('applies every accepted flag as written, and then plans empty', async () => {
    const names = readdirSync(ACCEPT).filter((f) => f.endsWith('.yaml'));
    let applied = 0;
    for (const name of names) {
      const text = readFileSync(join(ACCEPT, name), 'utf8');
      if (/^# offline-only/m.test(text)) continue;
      ws.write(`corpus/${name}`, text);
      applied++;
    }
    expect(applied).toBeGreaterThanOrEqual(20);
    const apply = await ws.cli(['apply', 'corpus', '--auto-approve']);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(new RegExp(`Apply complete: ${applied} applied, 0 failed`));
    const plan = await ws.cli(['plan', 'corpus', '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });

  it('refuses at plan time a flag it would create with no condition set, at the flag\'s line', async () => {
    const file = ws.write('empty.yaml', config(`projects:
  - id: 12345
    feature_flags:
      - key: no-conditions
        filters: { groups: [] }
`));
    const r = await ws.cli(['plan', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`empty\\.yaml:5:9: .*no-conditions: filters\\.groups is empty, and this plan creates the flag: the API refuses a new flag without a condition set`));
    // An existing flag may keep an empty list (the API takes it on an update): validate has nothing to say.
    expect((await ws.cli(['validate', file])).code).toBe(0);
  });
});
