import { realpathSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';

/*
 * The vitest configuration Stryker runs (stryker.config.json): engine and eval
 * tests only, since only their files are mutated.
 *
 * Stryker copies the repository to a sandbox and links `node_modules` back to
 * the original. The workspace packages in `node_modules/@sandscope/*` are
 * symlinks into the ORIGINAL tree, so without the plugin below an eval test
 * importing `@sandscope/engine` would run the unmutated engine and every engine
 * mutant it should kill would read as "no coverage" or "survived".
 */
const here = dirname(fileURLToPath(import.meta.url));
const original = dirname(realpathSync(resolve(here, 'node_modules')));

function workspaceInSandbox(): Plugin {
  return {
    name: 'sandscope-workspace-in-sandbox',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (original === here || !source.startsWith('@sandscope/')) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (!resolved?.id.startsWith(original + sep)) return resolved;
      return { ...resolved, id: here + resolved.id.slice(original.length) };
    },
  };
}

export default defineConfig({
  plugins: [workspaceInSandbox()],
  test: {
    // The tests that cover the files in stryker.config.json's `mutate`; widen both together.
    include: ['packages/engine/src/{answerability,retrieval,corpus}/**/*.test.ts', 'packages/eval/src/{feedback,question-set}.test.ts'],
    exclude: ['**/*.int.test.ts', '**/node_modules/**'],
    // Instrumented code under perTest coverage on a shared machine runs several times slower than a plain run.
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
