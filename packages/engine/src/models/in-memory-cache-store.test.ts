import { InMemoryCacheStore } from './in-memory-cache-store.ts';
import { describeCacheStoreContract } from './cache-store.contract.ts';

// A process-local map has no second instance over the same backing: the replica case is skipped by design.
describeCacheStoreContract('in-memory', { create: async () => new InMemoryCacheStore() });
