import { openDatabase } from './database.ts';
import { describeStoreContract } from './store.contract.ts';

describeStoreContract('PGlite (memory://)', async () => {
  const started = performance.now();
  const db = await openDatabase({ dataDir: 'memory://' });
  console.log(`PGlite started in ${Math.round(performance.now() - started)} ms`);
  return { db, expectedVectorSearch: 'pgvector', dispose: () => db.close() };
});
