// The engine's contract suites (vitest), for every package whose implementation must pass them.
export * from './models/cache-store.contract.ts';
export * from './models/spend-ledger.contract.ts';
