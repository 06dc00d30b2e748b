import { writeFileSync } from 'node:fs';
import type { BandsFile } from '@sandscope/engine';
import { calibrateBands, measureAll, resolveEvidence } from '@sandscope/eval';
import { UserError } from '../user-error.ts';
import { parseCommandArgs } from './args.ts';
import { formatEvaluation } from './eval-format.ts';
import { evalInputs, parseFolds } from './eval-support.ts';

/**
 * `sandscope calibrate --corpus DIR [--questions FILE] [--folds 5] [--json]`:
 * keep the shipped model's weights, refit its two bands on this corpus's own
 * questions. Cross-validated first (each fold scored by bands fitted on the
 * others), then fitted on the whole set and written to `DIR/thresholds.json`,
 * which `ask --corpus DIR` uses.
 */
export async function calibrateCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('calibrate', argv, {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    folds: { type: 'string' },
    json: { type: 'boolean', default: false },
    'skip-bad': { type: 'boolean', default: false },
  });
  if (!values.corpus) throw new UserError('calibrate needs --corpus DIR (the folder of markdown whose bands to fit).');
  const inputs = await evalInputs({ corpus: values.corpus, ...(values.questions ? { questions: values.questions } : {}), skipBad: values['skip-bad'] });
  const { questions, errors } = resolveEvidence(inputs.questions, inputs.kb.chunks);
  const measured = await measureAll(inputs.kb, questions, inputs.source.root);
  const { report, fit } = calibrateBands(measured, inputs.kb.model, { folds: parseFolds(values.folds), evidenceErrors: errors });
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
  writeFileSync(inputs.source.thresholdsPath, `${JSON.stringify(file, null, 2)}\n`);
  if (values.json) {
    const { questions: _, ...summary } = report;
    process.stdout.write(`${JSON.stringify({ ...summary, thresholdsFile: inputs.source.thresholdsPath }, null, 2)}\n`);
  } else {
    process.stdout.write(
      `${formatEvaluation(report, inputs.origin)}\n\nWrote ${inputs.source.thresholdsPath}; \`npx sandscope ask --corpus ${values.corpus} "…"\` now uses it.\n`,
    );
    if (!fit.feasible)
      process.stdout.write(
        'Warning: no bands met both budgets on this set; the file keeps the false-answer budget at the cost of refusals. Treat answers on this corpus with care.\n',
      );
  }
  return 0;
}
