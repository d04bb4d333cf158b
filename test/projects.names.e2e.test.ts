// Project names are unique in an organization, trimmed and without regard to case (the API
// answers 409 on a duplicate): the real CLI against the sandbox, which behaves that way.
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

let sandbox: SandboxHandle;
let ws: Workspace;
afterEach(async () => {
  ws?.remove();
  await stopAllSandboxes();
});

const names = () => sandbox.store.snapshot().projects.map((p) => [p.id, p.name]);

describe('project renames', () => {
  it('a chain of renames (a name freed and taken in the same plan) converges in one apply, then plans empty', async () => {
    sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [
      { id: 12345, name: 'Web' }, { id: 12346, name: 'Mobile' }, { id: 12347, name: 'Docs' },
    ] }] } });
    ws = workspace(sandbox);
    // Listed so that the takers come first: apply must still free each name before taking it.
    const path = ws.write('h.yaml', config(`projects:
  - id: 12347
    name: "  mobile "
  - id: 12346
    name: WEB
  - id: 12345
    name: Web old
`));
    const r = await ws.cli(['apply', path, '--auto-approve']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(names()).toEqual([[12345, 'Web old'], [12346, 'WEB'], [12347, 'mobile']]);
    const after = await ws.cli(['plan', path, '--detailed-exitcode']);
    expect(after.code, after.stdout + after.stderr).toBe(0);
  });

  it('a swap of two names (any case, trimmed) is refused at plan time naming both projects, and apply changes nothing', async () => {
    sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [
      { id: 12345, name: 'Web' }, { id: 12346, name: 'Mobile' },
    ] }] } });
    ws = workspace(sandbox);
    const path = ws.write('h.yaml', config(`projects:
  - id: 12345
    name: " mobile"
  - id: 12346
    name: web
`));
    const planned = await ws.cli(['plan', path]);
    expect(planned.code).toBe(1);
    const lines = planned.stderr.trim().split('\n');
    expect(lines, planned.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: projects 12345 and 12346 of organization \S+ swap names in a cycle \(12345 "Web" → "mobile", 12346 "Mobile" → "web"\)/);
    const applied = await ws.cli(['apply', path, '--auto-approve']);
    expect(applied.code).toBe(1);
    expect(names()).toEqual([[12345, 'Web'], [12346, 'Mobile']]);
    expect(Object.keys(sandbox.stats.byRoute).filter((k) => k.startsWith('PATCH'))).toEqual([]);
  });

  it('a rename onto a name another declared project keeps, or two renames to one name, is refused at plan time; also when the holder is not declared', async () => {
    sandbox = await inProcessSandbox({ seed: { organizations: [{ id: ORG, projects: [
      { id: 12345, name: 'Web' }, { id: 12346, name: 'Mobile' }, { id: 12347, name: 'Docs' },
    ] }] } });
    ws = workspace(sandbox);
    const kept = ws.write('kept.yaml', config('projects:\n  - id: 12345\n    name: Web\n  - id: 12346\n    name: " WEB"\n'));
    const planned = await ws.cli(['plan', kept]);
    expect(planned.code).toBe(1);
    expect(planned.stderr.trim()).toMatch(/^error: project 12346 of organization \S+ is renamed to "WEB", which project 12345 keeps \(the API keeps project names unique/);

    const both = ws.write('both.yaml', config('projects:\n  - id: 12345\n    name: Site\n  - id: 12346\n    name: site\n'));
    const twice = await ws.cli(['apply', both, '--auto-approve']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('error: projects 12345 and 12346 of organization');
    expect(twice.stderr).toContain('are both renamed to "site"');
    expect(Object.keys(sandbox.stats.byRoute).filter((k) => k.startsWith('PATCH'))).toEqual([]);

    // Project 12347 is not declared: the organization's project list still names it.
    const undeclared = ws.write('undeclared.yaml', config('projects:\n  - id: 12346\n    name: docs\n'));
    const refused = await ws.cli(['apply', undeclared, '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is renamed to "docs", which project 12347 keeps');
    expect(names()).toEqual([[12345, 'Web'], [12346, 'Mobile'], [12347, 'Docs']]);
  });
});
