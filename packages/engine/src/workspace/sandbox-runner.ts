import type { WorkspaceFiles } from './workspace-files.ts';

/**
 * The contract the engine runs a sandboxed tool through (seed #21). The engine
 * stays pure: it decides WHAT to run (an argv built from a tool's declaration
 * and checked arguments); an implementation at the edge (apps/agent's
 * bubblewrap runner) decides HOW — materialising the files into a jail whose
 * cwd and HOME are the workspace, with `/.tools` read-only and no network.
 */
export interface SandboxRunner {
  run(request: SandboxRunRequest): Promise<SandboxRunResult>;
}

export interface SandboxRunRequest {
  /** argv[0] is a path inside the jail (e.g. `/.tools/jq/run`); no shell ever sees it, so an argument cannot inject one. */
  readonly argv: readonly string[];
  /** The investigation's files: the runner writes exactly these into the workspace, nothing else. */
  readonly files: WorkspaceFiles;
  /** Aborted when the turn is stopped (S-269): the runner kills the tool rather than let it run to its time limit. */
  readonly signal?: AbortSignal;
}

export interface SandboxRunResult {
  /** null when the process was killed (timeout, output cap). */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** The output passed the runner's cap and was cut (a tool must not blow the context window either, seed #20). */
  readonly truncated: boolean;
}
