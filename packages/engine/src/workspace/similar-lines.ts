import { cosine, type Embedder, EmbedderUnavailableError } from '../retrieval/embedder.ts';
import { fileLines } from './file-lines.ts';

/** A stored passage near a query vector (the store's similarInvestigationPassages, or the in-memory fake's). */
export interface NearPassage {
  readonly path: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly similarity: number;
}

/** A line near a query in meaning, not necessarily in wording. */
export interface SimilarLine {
  readonly path: string;
  /** 1-based. */
  readonly line: number;
  readonly text: string;
  /** Cosine similarity of the line's embedding and the query's. */
  readonly similarity: number;
}

export type SimilarLinesResult =
  | { readonly ok: true; readonly lines: readonly SimilarLine[] }
  /**
   * Similarity could not be searched; the caller still has its lexical hits and says why. `rejected`: the embedder
   * refused this query alone (EmbedderUnavailableError.rejected), so it is not down for the next one.
   */
  | { readonly ok: false; readonly reason: string; readonly rejected: boolean };

export interface SimilarLinesOptions {
  /** A file or folder prefix to search within; resolved already. */
  readonly path?: string;
  /** Most lines returned. */
  readonly k: number;
}

/**
 * The lowest cosine at which a line counts as saying what the query says. Set
 * for the hashing embedder (stemmed terms and character trigrams): a line
 * sharing a query word's stem ("throttled" for "throttling") scores above it,
 * a line sharing only common trigrams below — similar-lines.test.ts holds both
 * sides. Without a floor every question would "find" the nearest line of an
 * unrelated log, and the planner would cite it: a guess dressed as evidence.
 */
export const DEFAULT_MIN_LINE_SIMILARITY = 0.15;
/** Passages whose lines are compared with the query, nearest first. */
export const NEAR_PASSAGES = 3;

export interface SimilarLinesInput {
  readonly embedder: Embedder;
  readonly query: string;
  readonly options: SimilarLinesOptions;
  /** The stored passages nearest a vector, in the embedder's space. */
  readonly nearest: (vector: Float32Array, options: { readonly k: number; readonly path?: string }) => Promise<readonly NearPassage[]>;
  readonly read: (path: string) => Promise<string | null>;
  readonly minSimilarity?: number;
}

/**
 * Two steps, because a passage vector finds the neighbourhood but a citation
 * needs a line: the stored passages nearest the query, then each line of those
 * passages embedded and compared with the query, kept at or above the floor.
 * An embedder outage is a value (the lexical search still stands), not an error.
 */
export async function similarLines(input: SimilarLinesInput): Promise<SimilarLinesResult> {
  const floor = input.minSimilarity ?? DEFAULT_MIN_LINE_SIMILARITY;
  try {
    const [query] = await input.embedder.embed([input.query]);
    if (!query) return { ok: true, lines: [] };
    const passages = await input.nearest(query, { k: NEAR_PASSAGES, ...(input.options.path !== undefined ? { path: input.options.path } : {}) });
    const candidates: { path: string; line: number; text: string }[] = [];
    for (const p of passages) {
      const content = await input.read(p.path);
      if (content === null) continue;
      const lines = fileLines(content);
      for (let n = p.startLine; n <= Math.min(p.endLine, lines.length); n++) {
        const text = lines[n - 1]!;
        if (text.trim() !== '' && !candidates.some((c) => c.path === p.path && c.line === n)) candidates.push({ path: p.path, line: n, text });
      }
    }
    if (candidates.length === 0) return { ok: true, lines: [] };
    const vectors = await input.embedder.embed(candidates.map((c) => c.text));
    const lines = candidates
      .map((c, i) => ({ ...c, similarity: cosine(query, vectors[i]!) }))
      .filter((l) => l.similarity >= floor)
      .sort((a, b) => b.similarity - a.similarity || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line))
      .slice(0, input.options.k);
    return { ok: true, lines };
  } catch (error) {
    if (!(error instanceof EmbedderUnavailableError)) throw error;
    return error.rejected
      ? { ok: false, reason: `the embedder refused this search (${error.message})`, rejected: true }
      : { ok: false, reason: `the embedder is unavailable (${error.message})`, rejected: false };
  }
}
