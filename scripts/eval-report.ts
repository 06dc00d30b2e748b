// `npm run eval:report [-- --exclude a,b]`: regenerate the generated question set, run leave-one-corpus-out over
// every development corpus that is here (the headline) and k-fold cross-validation over the generated set (the
// second figure), time `ask`, and write every artefact that quotes a figure — so no figure is ever typed (the
// seed's D-015): corpus/questions.jsonl, docs/evaluation.json, docs/EVALUATION.md and the README block.
// `npm run eval:report -- --render`: only the last two, rendered again from the recorded docs/evaluation.json (its
// corpora's status lines refreshed from their READMEs) — for a change to their wording, to the first runs they
// list or to a status line, none of which moves a figure of the record: seconds instead of half an hour, and
// exactly what scripts/eval-record.test.ts checks them against.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KnowledgeBase } from '@sandscope/engine';
import {
  crossValidateSet,
  type EvaluationReport,
  evaluationMarkdown,
  generateQuestions,
  parseGaps,
  type ReportExtras,
  readmeBlock,
  spliceReadme,
  toJsonl,
} from '@sandscope/eval';
import { loadCorpusSource, knowledgeBaseOf } from 'sandscope/corpus';
import { evaluateLeaveOneCorpusOutInWorkers } from 'sandscope/folds-in-workers';
import { UserError } from 'sandscope/user-error';
import { corporaDir, excludedCorpora, GENERATED, loadEvalCorpora, loadGeneratedSet } from './corpora.ts';
import { askLatencies } from './ask-latency.ts';
import { readRecord, renderExtras, TYPED_SEED, withCurrentStatus } from './eval-render.ts';
import { runScript } from './script-boundary.ts';

/** p50 of `ask` over the generated questions on the shipped corpus, in-process, after one warm-up pass. */
async function askP50(kb: KnowledgeBase, questions: readonly string[]): Promise<number> {
  const times = (await askLatencies(kb, questions)).sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]! * 100) / 100;
}

/** docs/EVALUATION.md and the README block, from a leave-one-corpus-out report and what is printed beside it. */
function writeRendered(root: string, loco: EvaluationReport, extras: ReportExtras): void {
  writeFileSync(join(root, 'docs/EVALUATION.md'), evaluationMarkdown(loco, extras));
  const readmePath = join(root, 'README.md');
  writeFileSync(readmePath, spliceReadme(readFileSync(readmePath, 'utf8'), readmeBlock(loco, extras)));
}

await runScript('eval:report', async () => {
  const root = join(import.meta.dirname, '..');
  if (process.argv.includes('--render')) {
    const was = readRecord(root);
    const recorded = withCurrentStatus(root, was);
    const refreshed = recorded.corpora.filter((c, i) => c.status !== was.corpora[i]!.status).map((c) => c.name);
    // Everything read before anything is written: a bad first-run.json stops here with the record and docs in step.
    const extras = renderExtras(root, recorded);
    writeFileSync(join(root, 'docs/evaluation.json'), `${JSON.stringify(recorded, null, 1)}\n`);
    writeRendered(root, recorded, extras);
    console.log(
      `rendered docs/EVALUATION.md and the README block from docs/evaluation.json (recorded ${recorded.generatedAt}); no figure was measured; status lines refreshed from their READMEs: ${refreshed.length ? refreshed.join(', ') : 'none changed'}`,
    );
    return;
  }
  const exclude = excludedCorpora(process.argv);
  const source = loadCorpusSource(join(root, 'corpus'));
  const kb = await knowledgeBaseOf(source, { shippedBands: true });
  writeFileSync(
    join(source.root, 'questions.jsonl'),
    toJsonl(generateQuestions({ chunks: kb.chunks, estate: source.estate, gaps: parseGaps(readFileSync(join(source.root, 'GAPS.md'), 'utf8')) })),
  );

  const started = performance.now();
  const corpora = await loadEvalCorpora(corporaDir(root), (name) => !exclude.has(name), { typedSeed: TYPED_SEED });
  const missing = corpora.filter((c) => !c.measured);
  if (missing.length)
    throw new UserError(
      `${missing.map((c) => c.name).join(', ')}: ${missing[0]!.missing}. The report covers every corpus or none; pass --exclude to leave one out on purpose.`,
    );
  const generated = await loadGeneratedSet(join(root, 'corpus'));
  const held = corpora.map((c) => ({
    name: c.name,
    measured: c.measured!,
    status: c.status,
    evidenceErrors: c.evidenceErrors,
    ...(c.typed ? { typed: c.typed } : {}),
    ...(c.askedAgain ? { askedAgain: c.askedAgain } : {}),
  }));
  const loco = await evaluateLeaveOneCorpusOutInWorkers(held, { alwaysTrainOn: [generated], shippedBands: kb.model.bands, typedSeed: TYPED_SEED });
  const { questions: _, ...cv } = crossValidateSet(generated.measured, { folds: 5, evidenceErrors: generated.evidenceErrors });
  const askP50Ms = await askP50(
    kb,
    generated.measured.map((m) => m.question.question),
  );
  const generatedAt = new Date().toISOString().slice(0, 10);
  const record = { generatedAt, excluded: [...exclude], askP50Ms, generated: cv, ...loco };
  writeFileSync(join(root, 'docs/evaluation.json'), `${JSON.stringify(record, null, 1)}\n`);
  // The same extras --render reads (renderExtras): the full run had its own list, without the replayed reader, so
  // its README block lost the reader's line until the next --render.
  const extras = renderExtras(root, record);
  writeRendered(root, loco, extras);
  console.log(
    `evaluated ${loco.n} held-out questions over ${loco.corpora.length} corpora and ${cv.n} generated (${GENERATED}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(readmeBlock(loco, extras));
});
