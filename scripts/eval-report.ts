// `npm run eval:report`: regenerate the question set, run the cross-validated
// evaluation, and write every artefact that quotes its figures — so no figure is
// ever typed (the seed's D-015). Writes corpus/questions.jsonl, corpus/thresholds.json,
// docs/evaluation.json, docs/fold-seeds.json, docs/foreign-corpora.json, docs/EVALUATION.md, docs/score-distribution.svg and the README block.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KnowledgeBase, type ThresholdsFile } from '@sandscope/engine';
import { acrossFoldSeeds, evaluateMeasured, evaluationMarkdown, generateQuestions, measureAll, parseGaps, readmeBlock, scoreDistributionSvg, spliceReadme, toJsonl } from '@sandscope/eval';
import { loadCorpusSource } from '../apps/agent/src/corpus-source.ts';
import { evaluateForeignCorpora } from './foreign-corpora.ts';
import { runScript } from './script-boundary.ts';

await runScript('eval:report', async () => {
  const root = join(import.meta.dirname, '..');
  const source = loadCorpusSource(join(root, 'corpus'));
  const kb = await KnowledgeBase.build({ documents: source.documents, estate: source.estate });
  const questions = generateQuestions({ chunks: kb.chunks, estate: source.estate, gaps: parseGaps(readFileSync(join(source.root, 'GAPS.md'), 'utf8')) });
  writeFileSync(join(source.root, 'questions.jsonl'), toJsonl(questions));

  const started = performance.now();
  const measured = await measureAll(kb, questions);
  const report = evaluateMeasured(measured, { folds: 5 });
  const stability = acrossFoldSeeds(measured, { folds: 5 });
  writeFileSync(join(root, 'docs/fold-seeds.json'), `${JSON.stringify(stability, null, 1)}\n`);
  const generatedAt = new Date().toISOString().slice(0, 10);
  const thresholds: ThresholdsFile = {
    ...report.thresholds,
    fittedOn: 'corpus/questions.jsonl (whole set, after 5-fold cross-validation)',
    fittedAt: generatedAt,
    questions: report.n,
    heldOut: { falseAnswerRate: report.falseAnswerRate, falseRefusalRate: report.falseRefusalRate, deferralRate: report.deferralRate, noWorkableBandFolds: report.noWorkableBandFolds },
  };
  writeFileSync(join(source.root, 'thresholds.json'), `${JSON.stringify(thresholds, null, 2)}\n`);
  writeFileSync(join(root, 'docs/evaluation.json'), `${JSON.stringify({ generatedAt, ...report }, null, 1)}\n`);
  writeFileSync(join(root, 'docs/score-distribution.svg'), scoreDistributionSvg(report));
  const foreign = await evaluateForeignCorpora(root);
  writeFileSync(join(root, 'docs/foreign-corpora.json'), `${JSON.stringify(foreign, null, 1)}\n`);
  writeFileSync(join(root, 'docs/EVALUATION.md'), evaluationMarkdown(report, { command: 'npm run eval:report', generatedAt, questionsFrom: 'corpus/questions.jsonl', foreign, stability }));
  const readmePath = join(root, 'README.md');
  writeFileSync(readmePath, spliceReadme(readFileSync(readmePath, 'utf8'), readmeBlock(report, { stability, foreign })));
  console.log(`evaluated ${report.n} questions in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log(readmeBlock(report, { stability, foreign }));
});
