// Previews are bounded and tell their progress: each new or changed flag costs a blast-radius
// request under the rate limit, so a plan previews at most --max-previews changes (one note
// names the rest), --no-preview skips them (plan and apply), only changes of the fields a
// preview reads ask anything, and while they run a progress line says how far they are and
// what the rate limit holds back.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { inProcessSandbox, stopAllSandboxes } from './support/sandbox.js';
import { config, workspace, type Workspace } from './support/workspace.js';
import type { SandboxHandle } from '../src/sandbox/server.js';
import { previewing, type ProgressEvent } from '../src/usecases/session.js';
import { previewLine, terminalObserver } from '../src/cli/context.js';
import { GUARD_MS, RateLimiter } from '../src/http/rate-limit.js';

const BLAST = 'POST /api/projects/:project/feature_flags/user_blast_radius/';
let sandbox: SandboxHandle;
let ws: Workspace;
const blasts = () => sandbox.stats.byRoute[BLAST] ?? 0;

beforeAll(async () => {
  sandbox = await inProcessSandbox();
  ws = workspace(sandbox);
});
afterAll(async () => {
  ws.remove();
  await stopAllSandboxes();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const flags = (n: number) => config(`projects:
  - id: 12345
    feature_flags:
${Array.from({ length: n }, (_, i) => `      - key: f${i}\n        filters: { groups: [ { rollout_percentage: 10 } ] }\n`).join('')}`);

describe('previews, bounded', () => {
  it('previews at most --max-previews changes and names the rest in one note; --no-preview sends none, in plan and apply', async () => {
    const file = ws.write('flags.yaml', flags(5));
    let before = blasts();
    const capped = await ws.cli(['plan', file, '--format', 'json', '--max-previews', '2']);
    expect(capped.code, capped.stderr).toBe(0);
    const plan = JSON.parse(capped.stdout) as { changes: Array<{ blast_radius?: unknown }>; warnings: string[] };
    expect(plan.changes.filter((c) => c.blast_radius !== undefined)).toHaveLength(2);
    expect(plan.warnings.filter((w) => w.startsWith('blast radius:'))).toEqual([
      'blast radius: previewed 2 of 5 changes (each costs a request under the rate limit); 3 are not previewed: pass --max-previews 5 to preview them all, or --no-preview to skip previews',
    ]);
    expect(blasts() - before).toBe(2);

    before = blasts();
    const all = await ws.cli(['plan', file, '--format', 'json']);
    expect(JSON.parse(all.stdout).changes.filter((c: { blast_radius?: unknown }) => c.blast_radius !== undefined)).toHaveLength(5);
    expect(JSON.parse(all.stdout).warnings.join('\n')).not.toContain('previewed');
    expect(blasts() - before).toBe(5);

    before = blasts();
    const none = await ws.cli(['plan', file, '--format', 'json', '--no-preview']);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout).changes.every((c: { blast_radius?: unknown }) => c.blast_radius === undefined)).toBe(true);
    const applied = await ws.cli(['apply', file, '--auto-approve', '--no-preview']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(blasts() - before).toBe(0);

    // A change that leaves the release conditions as they are asks nothing.
    before = blasts();
    const renamed = ws.write('renamed.yaml', flags(5).replace('key: f0\n', 'key: f0\n        name: Renamed\n'));
    const r = await ws.cli(['plan', renamed, '--format', 'json']);
    expect(JSON.parse(r.stdout).changes).toHaveLength(1);
    expect(blasts() - before).toBe(0);
  });

  it('refuses a --max-previews that is not a whole number', async () => {
    const r = await ws.cli(['plan', ws.path('flags.yaml'), '--max-previews', 'lots']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--max-previews must be a whole number');
  });
});

describe('previews in progress', () => {
  it('the progress line: how many are done, and how long the rate limit holds the next one', () => {
    expect(previewLine({ name: 'blast radius', done: 480, total: 600, waitMs: 58_000 })).toBe('blast radius 480/600, waiting 58 s for the rate limit');
    expect(previewLine({ name: 'blast radius', done: 3, total: 600, waitMs: 120 })).toBe('blast radius 3/600');
  });

  it('reports done/total and the rate limit\'s hold while previews run, then ends', async () => {
    const events: ProgressEvent[] = [];
    const client = { rateLimitWaitMs: () => 58_000 };
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    await previewing(client, { onProgress: (e) => events.push(e) }, async (onProgress) => {
      for (let done = 1; done <= 3; done++) {
        await sleep(250);
        onProgress(done, 3, 'blast radius');
      }
    });
    const ticks = events.filter((e): e is Extract<ProgressEvent, { type: 'previewing' }> => e.type === 'previewing');
    expect(ticks.length).toBeGreaterThan(1);
    expect(ticks[0]).toMatchObject({ name: 'blast radius', total: 3, waitMs: 58_000 });
    expect(ticks.map((t) => t.done)).toEqual([...ticks.map((t) => t.done)].sort());
    expect(events.at(-1)).toEqual({ type: 'previewed' });
  });

  it('off a terminal, a line every ten seconds while previews run (a CI log shows why nothing moves)', () => {
    vi.useFakeTimers();
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { written.push(String(chunk)); return true; });
    const observer = terminalObserver({});
    const tick = (done: number) => observer.onProgress?.({ type: 'previewing', name: 'blast radius', done, total: 600, waitMs: 58_000 });
    tick(10);
    vi.advanceTimersByTime(5_000);
    tick(20);
    expect(written.filter((w) => w.includes('blast radius'))).toEqual([]);
    vi.advanceTimersByTime(6_000);
    tick(480);
    expect(written.filter((w) => w.includes('blast radius'))).toEqual(['hogsync: blast radius 480/600, waiting 58 s for the rate limit\n']);
  });

  it('the rate limiter says how long it holds the next request', async () => {
    let now = 0;
    const sleeps: Array<() => void> = [];
    const limiter = new RateLimiter({ requestsPerMinute: 1, clock: { now: () => now, sleep: () => new Promise<void>((resolve) => sleeps.push(resolve)) } });
    await limiter.acquire();
    expect(limiter.heldFor()).toBe(0);
    const held = limiter.acquire();
    await Promise.resolve();
    now = 2_000;
    expect(limiter.heldFor()).toBe(60_000 + GUARD_MS - 2_000);
    now = 70_000;
    sleeps.shift()?.();
    await held;
    expect(limiter.heldFor()).toBe(0);
  });
});

