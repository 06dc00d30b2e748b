import { z } from 'zod';
import { type KnowledgeBase, refusalText } from '../knowledge-base.ts';
import { DEFAULT_READ_FILE_CAPS, READ_FILE_MIN_CHARS, type ReadFileCaps, type ReadFileWindow, readFileWindow } from './read-file.ts';
import { searchFiles, type SearchFilesResult } from './search-files.ts';
import { searchRunbooks, type SearchRunbooksResult } from './search-runbooks.ts';
import type { WorkspaceFileInfo, WorkspaceFiles } from './workspace-files.ts';
import { storableValue } from './storable-text.ts';
import { resolveWorkspacePath } from './workspace-path.ts';
import type { SandboxRunner, SandboxRunResult } from './sandbox-runner.ts';
import { sandboxArgv, type SandboxToolSpec, type SandboxToolsOption } from './sandbox-tools.ts';

/**
 * The longest search_files pattern or search_runbooks query, in characters. The
 * model's arguments are unbounded text and the searches are quadratic in them:
 * a 200,000-character query held the event loop for 284 s (every turn and
 * request of the replica with it), a 100,000-character pattern for 42 s. A
 * question is at most a few hundred characters; 4000 takes about 0.1 s.
 */
export const MAX_TOOL_QUERY_CHARS = 4000;
const tooLong = `must be at most ${MAX_TOOL_QUERY_CHARS} characters; search for the words that matter`;

/**
 * The workspace's tools, declared as data (name, description, parameters): the
 * provider loop hands them to a model as tool definitions, and the offline
 * planner calls the same ones through the same toolbox, so both paths read the
 * files under the same caps and refusals.
 */
export const WORKSPACE_TOOLS = {
  list_files: {
    description: "List the investigation's files: path, size in bytes, and status (error with the reason when processing failed).",
    parameters: z.strictObject({}),
  },
  read_file: {
    description:
      'Read a file as numbered lines. offset is the first line (1-based), limit how many. ' +
      'Long files are cut at READ_FILE_MAX_LINES lines or READ_FILE_MAX_CHARS characters with a notice saying how to read on.',
    parameters: z.strictObject({
      path: z.string(),
      offset: z.number().int('must be a whole number').min(1, 'must be at least 1 (lines are counted from 1)').optional(),
      limit: z.number().int('must be a whole number').min(1, 'must be at least 1').optional(),
    }),
  },
  search_files: {
    description:
      'Find the lines containing a text (case-insensitive, literal), in every file or in one file or folder (path); ' +
      'then the lines that say the same in other words (by embedding similarity), marked "similar in meaning".',
    parameters: z.strictObject({ pattern: z.string().min(1, 'must not be empty').max(MAX_TOOL_QUERY_CHARS, tooLong), path: z.string().optional() }),
  },
  search_runbooks: {
    description: "Search the runbook library through the evidence gate: the passages that answer the query, or the library's refusal (then say it is unknown).",
    parameters: z.strictObject({ query: z.string().min(1, 'must not be empty').max(MAX_TOOL_QUERY_CHARS, tooLong) }),
  },
} as const;

export type WorkspaceToolName = keyof typeof WORKSPACE_TOOLS;

export const WORKSPACE_TOOL_NAMES = Object.keys(WORKSPACE_TOOLS) as WorkspaceToolName[];

/** What a call gave back: the text the agent reads, and the structure the planner and the UI use. */
export type ToolOutcome =
  | { readonly ok: true; readonly tool: 'list_files'; readonly text: string; readonly files: readonly WorkspaceFileInfo[] }
  | { readonly ok: true; readonly tool: 'read_file'; readonly text: string; readonly window: ReadFileWindow }
  | { readonly ok: true; readonly tool: 'search_files'; readonly text: string; readonly search: SearchFilesResult }
  | { readonly ok: true; readonly tool: 'search_runbooks'; readonly text: string; readonly runbooks: SearchRunbooksResult }
  /** A sandboxed tool (seed #21) that ran and exited 0; `name` is the tool's own name (jq, log_summary). */
  | { readonly ok: true; readonly tool: 'sandbox'; readonly name: string; readonly text: string; readonly run: SandboxRunResult }
  /** A refused call (bad arguments, a path outside the workspace, no such file): a value the agent reads and corrects, not an exception. */
  | { readonly ok: false; readonly tool: string; readonly text: string };

