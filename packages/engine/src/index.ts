export * from './types.ts';
export * from './corpus/estate.ts';
export * from './corpus/chunker.ts';
export * from './corpus/passage-hazards.ts';
export * from './retrieval/tokenizer.ts';
export * from './retrieval/bm25.ts';
export * from './retrieval/embedder.ts';
export * from './retrieval/hashing-embedder.ts';
export * from './retrieval/remote-embedder.ts';
export * from './retrieval/thesaurus.ts';
export * from './retrieval/word-vectors.ts';
export * from './retrieval/hybrid-retriever.ts';
export * from './retrieval/question-shape.ts';
export * from './answerability/question-intent.ts';
export * from './answerability/section-role.ts';
export * from './answerability/features.ts';
export * from './answerability/model.ts';
export * from './answerability/decide.ts';
export * from './answer/sentences.ts';
export * from './answer/extractive.ts';
export * from './knowledge-base.ts';
export * from './round.ts';
export * from './clock.ts';
export * from './errors.ts';
export * from './has-error-code.ts';
export * from './knowledge-base-snapshot.ts';
// The orchestrator and the models are imported by subpath (`@sandscope/engine/orchestrator`,
// `@sandscope/engine/models`): each is a concept of its own. Both take the one Clock (clock.ts).
