import { z } from 'zod';
import type { EvaluationReport } from './evaluate.ts';
import type { ModelAdjudicationFigures } from './model-adjudicated.ts';

/**
 * A reader in the ambiguous band, measured with recorded judgements (`npm run reader:replay`, ADR-0014): each corpus
 * scored by a model held out of its group, offline and with `ADJUDICATOR=model` whose provider replays replies an LLM
 * wrote to the very prompts the product sends. The leave-one-corpus-out record cannot say this: no model runs in it.
 */
export interface ReplayedReaderCorpus {
  readonly name: string;
  readonly group: string;
  readonly answerable: number;
  readonly unanswerable: number;
  readonly offline: { readonly falseAnswers: number; readonly falseRefusals: number; readonly rightSourceRate: number; readonly steps?: StepsKept };
  /** With the reader: its rates, and what it did with the questions the adjudicated bands deferred to it. */
  readonly reader: {
    readonly falseAnswers: number;
    readonly falseRefusals: number;
    readonly rightSourceRate: number;
    readonly deferralRate: number;
    readonly steps?: StepsKept;
  } & Omit<ModelAdjudicationFigures, 'bands'>;
}

/**
 * Issue 9's procedure measure where a user meets it: of the answered procedure questions whose labelled section holds
 * steps, how many answers keep every one of them (from the labelled passage). The record said it offline only, where
 * few procedure questions are answered; with a reader most are. Absent from summaries written before it.
 */
export interface StepsKept {
  readonly procedureAnswers: number;
  readonly kept: number;
}

export interface ReplayedReader {
  readonly generatedAt: string;
  readonly command: string;
  /** Each group was held out of training together; `read` says whether its errors had been read. */
  readonly groups: readonly { readonly name: string; readonly corpora: readonly string[]; readonly read: string }[];
  readonly corpora: readonly ReplayedReaderCorpus[];
  /**
   * What has changed in the offline decision since these figures were printed, when they have not been printed again:
   * a retrain makes some of the reader's prompts new, and they must be judged before the figures mean the same thing
   * (ADR-0014). Said beside the figures wherever they are shown, so a stale measurement never passes for a current one.
   */
  readonly notRemeasuredSince?: string;
}

const count = z.number().int().nonnegative();
const fraction = z.number().min(0).max(1);
const stepsSchema = z.object({ procedureAnswers: count, kept: count }).refine((s) => s.kept <= s.procedureAnswers, 'kept more steps than answers');

/** The summary file (docs/experiments/adjudicator-replay/summary.json) as read back: every figure the report and the page use. */
export const replayedReaderSchema: z.ZodType<ReplayedReader> = z.object({
  generatedAt: z.string(),
  command: z.string(),
  groups: z.array(z.object({ name: z.string(), corpora: z.array(z.string()), read: z.string() })),
  notRemeasuredSince: z.string().optional(),
  corpora: z.array(
    z.object({
      name: z.string(),
      group: z.string(),
      answerable: count,
      unanswerable: count,
      offline: z.object({ falseAnswers: count, falseRefusals: count, rightSourceRate: fraction, steps: stepsSchema.optional() }),
      reader: z.object({
        falseAnswers: count,
        falseRefusals: count,
        rightSourceRate: fraction,
        deferralRate: fraction,
        steps: stepsSchema.optional(),
        deferredAnswerable: count,
        deferredUnanswerable: count,
        judgedBy: z.record(z.string(), count),
        unavailable: count,
        nothingToShow: count,
        answerableLetThrough: count,
        unanswerableLetThrough: count,
        answerableRefusedUnshown: count.optional(),
        answersRead: z
          .object({ answerable: count, unanswerable: count, answerableWithheld: count, unanswerableWithheld: count, unavailable: count })
          .optional(),
        answeredDeeper: z.object({ answerable: count, unanswerable: count }).optional(),
        answersMoved: z.object({ answerable: count, unanswerable: count }).optional(),
        refusalsRead: z.object({ answerable: count, unanswerable: count, answerableLetThrough: count, unanswerableLetThrough: count }).optional(),
        calls: count.optional(),
      }),
    }),
  ),
});

const pct = (k: number, n: number) => `${n ? ((100 * k) / n).toFixed(1) : '0.0'}%`;
const mark = (ok: boolean) => (ok ? 'met' : '**missed**');

