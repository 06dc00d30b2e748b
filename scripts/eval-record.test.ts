import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KnowledgeBase, parseThresholds } from '@sandscope/engine';
import { acrossFoldSeeds, type EvaluationReport, evaluateMeasured, foreignMarkdown, type Measured, measureAll, readmeBlock, README_BEGIN, README_END, stabilityMarkdown } from '@sandscope/eval';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCorpusSource } from '../apps/agent/src/corpus-source.ts';
import { readQuestionFile } from '../apps/agent/src/cli/eval-support.ts';
import { evaluateForeignCorpora } from './foreign-corpora.ts';

const root = join(import.meta.dirname, '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

/**
 * The published figures are a record of a run, checked against a fresh run. The
 * seed's first README checker could not fail (D-015: it searched for each figure
 * as a substring); this one compares the whole generated block and every number.
 */
describe('the evaluation record', () => {
  let measured: Measured[];
  beforeAll(async () => {
    const source = loadCorpusSource(join(root, 'corpus'));
    const kb = await KnowledgeBase.build({ documents: source.documents, estate: source.estate });
    measured = await measureAll(kb, readQuestionFile(join(root, 'corpus/questions.jsonl'), false));
  });

  it('docs/evaluation.json, corpus/thresholds.json and the README block match a fresh run', () => {
    const fresh = evaluateMeasured(measured, { folds: 5 });
    const { generatedAt, ...recorded } = JSON.parse(read('docs/evaluation.json')) as EvaluationReport & { generatedAt: string };
    expect(generatedAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(JSON.parse(JSON.stringify(fresh))).toEqual(recorded);

    const readme = read('README.md');
    const block = readme.slice(readme.indexOf(README_BEGIN), readme.indexOf(README_END) + README_END.length);
    // The stability and foreign-corpora records are each checked against a fresh run below.
    expect(block).toBe(readmeBlock(fresh, { stability: JSON.parse(read('docs/fold-seeds.json')), foreign: JSON.parse(read('docs/foreign-corpora.json')) }));

    const shipped = parseThresholds(JSON.parse(read('corpus/thresholds.json')));
    if (!shipped.ok) throw new Error(shipped.message);
    for (const [key, value] of Object.entries(fresh.thresholds)) expect(shipped.thresholds[key as keyof typeof fresh.thresholds], key).toBe(value);
    expect(read('docs/EVALUATION.md')).toContain(`| false answers (answered or partial on unanswerable) | ${(fresh.falseAnswerRate * 100).toFixed(1)}% |`);
  });

  it('docs/fold-seeds.json and its EVALUATION.md section match the procedure run again under other fold assignments', () => {
    const fresh = acrossFoldSeeds(measured, { folds: 5 });
    expect(JSON.parse(read('docs/fold-seeds.json'))).toEqual(JSON.parse(JSON.stringify(fresh)));
    const recorded = JSON.parse(read('docs/evaluation.json')) as EvaluationReport;
    expect(read('docs/EVALUATION.md')).toContain(stabilityMarkdown(fresh, recorded));
  });

  it('docs/foreign-corpora.json and its EVALUATION.md section match a fresh run of every foreign corpus', async () => {
    const fresh = await evaluateForeignCorpora(root);
    expect(fresh.map((f) => f.name)).toEqual(expect.arrayContaining(['harbor-runbooks', 'tidewater-ops']));
    expect(JSON.parse(read('docs/foreign-corpora.json'))).toEqual(JSON.parse(JSON.stringify(fresh)));
    expect(read('docs/EVALUATION.md')).toContain(foreignMarkdown(fresh));
  });
});
