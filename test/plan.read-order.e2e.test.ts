// The order of a plan's requests: the projects' collections (compared at length) are asked for
// evenly among the organization's requests (a GET for each declared project), not all first,
// so their comparison is spread over the whole read instead of falling behind the network in
// its first half. Each list keeps its own order. However many reads are under way, no more
// than --parallelism requests are in flight.
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/server.js';
import type { SeedDocument } from '../src/sandbox/seed.js';
import { evenly } from '../src/util/evenly.js';
import { inProcessSandbox, recordRequests, stopAllSandboxes } from './support/sandbox.js';
import { ORG, config, workspace, type Workspace } from './support/workspace.js';

let ws: Workspace | undefined;
afterEach(async () => {
  ws?.remove();
  await stopAllSandboxes();
});

describe('evenly', () => {
  it('spreads the shorter list through the longer one, each in its own order', () => {
    expect(evenly(['a1', 'a2', 'a3', 'a4'], ['b1', 'b2'])).toEqual(['a1', 'b1', 'a2', 'a3', 'b2', 'a4']);
    expect(evenly(['a1', 'a2'], ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'])).toEqual(['a1', 'b1', 'b2', 'b3', 'a2', 'b4', 'b5', 'b6']);
    expect(evenly([1, 2, 3], [])).toEqual([1, 2, 3]);
    expect(evenly([], [1, 2])).toEqual([1, 2]);
  });
});

describe('the order of a plan\'s reads', () => {
  it('asks for the projects\' flags evenly among the GETs of the projects themselves', async () => {
    const ids = Array.from({ length: 8 }, (_, i) => 3001 + i);
    const seed = {
      organizations: [{ id: ORG, name: 'Acme', projects: ids.map((id) => ({ id, name: `Project ${id}`, timezone: 'UTC', feature_flags: [{ key: `flag-${id}`, active: true }] })) }],
    } as unknown as SeedDocument;
    const sandbox: SandboxHandle = await inProcessSandbox({ seed });
    ws = workspace(sandbox);
    const file = ws.write('hogsync.yaml', config(`projects:\n${ids.map((id) => `  - id: ${id}\n    timezone: UTC\n    feature_flags:\n      - key: flag-${id}\n        active: true\n`).join('')}`));
    const sent = recordRequests(sandbox.server);
    // One request at a time: the order they arrive in is the order they were asked for.
    const planned = await ws.cli(['plan', file, '--detailed-exitcode', '--parallelism', '1']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    const flagLists = sent.flatMap((r, i) => (/^\/api\/projects\/\d+\/feature_flags\//.test(r.path) ? [i] : []));
    const projectGets = sent.flatMap((r, i) => (/^\/api\/organizations\/[^/]+\/projects\/\d+\/$/.test(r.path) ? [i] : []));
    expect(flagLists).toHaveLength(8);
    expect(projectGets).toHaveLength(8);
    // Each project's flags in the order of the files, and never two flag lists in a row.
    expect(flagLists.map((i) => Number(/\/api\/projects\/(\d+)\//.exec(sent[i]?.path ?? '')?.[1]))).toEqual(ids);
    expect(flagLists.every((at, k) => k === 0 || at - (flagLists[k - 1] as number) > 1)).toBe(true);
    // Half of the flag lists are asked for before half of the project GETs are done.
    expect(flagLists[4]).toBeLessThan(projectGets[5] as number);
    expect(projectGets[3]).toBeLessThan(flagLists[5] as number);
  });

  it('never has more than --parallelism requests in flight, with reads waiting their turn to be parsed', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => 4001 + i);
    const seed = {
      organizations: [{ id: ORG, name: 'Acme', projects: ids.map((id) => ({ id, name: `Project ${id}`, timezone: 'UTC', feature_flags: [{ key: `flag-${id}`, active: true }] })) }],
    } as unknown as SeedDocument;
    const sandbox: SandboxHandle = await inProcessSandbox({ seed, latencyMs: 5 });
    ws = workspace(sandbox);
    const file = ws.write('hogsync.yaml', config(`projects:\n${ids.map((id) => `  - id: ${id}\n    feature_flags:\n      - key: flag-${id}\n        active: true\n`).join('')}`));
    let inFlight = 0;
    let most = 0;
    let requests = 0;
    sandbox.server.on('request', (_req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      requests++;
      most = Math.max(most, ++inFlight);
      res.on('close', () => { inFlight--; });
    });
    const planned = await ws.cli(['plan', file, '--detailed-exitcode', '--parallelism', '3']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(requests).toBeGreaterThanOrEqual(24);
    expect(most).toBe(3);
  });
});
