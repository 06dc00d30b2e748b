import type { Band, RefusalClaim, Verdict } from '@sandscope/engine';
import type { Label } from './question-set.ts';

export interface Outcome {
  readonly id: string;
  readonly corpus: string;
  readonly mechanism: string;
  readonly label: Label;
  readonly band: Band;
  readonly verdict: Verdict;
  /** The model's probability for the question (null when degraded or nothing was retrieved). */
  readonly answerability: number | null;
  readonly rank: number | null;
  readonly hasExpected: boolean;
  /** For an answered answerable question: did a cited passage be its labelled one? null otherwise. */
  readonly source: 'right' | 'wrong' | 'unknown' | null;
  /**
   * For an answered question (answered or partial): the passages its drafted answer cites, by id; null when refused.
   * What a wrong-source answer was answered from, so a reader can judge whether that passage answers too (the
   * source audit, `npm run eval:source-audit`): a wrong-source answer is either another passage that also answers,
   * or a confident, cited answer that does not, and the right-source rate alone cannot tell the two apart.
   */
  readonly cited?: readonly string[] | null;
  /** For an answered procedure question with labelled steps: does the answer carry them all? null otherwise. */
  readonly stepsCovered: boolean | null;
  /** Would adjudication let it through as partial, were it in the ambiguous band? (The band explorer replays it.) */
  readonly adjudicable?: boolean;
  /** Does the model's best passage fail no check (so the sufficient band would answer it)? */
  readonly bestPasses?: boolean;
  /**
   * For a refused answerable question with a labelled source: is one of the passages the refusal names as the closest
   * (at most three, best first, S-172) its labelled one? A refusal names them unless nothing matched, and where the
   * model is unsure tells the reader to read them (S-089). null otherwise.
   */
  readonly refusalNamesLabelled?: boolean | null;
  /**
   * For an answer citing a passage other than the labelled one: is the labelled passage among the closest passages it
   * does not cite, which the answer names beside it to check against (S-190)? null otherwise.
   */
  readonly answerNamesLabelled?: boolean | null;
  /** What a refusal claims (S-108): the library does not answer, the model is unsure, or the library disagrees. null unless refused. */
  readonly refusal?: RefusalClaim | null;
}

export interface MechanismRow {
  readonly label: Label;
  readonly n: number;
  readonly answered: number;
  readonly partial: number;
  readonly refused: number;
  readonly ambiguous: number;
}

export interface Metrics {
  readonly n: number;
  readonly answerable: number;
  readonly unanswerable: number;
  readonly falseAnswers: number;
  readonly falseRefusals: number;
  /** Answered or partial on an unanswerable question, over unanswerable questions. */
  readonly falseAnswerRate: number;
  /** Refused on an answerable question, over answerable questions. */
  readonly falseRefusalRate: number;
  /** Share landing in the ambiguous band (the model unsure), before adjudication. */
  readonly deferralRate: number;
  /** Of the ambiguous ones, the share adjudication let through as partial. */
  readonly partialRate: number;
  /** Answered answerable questions (with a labelled source) that cite a passage other than the labelled one. */
  readonly wrongSourceAnswers: number;
  /** Of answered answerable questions with a labelled source, the share citing it (issue 9 B). */
  readonly rightSourceRate: number;
  /** Answered procedure questions whose labelled section has steps, and the share whose answer carries every step. */
  readonly procedureAnswers: number;
  readonly stepsCoveredRate: number;
  /**
   * False refusals whose refusal names the labelled passage as the closest: a refusal that is wrong, but points at the
   * answer. Counted, never credited: each is still a false refusal (issue 9 B, what a user without a reader sees).
   */
  readonly refusalsNamingLabelled: number;
  /**
   * Wrong-source answers that name the labelled passage beside them (S-190): still wrong answers, counted as such, that
   * point at the right passage.
   */
  readonly wrongSourceNamingLabelled: number;
  /**
   * Refusals that claim the library does not answer (S-108: the rest say the model is unsure, or that the library
   * disagrees with itself), and how many of them were of answerable questions — where that claim was false.
   */
  readonly refusalsClaimingAbsent: number;
  readonly answerableClaimedAbsent: number;
  /** Chunk MRR over answerable questions with a known expected passage (rank read to depth 50). */
  readonly mrr: number;
  readonly recallAt6: number;
  readonly byMechanism: Record<string, MechanismRow>;
}

const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);

export function computeMetrics(outcomes: readonly Outcome[]): Metrics {
  const answerable = outcomes.filter((o) => o.label === 'answerable');
  const unanswerable = outcomes.filter((o) => o.label === 'unanswerable');
  const falseAnswers = unanswerable.filter((o) => o.verdict !== 'refused').length;
  const falseRefusals = answerable.filter((o) => o.verdict === 'refused').length;
  const ranked = answerable.filter((o) => o.hasExpected);
  const sourced = answerable.filter((o) => o.source === 'right' || o.source === 'wrong');
  const procedures = answerable.filter((o) => o.stepsCovered !== null);
  const byMechanism: Record<string, MechanismRow> = {};
  for (const o of outcomes) {
    const row = byMechanism[o.mechanism] ?? { label: o.label, n: 0, answered: 0, partial: 0, refused: 0, ambiguous: 0 };
    byMechanism[o.mechanism] = {
      ...row,
      n: row.n + 1,
      answered: row.answered + (o.verdict === 'answered' ? 1 : 0),
      partial: row.partial + (o.verdict === 'partial' ? 1 : 0),
      refused: row.refused + (o.verdict === 'refused' ? 1 : 0),
      ambiguous: row.ambiguous + (o.band === 'ambiguous' ? 1 : 0),
    };
  }
  const ambiguous = outcomes.filter((o) => o.band === 'ambiguous');
  return {
    n: outcomes.length,
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    falseAnswers,
    falseRefusals,
    falseAnswerRate: ratio(falseAnswers, unanswerable.length),
    falseRefusalRate: ratio(falseRefusals, answerable.length),
    deferralRate: ratio(ambiguous.length, outcomes.length),
    partialRate: ratio(ambiguous.filter((o) => o.verdict === 'partial').length, ambiguous.length),
    wrongSourceAnswers: sourced.filter((o) => o.source === 'wrong').length,
    rightSourceRate: ratio(sourced.filter((o) => o.source === 'right').length, sourced.length),
    procedureAnswers: procedures.length,
    stepsCoveredRate: ratio(procedures.filter((o) => o.stepsCovered).length, procedures.length),
    refusalsNamingLabelled: answerable.filter((o) => o.verdict === 'refused' && o.refusalNamesLabelled === true).length,
    wrongSourceNamingLabelled: sourced.filter((o) => o.source === 'wrong' && o.answerNamesLabelled === true).length,
    refusalsClaimingAbsent: outcomes.filter((o) => o.verdict === 'refused' && o.refusal === 'absent').length,
    answerableClaimedAbsent: answerable.filter((o) => o.verdict === 'refused' && o.refusal === 'absent').length,
    mrr: ratio(
      ranked.reduce((s, o) => s + (o.rank ? 1 / o.rank : 0), 0),
      ranked.length,
    ),
    recallAt6: ratio(ranked.filter((o) => o.rank !== null && o.rank <= 6).length, ranked.length),
    byMechanism,
  };
}
