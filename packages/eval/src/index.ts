export * from './question-set.ts';
export * from './rng.ts';
export * from './typos.ts';
export * from './gaps.ts';
export * from './generator.ts';
export * from './evidence.ts';
export * from './measure.ts';
export * from './metrics.ts';
export * from './outcome.ts';
export * from './jsonl.ts';
export * from './logistic.ts';
export * from './bands.ts';
export * from './train.ts';
export * from './loco.ts';
export * from './feedback.ts';
export * from './feedback-set.ts';
export * from './folds.ts';
export * from './evaluate.ts';
export * from './counted-over.ts';
export * from './model-adjudicated.ts';
export * from './report.ts';
export * from './source-audit.ts';
export {
  type ReplayedReader,
  type ReplayedReaderCorpus,
  type ReplayedReaderGroup,
  replayedReaderGroups,
  replayedReaderSchema,
} from './replayed-reader.ts';
export * from './separation.ts';
export * from './paired-difference.ts';
