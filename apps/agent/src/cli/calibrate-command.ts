import { existsSync, writeFileSync } from 'node:fs';
import type { BandsFile } from '@sandscope/engine';
import { BUDGETS, calibrateBands, fewestToCertify, measureAll, type Metrics, resolveEvidence } from '@sandscope/eval';
import { UserError } from '../user-error.ts';
import { shellArg } from '../shell-arg.ts';
import { parseCommandOptions } from './args.ts';
import { formatEvaluation } from './eval-format.ts';
import { evalInputs, parseFolds, trainedOnCorpus } from './eval-support.ts';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const rates = (m: Pick<Metrics, 'falseAnswerRate' | 'falseRefusalRate' | 'deferralRate'>) =>
  `false answers ${pct(m.falseAnswerRate)}, false refusals ${pct(m.falseRefusalRate)}, deferral ${pct(m.deferralRate)}`;

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
    unanswerablePerFold: perFold,
    certifiable,
    loosens,
  } = calibrateBands(measured, inputs.kb.model, { folds, evidenceErrors: errors });
  const write = !values['dry-run'] && (keep === 'refit' || values.force);
  const path = inputs.source.thresholdsPath;
  if (write) {
    const file: BandsFile = {
      ...fit.bands,
      fittedOn: inputs.origin,
      fittedAt: new Date().toISOString(),
      questions: report.n,
      heldOut: {
        falseAnswerRate: report.falseAnswerRate,
        falseRefusalRate: report.falseRefusalRate,
        deferralRate: report.deferralRate,
        folds: report.corpora.length,
      },
    };
    writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
  }
  // The shipped bands' figure is held out only if the shipped model never trained on this corpus.
  const inSample = trainedOnCorpus(inputs);
  const fewest = fewestToCertify(BUDGETS.falseAnswerRate);
  const kept = existsSync(path) && !write;
  if (values.json) {
    const { questions: _, ...summary } = report;
    const shippedFigures = { falseAnswerRate: shipped.falseAnswerRate, falseRefusalRate: shipped.falseRefusalRate, deferralRate: shipped.deferralRate };
    process.stdout.write(
      `${JSON.stringify({ ...summary, keep, forced: values.force && keep === 'shipped', shipped: { ...shippedFigures, inSample }, thresholdsFile: write ? path : null }, null, 2)}\n`,
    );
    return 0;
  }
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
      ? `Wrote ${path}${keep === 'shipped' ? ' (--force: the refit was not the better one held out)' : ': refitted, it beat the shipped bands held out'}; \`npx sandscope ask --corpus ${shellArg(values.corpus)} "…"\` now uses it.`
      : values['dry-run']
        ? `--dry-run: nothing was written (the ${keep === 'refit' ? 'refit would have been' : 'shipped bands would have been kept'}).`
        : `Kept the shipped bands: ${
            loosens && !certifiable
              ? `the refit answers more (answer line ${fit.bands.sufficientAbove.toFixed(3)} against ${inputs.kb.model.bands.sufficientAbove.toFixed(3)}), and too few unanswerable questions can show it keeps the ${pct(BUDGETS.falseAnswerRate)} false-answer budget`
              : !certifiable
                ? `on too few unanswerable questions to tell their false answers apart, the refit is not better on both rates, nor do these questions show the shipped bands over the ${pct(BUDGETS.falseAnswerRate)} false-answer budget (held out: ${rates(report)} against ${rates(shipped)})`
                : 'refitted on these questions they did no better held out'
          }, so nothing was written.${kept ? ` ${path} from an earlier calibration is still there and \`ask\` still uses it; delete it to use the shipped bands.` : ''} Pass --force to write the refit anyway.`,
    ...(write && !fit.feasible
      ? [
          'Warning: no bands met both budgets on this set; the file keeps the false-answer budget at the cost of refusals. Treat answers on this corpus with care.',
        ]
      : []),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
