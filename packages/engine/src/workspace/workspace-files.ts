import { cosine, type Embedder } from '../retrieval/embedder.ts';
import { filePassages } from './file-passages.ts';
import { type NearPassage, type SimilarLinesOptions, type SimilarLinesResult, similarLines } from './similar-lines.ts';

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
  /**
   * The lines nearest `query` in meaning, from the files' stored embeddings
   * (similar-lines.ts). Absent where nothing is embedded: search_files is then
   * lexical only. A file whose embedding failed has no passages, so it is
   * found by its text alone.
   */
  similarLines?(query: string, options: SimilarLinesOptions): Promise<SimilarLinesResult>;
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

/**
 * Files held in memory: the fake the engine's tests use, and what a one-shot
 * caller can hand in. Given an embedder it embeds each file's passages as the
 * store does on upload, so similarity search runs the same two steps here.
 */
export class InMemoryWorkspaceFiles implements WorkspaceFiles {
  readonly #files: Map<string, string>;
  /** Only with an embedder: without one this fake, like a store with nothing embedded, searches lexically. */
  readonly similarLines?: (query: string, options: SimilarLinesOptions) => Promise<SimilarLinesResult>;
  #passages: Promise<{ path: string; startLine: number; endLine: number; vector: Float32Array }[]> | undefined;

  constructor(files: Readonly<Record<string, string>> = {}, options: { embedder?: Embedder } = {}) {
    this.#files = new Map(Object.entries(files));
    const embedder = options.embedder;
    if (embedder) this.similarLines = (query, o) => this.#similar(embedder, query, o);
  }

  async list(): Promise<WorkspaceFileInfo[]> {
    return [...this.#files.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([path, text]) => ({ path, sizeBytes: new TextEncoder().encode(text).byteLength, status: 'ok' as const, error: null }));
  }

  async read(path: string): Promise<string | null> {
    return this.#files.get(path) ?? null;
  }

  async #similar(embedder: Embedder, query: string, options: SimilarLinesOptions): Promise<SimilarLinesResult> {
    this.#passages ??= (async () => {
      const all = [...this.#files.entries()].flatMap(([path, content]) => filePassages(content).map((p) => ({ path, ...p })));
      const vectors = await embedder.embed(all.map((p) => p.text));
      return all.map((p, i) => ({ path: p.path, startLine: p.startLine, endLine: p.endLine, vector: vectors[i]! }));
    })();
    const stored = await this.#passages;
    const nearest = async (vector: Float32Array, o: { k: number; path?: string }): Promise<NearPassage[]> =>
      stored
        .filter((p) => o.path === undefined || p.path === o.path || p.path.startsWith(`${o.path.replace(/\/$/, '')}/`))
        .map((p) => ({ path: p.path, startLine: p.startLine, endLine: p.endLine, similarity: cosine(vector, p.vector) }))
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, o.k);
    return similarLines({ embedder, query, options, nearest, read: (path) => this.read(path) });
  }
}
