/**
 * The engine's only view of an investigation's files. The edge implements it
 * over the store (apps/agent); the tools and the planner read through it and
 * never touch a disk or a database themselves (packages/engine is pure).
 * Paths given to `read` are already resolved (workspace-path.ts).
 */
export interface WorkspaceFiles {
  /** Every file, path order. */
  list(): Promise<readonly WorkspaceFileInfo[]>;
  /** The file's text, or null when there is no such file. */
  read(path: string): Promise<string | null>;
}

export interface WorkspaceFileInfo {
  readonly path: string;
  /** UTF-8 bytes of the stored content. */
  readonly sizeBytes: number;
  /**
   * `error` when processing the file failed (e.g. the remote embedder, seed #15);
   * the text is still stored and still searchable lexically.
   */
  readonly status: 'ok' | 'error';
  readonly error: string | null;
}

/** Files held in memory: the fake the engine's tests use, and what a one-shot caller can hand in. */
export class InMemoryWorkspaceFiles implements WorkspaceFiles {
  readonly #files: Map<string, string>;

  constructor(files: Readonly<Record<string, string>> = {}) {
    this.#files = new Map(Object.entries(files));
  }

  async list(): Promise<WorkspaceFileInfo[]> {
    return [...this.#files.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([path, text]) => ({ path, sizeBytes: new TextEncoder().encode(text).byteLength, status: 'ok' as const, error: null }));
  }

  async read(path: string): Promise<string | null> {
    return this.#files.get(path) ?? null;
  }
}
