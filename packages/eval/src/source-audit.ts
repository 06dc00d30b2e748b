// The source audit (`npm run eval:source-audit`): a wrong-source answer of the record cites another passage than the labelled one. Either that
// passage answers too (the library says it twice, and only one place was labelled), or the answer is a confident,
// cited one that does not answer: the failure Sandscope exists to prevent, which the false-answer rate never counts
// because the question is answerable. The right-source rate cannot tell the two apart; a blind reader can. Each
// wrong-source answer is shown as the question and two passages, the cited one and the labelled one, in an order
// fixed by a hash of the question's id, with nothing to say which is which; the labelled passage is the control.
import { z } from 'zod';

export const SourceVerdict = z.enum(['yes', 'partly', 'no']);
export type SourceVerdict = z.infer<typeof SourceVerdict>;

const Passage = z.object({ id: z.string(), doc: z.string(), heading: z.string(), text: z.string() });

/** What the reader is shown: the question and two passages, A and B. */
export const SourceAuditItem = z.object({ id: z.string(), corpus: z.string(), question: z.string(), A: z.array(Passage), B: z.array(Passage) });
export type SourceAuditItem = z.infer<typeof SourceAuditItem>;

/** What the reader returns for one item: does passage A (B) on its own answer the question? */
export const JudgedSourceItem = z.object({ id: z.string(), corpus: z.string(), A: SourceVerdict, B: SourceVerdict });

/** One judged wrong-source answer as the repo keeps it: which passages were cited, which is labelled, and the verdicts. */
export const SourceJudgement = z.object({
  id: z.string(),
  corpus: z.string(),
  cited: z.array(z.string()).min(1),
  labelled: z.string(),
  citedAnswers: SourceVerdict,
  labelledAnswers: SourceVerdict,
});
export type SourceJudgement = z.infer<typeof SourceJudgement>;

/** A wrong-source row of the record: `docs/evaluation.json`'s question rows carry what each answer cites. */
export interface WrongSource {
  readonly id: string;
  readonly corpus: string;
  readonly cited: readonly string[];
}

/** The record's wrong-source answers with what each cites (a row from before the audit cites nothing and is left out). */
export function wrongSources(
  rows: readonly { readonly id: string; readonly corpus: string; readonly source?: string | null; readonly cited?: readonly string[] | null }[],
): WrongSource[] {
  return rows.flatMap((r) => (r.source === 'wrong' && r.cited?.length ? [{ id: r.id, corpus: r.corpus, cited: r.cited }] : []));
}

/** Which side the cited passages are shown on: a hash of the corpus and id (FNV-1a), so the order is fixed and hidden. */
export function citedSide(corpus: string, id: string): 'A' | 'B' {
  let h = 0x811c9dc5;
  for (const ch of `${corpus}\u0000${id}`) h = Math.imul(h ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
  return h % 2 === 0 ? 'A' : 'B';
}

/** A judged item back to the record's terms: the side the cited passages were on is the hash's, never the reader's. */
export function recordedOf(judged: z.infer<typeof JudgedSourceItem>, cited: readonly string[], labelled: string): SourceJudgement {
  const side = citedSide(judged.corpus, judged.id);
  const other = side === 'A' ? 'B' : 'A';
  return { id: judged.id, corpus: judged.corpus, cited: [...cited], labelled, citedAnswers: judged[side], labelledAnswers: judged[other] };
}

type Counts = Record<SourceVerdict, number>;
const zero = (): Counts => ({ yes: 0, partly: 0, no: 0 });

export interface SourceAudit {
  /** Wrong-source answers in the record. */
  readonly wrong: number;
  /** Of them, judged on the very passages the record's answer cites. */
  readonly judged: number;
  /** Judged, but the record's answer now cites other passages (the record moved since): not counted. */
  readonly stale: number;
  /** Does the passage the answer cites answer the question? */
  readonly cited: Counts;
  /** The control: does the labelled passage? */
  readonly labelled: Counts;
}

/** The audit of the record's wrong-source answers, from the judgements kept: a judgement counts only for the passages it saw. */
export function auditSources(rows: readonly WrongSource[], recorded: readonly SourceJudgement[]): SourceAudit {
  const byKey = new Map(recorded.map((r) => [`${r.corpus}\u0000${r.id}`, r]));
  const cited = zero();
  const labelled = zero();
  let judged = 0;
  let stale = 0;
  for (const row of rows) {
    const r = byKey.get(`${row.corpus}\u0000${row.id}`);
    if (!r) continue;
    if ([...r.cited].sort().join('\u0000') !== [...row.cited].sort().join('\u0000')) {
      stale++;
      continue;
    }
    judged++;
    cited[r.citedAnswers]++;
    labelled[r.labelledAnswers]++;
  }
  return { wrong: rows.length, judged, stale, cited, labelled };
}

/**
 * The trust figure the audit makes (ADR-0013's last addendum): of the answers the record gives (answered or partial),
 * those that do not answer the question asked — the false answers to unanswerable questions, and the answers to
 * answerable ones from a cited passage the reader judged not to answer — and those that answer only in part. One
 * function, so the README, docs/EVALUATION.md and the website's evaluation page print the same counts.
 */
export interface AnswersNotAnswering {
  /** Answers given: rows answered or partial. */
  readonly given: number;
  /** Of them, to unanswerable questions. */
  readonly falseAnswers: number;
  /** Of them, to answerable questions, from a cited passage judged not to answer. */
  readonly wrongSourceNotAnswering: number;
  /** falseAnswers + wrongSourceNotAnswering. */
  readonly notAnswering: number;
  /** Wrong-source answers whose cited passage answers only in part. */
  readonly partly: number;
}

export function answersNotAnswering(
  rows: readonly { readonly label: string; readonly verdict: string }[],
  audit: Pick<SourceAudit, 'cited'>,
): AnswersNotAnswering {
  const given = rows.filter((r) => r.verdict === 'answered' || r.verdict === 'partial');
  const falseAnswers = given.filter((r) => r.label === 'unanswerable').length;
  return {
    given: given.length,
    falseAnswers,
    wrongSourceNotAnswering: audit.cited.no,
    notAnswering: falseAnswers + audit.cited.no,
    partly: audit.cited.partly,
  };
}

/**
 * The audit of a record's rows and the trust figure it makes, as the agent serves it beside the evaluation; null when
 * none of the record's wrong-source answers is judged on the passages it cites (nothing to say of it).
 */
export function sourceAuditOf(
  rows: readonly {
    readonly id: string;
    readonly corpus: string;
    readonly label: string;
    readonly verdict: string;
    readonly source?: string | null;
    readonly cited?: readonly string[] | null;
  }[],
  judgements: readonly SourceJudgement[],
): (SourceAudit & AnswersNotAnswering) | null {
  const audit = auditSources(wrongSources(rows), judgements);
  return audit.judged ? { ...audit, ...answersNotAnswering(rows, audit) } : null;
}