/** One call as the turn records it (`toolCalls` of `ask --json`). */
export interface ToolCallRecord {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly ok: boolean;
  /** A provisioned tool (seed #21) run in the jail, not read in-process: the tool-call card says so. */
  readonly sandboxed?: true;
}

export interface WorkspaceToolboxOptions {
  readonly files: WorkspaceFiles;
  readonly kb: KnowledgeBase;
  readonly caps?: ReadFileCaps;
  /**
   * Told of every call as it completes, with what it gave back: the provider
   * loop's citation check keeps a ledger of what the tools returned from it,
   * and a streamed turn sends each call as an event.
   */
  readonly onCall?: (record: ToolCallRecord, outcome: ToolOutcome) => void;
  /** Seed #21: the sandboxed tools turned on for this workspace, or why none are offered. Absent: none, silently (tests, one-shot callers). */
  readonly sandbox?: SandboxToolsOption;
  /**
   * Stops the turn these tools serve (S-269: the agent shutting down): a call made once it is aborted throws its
   * reason instead of running, and a sandboxed tool still running is killed — a turn must not go on reading after
   * the store it reads from is about to close.
   */
  readonly signal?: AbortSignal;
}

/** A tool as a model is shown it: the workspace tools, then the sandboxed ones turned on. */
export interface ToolDescription {
  readonly name: string;
  readonly description: string;
  readonly parameters: z.ZodObject;
}

/** The tools over one investigation's files, recording every call in order. */
export class WorkspaceToolbox {
  readonly calls: ToolCallRecord[] = [];
  readonly #files: WorkspaceFiles;
  readonly #kb: KnowledgeBase;
  readonly #caps: ReadFileCaps;
  readonly #listeners: ((record: ToolCallRecord, outcome: ToolOutcome) => void)[] = [];
  readonly #sandbox: SandboxToolsOption | undefined;
  readonly #signal: AbortSignal | undefined;
  #readRoom: (() => number) | undefined;

  constructor(options: WorkspaceToolboxOptions) {
    this.#sandbox = options.sandbox;
    this.#signal = options.signal;
    this.#files = options.files;
    this.#kb = options.kb;
    this.#caps = options.caps ?? DEFAULT_READ_FILE_CAPS;
    if (options.onCall) this.#listeners.push(options.onCall);
  }

  /** Adds a listener told of every later call (see `onCall`). */
  observe(listener: (record: ToolCallRecord, outcome: ToolOutcome) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Bounds every later read by `room()` characters as well as by READ_FILE_MAX_CHARS. The provider loop sets it from
   * what is left of the turn's RUN_TOKEN_BUDGET: a read larger than that (200,000 characters by default, about 50k
   * tokens, against a 16k-token budget) made the next model call one the spend guard refuses, so a turn that read a
   * large log always fell back to the offline planner.
   */
  limitReads(room: () => number): void {
    this.#readRoom = room;
  }

  /** Every tool this toolbox offers, as the provider loop declares them to a model. */
  tools(): ToolDescription[] {
    const own = WORKSPACE_TOOL_NAMES.map((name) => ({ name, description: WORKSPACE_TOOLS[name].description, parameters: WORKSPACE_TOOLS[name].parameters }));
    const sandboxed =
      this.#sandbox && 'tools' in this.#sandbox ? this.#sandbox.tools.map(({ name, description, parameters }) => ({ name, description, parameters })) : [];
    return [...own, ...sandboxed];
  }

