import type { LanguageModelV3 } from '@ai-sdk/provider';
import { readResultMetadata } from '../models/call-options.ts';
import { buildJudgementPrompt, type Judgement, parseJudgement } from '../models/prompt.ts';
import { DEFAULT_DEPTH } from '../retrieval/hybrid-retriever.ts';
import type { Chunk, ScoredChunk } from '../types.ts';
import type { RefusalClaim } from '../types.ts';
import type { Adjudication, Decision } from './decide.ts';
import { type AnswerabilityFeatures, passes } from './features.ts';
import { NUMBERS_PREFIX } from './reason-format.ts';
import { whyNoReading } from './reader-unavailable.ts';

export interface ModelJudgementInput {
  readonly question: string;
  readonly features: AnswerabilityFeatures;
  /** The passage ratings of the decision under the adjudicated bands: they order the candidates. */
  readonly probabilities: readonly number[];
  /** That decision's own adjudication: what stands when no passage is a candidate. */
  readonly offline: Adjudication;
  readonly model: LanguageModelV3;
  /** The question decided offline, under the offline bands: what stands when no model judges. */
  readonly decideOffline: (features: AnswerabilityFeatures) => Decision;
  /**
   * The search for the question to `DEEPER_DEPTH` (S-097): the passages past those the gate read are read when none of
   * those answers, before the question is refused. Called only then; absent, nothing is read deeper.
   */
  readonly deeper?: () => Promise<readonly ScoredChunk[]>;
}

/**
 * What a reader (`ADJUDICATOR=model`) does with a decision: reads an answer of the sufficient band before it is given
 * (S-096), judges the question (the ambiguous band, and since S-100 a refusal of the insufficient band), or nothing —
 * nothing was retrieved, or the question was refused at assessment because two passages disagree on the value asked
 * for. The graph's routing and `eval --adjudicator model` both ask this, so the evaluation reads what a run reads.
 */
export function readerStep(decision: Decision): 'confirm' | 'judge' | null {
  const { band, best } = decision.assessment;
  if (band === 'sufficient') return decision.verdict === 'answered' ? 'confirm' : null;
  if (band === 'ambiguous') return decision.adjudication ? 'judge' : null;
  // S-100: with a reader, a refusal is read before it is given, as an answer is (S-096). The lower line refused unread
  // the questions the model rated least likely to answer, and on the record's groups those were about half of the
  // reader's false refusals: a line fitted to a pooled budget cannot know what a reader would find in the passages.
  return best ? 'judge' : null;
}

/** What stands for a judged question when no model judges it: the band's own adjudication, or (below the lower line) a refusal. */
export function adjudicationOffline(decision: Decision): Adjudication {
  return decision.adjudication ?? { decision: 'refuse', carrier: null, reasons: [] };
}

/**
 * How far down the search the reader reads before it refuses (S-097): the gate's six, then the next six. On the
 * record's development groups most of the reader's refusals of answerable questions were of questions whose labelled
 * passage it was never shown, and half of those ranked seventh to twelfth.
 */
export const DEEPER_DEPTH = 2 * DEFAULT_DEPTH;

export interface ModelJudgement {
  readonly adjudication: Adjudication;
  /** The provider whose judgement was taken, or null when none was (decided as offline). */
  readonly judgedBy: string | null;
  /** The passages the model was shown, by id: none only when nothing was retrieved, so no model was asked. */
  readonly shown: readonly string[];
  /** The prompts sent for it: the gate's passages, then the search's next six when none answered (S-097); none when nothing was shown. */
  readonly calls: number;
}

/**
 * An LLM's judgement of a question in the ambiguous band (`ADJUDICATOR=model`): whether one of the passages the gate
 * read, the likeliest that fail no check first (S-092), answers it. Partial or refuse, never sufficient. Without a
 * usable judgement — every provider failed, only the offline model answered, the reply was not a judgement, or it
 * named a passage it was not shown, or none — the question is decided as it would be offline: the adjudicator can only narrow
 * what is answered, never widen it. The graph's adjudicate node and `sandscope eval --adjudicator model` both call this, so the evaluation
 * scores the judgement the product takes.
 */
