// The real API's behaviour (PRODUCT.md "Real-API behaviour to tolerate"), end to end: the real
// CLI against a sandbox that behaves that way. Each behaviour converges in one apply and then
// plans empty.
import { afterEach, describe, expect, it } from 'vitest';
import type { SeedDocument } from '../src/sandbox/seed.js';
import type { SandboxHandle, SandboxOptions } from '../src/sandbox/server.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;
afterEach(async () => {
  ws?.remove();
  await stopAllSandboxes();
});

async function start(seed: SeedDocument, options: SandboxOptions = {}): Promise<void> {
  sandbox = await inProcessSandbox({ seed, ...options });
  ws = workspace(sandbox);
}

/** Applies the file, expects exit 0, then a plan with no changes. */
async function convergesInOneApply(path: string): Promise<{ stdout: string; stderr: string }> {
  const r = await ws.cli(['apply', path, '--auto-approve']);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  const after = await ws.cli(['plan', path, '--detailed-exitcode']);
  expect(after.code, after.stdout).toBe(0);
  return r;
}

describe('fields the API merges', () => {
  it('sends a key the file dropped as null, so it goes; null and absent compare equal inside; then the plan is empty', async () => {
    await start({
      organizations: [{
        id: ORG,
        projects: [{
          id: 12345,
          survey_config: { appearance: { backgroundColor: '#fff' }, default_language: 'en' },
          session_replay_config: { record_canvas: true, ai_config: { opt_in: true, preferred_events: ['$pageview'] } },
          modifiers: { personsOnEventsMode: 'disabled', bounceRatePageViewMode: 'count_pageviews' },
        }],
      }],
    });
    const path = ws.write('h.yaml', config(`projects:
  - id: 12345
    survey_config: { appearance: { backgroundColor: "#fff" } }
    session_replay_config: { ai_config: { opt_in: true } }
    modifiers: { personsOnEventsMode: disabled }
`));
    const planned = await ws.cli(['plan', path, '--format', 'json']);
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ fields: Array<{ path: string }> }> };
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]?.fields.map((f) => f.path).sort()).toEqual(['modifiers', 'session_replay_config', 'survey_config']);
    await convergesInOneApply(path);
    const live = sandbox.store.snapshot().projects.find((p) => p.id === 12345) as Record<string, unknown>;
    expect(live.survey_config).toEqual({ appearance: { backgroundColor: '#fff' }, default_language: null });
    expect(live.session_replay_config).toEqual({ record_canvas: null, ai_config: { opt_in: true, preferred_events: null } });
    expect(live.modifiers).toEqual({ personsOnEventsMode: 'disabled', bounceRatePageViewMode: null });
  });
});
