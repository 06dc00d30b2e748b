import { evaluate } from '@sandscope/eval';
import { parseCommandArgs } from './args.ts';
import { formatEvaluation } from './eval-format.ts';
import { evalInputs, parseFolds, parseSeed, progressBar } from './eval-support.ts';

/** `sandscope eval [--corpus DIR] [--questions FILE.jsonl] [--folds 5] [--cv] [--json] [--skip-bad] [--rows]` */
export async function evalCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('eval', argv, {
    corpus: { type: 'string' },
    questions: { type: 'string' },
    folds: { type: 'string' },
    seed: { type: 'string' },
    cv: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    rows: { type: 'boolean', default: false },
    'skip-bad': { type: 'boolean', default: false },
  });
  const folds = parseFolds(values.folds);
  const seed = parseSeed(values.seed);
  const inputs = await evalInputs({ ...(values.corpus ? { corpus: values.corpus } : {}), ...(values.questions ? { questions: values.questions } : {}), skipBad: values['skip-bad'], ...(seed !== undefined ? { seed } : {}) });
  // An external set is scored with what ships, never tuned on, unless --cv asks for that.
  const shipped = inputs.external && !values.cv ? inputs.kb.thresholds : undefined;
  const report = await evaluate(inputs.kb, inputs.questions, {
    folds,
    ...(shipped ? { shipped } : {}),
    ...(progressBar('scoring') ? { onProgress: progressBar('scoring')! } : {}),
  });
  if (values.json) {
    const { questions, ...summary } = report;
    process.stdout.write(`${JSON.stringify(values.rows ? report : { ...summary, questionsFrom: inputs.origin, thresholdsFrom: inputs.source.thresholdsFrom }, null, 2)}\n`);
  } else {
    process.stdout.write(`${formatEvaluation(report, inputs.origin, inputs.source.thresholdsFrom)}\n`);
  }
  return 0;
}