/** A group of corpora held out of training together, pooled over them: said here once, for the report and `GET /v1/eval/latest`. */
export interface ReplayedReaderGroup {
  readonly name: string;
  readonly corpora: readonly string[];
  /** Whether its errors had been read, in the summary's words. */
  readonly read: string;
  readonly answerable: number;
  readonly unanswerable: number;
  /** Rates are of the group's pooled questions (false answers of unanswerable, false refusals of answerable); 0 when there are none. */
  readonly offline: { readonly falseAnswers: number; readonly falseRefusals: number; readonly falseAnswerRate: number; readonly falseRefusalRate: number };
  /** Procedure answers that kept their labelled steps, offline and with the reader; absent when a corpus's summary predates the count. */
  readonly steps?: { readonly offline: StepsKept; readonly reader: StepsKept };
  readonly reader: {
    readonly falseAnswers: number;
    readonly falseRefusals: number;
    readonly falseAnswerRate: number;
    readonly falseRefusalRate: number;
    /** Questions deferred to the reader, and their share of all the group's questions. */
    readonly deferred: number;
    readonly deferralRate: number;
    readonly deferredAnswerable: number;
    readonly deferredUnanswerable: number;
    readonly answerableLetThrough: number;
    readonly unanswerableLetThrough: number;
    /** Of the deferred answerable questions it refused, those never shown the labelled passage; absent when a corpus's summary predates the count. */
    readonly answerableRefusedUnshown?: number;
    /** The sufficient band's answers it read before they were given (S-096), and what it withheld; absent when a corpus's summary predates them. */
    readonly answersRead?: NonNullable<ModelAdjudicationFigures['answersRead']>;
    /** Questions answered partial from the search's next passages (S-097), by label; absent when a corpus's summary predates them. */
    readonly answeredDeeper?: NonNullable<ModelAdjudicationFigures['answeredDeeper']>;
    /** Answers of the sufficient band given partial from another passage the reader named (S-098); absent when a corpus's summary predates them. */
    readonly answersMoved?: NonNullable<ModelAdjudicationFigures['answersMoved']>;
    /** Refusals below the lower line the reader read before they were given (S-100), and what it let through; absent when a corpus's summary predates them. */
    readonly refusalsRead?: NonNullable<ModelAdjudicationFigures['refusalsRead']>;
    /** Prompts it was sent over all the group's questions; absent when a corpus's summary predates the count. */
    readonly calls?: number;
  };
}

const rate = (k: number, n: number) => (n ? k / n : 0);

/**
 * A figure some corpora's summaries predate, summed over a group only when every corpus of it has the figure: a
 * partial sum would pass for the whole. A set of counts is summed field by field.
 */
function pooled<T extends object>(values: readonly (T | undefined)[]): T | undefined {
  if (values.length === 0 || values.some((v) => v === undefined)) return undefined;
  const present = values as readonly T[];
  const field = (k: string) => present.reduce((a, v) => a + (v as Record<string, number>)[k]!, 0);
  return Object.fromEntries(Object.keys(present[0]!).map((k) => [k, field(k)])) as T;
}

/** `pooled` for a single count. */
const pooledCount = (values: readonly (number | undefined)[]) => pooled(values.map((v) => (v === undefined ? undefined : { n: v })))?.n;

/** `{ key: value }`, or nothing when the value is absent. */
const optional = <K extends string, T>(key: K, value: T | undefined) => (value === undefined ? {} : { [key]: value }) as { [P in K]?: T };

