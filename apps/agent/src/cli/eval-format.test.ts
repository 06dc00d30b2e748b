import { type CorpusFigures, type EvaluationReport, shippedReport } from '@sandscope/eval';
import { describe, expect, it } from 'vitest';
import { formatEvaluation } from './eval-format.ts';

const shipped = { insufficientBelow: 0.41, sufficientAbove: 0.83 };
const foldBands = [
  { insufficientBelow: 0.3, sufficientAbove: 0.7 },
  { insufficientBelow: 0.2, sufficientAbove: 0.9 },
];

/** A leave-one-corpus-out report of two corpora, each scored with the bands of its own fold; its own, the shipped model's. */
function locoReport(): EvaluationReport {
  const base = shippedReport([], [], shipped);
  const corpora: CorpusFigures[] = ['alpha', 'beta'].map((name, i) => ({ ...base.corpora[0]!, name, workable: true, bands: foldBands[i]! }));
  return { ...base, mode: 'leave-one-corpus-out', corpora };
}

describe('formatEvaluation of a leave-one-corpus-out run (S-084)', () => {
  it('says the bands were fitted per fold and prints no one pair as the bands in force of the whole run', () => {
    const out = formatEvaluation(locoReport(), 'two corpora');
    expect(out).not.toMatch(/bands in force/i);
    expect(out).toMatch(/bands: fitted per fold/i);
    // Each corpus's own pair stands on its own line, and nowhere else.
    const holding = (pair: string) => out.split('\n').filter((l) => l.includes(pair));
    expect(holding('0.300/0.700')).toEqual([expect.stringMatching(/^\s+alpha\s/)]);
    expect(holding('0.200/0.900')).toEqual([expect.stringMatching(/^\s+beta\s/)]);
    expect(out).not.toMatch(/0\.300, answer from|0\.200, answer from/);
  });

  it('prints the one held-out corpus of `--held-out a` with its bands, since they are said to be on its line', () => {
    const one = locoReport();
    const out = formatEvaluation({ ...one, corpora: one.corpora.slice(0, 1) }, 'one corpus');
    expect(out).toMatch(/^\s+alpha\s.*bands 0\.300\/0\.700$/m);
  });

  it('names the top-level bands of the report as the shipped model’s, not used in these figures', () => {
    const out = formatEvaluation(locoReport(), 'two corpora');
    expect(out).toMatch(/shipped model’s bands, not used in these figures: refuse below 0\.410, answer from 0\.830/);
  });

  it('still prints the bands in force of a set scored with one pair', () => {
    expect(formatEvaluation(shippedReport([], [], shipped), 'a file')).toMatch(/Bands in force: refuse below 0\.410, answer from 0\.830/);
  });
});

describe('formatEvaluation of a cross-validated run (S-091)', () => {
  const refit = { insufficientBelow: 0.55, sufficientAbove: 0.66 };
  /** Two folds, each scored with bands fitted on the other; the report's own pair refitted on the whole set. */
  function cvReport(): EvaluationReport {
    const base = shippedReport([], [], refit);
    const corpora: CorpusFigures[] = ['fold 1', 'fold 2'].map((name, i) => ({ ...base.corpora[0]!, name, workable: true, bands: foldBands[i]! }));
    return { ...base, mode: 'cross-validated', corpora };
  }

  it('says the bands were fitted per fold, each on its fold’s line, and names the whole-set pair as not used', () => {
    const out = formatEvaluation(cvReport(), 'a corpus’s questions', { bandsFrom: 'per-fold' });
    expect(out).not.toMatch(/bands in force/i);
    expect(out).toMatch(/^Bands: fitted per fold — each fold scored with the bands trained on the other folds/m);
    expect(out).toMatch(/^\s+fold 1\s.*bands 0\.300\/0\.700$/m);
    expect(out).toMatch(/bands refitted on the whole set, not used in these figures: refuse below 0\.550, answer from 0\.660/);
    expect(out).not.toMatch(/shipped model/);
  });
});