  /** Why no sandboxed tool is offered (no jail here), or null when they are (or none were asked for). */
  sandboxUnavailable(): string | null {
    return this.#sandbox && 'unavailable' in this.#sandbox ? this.#sandbox.unavailable : null;
  }

  /** Whether a sandboxed tool of this name is offered (a jail is here and the template turned it on). */
  offers(tool: string): boolean {
    return this.#sandbox !== undefined && 'tools' in this.#sandbox && this.#sandbox.tools.some((t) => t.name === tool);
  }

  async call(tool: string, args: unknown = {}): Promise<ToolOutcome> {
    this.#signal?.throwIfAborted();
    const outcome = await this.#run(tool, args);
    // Stopped while it ran (a killed sandboxed tool reads as a failure): the turn is over, not the call refused.
    this.#signal?.throwIfAborted();
    // The record is stored (turn events, the answer's toolCalls): a model's NUL or half surrogate in an argument made it a 500.
    const stored = isRecord(args) ? (storableValue(args) as Record<string, unknown>) : {};
    const record: ToolCallRecord = {
      tool: storableValue(tool) as string,
      args: stored,
      ok: outcome.ok,
      ...(this.offers(tool) ? { sandboxed: true as const } : {}),
    };
    this.calls.push(record);
    for (const listener of this.#listeners) listener(record, outcome);
    return outcome;
  }

  #readCaps(): ReadFileCaps {
    const room = this.#readRoom ? Math.floor(this.#readRoom()) : Number.POSITIVE_INFINITY;
    if (room >= this.#caps.maxChars) return this.#caps;
    return { ...this.#caps, maxChars: Math.max(READ_FILE_MIN_CHARS, room), maxCharsBy: 'what is left of the turn’s RUN_TOKEN_BUDGET' };
  }

  async #run(tool: string, args: unknown): Promise<ToolOutcome> {
    const sandboxed = this.#sandbox && 'tools' in this.#sandbox ? this.#sandbox.tools.find((t) => t.name === tool) : undefined;
    if (sandboxed && this.#sandbox && 'runner' in this.#sandbox) return this.#runSandboxed(sandboxed, this.#sandbox.runner, args);
    if (!(tool in WORKSPACE_TOOLS)) {
      const names = this.tools()
        .map((t) => t.name)
        .join(', ');
      const why = this.sandboxUnavailable();
      return refused(tool, `there is no tool "${tool}"; the tools are ${names}.${why ? ` Sandboxed tools are not offered here: ${why}` : ''}`);
    }
    const parsed = parseArgs(tool, WORKSPACE_TOOLS[tool as WorkspaceToolName].parameters, args);
    if (!parsed.ok) return parsed.outcome;
    const a = parsed.args;
    switch (tool as WorkspaceToolName) {
      case 'list_files': {
        const files = await this.#files.list();
        const text =
          files.length === 0
            ? 'The workspace has no files yet.'
            : files.map((f) => `${f.path}\t${f.sizeBytes} bytes\t${f.status === 'ok' ? 'ok' : `error: ${f.error}`}`).join('\n');
        return { ok: true, tool: 'list_files', text, files };
      }
      case 'read_file': {
        const path = resolveWorkspacePath(a.path);
        if (!path.ok) return refused(tool, `read_file: ${path.reason}.`);
        const content = await this.#files.read(path.path);
        if (content === null) return refused(tool, `read_file: there is no file "${path.path}" in the workspace; list_files lists the files.`);
        const window = readFileWindow(path.path, content, { offset: a.offset as number | undefined, limit: a.limit as number | undefined }, this.#readCaps());
        return { ok: true, tool: 'read_file', text: window.text, window };
      }
      case 'search_files': {
        let scope: string | undefined;
        if (a.path !== undefined) {
          const path = resolveWorkspacePath(a.path);
          if (!path.ok) return refused(tool, `search_files: ${path.reason}.`);
          scope = path.path;
        }
        const search = await searchFiles(this.#files, a.pattern as string, { path: scope });
        if (scope !== undefined && search.filesSearched === 0) {
          return refused(tool, `search_files: there is no file or folder "${scope}" in the workspace; list_files lists the files.`);
        }
        const literal = search.hits.filter((h) => h.match === 'text').map((h) => `${h.path}:${h.line}: ${h.text}`);
        const similar = search.hits.filter((h) => h.match === 'similar').map((h) => `${h.path}:${h.line}: ${h.text}  [similar in meaning, ${h.similarity}]`);
        const text = [
          ...(literal.length === 0 ? [`No line contains "${search.pattern}" (${search.filesSearched} files searched).`] : literal),
          ...(search.notice ? [search.notice] : []),
          ...(similar.length > 0 ? [`Lines similar in meaning to "${search.pattern}":`, ...similar] : []),
          ...(search.similarUnavailable ? [`[lines were not searched by meaning: ${search.similarUnavailable}; the literal search above stands]`] : []),
        ].join('\n');
        return { ok: true, tool: 'search_files', text, search };
      }
      case 'search_runbooks': {
        const runbooks = await searchRunbooks(this.#kb, a.query as string);
        const text =
          runbooks.passages.length === 0
            ? refusalText(runbooks.refusal ?? 'unsure', runbooks.reasons[0] ?? '', 'The runbook library')
            : runbooks.passages.map((p) => `[${p.chunkId}] ${p.heading}\n${p.text}`).join('\n\n');
        return { ok: true, tool: 'search_runbooks', text, runbooks };
      }
    }
  }

  /**
   * A sandboxed call: arguments checked against the declaration, paths
   * resolved inside the workspace, then the runner's jail. A non-zero exit is
   * the tool's refusal (a bad jq filter, say): a value the agent reads and
   * corrects, with the tool's own stderr. The runner failing on the host
   * (its temp directory gone or full, the store unreadable) is a refusal too:
   * it used to reject the whole turn — the user's turn lost offline — or hand
   * the model the host error with its paths, and the call was never recorded.
   */
  async #runSandboxed(spec: SandboxToolSpec, runner: SandboxRunner, args: unknown): Promise<ToolOutcome> {
    const parsed = parseArgs(spec.name, spec.parameters, args);
    if (!parsed.ok) return parsed.outcome;
    const argv = sandboxArgv(spec, parsed.args);
    if (!argv.ok) return refused(spec.name, `${spec.name}: ${argv.reason}.`);
    let run: SandboxRunResult;
    try {
      run = await runner.run({ argv: argv.argv, files: this.#files, ...(this.#signal ? { signal: this.#signal } : {}) });
    } catch {
      return refused(spec.name, `${spec.name}: the sandbox could not run this time; try again.`);
    }
    const cut = run.truncated ? '\n[output cut at the sandbox output cap; narrow the query]' : '';
    if (run.timedOut) return refused(spec.name, `${spec.name}: stopped after the sandbox time limit; narrow the query.`);
    // Killed by the runner for passing the output cap: what it printed up to the cap is the answer, marked cut.
    const cappedOnly = run.exitCode === null && run.truncated;
    if (run.exitCode !== 0 && !cappedOnly) {
      return refused(spec.name, `${spec.name} failed (exit ${run.exitCode ?? 'killed'}): ${run.stderr.trim() || run.stdout.trim() || 'no output'}${cut}`);
    }
    return { ok: true, tool: 'sandbox', name: spec.name, text: `${run.stdout.trimEnd() || '(no output)'}${cut}`, run };
  }
}

function parseArgs(tool: string, schema: z.ZodObject, args: unknown): { ok: true; args: Record<string, unknown> } | { ok: false; outcome: ToolOutcome } {
  const parsed = schema.safeParse(args);
  if (parsed.success) return { ok: true, args: parsed.data as Record<string, unknown> };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'the arguments';
  return { ok: false, outcome: refused(tool, `${tool}: ${where} ${issue?.message ?? 'are invalid'}.`) };
}

function refused(tool: string, text: string): ToolOutcome {
  return { ok: false, tool, text };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