/** Each group of the summary, its corpora's figures pooled. */
export function replayedReaderGroups(r: ReplayedReader): ReplayedReaderGroup[] {
  return r.groups.map((g) => {
    const cs = r.corpora.filter((c) => c.group === g.name);
    const sum = (f: (c: ReplayedReaderCorpus) => number) => cs.reduce((a, c) => a + f(c), 0);
    const answerable = sum((c) => c.answerable);
    const unanswerable = sum((c) => c.unanswerable);
    const [offlineFA, offlineFR] = [sum((c) => c.offline.falseAnswers), sum((c) => c.offline.falseRefusals)];
    const [readerFA, readerFR] = [sum((c) => c.reader.falseAnswers), sum((c) => c.reader.falseRefusals)];
    const deferredAnswerable = sum((c) => c.reader.deferredAnswerable);
    const deferredUnanswerable = sum((c) => c.reader.deferredUnanswerable);
    const deferred = deferredAnswerable + deferredUnanswerable;
    const [offlineSteps, readerSteps] = [pooled(cs.map((c) => c.offline.steps)), pooled(cs.map((c) => c.reader.steps))];
    return {
      name: g.name,
      corpora: g.corpora,
      read: g.read,
      answerable,
      unanswerable,
      ...optional('steps', offlineSteps && readerSteps ? { offline: offlineSteps, reader: readerSteps } : undefined),
      offline: {
        falseAnswers: offlineFA,
        falseRefusals: offlineFR,
        falseAnswerRate: rate(offlineFA, unanswerable),
        falseRefusalRate: rate(offlineFR, answerable),
      },
      reader: {
        falseAnswers: readerFA,
        falseRefusals: readerFR,
        falseAnswerRate: rate(readerFA, unanswerable),
        falseRefusalRate: rate(readerFR, answerable),
        deferred,
        deferralRate: rate(deferred, answerable + unanswerable),
        deferredAnswerable,
        deferredUnanswerable,
        answerableLetThrough: sum((c) => c.reader.answerableLetThrough),
        unanswerableLetThrough: sum((c) => c.reader.unanswerableLetThrough),
        ...optional('answerableRefusedUnshown', pooledCount(cs.map((c) => c.reader.answerableRefusedUnshown))),
        ...optional('answersRead', pooled(cs.map((c) => c.reader.answersRead))),
        ...optional('answeredDeeper', pooled(cs.map((c) => c.reader.answeredDeeper))),
        ...optional('answersMoved', pooled(cs.map((c) => c.reader.answersMoved))),
        ...optional('refusalsRead', pooled(cs.map((c) => c.reader.refusalsRead))),
        ...optional('calls', pooledCount(cs.map((c) => c.reader.calls))),
      },
    };
  });
}

function groupLine(p: ReplayedReaderGroup, t: EvaluationReport['targets']): string {
  const n = p.answerable + p.unanswerable;
  const { offline: o, reader: q } = p;
  return `Group \`${p.name}\` (${p.corpora.join(', ')}; ${p.read}): with the reader, false answers ${q.falseAnswers} of ${p.unanswerable} (${pct(q.falseAnswers, p.unanswerable)}; target ≤ ${pct(t.falseAnswerRate, 1)}, ${mark(q.falseAnswerRate <= t.falseAnswerRate)}), false refusals ${q.falseRefusals} of ${p.answerable} (${pct(q.falseRefusals, p.answerable)}; ≤ ${pct(t.falseRefusalRate, 1)}, ${mark(q.falseRefusalRate <= t.falseRefusalRate)}), deferred to it ${pct(q.deferred, n)} (≤ ${pct(t.deferralRate, 1)}, ${mark(q.deferralRate <= t.deferralRate)}); offline on the same questions, false answers ${o.falseAnswers} (${pct(o.falseAnswers, p.unanswerable)}), false refusals ${o.falseRefusals} (${pct(o.falseRefusals, p.answerable)}). Of the deferred questions the reader let through ${q.answerableLetThrough} of ${q.deferredAnswerable} answerable and ${q.unanswerableLetThrough} of ${q.deferredUnanswerable} unanswerable${q.answerableRefusedUnshown === undefined ? '' : `; of the ${q.deferredAnswerable - q.answerableLetThrough} answerable it refused, ${q.answerableRefusedUnshown} were never shown their labelled passage`}.${q.answersRead ? ` It also read the ${q.answersRead.answerable + q.answersRead.unanswerable} answers the offline decision gives without asking (S-096), and withheld ${q.answersRead.unanswerableWithheld} of ${q.answersRead.unanswerable} unanswerable and ${q.answersRead.answerableWithheld} of ${q.answersRead.answerable} answerable${q.answersMoved ? `; it gave ${q.answersMoved.answerable} answerable and ${q.answersMoved.unanswerable} unanswerable of them partial from the passage it named, another the gate read than the one the gate answered from (S-098)` : ''}.` : ''}${q.refusalsRead ? ` It also read the ${q.refusalsRead.answerable + q.refusalsRead.unanswerable} questions rated below the lower line before refusing them (S-100; refused unread before), and let through ${q.refusalsRead.answerableLetThrough} of ${q.refusalsRead.answerable} answerable and ${q.refusalsRead.unanswerableLetThrough} of ${q.refusalsRead.unanswerable} unanswerable.` : ''}${q.answeredDeeper ? ` Of all these, ${q.answeredDeeper.answerable} answerable and ${q.answeredDeeper.unanswerable} unanswerable questions were answered from the search's next six passages, which it reads before it refuses (S-097).` : ''}${q.calls === undefined ? '' : ` In all it was sent ${q.calls} prompts for the group's ${n} questions (${(q.calls / (n || 1)).toFixed(2)} per question): deferral counts only the band where the model is unsure, not these.`}${p.steps ? ` Procedure answers that keep every step of their labelled section: with the reader ${p.steps.reader.kept} of ${p.steps.reader.procedureAnswers} (${pct(p.steps.reader.kept, p.steps.reader.procedureAnswers)}), offline ${p.steps.offline.kept} of ${p.steps.offline.procedureAnswers}.` : ''}`;
}

