// Event definitions (the data dictionary), end to end through the real CLI against the sandbox:
// a kind hogsync only updates. Each declared name is read by the list's `search`, never the whole
// list; undeclared definitions are neither listed nor pruned; a declared name no event has used
// yet is a plan error; `ensure: absent` is refused by validate; without the organization's
// data-management feature the fields are warned about, not drifted on.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { expectCanonical } from './support/canonical.js';
import { config, ORG, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;

async function start(features?: string[]): Promise<void> {
  sandbox = await inProcessSandbox({
    seed: {
      organizations: [{
        id: ORG,
        ...(features ? { features } : {}),
        projects: [{
          id: 12345,
          name: 'Web app',
          // A busy project: the plan must not read them all.
          event_definitions: [
            { name: '$pageview' }, { name: 'signed_up', tags: ['growth'] }, { name: 'signed_up_twice' },
            ...Array.from({ length: 300 }, (_, i) => ({ name: `event_${i}` })),
          ],
        }],
      }],
    },
  });
  ws = workspace(sandbox);
}

afterEach(async () => {
  ws.remove();
  await stopAllSandboxes();
});

const file = (body: string) => ws.write('h.yaml', config(`projects:\n  - id: 12345\n    event_definitions:\n${body}`));

describe('event definitions', () => {
  it('are read one search per declared name, updated, and never listed as unmanaged', async () => {
    await start();
    const f = file('      - name: signed_up\n        description: A user finished signing up\n        tags: [Growth, activation]\n        verified: true\n');
    sandbox.stats.requests = 0;
    sandbox.stats.byRoute = {};
    const planned = await ws.cli(['plan', f, '--format', 'json']);
    expect(planned.stderr).toBe('');
    const plan = JSON.parse(planned.stdout) as { changes: Array<{ address: string; action: string; fields: Array<{ path: string }> }>; unmanaged: unknown[] };
    expect(plan.changes.map((c) => [c.action, c.address, c.fields.map((x) => x.path)])).toEqual([
      ['update', `event_definition:${ORG}/12345/signed_up`, ['description', 'tags', 'verified']],
    ]);
    expect(plan.unmanaged).toEqual([]);
    // The project's GET, and one search for the one name (which also finds signed_up_twice: matched exactly).
    expect(sandbox.stats.byRoute['GET /api/projects/:project/event_definitions/']).toBe(1);
    // Verified by searching the name again (as plan reads it): found, nothing to warn about.
    sandbox.stats.byRoute = {};
    const applied = await ws.cli(['apply', f, '--auto-approve', '--format', 'json']);
    expect(applied.code, applied.stderr).toBe(0);
    expect((JSON.parse(applied.stdout) as { warnings: string[] }).warnings).toEqual([]);
    expect(sandbox.stats.byRoute['GET /api/projects/:project/event_definitions/']).toBe(2);
    const again = await ws.cli(['plan', f, '--detailed-exitcode']);
    expect(again.stdout).toContain('No changes');
    expect(again.code).toBe(0);
  });

  it('an update the API answers but does not keep is found by the re-read', async () => {
    await start();
    // The sandbox answers every PATCH of a definition with what was sent, and keeps nothing.
    const handlers = sandbox.server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
    sandbox.server.removeAllListeners('request');
    sandbox.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const dropped = req.method === 'PATCH' && /^\/api\/projects\/12345\/event_definitions\/([^/]+)\/$/.exec(req.url ?? '');
      if (!dropped) return handlers.forEach((h) => h(req, res));
      let text = '';
      req.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: decodeURIComponent(dropped[1] as string), name: 'signed_up', ...JSON.parse(text) as object }));
      });
    });
    const r = await ws.cli(['apply', file('      - name: signed_up\n        description: Lost\n'), '--auto-approve', '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { warnings: string[] }).warnings).toEqual([
      `event_definition:${ORG}/12345/signed_up: the API did not take description (re-read, it holds another value; unless someone else changed it meanwhile)`,
    ]);
  });

  it('refuse a name no event has used, at its line, and ensure: absent in validate', async () => {
    await start();
    const missing = await ws.cli(['plan', file('      - name: never_sent\n        description: x\n')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/h\.yaml:5:9: event definition "never_sent" does not exist in project 12345: an event definition exists once an event of that name has arrived/);

    const absent = await ws.cli(['validate', file('      - name: signed_up\n        ensure: absent\n')]);
    expect(absent.code).toBe(1);
    expect(absent.stderr).toMatch(/h\.yaml:6:9: field "ensure" is not allowed in event definition: event definitions are never deleted by hogsync/);
  });

  it('show the API\'s refusal of an event both hidden and verified', async () => {
    await start();
    const r = await ws.cli(['apply', file('      - name: signed_up\n        hidden: true\n        verified: true\n'), '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('An event cannot be both hidden and verified');
  });

  it('without the data-management feature: fields the API does not keep are warned about, never drifted on', async () => {
    await start(['tagging']);
    const f = file('      - name: signed_up\n        description: A user finished signing up\n');
    const drift = await ws.cli(['drift', f, '--format', 'json']);
    expect(drift.code).toBe(0);
    const report = JSON.parse(drift.stdout) as { changes: unknown[]; warnings: string[] };
    expect(report.changes).toEqual([]);
    expect(report.warnings.join('\n')).toMatch(/event definition field description is not kept by this API/);
  });

  it('are exported only with --kind event_definitions, and only those that say something', async () => {
    await start();
    const all = await ws.cli(['export', '--organization', ORG]);
    expect(all.code).toBe(0);
    expect(all.stdout).not.toContain('event_definitions');
    // Leaving them out is said, with how to have them.
    expect(all.stderr).toMatch(/^export: (\w+, )*event definitions not exported: pass (--kind \w+ )*--kind event_definitions\n/m);
    expect((await ws.cli(['export', '--help'])).stdout).toContain('Event definitions are not exported without --kind');
    const summary = await ws.cli(['export', '--organization', ORG, '--out', ws.path('all.yaml')]);
    expect(summary.stderr).toMatch(/^Exported .* to .*all\.yaml; (\w+, )*event definitions not exported: pass (--kind \w+ )*--kind event_definitions$/m);
    const r = await ws.cli(['export', '--organization', ORG, '--kind', 'event_definitions', '--out', ws.path('dict.yaml')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('not exported');
    const text = await import('node:fs').then((fs) => fs.readFileSync(ws.path('dict.yaml'), 'utf8'));
    expectCanonical(text);
    const doc = parse(text) as { projects: Array<{ id: number; event_definitions: Array<{ name: string }> }> };
    expect(doc.projects).toEqual([{ id: 12345, event_definitions: [{ name: 'signed_up', tags: ['growth'] }] }]);
    const plan = await ws.cli(['plan', ws.path('dict.yaml'), '--detailed-exitcode']);
    expect(plan.code).toBe(0);
  });
});
