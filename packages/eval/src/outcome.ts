import {
  type AnswerabilityModel,
  type Bands,
  bandVerdict,
  type Chunk,
  type Decision,
  decideAnswerability,
  draftExtractive,
  passes,
  type Ratings,
  rate,
  sentencesOf,
} from '@sandscope/engine';
import { passagesBeside } from '@sandscope/engine/passages-beside';
import { isGold, type Measured } from './measure.ts';
import type { Outcome } from './metrics.ts';

const squash = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** A procedure question: the writer says so, or it was written as a "what do I do". */
export function asksProcedure(m: Measured): boolean {
  return m.question.intent === 'procedure' || m.question.mechanism === 'what-to-do';
}

const HEADING_LINE = /^#{1,6}\s/;

/**
 * The labelled section's lines: a passage may merge a short section with its neighbours (each keeps its `#`
 * line), and the steps asked for are those of the section the writer quoted, not every list of the passage.
 * Without a quotation, or one that crosses sections, the whole passage.
 */
function labelledSection(text: string, quoted: string | undefined): string[] {
  const lines = text.split('\n');
  if (!quoted) return lines;
  const sections: string[][] = [[]];
  for (const line of lines) {
    if (HEADING_LINE.test(line)) sections.push([]);
    sections.at(-1)!.push(line);
  }
  const needle = squash(quoted);
  return sections.find((s) => squash(s.join('\n')).includes(needle)) ?? lines;
}

/** The numbered or bulleted steps of the labelled section, in order (empty when it has fewer than two). */
export function stepsOf(chunk: Chunk, quoted?: string): string[] {
  const steps = labelledSection(chunk.text, quoted)
    .filter((l) => /^\s*(?:\d+[.)]|[-*+])\s+\S/.test(l))
    .map((l) =>
      l
        .replace(/^\s*(?:\d+[.)]|[-*+])\s+/, '')
        .replace(/\*\*|__/g, '')
        .trim(),
    );
  return steps.length >= 2 ? steps : [];
}

/**
 * One question's outcome under a model: the ENGINE's decision (`decideAnswerability`,
 * the function `ask` runs), then whether an answer cites the labelled passage and,
 * for a procedure question, whether the drafted answer carries its steps.
 */
export function outcomeOf(m: Measured, model: AnswerabilityModel, bands: Bands = model.bands): Outcome {
  return outcomeOfDecision(m, decideAnswerability(m.features, model, bands), model);
}

/** The outcome of a decision already taken: `outcomeOf`'s, or one an LLM adjudicator settled (`evaluateModelAdjudicated`). */
export function outcomeOfDecision(m: Measured, decision: Decision, model: AnswerabilityModel): Outcome {
  const q = m.question;
  const answered = decision.verdict !== 'refused';
  const hasExpected = Boolean(q.evidence || q.doc);
  let source: Outcome['source'] = null;
  let stepsCovered: boolean | null = null;
  const claims = answered ? draftExtractive(q.question, decision.evidence) : [];
  const cited = new Set(claims.flatMap((c) => c.citations));
  if (answered && q.label === 'answerable') {
    // Right only when a claim of the answer cites the labelled passage. The evidence also holds, second, the passage
    // that chose a role section, which no claim cites when the steps are quoted from that section: a question
    // labelled with a runbook's lead and answered from its steps counted right without citing the lead.
    source = !hasExpected ? 'unknown' : decision.evidence.some((c) => cited.has(c.id) && isGold(q, c)) ? 'right' : 'wrong';
    const steps = m.goldChunk ? stepsOf(m.goldChunk, q.quoted) : [];
    if (asksProcedure(m) && steps.length) {
      const answer = squash(claims.map((c) => c.text).join('\n'));
      stepsCovered = source === 'right' && steps.every((s) => answer.includes(squash(sentencesOf(s)[0] ?? s)));
    }
  }
  // What the verdict would be under any other bands: adjudication's answer, and whether the best passage passes.
  const ratings = rate(m.features, model);
  const adjudicable = bandVerdict(m.features, ratings, { insufficientBelow: 0, sufficientAbove: Infinity }).verdict === 'partial';
  const best = decision.assessment.best ? m.features.passages.find((p) => p.result === decision.assessment.best) : undefined;
  return {
    id: q.id,
    corpus: m.corpus,
    adjudicable,
    bestPasses: best ? passes(best, m.features) : false,
    refusalNamesLabelled: !answered && q.label === 'answerable' && hasExpected ? decision.assessment.nearest.some((c) => isGold(q, c.chunk)) : null,
    answerNamesLabelled: source === 'wrong' ? besideNamesGold(q, decision, cited) : null,
    refusal: answered ? null : (decision.refusal ?? 'unsure'),
    mechanism: q.mechanism,
    label: q.label,
    band: decision.assessment.band,
    verdict: decision.verdict,
    answerability: decision.assessment.answerability,
    rank: m.rank,
    hasExpected,
    source,
    cited: answered ? decision.evidence.filter((c) => cited.has(c.id)).map((c) => c.id) : null,
    stepsCovered,
  };
}

/**
 * A wrong-source answer that names its labelled passage beside it (S-190): among the closest passages it does not
 * cite, the ones `ask`, the CLI and the run page list under the answer. Counted, never credited: it is still a
 * wrong-source answer.
 */
function besideNamesGold(q: Measured['question'], decision: Decision, cited: ReadonlySet<string>): boolean {
  const beside = new Set(
    passagesBeside(
      decision.assessment.nearest.map((c) => c.chunk.id),
      cited,
    ),
  );
  return decision.assessment.nearest.some((c) => beside.has(c.chunk.id) && isGold(q, c.chunk));
}

/** The verdict alone, from precomputed ratings: what the band sweep counts (the same arithmetic `decideAnswerability` runs). */
export function verdictUnder(m: Measured, ratings: Ratings | null, bands: Bands) {
  return bandVerdict(m.features, ratings, bands);
}