export async function judgeByModel(input: ModelJudgementInput): Promise<ModelJudgement> {
  const f = input.features;
  const candidates = candidatesOf(f, input.probabilities);
  if (candidates.length === 0) return { adjudication: input.offline, judgedBy: null, shown: [], calls: 0 };
  const { reading, shown, calls } = await read(input.question, candidates, input.deeper, input.model);
  if ('unavailable' in reading) {
    // Decided as offline, under the offline bands: what the run would have done without an adjudicator.
    const asOffline = input.decideOffline(f);
    const note = `No model judged this: ${reading.unavailable}. Decided as it would be without a reader.`;
    const carrier = asOffline.verdict === 'refused' ? null : (f.passages.find((p) => p.result.chunk.id === asOffline.evidence[0]?.id)?.result ?? null);
    const adjudication: Adjudication = carrier
      ? { decision: 'partial', carrier, reasons: [note, ...asOffline.reasons] }
      : { decision: 'refuse', carrier: null, reasons: [note, ...asOffline.reasons], refusal: asOffline.refusal ?? 'unsure' };
    return { adjudication, judgedBy: null, shown, calls };
  }
  return { adjudication: adjudicationOf(reading), judgedBy: reading.servedBy, shown, calls };
}

/** A reader's reading of an answer the sufficient band gives without asking (S-096). */
export interface ModelConfirmation {
  /**
   * What stands instead of the gate's answer when the reader did not name a passage the gate answered from: a refusal,
   * or partial from the passage it named — another the gate read (S-098), or one further down the search (S-097). Null
   * when the answer stands.
   */
  readonly withheld: Adjudication | null;
  /** What the reader said, or why none judged: a reason the run keeps either way. */
  readonly note: string | null;
  /** The provider whose reading was taken, or null when none was (the answer stands, as offline). */
  readonly judgedBy: string | null;
  readonly shown: readonly string[];
  /** The prompts sent for it, as for a judgement (`ModelJudgement.calls`). */
  readonly calls: number;
}

/**
 * S-096: with a reader, an answer is read before it is given. The sufficient band answered without asking, and on the
 * record's groups nearly every false answer with a reader was one it was never shown: it refuses almost every
 * unanswerable question it reads. So the reader reads these too, with the prompt the ambiguous band sends (the same
 * passages in the same order): if it finds no passage answers, the answer is withheld; if it names one the gate
 * answered from, or no model judges, the answer stands as the gate chose it. It only narrows what is answered, never
 * upgrades: a withheld answer is refused, or given partial from the passage the reader names — another the gate read
 * (S-098), or one further down the search (S-097).
 */
export async function confirmByModel(
  input: Pick<ModelJudgementInput, 'question' | 'features' | 'probabilities' | 'model' | 'deeper'> & {
    /** The passages the gate answers from: the answer stands only when the reader names one of them (S-098). */
    readonly evidence: readonly Chunk[];
  },
): Promise<ModelConfirmation> {
  const candidates = candidatesOf(input.features, input.probabilities);
  if (candidates.length === 0) return { withheld: null, note: null, judgedBy: null, shown: [], calls: 0 };
  const { reading, shown, calls } = await read(input.question, candidates, input.deeper, input.model);
  if ('unavailable' in reading)
    return {
      withheld: null,
      note: `No model read this answer: ${reading.unavailable}. Given unread, as it would be without a reader.`,
      judgedBy: null,
      shown,
      calls,
    };
  if (reading.answers && !reading.deeper && input.evidence.some((c) => c.id === reading.carrier.chunk.id))
    return {
      withheld: null,
      note: `Read by ${reading.servedBy} before answering: ${reading.reason || 'a passage answers'}.`,
      judgedBy: reading.servedBy,
      shown,
      calls,
    };
  // The reader did not name a passage the gate answered from: the answer is withheld, and given partial from the
  // passage it names — another the gate read (S-098), or one further down the search (S-097) — or refused.
  const withheld: Adjudication = !reading.answers
    ? {
        decision: 'refuse',
        carrier: null,
        reasons: [`Answer withheld: ${reading.servedBy} read the passages and found none answers — ${reading.reason || 'no candidate answers the question'}.`],
        refusal: 'absent',
      }
    : reading.deeper
      ? adjudicationOf(reading)
      : movedTo(reading);
  return { withheld, note: withheld.reasons[0]!, judgedBy: reading.servedBy, shown, calls };
}

