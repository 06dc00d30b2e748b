import { contentTerms, tokenize } from '../retrieval/tokenizer.ts';
import { demandedValue, statesValue } from '../retrieval/question-shape.ts';
import type { Chunk, Claim } from '../types.ts';
import { sentencesOf } from './sentences.ts';

export interface ExtractiveOptions {
  /** Claims a previous draft got wrong; the next draft must not repeat them (D-005). */
  readonly feedback?: readonly string[];
  /** Upper bound on claims drafted (default 3). */
  readonly maxClaims?: number;
}

const normalise = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * The claim a feedback line rejects. The verifier writes `Claim 2 "…": reasons`;
 * a bare sentence is taken whole. Matching only whole lines would make the
 * offline retry repeat the rejected claim — the identical re-prompt of D-005.
 */
function rejectedClaim(feedback: string): string {
  const quoted = /^Claim \d+ "([\s\S]*)": /.exec(feedback);
  return normalise(quoted ? quoted[1]! : feedback);
}

/**
 * The offline, deterministic extractive answerer: every claim is a sentence of
 * a retrieved passage, cited to that passage — there is no sentence without a
 * citation because there is no sentence it did not read. Passages come best
 * first; sentences are picked by how many of the question's terms they carry
 * (and whether they state the value it demands), then put back in reading order.
 */
export function draftExtractive(question: string, passages: readonly Chunk[], options: ExtractiveOptions = {}): Claim[] {
  const maxClaims = options.maxClaims ?? 3;
  const rejected = new Set((options.feedback ?? []).map(rejectedClaim));
  const terms = new Set(contentTerms(question));
  const demanded = demandedValue(question);
  const candidates: { text: string; chunk: Chunk; rank: number; pos: number; score: number }[] = [];
  passages.forEach((chunk, rank) => {
    sentencesOf(chunk.text).forEach((text, pos) => {
      if (rejected.has(normalise(text))) return;
      const tokens = new Set(tokenize(text));
      let overlap = 0;
      for (const t of terms) if (tokens.has(t)) overlap++;
      if (overlap === 0) return;
      const valueBonus = demanded && statesValue(text, demanded) ? 1.5 : 0;
      candidates.push({ text, chunk, rank, pos, score: overlap + valueBonus - rank * 0.35 - pos * 0.01 });
    });
  });
  candidates.sort((a, b) => b.score - a.score || a.rank - b.rank || a.pos - b.pos);
  const chosen = candidates.slice(0, maxClaims).sort((a, b) => a.rank - b.rank || a.pos - b.pos);
  if (chosen.length === 0) {
    const first = passages[0];
    const text = first ? sentencesOf(first.text).find((s) => !rejected.has(normalise(s))) : undefined;
    return first && text ? [{ text, citations: [first.id] }] : [];
  }
  return chosen.map((c) => ({ text: c.text, citations: [c.chunk.id] }));
}
