// `npm run -s train:ablate`: a development figure for each family of the passage features — the out-of-corpus
// separation `npm run train` prints, with that family held at zero in every passage (so the stages cannot use
// it, and the question stage's copies of it go with it). A family whose loss leaves the separation unchanged
// carries nothing that transfers across corpora; one whose loss RAISES it was being fitted to the corpora
// trained on. It judges nothing: it is printed over every corpus here, so whatever it suggests must still be
// judged on corpora held out of it (docs/experiments).
import { join } from 'node:path';
import { FEATURE_NAMES, type FeatureName } from '@sandscope/engine';
import { outOfCorpusRows, separationFigures, trainModel } from '@sandscope/eval';
import { loadGeneratedSet, measuredCorpora } from './corpora.ts';
import { runScript } from './script-boundary.ts';

const FAMILIES: Record<string, readonly FeatureName[]> = {
  none: [],
  retrieval: ['logProduct', 'dense', 'bm25PerTerm', 'lexicalMatch', 'reciprocalRank', 'relativeProduct'],
  coverage: ['topicCoverage', 'predicateCoverage', 'headingCoverage', 'documentCoverage', 'unknownTopicShare'],
  synonyms: ['synonymCoverage', 'synonymDocumentCoverage', 'unknownAfterSynonyms'],
  nouns: ['nounCoverage', 'nounDocumentCoverage', 'unknownNounShare'],
  entities: ['missingNameFromDocument', 'missingNameFromPassage', 'missingEntity', 'missingEntityFromDocument', 'identifyingEntity'],
  role: ['roleMatch', 'rolePlaceholder', 'roleElsewhereInDocument', 'roleAbsentFromDocument', 'otherRole'],
  body: ['placeholder', 'ownBodyWords', 'ownLinkShare'],
  postmortem: ['postmortemRecord', 'postmortemDocument', 'procedureFromPostmortem', 'runbookDocument'],
  value: ['valueMissing', 'valueCoverage'],
  proposition: ['disclaims', 'propositionMissingFromDocument', 'propositionMissingFromPassage'],
  soft: ['softCoverage'],
};

await runScript('train:ablate', async () => {
  const listed = new Set(Object.values(FAMILIES).flat());
  const unlisted = FEATURE_NAMES.filter((n) => !listed.has(n));
  if (unlisted.length) throw new Error(`feature-ablation: ${unlisted.join(', ')} belong to no family; add them to FAMILIES`);
  const root = join(import.meta.dirname, '..');
  const corpora = await measuredCorpora(root);
  const generated = await loadGeneratedSet(join(root, 'corpus'));
  const templated = new Set(generated.measured.map((m) => m.question)); // the copies below keep each question
  console.log(`out-of-corpus separation over ${corpora.length} corpora with each family of passage features held at zero`);
  for (const [family, names] of Object.entries(FAMILIES)) {
    const held = new Set(names.map((n) => FEATURE_NAMES.indexOf(n)));
    const without = (m: (typeof corpora)[number]['measured'][number]) => ({
      ...m,
      features: { ...m.features, passages: m.features.passages.map((p) => ({ ...p, vector: p.vector.map((x, j) => (held.has(j) ? 0 : x)) })) },
    });
    const groups = [generated, ...corpora].map((g) => ({ name: g.name, measured: g.measured.map(without) }));
    const trained = trainModel(groups);
    const real = outOfCorpusRows(trained, (m) => templated.has(m.question));
    console.log(`  ${family.padEnd(12)} ${separationFigures(real)} (${real.length} questions)`);
  }
});