const read = (r: ReplayedReaderCorpus['reader']['answersRead']) =>
  r ? `${r.answerable + r.unanswerable} / ${r.answerableWithheld + r.unanswerableWithheld} / ${r.unavailable}` : 'not read';

/** docs/EVALUATION.md's section. */
export function replayedReaderSection(r: ReplayedReader, t: EvaluationReport['targets']): string[] {
  return [
    '### With a reader in the ambiguous band (recorded judgements)',
    '',
    `\`${r.command}\` (${r.generatedAt}): each group of corpora held out of training together, then each corpus scored offline and with \`ADJUDICATOR=model\`, whose provider is a stub that replays the replies recorded in docs/experiments/adjudicator-replay/ to the very prompts the product sends (\`npm run eval:replayed\`). The replies were written by an LLM shown only each prompt — the judging rules and the passages the gate read — not the label, the corpus or the code. It measures a reader of that class, not any one provider, and it is not the record above: a hosted model may judge worse. Deferral with a reader costs a model call, not a refusal; since S-096 so does every answer, which the reader reads before it is given (where a corpus's figures predate that, its answers were not read), and since S-100 every refusal below the lower line, which it reads before it is refused.`,
    '',
    ...(r.notRemeasuredSince ? [`**Not measured again since:** ${r.notRemeasuredSince}`, ''] : []),
    ...replayedReaderGroups(r).flatMap((g) => [groupLine(g, t), '']),
    '| corpus | group | questions (answerable/unanswerable) | offline false answers | offline false refusals | reader false answers | reader false refusals | deferred | judged / no reply / nothing to show | answers read / withheld / no reply | refusals below the line read / let through | right source, offline → reader |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...r.corpora.map((c) => {
      const judged = Object.values(c.reader.judgedBy).reduce((a, b) => a + b, 0);
      return `| ${c.name} | ${c.group} | ${c.answerable + c.unanswerable} (${c.answerable}/${c.unanswerable}) | ${pct(c.offline.falseAnswers, c.unanswerable)} | ${pct(c.offline.falseRefusals, c.answerable)} | ${pct(c.reader.falseAnswers, c.unanswerable)} | ${pct(c.reader.falseRefusals, c.answerable)} | ${(100 * c.reader.deferralRate).toFixed(1)}% | ${judged} / ${c.reader.unavailable} / ${c.reader.nothingToShow} | ${read(c.reader.answersRead)} | ${c.reader.refusalsRead ? `${c.reader.refusalsRead.answerable + c.reader.refusalsRead.unanswerable} / ${c.reader.refusalsRead.answerableLetThrough + c.reader.refusalsRead.unanswerableLetThrough}` : 'not read'} | ${(100 * c.offline.rightSourceRate).toFixed(1)}% → ${(100 * c.reader.rightSourceRate).toFixed(1)}% |`;
    }),
    '',
    rightSourceLine(r, t),
    '',
  ];
}

/** How many corpora meet the right-source target with the reader: counted here, where a table invites counting by eye. */
function rightSourceLine(r: ReplayedReader, t: EvaluationReport['targets']): string {
  const missed = r.corpora.filter((c) => c.reader.rightSourceRate < t.rightSourceRate);
  const met = r.corpora.length - missed.length;
  return `Right source with the reader (target ≥ ${pct(t.rightSourceRate, 1)}): met on ${met} of ${r.corpora.length} corpora${missed.length ? `, **missed** on ${missed.length} (${missed.map((c) => c.name).join(', ')})` : ''}.`;
}

/** The README's line: the unread groups only, where there are any (the figure a reader's claim rests on). */
export function replayedReaderLine(r: ReplayedReader, t: EvaluationReport['targets']): string[] {
  const unread = replayedReaderGroups(r).filter((g) => g.read.startsWith('unread'));
  if (!unread.length) return [];
  return [
    `With a reader in the ambiguous band (\`ADJUDICATOR=model\`, an LLM's recorded judgements replayed through the product; \`${r.command}\`, docs/EVALUATION.md): ${unread.map((g) => groupLine(g, t)).join(' ')}${r.notRemeasuredSince ? ` **Not measured again since:** ${r.notRemeasuredSince}` : ''}`,
    '',
  ];
}
