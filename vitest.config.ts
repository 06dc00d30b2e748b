import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The website's `@/…` imports (apps/web/tsconfig.json's paths), so its components can be server-rendered in a test.
  resolve: { alias: [{ find: /^@\//, replacement: fileURLToPath(new URL('./apps/web/', import.meta.url)) }] },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'apps/agent/src/**/*.test.ts',
      'scripts/**/*.test.ts',
      'apps/web/tests/**/*.test.ts',
      'deploy/**/*.test.ts',
      'security/**/*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
