import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for an effect another process makes (the server behind a browser click);
    // Vitest's default second is too short on a loaded two-core machine. Not a timing assertion:
    // it passes as soon as the effect is seen.
    expect: { poll: { timeout: 15_000, interval: 50 } },
    pool: 'forks',
    // Inherited by every process a test starts (rampart serve, import…): no test syncs from the
    // official intelligence sources on the internet. Tests of the sync use a local server.
    env: { RAMPART_INTEL_SYNC: 'off' },
    // Two cores: more parallel files only queue behind each other's embedded databases.
    maxWorkers: 2,
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-results/results.json' },
  },
});
