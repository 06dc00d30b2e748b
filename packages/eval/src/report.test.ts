import { describe, expect, it } from 'vitest';
import { DECISION_TARGETS, type EvaluationReport } from './evaluate.ts';
import { evaluationMarkdown, type FirstRun, readmeBlock } from './report.ts';

const run = (name: string, answerable: number, unanswerable: number, falseAnswers: number, falseRefusals: number): FirstRun => ({
  name,
  report: {
    n: answerable + unanswerable,
    answerable,
    unanswerable,
    falseAnswerRate: falseAnswers / unanswerable,
    falseRefusalRate: falseRefusals / answerable,
    rightSourceRate: 1,
  },
});

// The smallest record the report renders: no corpora, the targets the issue sets.
const loco = {
  mode: 'leave-one-corpus-out',
  n: 0,
  answerable: 0,
  unanswerable: 0,
  falseAnswerRate: 0,
  falseRefusalRate: 0,
  deferralRate: 0,
  partialRate: 0,
  wrongSourceAnswers: 0,
  rightSourceRate: 0,
  procedureAnswers: 0,
  stepsCoveredRate: 0,
  mrr: 0,
  recallAt6: 0,
  byMechanism: {},
  corpora: [],
  targets: DECISION_TARGETS,
  evidenceErrors: [],
  questions: [],
} as unknown as EvaluationReport;

describe('the first runs in the report (the unseen figure)', () => {
  // 45 and 40 unanswerable: 5 and 0 answered. Pooled 5 of 85 (5.9%), not the mean of the rates (5.6%).
  const runs = [run('rook', 55, 45, 5, 45), run('argo', 56, 40, 0, 47)];

  it('pools counts, not rates, and says which corpora are over the false-answer budget', () => {
    const block = readmeBlock(loco, { firstRuns: runs });
    expect(block).toContain('false answers 5 of 85 unanswerable (5.9%; target ≤ 5.0%, **missed**, over on 1 of 2 corpora)');
    expect(block).toContain('false refusals 92 of 111 answerable (82.9%; ≤ 10.0%, **missed**)');
  });

  it('lists each first run in docs/EVALUATION.md, and leaves the section out when there are none', () => {
    const md = evaluationMarkdown(loco, { firstRuns: runs });
    expect(md).toContain('### First runs: the gate on libraries nobody had read');
    expect(md).toContain('| rook | 100 (55/45) | 11.1% | 81.8% | 100.0% |');
    expect(md).toContain('| argo | 96 (56/40) | 0.0% | 83.9% | 100.0% |');
    expect(evaluationMarkdown(loco)).not.toContain('First runs');
    expect(readmeBlock(loco)).not.toContain('First runs');
  });
});

describe('deferral when the fitted bands coincide', () => {
  const folds = (workable: boolean) =>
    [1, 2].map((f) => ({
      name: `fold ${f}`,
      n: 1,
      bands: { insufficientBelow: 0.7, sufficientAbove: 0.7 },
      workable,
    })) as unknown as EvaluationReport['corpora'];

  it('says no pair met both budgets only when none did on the data it was fitted on', () => {
    const unworkable = readmeBlock({ ...loco, corpora: folds(false) });
    expect(unworkable).toContain('met only trivially: no band pair met both budgets');
    // Every fold's bands met both budgets where they were fitted (the generated set's record): coinciding is their choice.
    const workable = readmeBlock({ ...loco, corpora: folds(true) });
    expect(workable).not.toContain('no band pair met both budgets');
    expect(workable).toContain('deferral 0.0% (≤ 25.0%, met;');
  });
});

describe('false refusals that name the labelled passage (S-106)', () => {
  const corpus = (name: string, falseRefusals: number, naming?: number) =>
    ({
      name,
      n: 10,
      answerable: 6,
      unanswerable: 4,
      falseAnswerRate: 0,
      falseRefusalRate: falseRefusals / 6,
      falseRefusals,
      ...(naming === undefined ? {} : { refusalsNamingLabelled: naming }),
    }) as unknown as EvaluationReport['corpora'][number];

  it('counts them per corpus and pooled, out of the false refusals, as refusals still', () => {
    const record = { ...loco, refusalsNamingLabelled: 4, corpora: [corpus('a', 3, 2), corpus('b', 2, 2)] } as EvaluationReport;
    const markdown = evaluationMarkdown(record);
    expect(markdown).toContain('| a | 10 (6/4) | 0.0% | 50.0% | 2 of 3 |');
    expect(markdown).toContain('Of the 5 false refusals, 4 (80.0%) named the labelled passage');
    expect(readmeBlock(record)).toContain('| **pooled** | 0 (0/0) | 0.0% | 0.0% | 4 of 5 |');
  });

  it('renders a record written before the count existed with a dash and no sentence', () => {
    const older = { ...loco, corpora: [corpus('a', 3)] } as EvaluationReport;
    expect(evaluationMarkdown(older)).toContain('| a | 10 (6/4) | 0.0% | 50.0% | — |');
    expect(evaluationMarkdown(older)).not.toContain('named the labelled passage');
  });
  // S-108: what the refusals claim, out of every refusal (true refusals too), and how often the claim of absence was false.
  it('says how many refusals claimed the library does not answer, and how many of those were of answerable questions', () => {
    const withAnswers = (c: EvaluationReport['corpora'][number], falseAnswers: number) => ({ ...c, falseAnswers }) as EvaluationReport['corpora'][number];
    // Refusals: a 4 − 1 + 3 = 6, b 4 − 0 + 2 = 6; false refusals 5.
    const record = {
      ...loco,
      refusalsClaimingAbsent: 4,
      answerableClaimedAbsent: 1,
      corpora: [withAnswers(corpus('a', 3), 1), withAnswers(corpus('b', 2), 0)],
    } as EvaluationReport;
    const sentence =
      'What a refusal claims: 4 of the 12 refusals (33.3%) said the library does not answer the question, each where nothing in it matched (S-222: a rating alone, however low, no longer claims it), and 1 of those (25.0%) were of answerable questions, where the claim was false. The other 8 said the model was unsure or rated no passage likely';
    expect(evaluationMarkdown(record)).toContain(sentence);
    expect(evaluationMarkdown(record)).toContain('4 of the 5 false refusals were among them');
    expect(readmeBlock(record)).toContain(sentence);
    expect(evaluationMarkdown({ ...record, refusalsClaimingAbsent: undefined } as unknown as EvaluationReport)).not.toContain('What a refusal claims');
    // S-222: where no refusal claims absence, the sentence says so rather than "0 of those (0.0%)".
    const none = evaluationMarkdown({ ...record, refusalsClaimingAbsent: 0, answerableClaimedAbsent: 0 } as EvaluationReport);
    expect(none).toContain(
      "What a refusal claims: none of the 12 refusals said the library does not answer the question; offline a refusal says so only where nothing in the library matched, never on the model's rating alone, however low (S-222). Each said the model was unsure",
    );
    expect(none).not.toContain('0 of those');
  });
});

