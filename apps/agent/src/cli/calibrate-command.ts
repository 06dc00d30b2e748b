import { writeFileSync } from 'node:fs';
import type { ThresholdsFile } from '@sandscope/engine';
import { evaluate } from '@sandscope/eval';
import { UserError } from '../user-error.ts';
import { parseCommandArgs } from './args.ts';
import { formatEvaluation } from './eval-format.ts';
import { evalInputs, parseFolds, progressBar } from './eval-support.ts';

/**
 * `sandscope calibrate --corpus DIR [--questions FILE] [--folds 5] [--json]`:
 * cross-validate the fitting procedure on the corpus's questions (generated when
 * none are given), report the held-out figures, then fit on the whole set and
 * write `DIR/thresholds.json`, which `ask --corpus DIR` uses.
 */
export async function calibrateCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('calibrate', argv, {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    folds: { type: 'string' },
    json: { type: 'boolean', default: false },
    'skip-bad': { type: 'boolean', default: false },
  });
  if (!values.corpus) throw new UserError('calibrate needs --corpus DIR (the folder of markdown whose thresholds to fit).');
  const inputs = await evalInputs({ corpus: values.corpus, ...(values.questions ? { questions: values.questions } : {}), skipBad: values['skip-bad'] });
  const report = await evaluate(inputs.kb, inputs.questions, { folds: parseFolds(values.folds), ...(progressBar('calibrating') ? { onProgress: progressBar('calibrating')! } : {}) });
  const file: ThresholdsFile = {
    ...report.thresholds,
    fittedOn: inputs.origin,
    fittedAt: new Date().toISOString(),
    questions: report.n,
    heldOut: { falseAnswerRate: report.falseAnswerRate, falseRefusalRate: report.falseRefusalRate, deferralRate: report.deferralRate, folds: report.folds.length, noWorkableBandFolds: report.noWorkableBandFolds },
  };
  writeFileSync(inputs.source.thresholdsPath, `${JSON.stringify(file, null, 2)}\n`);
  if (values.json) {
    const { questions, ...summary } = report;
    process.stdout.write(`${JSON.stringify({ ...summary, thresholdsFile: inputs.source.thresholdsPath }, null, 2)}\n`);
  } else {
    process.stdout.write(`${formatEvaluation(report, inputs.origin)}\n\nWrote ${inputs.source.thresholdsPath}; \`npx sandscope ask --corpus ${values.corpus} "…"\` now uses it.\n`);
    if (!report.thresholdsWorkable) process.stdout.write('Warning: no thresholds met both budgets on this set; the file holds the least-bad fit. Treat answers on this corpus with care.\n');
  }
  return 0;
}
