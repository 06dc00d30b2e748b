import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BandsFile } from '@sandscope/engine';
import {
  BUDGETS,
  type CalibrationGround,
  calibrateBands,
  fewestToCertify,
  measureAll,
  type Metrics,
  type PreferencePlace,
  reportedEvaluation,
  resolveEvidence,
} from '@sandscope/eval';
import { UserError } from '../user-error.ts';
import { shellArg } from '../shell-arg.ts';
import { parseCommandOptions } from './args.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { formatEvaluation } from './eval-format.ts';
import { evalInputs, parseFolds, trainedOnCorpus } from './eval-support.ts';
import { fittedOnDigests } from './fitted-on.ts';
import { fsErrorWords } from './fs-error.ts';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
type RatesOf = Pick<Metrics, 'falseAnswerRate' | 'falseRefusalRate' | 'deferralRate' | 'n' | 'answerable' | 'unanswerable'>;
/** A rate over no question is n/a, not 0.0% (S-281). */
const over = (x: number, of: number) => (of ? pct(x) : 'n/a');
const rates = (m: RatesOf) =>
  `false answers ${over(m.falseAnswerRate, m.unanswerable)}, false refusals ${over(m.falseRefusalRate, m.answerable)}, deferral ${over(m.deferralRate, m.n)}`;

/**
 * `sandscope calibrate --corpus DIR [--questions FILE] [--folds 5] [--force | --dry-run] [--json]`:
 * keep the shipped model's weights, refit its two bands on this corpus's own
 * questions. Cross-validated first (each fold scored by bands fitted on the
 * others) and compared with the shipped bands on the same questions; the refit,
 * fitted on the whole set, is written to `DIR/thresholds.json` (which `ask --corpus DIR`
 * uses) only when its held-out figures are the better ones, or with --force; --dry-run
 * measures and writes nothing. A line
 * fitted on too few questions is worse than the shipped one (ADR-0011, addendum), and
 * writing it would quietly make every later answer on this library less trustworthy.
 */