describe('the typed figure beside the clean one (S-177)', () => {
  const typed = { ...loco, n: 10, falseAnswerRate: 0.25, falseRefusalRate: 0.5, rightSourceRate: 1, seed: 4, untouched: 2 };
  const record = { ...loco, n: 10, falseAnswerRate: 0, falseRefusalRate: 1 / 6, rightSourceRate: 1, typed } as unknown as EvaluationReport;

  it('prints what one slip of the keys costs, held out, in the README and docs/EVALUATION.md', () => {
    const figures = 'false answers 25.0% (clean 0.0%), false refusals 50.0% (clean 16.7%), right source 100.0% (clean 100.0%)';
    for (const text of [readmeBlock(record), evaluationMarkdown(record)]) {
      expect(text).toContain('the same 10 questions with one slip of the keys each');
      expect(text).toContain('--seed 4`; 2 had no word to slip on');
      expect(text).toContain(figures);
    }
  });

  it('prints what asking a typed refusal again with the offered question does, beside the clean verdicts (S-180)', () => {
    const askedAgain = { offered: 4, answerable: 3, answered: 2, rightSource: 1, cleanAnswered: 2, unanswerable: 1, falseAnswers: 0, cleanFalseAnswers: 1 };
    const withOffers = { ...record, typed: { ...typed, falseRefusals: 5, unanswerable: 4, falseAnswers: 1, askedAgain } } as unknown as EvaluationReport;
    for (const text of [readmeBlock(withOffers), evaluationMarkdown(withOffers)]) {
      expect(text).toContain('4 of the 8 refusals of typed questions did');
      expect(text).toContain(
        '2 of the 3 answerable were answered (1 citing the labelled passage; 2 are answered as written without the slip), and 0 of the 1 unanswerable (1 as written)',
      );
    }
    expect(evaluationMarkdown(record)).not.toContain('S-180');
  });

  it('leaves the line out of a record without typed questions', () => {
    expect(readmeBlock(loco)).not.toContain('Typed the way people type');
    expect(evaluationMarkdown(loco)).not.toContain('Typed the way people type');
  });
});

describe('the source audit in the report', () => {
  // Two corpora: 3 and 2 false answers of 40 and 30 unanswerable questions, 40 false refusals of 60 answerable: 25 answers
  // given (one of them partial), counted from the rows.
  const rows = (n: number, label: string, verdict: string) => Array.from({ length: n }, () => ({ label, verdict }));
  const record = {
    ...loco,
    answerable: 60,
    unanswerable: 70,
    corpora: [
      { name: 'a', falseAnswers: 3, falseRefusals: 30 },
      { name: 'b', falseAnswers: 2, falseRefusals: 10 },
    ],
    questions: [
      ...rows(19, 'answerable', 'answered'),
      ...rows(1, 'answerable', 'partial'),
      ...rows(40, 'answerable', 'refused'),
      ...rows(5, 'unanswerable', 'answered'),
      ...rows(65, 'unanswerable', 'refused'),
    ],
  } as unknown as EvaluationReport;
  const sourceAudit = { wrong: 9, judged: 8, stale: 1, cited: { yes: 2, partly: 1, no: 5 }, labelled: { yes: 7, partly: 1, no: 0 } };

  it('says what the cited passages of the wrong-source answers are, beside the false answers, in the README and docs/EVALUATION.md', () => {
    for (const text of [readmeBlock(record, { sourceAudit }), evaluationMarkdown(record, { sourceAudit })]) {
      expect(text).toContain(
        'It judged the cited passage to answer the question in 2 of the 8 (25.0%), in part in 1, and not at all in 5; the labelled passage, the control, in 7',
      );
      expect(text).toContain('(1 of the 9 wrong-source answers cite passages no reader has judged)');
      expect(text).toContain('Of the 25 answers given (answered or partial), 10 (40.0%) do not answer the question asked, and 1 more answer it only in part.');
      expect(text).toContain(
        'beside the 5 false answers to the 70 unanswerable questions stand 5 answers to answerable questions from a passage that does not answer them',
      );
    }
  });

  it('leaves the line out when nothing is judged', () => {
    expect(evaluationMarkdown(record)).not.toContain('wrong-source answer is');
    expect(evaluationMarkdown(record, { sourceAudit: { ...sourceAudit, judged: 0, stale: 9 } })).not.toContain('wrong-source answer is');
  });
});