/** An answer as the reader's reading leaves it: settled by what replaces it when withheld, else the same answer with the reader's note. */
export function confirmed(decision: Decision, confirmation: ModelConfirmation): Decision {
  if (confirmation.withheld)
    return { ...settled(decision, confirmation.withheld), reasons: withheldReasons(decision.assessment.reasons, confirmation.withheld.reasons) };
  return confirmation.note ? { ...decision, reasons: [...decision.reasons, confirmation.note] } : decision;
}

/** What marks a reason of the gate's answer that the reader withheld: what the gate would have said (S-253). */
export const BEFORE_THE_READER = 'Before the reader: ';

/**
 * The reasons of an answer the reader withheld (S-253): the reader's first, then the gate's, each marked as said before
 * the reader. A refusal of "What is the connection pool ceiling for orders-db?" headed "REFUSED" gave as its first
 * reason, and in its answer text ("The library does not answer this. Answered from …"), the gate's "Answered from
 * “orders-db connection pool ceiling” …", and the reader's reason came last. The numbers line stays as it is: it
 * claims nothing, and the website finds it by its prefix. The graph's adjudicate node and `confirmed` both compose
 * them here.
 */
export function withheldReasons(gate: readonly string[], reader: readonly string[]): string[] {
  return [...reader, ...gate.map((r) => (r.startsWith(NUMBERS_PREFIX) || r.startsWith(BEFORE_THE_READER) ? r : `${BEFORE_THE_READER}${r}`))];
}

/**
 * Every passage the gate read, the likeliest that fail no check first (S-092). The checks are lexical (an entity in
 * the question's words, a value in digits) and the reader is briefed on the same failures, so a passage that fails
 * one is shown, not hidden: shown three (S-076), then the search's first as a fourth (S-086), nearly all its refusals
 * of answerable questions were of questions whose labelled passage it was never shown.
 */
function candidatesOf(f: AnswerabilityFeatures, probabilities: readonly number[]) {
  const likeliest = f.passages.map((_, i) => i).sort((a, b) => (probabilities[b] ?? 0) - (probabilities[a] ?? 0));
  const passing = likeliest.filter((i) => passes(f.passages[i]!, f));
  return [...passing, ...likeliest.filter((i) => !passing.includes(i))].map((i) => f.passages[i]!.result);
}

/**
 * A decision as its adjudication settles it: partial, answered from the passage the adjudication carries, or refused.
 * Never sufficient. The graph's adjudicate node and the evaluation both settle a judgement here, so the verdict the
 * evaluation counts is the one a run returns.
 */
export function settled(decision: Decision, adjudication: Adjudication): Decision {
  const carrier = adjudication.decision === 'partial' ? adjudication.carrier : null;
  return {
    ...decision,
    adjudication,
    verdict: carrier ? 'partial' : 'refused',
    reasons: [...decision.assessment.reasons, ...adjudication.reasons],
    evidence: carrier ? [carrier.chunk] : [],
    refusal: carrier ? null : refusalClaim(decision, adjudication),
  };
}

/**
 * What a refusal settled by `adjudication` claims (S-108): a reader that read the passages says they do not answer;
 * otherwise the decision's own claim stands, and where it made none (an answer withheld with no reader's reading) the
 * model was unsure. The graph's run result and the evaluation both take it from here.
 */
export function refusalClaim(decision: Decision, adjudication: Adjudication | null): RefusalClaim {
  return adjudication?.refusal ?? decision.refusal ?? 'unsure';
}

/** What the reader made of a question: a passage that answers (of those the gate read, or further down), none, or no judgement. */
type Reading =
  | { readonly answers: true; readonly carrier: ScoredChunk; readonly deeper: boolean; readonly servedBy: string; readonly reason: string }
  | { readonly answers: false; readonly servedBy: string; readonly reason: string }
  | { readonly unavailable: string };

/**
 * The reader reads the passages the gate read; when it finds none answers, it reads the search's next passages before
 * refusing (S-097). Nearly all its refusals of answerable questions were of questions whose labelled passage it was
 * never shown: the gate's six are what the score ranks first, not all the library says. A deeper read that fails
 * leaves the refusal the reader gave; it never widens an answer to anything but partial.
 */
