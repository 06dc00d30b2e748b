import { type AnswerabilityModel, KnowledgeBase, type KnowledgeBaseInput } from '@sandscope/engine';
import type { CorpusSource } from './corpus-source.ts';
import { wordNet } from './wordnet.ts';
import { wordVectors } from './word-vectors.ts';

/**
 * What every entry point builds a corpus folder's knowledge base from: WordNet and the word vectors (the
 * model was trained reading both; a base built without them would rate questions on different features) and, unless
 * `shippedBands`, the corpus's own calibrated bands. Evaluation passes `shippedBands` so a model fitted
 * elsewhere is never scored with bands chosen on the set it is scored on.
 */
export function knowledgeBaseInputOf(source: CorpusSource, options: KnowledgeBaseOptions = {}): KnowledgeBaseInput {
  const bands = !options.shippedBands && source.thresholds ? { bands: source.thresholds } : {};
  const model = options.model ? { model: options.model } : {};
  return { documents: source.documents, estate: source.estate, thesaurus: wordNet(), wordVectors: wordVectors(), ...bands, ...model };
}

interface KnowledgeBaseOptions {
  readonly shippedBands?: boolean;
  /** Another model than the shipped one: `sandscope eval --model FILE` scores a corpus with a model held out of it. */
  readonly model?: AnswerabilityModel;
}

/** The knowledge base of a corpus folder, as every entry point builds it (see knowledgeBaseInputOf). */
export function knowledgeBaseOf(source: CorpusSource, options: KnowledgeBaseOptions = {}): Promise<KnowledgeBase> {
  return KnowledgeBase.build(knowledgeBaseInputOf(source, options));
}

/**
 * The same knowledge base from an index snapshot of that corpus (issue 11): the same inputs, so what
 * the decision reads that is not in the snapshot — WordNet, the word vectors, the bands, the model — is handed in exactly
 * as for a build. Throws SnapshotError when the bytes are not a usable snapshot.
 */
export function knowledgeBaseFromSnapshot(source: CorpusSource, snapshot: Uint8Array, options: { shippedBands?: boolean } = {}): KnowledgeBase {
  return KnowledgeBase.restore(knowledgeBaseInputOf(source, options), snapshot);
}
