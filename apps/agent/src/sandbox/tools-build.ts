import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { makeFolder } from '../make-folder.ts';
import type { ToolDeclaration } from './tool-declarations.ts';

/** Written last into a built package: its presence is what "built" means, so a half-built package is never offered. */
export const MANIFEST = 'manifest.json';

export interface BuiltTool {
  readonly name: string;
  readonly dir: string;
  readonly files: number;
}

/**
 * `sandscope tools build`: each declared tool's package, built once into
 * TOOLS_DIR/<name> (the jail sees TOOLS_DIR at `/.tools`, read-only). A package
 * is built beside its final place and renamed into it, so a running jail never
 * sees a half-copied tool.
 */
export function buildTools(toolsDir: string, declarations: readonly ToolDeclaration[]): BuiltTool[] {
  // Every folder is made by makeFolder, never a recursive mkdirSync: that loops forever under /proc (S-271).
  makeFolder(toolsDir);
  return declarations.map((tool) => {
    const dir = join(toolsDir, tool.name);
    const staging = join(toolsDir, `.${tool.name}.building`);
    rmSync(staging, { recursive: true, force: true });
    makeFolder(staging);
    let files = 0;
    const p = tool.provision;
    if (p.kind === 'prebuilt') {
      for (const c of p.copy) {
        if (!existsSync(c.from))
          throw new ToolBuildError(
            `${tool.name}: ${c.from} does not exist on this machine; install it (Debian: apt-get install ${basename(c.from)}) and build again.`,
          );
        put(c.from, join(staging, c.to));
        files++;
        if (c.withLibs) {
          const libs = sharedLibraries(c.from);
          for (const lib of libs.libraries) put(lib, join(staging, 'lib', basename(lib)));
          // Named ld.so whatever the architecture calls it, so the launcher needs no per-arch path.
          put(libs.loader, join(staging, 'lib', 'ld.so'));
          files += libs.libraries.length + 1;
        }
      }
    } else {
      for (const step of p.steps) {
        try {
          execFileSync(step[0]!, step.slice(1), { cwd: staging, stdio: 'pipe' });
        } catch (error) {
          throw new ToolBuildError(`${tool.name}: setup step \`${step.join(' ')}\` failed: ${firstLine(error)}`);
        }
      }
    }
    writeFileSync(
      join(staging, 'run'),
      `#!/bin/sh\n# The launcher of ${tool.name}, written by \`sandscope tools build\`.\nTOOL=/.tools/${tool.name}\n${p.run}\n`,
    );
    chmodSync(join(staging, 'run'), 0o755);
    // The package's files, so a file of it deleted since is seen (packageState): "built" was the manifest alone.
    const packaged = filesUnder(staging).map((f) => relative(staging, f));
    writeFileSync(
      join(staging, MANIFEST),
      `${JSON.stringify({ name: tool.name, builtAt: new Date().toISOString(), kind: p.kind, files: packaged }, null, 2)}\n`,
    );
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return { name: tool.name, dir, files };
  });
}

/** Whether TOOLS_DIR holds a finished package of this tool, every file of it still there. */
export function isBuilt(toolsDir: string, name: string): boolean {
  return packageState(toolsDir, name).state === 'built';
}

/**
 * A tool's package in TOOLS_DIR: built; not built (no manifest); or broken — built, then a file its manifest lists
 * deleted (its binary, say), which a manifest-only check called "built" and offered, and every call of it failed.
 * A manifest written before the files were listed is trusted as it was.
 */
export function packageState(toolsDir: string, name: string): { state: 'built' | 'not built' } | { state: 'broken'; missing: string[] } {
  const dir = join(toolsDir, name);
  let manifest: { name?: unknown; files?: unknown };
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  } catch {
    return { state: 'not built' };
  }
  if (manifest.name !== name) return { state: 'not built' };
  const listed = Array.isArray(manifest.files) ? manifest.files.filter((f): f is string => typeof f === 'string') : [];
  const missing = listed.filter((f) => !existsSync(join(dir, f)));
  return missing.length === 0 ? { state: 'built' } : { state: 'broken', missing };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

export class ToolBuildError extends Error {}

function put(from: string, to: string): void {
  makeFolder(dirname(to));
  copyFileSync(realpathSync(from), to);
  chmodSync(to, 0o755);
}

/** The shared libraries and the dynamic loader a binary loads, as `ldd` reports them. */
function sharedLibraries(binary: string): { libraries: string[]; loader: string } {
  let out: string;
  try {
    out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  } catch (error) {
    throw new ToolBuildError(`ldd ${binary} failed: ${firstLine(error)}; a prebuilt binary package needs ldd (Debian: libc-bin).`);
  }
  const libraries: string[] = [];
  let loader: string | undefined;
  for (const line of out.split('\n')) {
    const arrow = /=>\s+(\/\S+)/.exec(line);
    if (arrow) libraries.push(arrow[1]!);
    else if (/^\s*\/\S+ld[^\s]*\.so/.test(line)) loader = line.trim().split(/\s+/)[0];
  }
  if (!loader) throw new ToolBuildError(`ldd ${binary} named no dynamic loader; a static binary needs no withLibs.`);
  return { libraries, loader };
}

function firstLine(error: unknown): string {
  const e = error as { stderr?: Buffer | string; message?: string };
  return (String(e.stderr ?? '').trim() || e.message || String(error)).split('\n')[0]!;
}
