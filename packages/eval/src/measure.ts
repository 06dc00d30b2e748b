import { type AnswerabilityFeatures, type Chunk, DEEPER_DEPTH, type KnowledgeBase, type Retrieval, type ScoredChunk } from '@sandscope/engine';
import type { EvalQuestion } from './question-set.ts';

/** The gate reads the top 6 (seed §Four); ranks for MRR are read deeper so a miss is a miss, not a truncation. */
export const GATE_DEPTH = 6;
export const RANK_DEPTH = 50;

/** One question measured once: its retrieval and features. Every decision is then taken on these by the engine's own function. */
export interface Measured {
  readonly question: EvalQuestion;
  /** The corpus it belongs to: leave-one-corpus-out holds corpora out whole. */
  readonly corpus: string;
  readonly retrieval: Retrieval;
  /** The search's passages past the gate's, to `DEEPER_DEPTH`: what a reader reads before it refuses (S-097). */
  readonly deeper: readonly ScoredChunk[];
  readonly features: AnswerabilityFeatures;
  /** 1-based rank of the expected passage (or of the first passage of the expected document), null if not found. */
  readonly rank: number | null;
  /** Per retrieved passage: is it the labelled evidence (or from the labelled document when only a document is given)? */
  readonly gold: readonly boolean[];
  /** The labelled passage itself, when one is named (its steps are what a procedure answer must contain). */
  readonly goldChunk: Chunk | null;
}

export function isGold(q: EvalQuestion, c: Chunk): boolean {
  if (q.label !== 'answerable') return false;
  if (q.evidence) return c.id === q.evidence;
  return q.doc ? c.doc === q.doc : false;
}

function rankOf(q: EvalQuestion, r: Retrieval): number | null {
  if (q.label !== 'answerable' || (!q.evidence && !q.doc)) return null;
  const i = r.results.findIndex((x) => isGold(q, x.chunk));
  return i >= 0 ? i + 1 : null;
}

/** Retrieve and measure every question once. Evidence must already be resolved to passage ids (`resolveEvidence`). */
export async function measureAll(
  kb: KnowledgeBase,
  questions: readonly EvalQuestion[],
  corpus = 'corpus',
  onProgress?: (done: number) => void,
): Promise<Measured[]> {
  const out: Measured[] = [];
  for (const question of questions) {
    const deep = await kb.retrieve(question.question, RANK_DEPTH);
    const retrieval: Retrieval = { ...deep, results: deep.results.slice(0, GATE_DEPTH) };
    const features = kb.features(question.question, retrieval);
    out.push({
      question,
      corpus,
      retrieval,
      deeper: deep.results.slice(GATE_DEPTH, DEEPER_DEPTH),
      features,
      rank: rankOf(question, deep),
      gold: retrieval.results.map((r) => isGold(question, r.chunk)),
      goldChunk: question.evidence ? (kb.chunk(question.evidence) ?? null) : null,
    });
    onProgress?.(out.length);
  }
  return out;
}
