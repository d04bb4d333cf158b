import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start sandboxes and CLI processes; two cores do not gain from more workers.
    maxWorkers: 2,
  },
});
