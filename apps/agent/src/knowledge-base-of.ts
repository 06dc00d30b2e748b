import { KnowledgeBase } from '@sandscope/engine';
import type { CorpusSource } from './corpus-source.ts';
import { wordNet } from './wordnet.ts';

/**
 * The knowledge base of a corpus folder, as every entry point builds it: with WordNet (the model was
 * trained reading synonyms; a base built without them would rate questions on different features) and,
 * unless `shippedBands`, the corpus's own calibrated bands. Evaluation passes `shippedBands` so a model
 * fitted elsewhere is never scored with bands chosen on the set it is scored on.
 */
export function knowledgeBaseOf(source: CorpusSource, options: { shippedBands?: boolean } = {}): Promise<KnowledgeBase> {
  const bands = !options.shippedBands && source.thresholds ? { bands: source.thresholds } : {};
  return KnowledgeBase.build({ documents: source.documents, estate: source.estate, thesaurus: wordNet(), ...bands });
}
