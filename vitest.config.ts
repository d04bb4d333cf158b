import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start sandboxes and CLI processes; two cores do not gain from more workers.
    maxWorkers: 2,
    // A worker runs its test files one after another in one module graph instead of a fresh one
    // each: the suite's CPU is mostly CLI and sandbox processes, and re-importing vitest and the
    // support modules for each of ~100 files cost about a sixth of it (whole suite 335 → 285 s
    // here). Test files keep no state between them: sandboxes stop in afterEach, temporary
    // directories are removed, nock is unhooked after its file, and nothing changes process.env.
    isolate: false,
  },
});
