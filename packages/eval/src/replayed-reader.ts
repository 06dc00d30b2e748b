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
  readonly offline: { readonly falseAnswers: number; readonly falseRefusals: number; readonly rightSourceRate: number };
  /** With the reader: its rates, and what it did with the questions the adjudicated bands deferred to it. */
  readonly reader: { readonly falseAnswers: number; readonly falseRefusals: number; readonly rightSourceRate: number; readonly deferralRate: number } & Omit<
    ModelAdjudicationFigures,
    'bands'
  >;
}

export interface ReplayedReader {
  readonly generatedAt: string;
  readonly command: string;
  /** Each group was held out of training together; `read` says whether its errors had been read. */
  readonly groups: readonly { readonly name: string; readonly corpora: readonly string[]; readonly read: string }[];
  readonly corpora: readonly ReplayedReaderCorpus[];
}

const pct = (k: number, n: number) => `${n ? ((100 * k) / n).toFixed(1) : '0.0'}%`;
const mark = (ok: boolean) => (ok ? 'met' : '**missed**');

function pooled(r: ReplayedReader, group: string) {
  const cs = r.corpora.filter((c) => c.group === group);
  const sum = (f: (c: ReplayedReaderCorpus) => number) => cs.reduce((a, c) => a + f(c), 0);
  return {
    corpora: cs.length,
    answerable: sum((c) => c.answerable),
    unanswerable: sum((c) => c.unanswerable),
    offlineFA: sum((c) => c.offline.falseAnswers),
    offlineFR: sum((c) => c.offline.falseRefusals),
    readerFA: sum((c) => c.reader.falseAnswers),
    readerFR: sum((c) => c.reader.falseRefusals),
    deferred: sum((c) => c.reader.deferredAnswerable + c.reader.deferredUnanswerable),
    unanswerableLetThrough: sum((c) => c.reader.unanswerableLetThrough),
    deferredUnanswerable: sum((c) => c.reader.deferredUnanswerable),
    answerableLetThrough: sum((c) => c.reader.answerableLetThrough),
    deferredAnswerable: sum((c) => c.reader.deferredAnswerable),
  };
}

function groupLine(r: ReplayedReader, group: ReplayedReader['groups'][number], t: EvaluationReport['targets']): string {
  const p = pooled(r, group.name);
  const n = p.answerable + p.unanswerable;
  return `Group \`${group.name}\` (${group.corpora.join(', ')}; ${group.read}): with the reader, false answers ${p.readerFA} of ${p.unanswerable} (${pct(p.readerFA, p.unanswerable)}; target ≤ ${pct(t.falseAnswerRate, 1)}, ${mark(p.readerFA / p.unanswerable <= t.falseAnswerRate)}), false refusals ${p.readerFR} of ${p.answerable} (${pct(p.readerFR, p.answerable)}; ≤ ${pct(t.falseRefusalRate, 1)}, ${mark(p.readerFR / p.answerable <= t.falseRefusalRate)}), deferred to it ${pct(p.deferred, n)} (≤ ${pct(t.deferralRate, 1)}, ${mark(p.deferred / n <= t.deferralRate)}); offline on the same questions, false answers ${p.offlineFA} (${pct(p.offlineFA, p.unanswerable)}), false refusals ${p.offlineFR} (${pct(p.offlineFR, p.answerable)}). Of the deferred questions the reader let through ${p.answerableLetThrough} of ${p.deferredAnswerable} answerable and ${p.unanswerableLetThrough} of ${p.deferredUnanswerable} unanswerable.`;
}

/** docs/EVALUATION.md's section. */
export function replayedReaderSection(r: ReplayedReader, t: EvaluationReport['targets']): string[] {
  return [
    '### With a reader in the ambiguous band (recorded judgements)',
    '',
    `\`${r.command}\` (${r.generatedAt}): each group of corpora held out of training together, then each corpus scored offline and with \`ADJUDICATOR=model\`, whose provider is a stub that replays the replies recorded in docs/experiments/adjudicator-replay/ to the very prompts the product sends (\`npm run eval:replayed\`). The replies were written by an LLM shown only each prompt — the judging rules and at most three passages — not the label, the corpus or the code. It measures a reader of that class, not any one provider, and it is not the record above: a hosted model may judge worse. Deferral with a reader costs a model call, not a refusal.`,
    '',
    ...r.groups.flatMap((g) => [groupLine(r, g, t), '']),
    '| corpus | group | questions (answerable/unanswerable) | offline false answers | offline false refusals | reader false answers | reader false refusals | deferred | judged / no reply / nothing to show | right source, offline → reader |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...r.corpora.map((c) => {
      const judged = Object.values(c.reader.judgedBy).reduce((a, b) => a + b, 0);
      return `| ${c.name} | ${c.group} | ${c.answerable + c.unanswerable} (${c.answerable}/${c.unanswerable}) | ${pct(c.offline.falseAnswers, c.unanswerable)} | ${pct(c.offline.falseRefusals, c.answerable)} | ${pct(c.reader.falseAnswers, c.unanswerable)} | ${pct(c.reader.falseRefusals, c.answerable)} | ${(100 * c.reader.deferralRate).toFixed(1)}% | ${judged} / ${c.reader.unavailable} / ${c.reader.nothingToShow} | ${(100 * c.offline.rightSourceRate).toFixed(1)}% → ${(100 * c.reader.rightSourceRate).toFixed(1)}% |`;
    }),
    '',
  ];
}

/** The README's line: the unread groups only, where there are any (the figure a reader's claim rests on). */
export function replayedReaderLine(r: ReplayedReader, t: EvaluationReport['targets']): string[] {
  const unread = r.groups.filter((g) => g.read.startsWith('unread'));
  if (!unread.length) return [];
  return [
    `With a reader in the ambiguous band (\`ADJUDICATOR=model\`, an LLM's recorded judgements replayed through the product; \`${r.command}\`, docs/EVALUATION.md): ${unread.map((g) => groupLine(r, g, t)).join(' ')}`,
    '',
  ];
}
