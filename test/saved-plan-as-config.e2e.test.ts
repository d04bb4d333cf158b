// A saved plan given where configuration is expected (Terraform's `apply plan.json`): every
// command that takes configuration paths says in one line that it is a saved plan and how to
// apply it (exit 1), instead of reading its JSON as configuration and listing schema errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { config, ORG, workspace, type Workspace } from './support/workspace.js';

let ws: Workspace;
beforeAll(async () => {
  const sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [{ id: 12345, name: 'Web app' }] }] } });
  ws = workspace(sandbox);
  ws.write('hogsync.yaml', config('roles:\n  - name: Engineers\n'));
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

describe('a saved plan given as configuration', () => {
  it('validate, plan, apply, drift and fmt say it is a saved plan and to use apply --plan, in one line', async () => {
    const saved = await ws.cli(['plan', '--out', 'plan.json']);
    expect(saved.code, saved.stderr).toBe(0);
    for (const verb of ['validate', 'plan', 'apply', 'drift', 'fmt']) {
      const r = await ws.cli([verb, 'plan.json']);
      expect({ verb, code: r.code, stderr: r.stderr }).toEqual({
        verb, code: 1, stderr: 'error: plan.json:1:1: this is a saved plan (plan --out), not configuration: run `hogsync apply --plan plan.json`\n',
      });
    }
    // The advice works.
    const applied = await ws.cli(['apply', '--plan', 'plan.json', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
  });
});