describe('formatEvaluation of false refusals that name the labelled passage (S-106)', () => {
  it('says how many of the false refusals named the labelled passage, out of all of them', () => {
    const report = locoReport();
    const corpora = report.corpora.map((c, i) => ({ ...c, falseRefusals: [3, 4][i]! }));
    const out = formatEvaluation({ ...report, corpora, answerable: 20, refusalsNamingLabelled: 5 }, 'two corpora');
    expect(out).toMatch(/false refusals .*; 5 of the 7 named the labelled passage among the closest/);
    // None of them named it: said as a zero, not left out as if it had not been counted.
    expect(formatEvaluation({ ...report, corpora, answerable: 20, refusalsNamingLabelled: 0 }, 'two corpora')).toMatch(
      /; 0 of the 7 named the labelled passage/,
    );
    expect(formatEvaluation(report, 'two corpora')).not.toContain('named the labelled passage');
  });
});

describe('formatEvaluation of what the refusals claimed (S-108)', () => {
  it('says how often a refusal claimed the library does not answer, and how many of those were of answerable questions', () => {
    const report = locoReport();
    const out = formatEvaluation({ ...report, refusalsClaimingAbsent: 9, answerableClaimedAbsent: 2 }, 'two corpora');
    expect(out).toMatch(/refusals said "the library does not answer this" 9 times, 2 of them of answerable questions/);
    // A record from before the count (S-108) has none, and no line is printed.
    const { refusalsClaimingAbsent: _a, answerableClaimedAbsent: _b, ...older } = report;
    expect(formatEvaluation(older as typeof report, 'two corpora')).not.toContain('the library does not answer this');
  });
});

// S-157: "false refusals 0.0%, right source 0.0%" printed for a file whose answerable questions were all left unscored.
describe('formatEvaluation of rates over no question', () => {
  it('prints n/a, saying nothing was scored, where a rate has no question under it', () => {
    const none = shippedReport([], [], shipped);
    const out = formatEvaluation({ ...none, answerable: 0, unanswerable: 0 }, 'an empty file');
    expect(out).toMatch(/^ {2}false answers {6}n\/a {3}\(no unanswerable question was scored; target ≤ 5\.0%\)$/m);
    expect(out).toMatch(/^ {2}false refusals {5}n\/a {3}\(no answerable question was scored/m);
    expect(out).toMatch(/^ {2}right source {7}n\/a {3}\(no answerable question with a labelled passage was answered/m);
    expect(out).not.toMatch(/(?<![\d.])0\.0%/);
  });

  it('still prints a rate that was measured, 0% included', () => {
    const out = formatEvaluation({ ...shippedReport([], [], shipped), answerable: 3, unanswerable: 2, wrongSourceAnswers: 1 }, 'a file');
    expect(out).toMatch(/^ {2}false answers {5}0\.0%/m);
    expect(out).toMatch(/^ {2}right source {6}0\.0%/m);
    expect(out).toMatch(/^ {2}chunk MRR {7}0\.000 {3}recall@6 0\.000$/m);
  });

  // S-210: a set of unanswerable questions only printed "chunk MRR 0.000 recall@6 0.000", retrieval that found nothing.
  it('prints n/a for chunk MRR and recall@6 where no answerable question was scored', () => {
    const out = formatEvaluation({ ...shippedReport([], [], shipped), answerable: 0, unanswerable: 4 }, 'a file of unanswerable questions');
    expect(out).toMatch(/^ {2}chunk MRR {9}n\/a {3}recall@6 n\/a {3}\(no answerable question was scored\)$/m);
    expect(out).not.toMatch(/0\.000/);
  });

  // S-190: how many wrong-source answers name the labelled passage beside them, counted, never credited.
  it('says how many wrong-source answers named the labelled passage beside them, where the record counts it', () => {
    const base = { ...shippedReport([], [], shipped), answerable: 3, unanswerable: 2, wrongSourceAnswers: 2 };
    expect(formatEvaluation({ ...base, wrongSourceNamingLabelled: 1 }, 'a file')).toMatch(
      /^ {2}right source .*; 2 answered from a passage other than the labelled one, 1 of them naming it beside the answer\)$/m,
    );
    // A record written before S-190 has no such count, and says nothing of it.
    const { wrongSourceNamingLabelled: _, ...older } = base;
    expect(formatEvaluation(older as EvaluationReport, 'a file')).not.toContain('naming it beside');
  });
});
