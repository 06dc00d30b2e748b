import { KnowledgeBase } from '@sandscope/engine';
import { loadCorpusSource } from '../corpus-source.ts';
import { parseCommandArgs, questionFrom } from './args.ts';
import { formatAskResult } from './format.ts';

/** `sandscope ask [--corpus DIR] [--json] "question"` */
export async function askCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('ask', argv, {
    corpus: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  const question = questionFrom(positionals);
  const source = loadCorpusSource(values.corpus);
  const kb = await KnowledgeBase.build({ documents: source.documents, estate: source.estate, ...(source.thresholds ? { thresholds: source.thresholds } : {}) });
  const result = await kb.ask(question);
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatAskResult(result)}\n`);
  return 0;
}
