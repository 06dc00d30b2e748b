import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 13, item 1: the engine reads no environment. It once parsed
 * RUN_BUDGET_USD and the provider variables itself, stripping quotes the
 * agent's config schema refuses, so one variable meant two things depending on
 * the path that read it. Configuration is parsed once, by the deployable's
 * schema, and handed in.
 */
const ROOT = import.meta.dirname;

/** Ways to read the environment, and ways to name a configuration variable in order to read it. */
const FORBIDDEN: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: 'process.env / process[…]', pattern: /\bprocess\s*(\.|\[)/ },
  { what: "an import of 'process'", pattern: /from\s+['"](node:)?process['"]/ },
  { what: 'import.meta.env', pattern: /import\.meta\.env/ },
  {
    what: 'a configuration variable named in a string',
    pattern: /['"`](RUN_BUDGET_USD|RUN_TOKEN_BUDGET|[A-Z]+_(API_KEY|BASE_URL|MODEL|INPUT_USD_PER_MTOK|OUTPUT_USD_PER_MTOK))['"`]/,
  },
  { what: 'a configuration variable built from a provider name', pattern: /\$\{[^}]*\}_(API_KEY|BASE_URL|MODEL|INPUT_USD_PER_MTOK|OUTPUT_USD_PER_MTOK)/ },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Comments may name variables (they say which one a value came from); code may not read them. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

describe('the engine reads no environment', () => {
  const files = sourceFiles(ROOT);

  it('scans the engine sources', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it('no source file reads a variable or names one to read it', () => {
    const found: string[] = [];
    for (const file of files) {
      const code = withoutComments(readFileSync(file, 'utf8'));
      for (const { what, pattern } of FORBIDDEN) if (pattern.test(code)) found.push(`${relative(ROOT, file)}: ${what}`);
    }
    expect(found).toEqual([]);
  });
});
