import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/agent/src/**/*.test.ts', 'scripts/**/*.test.ts', 'apps/web/tests/**/*.test.ts', 'deploy/**/*.test.ts', 'security/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
