import { fileURLToPath } from 'node:url';
import type { SandboxToolSpec } from '@sandscope/engine/workspace';
import { z } from 'zod';

/**
 * How a sandboxed tool gets into `/.tools` (seed #21), declared as data:
 * - `prebuilt`: files copied into the tool's package by `sandscope tools build`
 *   (`withLibs` also copies the shared libraries `ldd` names and the dynamic
 *   loader, so the binary does not depend on the host's libraries at run time);
 *   `run` is the launcher written into the package (`$TOOL` is `/.tools/<name>`).
 * - `setup`: argv steps run once at build time with the package directory as
 *   cwd (e.g. fetching a release); they never run in the jail, which has no network.
 */
export type ToolProvision =
  | { readonly kind: 'prebuilt'; readonly copy: readonly { readonly from: string; readonly to: string; readonly withLibs?: boolean }[]; readonly run: string }
  | { readonly kind: 'setup'; readonly steps: readonly (readonly string[])[]; readonly run: string };

export interface ToolDeclaration extends SandboxToolSpec {
  readonly provision: ToolProvision;
}

/** Where the runtime a script tool needs is bound in the jail: the agent's own Node, read-only (bwrap-runner.ts). */
export const JAIL_NODE = '/.runtime/node';

/** The tools this deployment knows. A template (TOOLS_TEMPLATE) turns some of them on. */
export const TOOL_DECLARATIONS: readonly ToolDeclaration[] = [
  {
    name: 'jq',
    description:
      'Run a jq filter over a JSON or JSON-lines file of the workspace (e.g. select(.level=="error") | .msg). ' +
      'slurp reads every line into one array first (for counting or grouping: map(.level) | group_by(.) | map({(.[0]): length}) | add). raw prints strings without quotes.',
    parameters: z.strictObject({
      filter: z
        .string()
        .min(1, 'must not be empty')
        // jq 1.6 has no `--`: a filter starting with "-" would be read as an option.
        .regex(/^[^-]/, 'must not start with "-" (jq would read it as an option); wrap it in parentheses'),
      path: z.string(),
      slurp: z.boolean().optional(),
      raw: z.boolean().optional(),
    }),
    invoke: { argv: ['/.tools/jq/run', { flag: '--slurp', when: 'slurp' }, { flag: '--raw-output', when: 'raw' }, { arg: 'filter' }, { path: 'path' }] },
    // Copied with its libraries rather than bound from the host: the package pins the jq that was
    // built, works on a host without jq, and the explicit loader keeps it off the host's library path.
    provision: {
      kind: 'prebuilt',
      copy: [{ from: '/usr/bin/jq', to: 'bin/jq', withLibs: true }],
      run: 'exec "$TOOL/lib/ld.so" --library-path "$TOOL/lib" "$TOOL/bin/jq" "$@"',
    },
  },
  {
    name: 'log_summary',
    description:
      'Summarise a log file of the workspace (JSON lines or text): lines per level, the first and last error with timestamps and line numbers, and the most repeated messages (top, default 5). Read around the line numbers with read_file to cite them.',
    parameters: z.strictObject({
      path: z.string(),
      top: z.number().int('must be a whole number').min(1, 'must be at least 1').max(50, 'must be at most 50').optional(),
    }),
    invoke: { argv: ['/.tools/log_summary/run', { path: 'path' }, { arg: 'top' }] },
    provision: {
      kind: 'prebuilt',
      copy: [{ from: fileURLToPath(new URL('../../tools/log-summary.mjs', import.meta.url)), to: 'log-summary.mjs' }],
      run: `exec ${JAIL_NODE} "$TOOL/log-summary.mjs" "$@"`,
    },
  },
];
