// Access rules per resource type: the files take the API's own resource types only (a misspelt
// one is an error at its line with the nearest name, before anything is sent), the sandbox
// refuses the same names the real API refuses, and the API's list of valid values reaches the
// user whole, never cut out of the message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ApiClient } from '../src/http/client.js';
import { errorMessage } from '../src/http/api-error.js';
import { HogsyncError } from '../src/errors.js';
import { RESOURCES } from '../src/sandbox/routes/access-controls.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { config, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;

beforeAll(async () => {
  sandbox = await inProcessSandbox();
  ws = workspace(sandbox);
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});

describe('access resource types', () => {
  it('the schema and the sandbox know the same resource types, the real API\'s', () => {
    const schema = JSON.parse(readFileSync('schemas/hogsync.schema.json', 'utf8')) as { $defs: Record<string, unknown> };
    const names = JSON.stringify(schema).match(/"propertyNames":\{"enum":(\["action","access_control"[^\]]*\])/)?.[1] ?? '[]';
    const listed = JSON.parse(names) as string[];
    expect(listed).toEqual([...RESOURCES]);
    // The access-control settings' resources (ACCESS_CONTROL_RESOURCES) are all among them.
    for (const name of ['action', 'feature_flag', 'insight', 'dashboard', 'notebook', 'session_recording', 'survey', 'experiment', 'web_analytics', 'activity_log', 'toolbar']) {
      expect(listed).toContain(name);
    }
    expect(listed).not.toContain('feature_flags');
  });

  it('a misspelt resource type is an error at its line with the nearest name, found by validate and before plan sends anything', async () => {
    const file = ws.write('access.yaml', config(`projects:
  - id: 12345
    access:
      resources:
        feature_flags: { default: viewer }
        dashbord: { default: editor }
        insight: { default: viewer }
`));
    const before = sandbox.stats.requests;
    const v = await ws.cli(['validate', file]);
    expect(v.code).toBe(1);
    const out = v.stdout + v.stderr;
    expect(out).toContain(`${file}:6:9: access.resources: key "feature_flags" must be a resource type the API knows, such as feature_flag or dashboard; did you mean "feature_flag"?`);
    expect(out).toContain(`${file}:7:9: access.resources: key "dashbord" must be a resource type the API knows, such as feature_flag or dashboard; did you mean "dashboard"?`);
    expect(out).not.toMatch(/"insight"/);
    const p = await ws.cli(['plan', file]);
    expect(p.code).toBe(1);
    expect(p.stdout + p.stderr).toContain('did you mean "feature_flag"?');
    expect(sandbox.stats.requests).toBe(before);
  });

  it('the API\'s refusal of an unknown resource type keeps its whole list of valid values', async () => {
    const client = new ApiClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey });
    try {
      const err = await client.request('PUT', '/api/projects/12345/resource_access_controls/', { body: { resource: 'feature_flags', access_level: 'viewer' } }).then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(HogsyncError);
      const message = (err as HogsyncError).message;
      expect(message.length).toBeGreaterThan(1000);
      expect(message).toMatch(/^Invalid resource\. Must be one of: \('action', 'access_control', .*'webhook', .*'toolbar'\) \(attr resource\)$/);
      for (const name of RESOURCES) expect(message).toContain(`'${name}'`);
    } finally {
      await client.close();
    }
  });

  it('other long messages are still cut to one terminal line; a list of valid values never is', () => {
    const body = (detail: string) => JSON.stringify({ type: 'validation_error', code: 'invalid', detail, attr: 'x' });
    const long = errorMessage(400, 'application/json', body(`Something went wrong: ${'x'.repeat(500)}`));
    expect(long.length).toBe(200);
    expect(long.endsWith('…')).toBe(true);
    const values = Array.from({ length: 120 }, (_, i) => `value_${i}`);
    const listed = errorMessage(400, 'application/json', body(`"nope" is not valid. Valid choices are: ${values.join(', ')}`));
    expect(listed).toContain('value_119 (attr x)');
    const drf = errorMessage(400, 'application/json', JSON.stringify({ kind: [`Must be one of: ${values.join(', ')}.`] }));
    expect(drf).toContain('value_119.');
  });
});