async function read(
  question: string,
  candidates: readonly ScoredChunk[],
  deeper: (() => Promise<readonly ScoredChunk[]>) | undefined,
  model: LanguageModelV3,
): Promise<{ reading: Reading; shown: readonly string[]; calls: number }> {
  const shown = candidates.map((c) => c.chunk.id);
  const first = await judge(
    question,
    candidates.map((c) => c.chunk),
    model,
  );
  if ('unavailable' in first) return { reading: first, shown, calls: 1 };
  const reason = first.verdict.reason.trim().slice(0, 300);
  if (first.verdict.answers) {
    const carrier = candidates.find((c) => c.chunk.id === first.verdict.passage)!;
    return { reading: { answers: true, carrier, deeper: false, servedBy: first.servedBy, reason }, shown, calls: 1 };
  }
  const refused: Reading = { answers: false, servedBy: first.servedBy, reason };
  const further = deeper ? (await deeper()).filter((r) => !shown.includes(r.chunk.id)) : [];
  if (further.length === 0) return { reading: refused, shown, calls: 1 };
  const second = await judge(
    question,
    further.map((r) => r.chunk),
    model,
  );
  const all = [...shown, ...further.map((r) => r.chunk.id)];
  if ('unavailable' in second || !second.verdict.answers) return { reading: refused, shown: all, calls: 2 };
  const carrier = further.find((r) => r.chunk.id === second.verdict.passage)!;
  return {
    reading: { answers: true, carrier, deeper: true, servedBy: second.servedBy, reason: second.verdict.reason.trim().slice(0, 300) },
    shown: all,
    calls: 2,
  };
}

/**
 * S-098: the reader read an answer of the sufficient band and named a passage the gate read but did not answer from.
 * The answer is given from that passage, partial: the passages the gate chose would put beside its claims citations
 * the reader did not find answer — a well-cited answer from the wrong passage.
 */
function movedTo(reading: Extract<Reading, { answers: true }>): Adjudication {
  const { carrier, servedBy, reason } = reading;
  return {
    decision: 'partial',
    carrier,
    reasons: [
      `Read by ${servedBy} before answering: not the passage the gate answered from but “${carrier.chunk.heading}” in ${carrier.chunk.docTitle} answers — ${reason || 'it answers the question'}; answered from it, flagged partial, never upgraded to sufficient.`,
    ],
  };
}

/** A reading as an adjudication: partial from the passage it names, or refused with its reason. Never sufficient. */
function adjudicationOf(reading: Exclude<Reading, { unavailable: string }>): Adjudication {
  if (!reading.answers)
    return {
      decision: 'refuse',
      carrier: null,
      reasons: [`Adjudicated refuse by ${reading.servedBy}: ${reading.reason || 'no candidate answers the question'}.`],
      refusal: 'absent',
    };
  const { carrier, servedBy, reason } = reading;
  const where = `“${carrier.chunk.heading}” in ${carrier.chunk.docTitle}`;
  return {
    decision: 'partial',
    carrier,
    reasons: [
      reading.deeper
        ? `Adjudicated partial by ${servedBy}: none of the passages the gate read answers; ${where}, further down the search, does — ${reason}; flagged partial, never upgraded to sufficient.`
        : `Adjudicated partial by ${servedBy}: ${where} answers — ${reason}; flagged partial, never upgraded to sufficient.`,
    ],
  };
}

type JudgeOutcome = { verdict: Judgement; servedBy: string } | { unavailable: string };

async function judge(question: string, candidates: readonly Chunk[], model: LanguageModelV3): Promise<JudgeOutcome> {
  let result;
  try {
    result = await model.doGenerate({ prompt: buildJudgementPrompt({ question, candidates }), providerOptions: { sandscope: { judgement: true } } });
  } catch (error) {
    // S-250: the error's class name was the reason ("No model read this answer (BudgetExceededError)").
    return { unavailable: whyNoReading(error) };
  }
  const servedBy = readResultMetadata(result.providerMetadata).servedBy ?? 'a model';
  if (servedBy === 'offline') return { unavailable: 'only the offline model answered' };
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  const verdict = parseJudgement(text);
  if (!verdict) return { unavailable: `${servedBy} replied with no judgement` };
  // S-251: `{"answers":true,"passage":null}` was reported as naming "a passage it was not shown".
  if (verdict.answers && verdict.passage === null) return { unavailable: `${servedBy} said a passage answers but named none` };
  if (verdict.answers && !candidates.some((c) => c.id === verdict.passage)) return { unavailable: `${servedBy} named a passage it was not shown` };
  return { verdict, servedBy };
}
