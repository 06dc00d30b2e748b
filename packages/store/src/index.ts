/**
 * The adapters are not re-exported: openDatabase loads the one it needs, so a
 * server deployment never loads PGlite. The package's other entries are
 * `@sandscope/store/values` (id checks, light) and `@sandscope/store/testing`.
 */
export * from './store-error.ts';
export * from './thrown.ts';
export * from './database.ts';
export * from './migrator.ts';
export * from './owner-alive.ts';
export * from './owner-lease.ts';
export * from './store.ts';
export * from './corpus-repository.ts';
export * from './chunk-similarity.ts';
export * from './run-repository.ts';
export * from './run-detail.ts';
export * from './citation-repository.ts';
export * from './approval-repository.ts';
export * from './provider-event-repository.ts';
export * from './spend-ledger-repository.ts';
export * from './eval-run-repository.ts';
export * from './database-cache-store.ts';
export * from './feedback-repository.ts';
export * from './cache-withdrawal-repository.ts';
export * from './investigation-repository.ts';
export * from './run-record-batch.ts';
export * from './database-spend-ledger.ts';
export * from './spend-ledger-replica-repository.ts';
export * from './investigation-turn-repository.ts';
export * from './index-snapshot-repository.ts';
export * from './pglite-data-dir.ts';
export { livePgliteOwner } from './pglite-owner.ts';
