// The feature flag examples of PostHog's own Terraform provider (test/fixtures/terraform-flags,
// origin noted there), as a hogsync file: applied to a sandbox that rewrites flags as the real
// API does, they converge, and a plan right after is empty.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { workspace } from './support/workspace.js';

const FIXTURE = readFileSync(new URL('./fixtures/terraform-flags/hogsync.yaml', import.meta.url), 'utf8');

afterEach(stopAllSandboxes);

describe('Terraform provider flag examples', () => {
  it('converge and then plan empty', async () => {
    const sb = await inProcessSandbox();
    const ws = workspace(sb);
    try {
      ws.write('hogsync.yaml', FIXTURE);
      const applied = await ws.cli(['apply', '--auto-approve']);
      expect(applied.code, applied.stdout + applied.stderr).toBe(0);
      expect(applied.stdout).toMatch(/6 applied/);
      const plan = await ws.cli(['plan', '--detailed-exitcode', '--format', 'json']);
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      const body = JSON.parse(plan.stdout) as { summary: Record<string, number> };
      expect(body.summary).toMatchObject({ create: 0, update: 0, delete: 0, unchanged: 7 });
    } finally {
      ws.remove();
    }
  });
});
