import { availableParallelism } from 'node:os';
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
    // One fork per core. Vitest's default is a core fewer, so on CI's two cores every file ran in turn while the other
    // core idled, and the suite took more than half of CI's twenty minutes (S-217). The integration tests share no
    // state across files (each takes its own schema, database or key prefix), so two at once is safe.
    maxWorkers: availableParallelism(),
  },
});
