import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['suites/**/*.test.ts'],
    setupFiles: ['suites/support/suite-profile.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // The fault matrix starts one fake per fault; forks keep their timers apart.
    pool: 'forks',
  },
});