export async function calibrateCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandOptions('calibrate', argv, {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    folds: { type: 'string' },
    force: { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'skip-bad': { type: 'boolean', default: false },
  });
  if (values.force && values['dry-run']) throw new UserError('pass --force (write the refit whatever it measured) or --dry-run (write nothing), not both.');
  if (!values.corpus) throw new UserError('calibrate needs --corpus DIR (the folder of markdown whose bands to fit).');
  // Checked before the corpus is indexed and every question measured: a bad --folds failed only after all that.
  const folds = parseFolds(values.folds);
  const inputs = await evalInputs({
    corpus: values.corpus,
    ...(values.questions ? { questions: values.questions } : {}),
    skipBad: values['skip-bad'],
    shippedBands: true,
  });
  const { questions, errors } = resolveEvidence(inputs.questions, inputs.kb.chunks);
  const measured = await measureAll(inputs.kb, questions, inputs.source.root);
  const {
    report,
    fit,
    shipped,
    keep,
    ground,
    unanswerablePerFold: perFold,
    certifiable,
  } = calibrateBands(measured, inputs.kb.model, { folds, evidenceErrors: errors, detail: true });
  const write = !values['dry-run'] && (keep === 'refit' || values.force);
  const path = inputs.source.thresholdsPath;
  if (write) {
    const file: BandsFile = {
      ...fit.bands,
      fittedOn: inputs.origin,
      // S-280: what the bands were fitted on, by content, which `eval` compares with the questions it scores.
      fittedOnQuestions: fittedOnDigests(measured.map((m) => m.question.question)),
      fittedAt: new Date().toISOString(),
      questions: report.n,
      // S-281: a rate over no question is null here too, not a 0 that reads as a measured perfect score.
      heldOut: {
        falseAnswerRate: report.unanswerable ? report.falseAnswerRate : null,
        falseRefusalRate: report.answerable ? report.falseRefusalRate : null,
        deferralRate: report.n ? report.deferralRate : null,
        folds: report.corpora.length,
      },
    };
    writeThresholds(path, `${JSON.stringify(file, null, 2)}\n`);
  }
  // The shipped bands' figure is held out only if the shipped model never trained on this corpus.
  const inSample = trainedOnCorpus(inputs);
  const fewest = fewestToCertify(BUDGETS.falseAnswerRate);
  const kept = existsSync(path) && !write;
  if (values.json) {
    // S-281: a rate over no question is null, in the folds' figures as in the pooled ones and the shipped bands'.
    const { questions: _, ...summary } = reportedEvaluation(report);
    const shippedFigures = {
      falseAnswerRate: shipped.unanswerable ? shipped.falseAnswerRate : null,
      falseRefusalRate: shipped.answerable ? shipped.falseRefusalRate : null,
      deferralRate: shipped.n ? shipped.deferralRate : null,
    };
    process.stdout.write(
      `${JSON.stringify({ ...summary, keep, forced: values.force && keep === 'shipped', shipped: { ...shippedFigures, inSample }, thresholdsFile: write ? path : null, ...(inputs.skipped ? { skipped: inputs.skipped } : {}) }, null, 2)}\n`,
    );
    return 0;
  }
  // S-210: why the shipped bands are kept, said by the rule that kept them (`ground`), with --force as without it.
  const why = () =>
    shippedKeptBecause(ground, { refit: report, shipped, refitLine: fit.bands.sufficientAbove, shippedLine: inputs.kb.model.bands.sufficientAbove });
  const lines = [
    formatEvaluation(report, inputs.origin),
    '',
    `The shipped bands on the same questions: ${rates(shipped)}${inSample ? ' (in-sample: the shipped model was trained on this corpus, so these flatter it)' : ' (held out too: the shipped model never saw these questions)'}.`,
    ...(!certifiable
      ? [
          `Each fold's line was fitted on about ${perFold} unanswerable questions; no line can show the ${pct(BUDGETS.falseAnswerRate)} false-answer budget met on fewer than ${fewest}, even with none answered, so the fit can only seek the fewest false answers, whatever that costs in refusals. Label more unanswerable questions (sandscope feedback, then feedback --export) before calibrating.`,
        ]
      : []),
    '',
    write
      ? `Wrote ${path}${keep === 'shipped' ? ` (--force: calibrate would have kept the shipped bands, as ${why()})` : ': refitted, it beat the shipped bands held out'}; \`npx sandscope ask --corpus ${shellArg(values.corpus)} "…"\` now uses it.`
      : values['dry-run']
        ? `--dry-run: nothing was written (the ${keep === 'refit' ? 'refit would have been' : `shipped bands would have been kept, as ${why()}`}).`
        : `Kept the shipped bands: ${why()}, so nothing was written.${kept ? ` ${path} from an earlier calibration is still there and \`ask\` still uses it; delete it to use the shipped bands.` : ''} Pass --force to write the refit anyway.`,
    ...(write && !fit.feasible
      ? [
          'Warning: no bands met both budgets on this set; the file keeps the false-answer budget at the cost of refusals. Treat answers on this corpus with care.',
        ]
      : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/**
 * The refit written whole or not at all: written in place, a full disk left half a thresholds.json, which every later
 * `ask --corpus` refused to read, in place of the earlier calibration's (S-209). A failure is one line.
 */
function writeThresholds(path: string, text: string): void {
  const earlier = existsSync(path);
  try {
    writeFileAtomic(path, text);
  } catch (error) {
    throw new UserError(
      `cannot write ${path}: ${fsErrorWords(error)}; ${earlier ? 'the earlier calibration there is as it was' : 'nothing was written'}. Make ${dirname(path)} writable, or free space on its disk, and run calibrate again.`,
    );
  }
}

/** Which budgets a set of rates meets, by `preferenceKey`'s first place (each rate's 95% upper bound within its budget). */
const budgetsMet = (place: number, one: boolean): string =>
  place === 0
    ? `meet${one ? 's' : ''} both budgets`
    : place === 1
      ? `meet${one ? 's' : ''} the false-answer budget but not the false-refusal one`
      : `do${one ? 'es' : ''} not show the false-answer budget met`;

const PLACE_WORDS: Readonly<Record<Exclude<PreferencePlace, 'budgets'>, string>> = {
  deferral: 'deferral',
  'false answers': 'false answers',
  'false refusals': 'false refusals',
  'false-answer bound': 'the false answers’ 95% upper bound',
};

/**
 * Why calibrate keeps the shipped bands, in the words of the rule that kept them (`Calibration.ground`). "--force: the
 * refit was not the better one held out" was said of a refit with 7.1% false refusals against the shipped bands' 14.3%
 * and the same false answers: it was kept out because it answers more on too few questions to show the budget kept.
 */
function shippedKeptBecause(
  ground: CalibrationGround,
  c: { readonly refit: RatesOf; readonly shipped: RatesOf; readonly refitLine: number; readonly shippedLine: number },
): string {
  const budget = pct(BUDGETS.falseAnswerRate);
  const heldOut = `held out, the refit: ${rates(c.refit)}; the shipped bands: ${rates(c.shipped)}`;
  switch (ground.rule) {
    case 'loosens':
      return `the refit answers more (answer line ${c.refitLine.toFixed(3)} against ${c.shippedLine.toFixed(3)}), and too few unanswerable questions can show it keeps the ${budget} false-answer budget`;
    case 'not-shown-better':
      return `on too few unanswerable questions to tell their false answers apart, the refit is worse on one of the two rates or better on neither, ${
        ground.shippedOver
          ? `and though these questions show the shipped bands over the ${budget} false-answer budget, it answers falsely no less`
          : `nor do these questions show the shipped bands over the ${budget} false-answer budget`
      } (${heldOut})`;
    case 'preferred': {
      const split = ground.split;
      if (split === null) return `the two are tied in the order bands are chosen by, and a tie keeps the shipped bands (${heldOut})`;
      if (split.place === 'budgets')
        return `the shipped bands ${budgetsMet(split.met.b, false)} where the refit ${budgetsMet(split.met.a, true)}, by each rate's 95% upper bound (${heldOut})`;
      return `both ${budgetsMet(split.met.a, false)}, and the first rate the order of preference weighs that tells them apart is ${PLACE_WORDS[split.place]}: ${pct(split.a)} for the refit against ${pct(split.b)} (${heldOut})`;
    }
    // The refit was kept: never asked.
    case 'no-worse':
    case 'shipped-over':
      return `the refit was not kept (${heldOut})`;
  }
}
