// The corpus half of the agent (`sandscope/corpus`): load a corpus directory, build its knowledge base, find the evaluation corpora.
// Apart from `sandscope` so a script that only reads corpora does not load the service, the store and the HTTP app.
export { DEFAULT_CORPUS_DIR, loadCorpusSource, type CorpusSource, type LoadCorpusOptions, type SkippedFile } from './corpus-source.ts';
export { knowledgeBaseFromSnapshot, knowledgeBaseOf } from './knowledge-base-of.ts';
export { indexCodeTag } from './index-code-tag.ts';
export { snapshotCorpusVersion } from './knowledge-base-start.ts';
export {
  DEFAULT_EVAL_CORPORA_DIR,
  GENERATED,
  loadEvalCorpora,
  loadGeneratedSet,
  parseExclude,
  statusOf,
  typedQuestions,
  type EvalCorpus,
} from './cli/eval-corpora.ts';
export { absentTexts, CorpusSourceFile, readCorpusSourceFile } from './cli/corpus-source-file.ts';
