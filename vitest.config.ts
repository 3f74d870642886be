import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['suites/**/*.test.ts'],
    setupFiles: ['suites/support/suite-profile.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // The fault matrix starts one fake per fault; forks keep their timers apart.
    pool: 'forks',
    // Vitest's default (one worker fewer than the cores) runs the files one at a time on 2 cores;
    // most files wait on sockets and child processes, and two at a time took 599 s there against 730.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
