import { parseWorkload, type RunResult } from '@sandscope/engine/orchestrator';
import { corpusDirOf, loadCorpusSource } from '../corpus-source.ts';
import { knowledgeBaseOf } from '../knowledge-base-of.ts';
import { checkFailProviders, runAgent } from '../run-agent.ts';
import { UserError } from '../user-error.ts';
import { parseCommandArgs, questionFrom } from './args.ts';
import { openCliModelServices } from './cli-model-services.ts';
import { closestPassagesOf, formatRunResult } from './format.ts';
import { terminalText } from './terminal-text.ts';

/**
 * `sandscope ask [--workload triage|change|postmortem] [--trace] [--json]
 *  [--fail-provider NAME]... [--corpus DIR] "question"` — the whole graph,
 * in-process. A refusal, an escalation and a gated action are results, not
 * errors: the exit code is 0 for all of them.
 */
export async function askCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('ask', argv, {
    corpus: { type: 'string' },
    json: { type: 'boolean', default: false },
    trace: { type: 'boolean', default: false },
    workload: { type: 'string', short: 'w' },
    'fail-provider': { type: 'string', multiple: true },
  });
  const question = questionFrom(positionals);
  // Checked before the corpus is loaded, so a typo fails in milliseconds with one line.
  const workload = parseWorkload(values.workload);
  if (!workload.ok) throw new UserError(workload.message);
  const corpus = corpusDirOf(values.corpus);
  const source = loadCorpusSource(corpus.dir);
  if (corpus.from === 'CORPUS_DIR') process.stderr.write(`sandscope: answering from ${source.root} (CORPUS_DIR)\n`);
  const kb = await knowledgeBaseOf(source);
  const failProviders = (values['fail-provider'] ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  checkFailProviders(failProviders);
  // S-260: priced calls are booked on the daily ceiling `serve` books on (DAILY_SPEND_CEILING_USD), not spent unbooked.
  const models = await openCliModelServices(process.env, { unbookable: 'offline' });
  let result: RunResult;
  try {
    result = await runAgent({ kb, question, workload: workload.workload, failProviders, services: models.services });
  } finally {
    await models.close();
  }
  // `outcome` first, as the README shows it: it is the field to read first.
  const json = () => {
    const { outcome, ...rest } = result;
    return JSON.stringify({ outcome, ...rest }, null, 2);
  };
  const closest = closestPassagesOf(result, (id) => kb.chunk(id));
  // S-229: a library's sentences and the question are printed safe for a terminal (terminal-text.ts).
  process.stdout.write(terminalText(values.json ? `${json()}\n` : `${formatRunResult(result, { trace: values.trace, closest })}\n`));
  // The run id above names no stored run: `ask` records nothing, so its stop could not be approved anywhere (S-137).
  if (result.outcome === 'awaiting_approval') {
    process.stderr.write(
      'sandscope: `ask` records nothing, so this run cannot be approved. To approve a change, ask it where runs are kept: on the website (npm start), or POST /v1/runs and then POST /v1/runs/RUN_ID/approve (docs/API.md).\n',
    );
  }
  return 0;
}
