import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The tracer and pdb tests start Python subprocesses; two cores, so keep them generous.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
