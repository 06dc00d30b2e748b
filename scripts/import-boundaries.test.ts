import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * Import boundaries that fail the build (issue 13, codebase 7), as a test over
 * the import graph: dependency-cruiser needs TypeScript < 7, and Biome's
 * restricted-import rules cannot say "a relative path that leaves the package".
 *
 * - packages/engine stays pure: it imports no other workspace package (by name or
 *   by a relative path out of the package), and its shipped code — not its tests
 *   and `testing/` fakes — imports no fs, net, http or child_process and reads no
 *   process.env. A pure engine is what lets the CLI, the service and the
 *   evaluation run the same decision with no mirror (ARCHITECTURE, "The layout").
 * - apps/web imports no agent code: the website talks to the agent over HTTP and
 *   parses its answers with @sandscope/api; an import would ship the agent's
 *   modules (and the secrets they read) into the website's bundle.
 */

const ROOT = resolve(import.meta.dirname, '..');
const SOURCE = /\.(?:ts|tsx|mts|cts|js|mjs)$/;
const SKIP_DIRS = new Set(['node_modules', '.next', '.next-bundle-test', 'test-results', 'playwright-report']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return SKIP_DIRS.has(entry.name) ? [] : sourceFiles(full);
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every module specifier a file names: static imports and re-exports (type-only included), dynamic import(), require(). */
function specifiersOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const found: string[] = [];
  for (const m of code.matchAll(/(?:^|[;\s}])(?:import|export)\s+(?:type\s+)?(?:[\w*\s{},$]*?\s+from\s+)?['"]([^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of code.matchAll(/\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return found;
}

const NODE_IO = new Set(['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'child_process']);
const nodeModule = (spec: string) => {
  const bare = spec.startsWith('node:') ? spec.slice(5) : spec;
  return builtinModules.includes(bare) ? bare : null;
};
const isTestSupport = (file: string) => /\.(?:int\.)?test\.tsx?$|\.contract\.ts$/.test(file) || file.split(sep).includes('testing');
const rel = (file: string) => relative(ROOT, file);

/** What in `files` breaks a rule: "file → specifier (why)". */
function violations(files: readonly string[], rule: (file: string, spec: string) => string | null): string[] {
  return files.flatMap((file) =>
    specifiersOf(readFileSync(file, 'utf8')).flatMap((spec) => {
      const why = rule(file, spec);
      return why ? [`${rel(file)} → ${spec} (${why})`] : [];
    }),
  );
}

const outside = (file: string, spec: string, root: string) => spec.startsWith('.') && !resolve(dirname(file), spec).startsWith(root + sep);

function engineViolations(engineRoot: string, files: readonly string[]): string[] {
  const found = violations(files, (file, spec) => {
    if (spec.startsWith('@sandscope/') || spec === 'sandscope' || spec.startsWith('sandscope/')) return 'another workspace package';
    if (outside(file, spec, engineRoot)) return 'a path out of packages/engine';
    const builtin = nodeModule(spec);
    if (builtin && NODE_IO.has(builtin) && !isTestSupport(file)) return 'I/O in the pure engine; take it as an interface';
    return null;
  });
  for (const file of files) {
    if (!isTestSupport(file) && /\bprocess\.env\b/.test(readFileSync(file, 'utf8')))
      found.push(`${rel(file)} → process.env (configuration is parsed at the edge and passed in)`);
  }
  return found;
}

function webViolations(agentRoot: string, files: readonly string[]): string[] {
  return violations(files, (file, spec) => {
    if (spec === 'sandscope' || spec.startsWith('sandscope/')) return 'the agent package';
    if (spec.startsWith('.') && resolve(dirname(file), spec).startsWith(agentRoot + sep)) return 'a path into apps/agent';
    return null;
  });
}

describe('import boundaries', () => {
  const engineRoot = join(ROOT, 'packages/engine');
  const agentRoot = join(ROOT, 'apps/agent');

  it('reads every kind of import the code uses', () => {
    expect(
      specifiersOf(
        `import a from 'a';\nimport type { B } from "b";\nexport * from './c.ts';\nexport { d } from '@x/d';\nimport 'side';\nconst e = await import('e');\nconst f = require('f');\n// import g from 'g';\n/* import h from 'h' */\nconst url = 'http://x'; import {\n  i,\n} from 'i';`,
      ),
    ).toEqual(['a', 'b', './c.ts', '@x/d', 'side', 'i', 'e', 'f']);
  });

  it('packages/engine imports no other workspace package, and its shipped code no fs, net, http, child_process or process.env', () => {
    const files = sourceFiles(join(engineRoot, 'src'));
    expect(files.length).toBeGreaterThan(50);
    expect(engineViolations(engineRoot, files)).toEqual([]);
  });

  it('apps/web imports no agent code', () => {
    const files = sourceFiles(join(ROOT, 'apps/web'));
    expect(files.length).toBeGreaterThan(20);
    expect(webViolations(agentRoot, files)).toEqual([]);
  });

  it('a breach is named with its file and why (the rules can fail)', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'boundaries-'));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(tmp, path)), { recursive: true });
      writeFileSync(join(tmp, path), text);
      return join(tmp, path);
    };
    try {
      const shipped = write(
        'engine/src/gate.ts',
        "import { x } from '@sandscope/store';\nimport { y } from '../../store/src/y.ts';\nimport { readFileSync } from 'node:fs';\nimport { spawn } from 'child_process';\nimport { createHash } from 'node:crypto';\nimport { z } from './z.ts';\nconst k = process.env.KEY;\n",
      );
      const fake = write('engine/src/testing/fixture.ts', "import { readFileSync } from 'node:fs';\n");
      expect(engineViolations(join(tmp, 'engine'), [shipped, fake]).map((v) => v.replace(`${relative(ROOT, tmp)}${sep}`, ''))).toEqual([
        'engine/src/gate.ts → @sandscope/store (another workspace package)',
        'engine/src/gate.ts → ../../store/src/y.ts (a path out of packages/engine)',
        'engine/src/gate.ts → node:fs (I/O in the pure engine; take it as an interface)',
        'engine/src/gate.ts → child_process (I/O in the pure engine; take it as an interface)',
        'engine/src/gate.ts → process.env (configuration is parsed at the edge and passed in)',
      ]);
      const page = write(
        'web/app/page.tsx',
        "import { main } from 'sandscope/src/cli/main.ts';\nimport type { T } from '../../agent/src/http/app.ts';\nimport { ok } from '@sandscope/api';\n",
      );
      expect(webViolations(join(tmp, 'agent'), [page]).map((v) => v.replace(`${relative(ROOT, tmp)}${sep}`, ''))).toEqual([
        'web/app/page.tsx → sandscope/src/cli/main.ts (the agent package)',
        'web/app/page.tsx → ../../agent/src/http/app.ts (a path into apps/agent)',
      ]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
