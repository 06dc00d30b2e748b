import type { z } from 'zod';
import type { SandboxRunner } from './sandbox-runner.ts';
import { resolveWorkspacePath } from './workspace-path.ts';

/**
 * One argv element of a sandboxed tool's invocation, declared as data: a
 * literal, an argument's value, or an argument that names a workspace file
 * (resolved by resolveWorkspacePath, so `..` and absolute paths are refused
 * before anything runs — the jail is the second wall, not the only one).
 * A `flag` is passed when the boolean argument `when` is true. An optional
 * argument that was not given contributes nothing.
 */
export type ArgvPart = string | { readonly arg: string } | { readonly path: string } | { readonly flag: string; readonly when: string };

/**
 * What the engine knows of a sandboxed tool (seed #21): the same shape as the
 * workspace tools (name, description, zod parameters) plus how it is invoked.
 * How it is provisioned (a prebuilt package or setup steps) is the edge's
 * business: the engine never builds or installs anything.
 */
export interface SandboxToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: z.ZodObject;
  readonly invoke: { readonly argv: readonly ArgvPart[] };
}

/**
 * The sandboxed tools a toolbox offers: a runner and the tools turned on, or
 * — where no jail can be made — the reason none are offered. Nothing is ever
 * run unjailed as a fallback.
 */
export type SandboxToolsOption = { readonly runner: SandboxRunner; readonly tools: readonly SandboxToolSpec[] } | { readonly unavailable: string };

/** The argv for one call, or why the arguments cannot make one. */
export function sandboxArgv(spec: SandboxToolSpec, args: Record<string, unknown>): { ok: true; argv: string[] } | { ok: false; reason: string } {
  const argv: string[] = [];
  for (const part of spec.invoke.argv) {
    if (typeof part === 'string') {
      argv.push(part);
      continue;
    }
    if ('flag' in part) {
      if (args[part.when] === true) argv.push(part.flag);
      continue;
    }
    const key = 'arg' in part ? part.arg : part.path;
    const value = args[key];
    if (value === undefined) continue;
    if ('path' in part) {
      const resolved = resolveWorkspacePath(value);
      if (!resolved.ok) return { ok: false, reason: `${key}: ${resolved.reason}` };
      // Relative to the jail's cwd (the workspace), and after `--` or a flag it can never be read as an option.
      argv.push(`./${resolved.path}`);
    } else {
      argv.push(String(value));
    }
  }
  return { ok: true, argv };
}
