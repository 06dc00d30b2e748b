import { EmbedderUnavailableError, HashingEmbedder } from '@sandscope/engine';
import { filePassages } from '@sandscope/engine/workspace';
import { createInvestigation, putInvestigationFile, startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreWorkspaceFiles } from './investigation-service.ts';

/**
 * S-090: one search the embedder refused (a 4xx for that query alone) was remembered as an outage, and meaning search
 * was off for every later search of the turn. An outage (no reply) is still remembered: waiting it out again for each
 * search would cost minutes.
 */
describe('meaning search in an investigation turn, when the embedder fails', () => {
  let store: Store;
  let investigationId: string;
  const hashing = new HashingEmbedder();
  const content = ['2024-03-14T10:00:01Z checkout-api: connection pool exhausted, 50 of 50 in use', '2024-03-14T10:00:02Z edge: 502 upstream'].join('\n');

  beforeAll(async () => {
    store = await startStore({ dataDir: 'memory://' });
    investigationId = (await createInvestigation(store.db, { title: 'pool' })).id;
    const passages = filePassages(content);
    const vectors = await hashing.embed(passages.map((p) => p.text));
    await putInvestigationFile(store.db, investigationId, {
      path: 'app.log',
      content,
      embeddings: { embedderId: hashing.id, passages: passages.map((p, i) => ({ startLine: p.startLine, endLine: p.endLine, vector: vectors[i]! })) },
    });
  });
  afterAll(async () => {
    await store?.close();
  });

  /** The hashing embedder, failing as told for queries that contain `fail`. */
  const failingOn = (fail: string, rejected: boolean) => {
    let calls = 0;
    return {
      embedder: {
        id: hashing.id,
        dimensions: hashing.dimensions,
        cacheSimilarityThreshold: hashing.cacheSimilarityThreshold,
        async embed(texts: readonly string[]) {
          calls++;
          if (texts.some((t) => t.includes(fail))) throw new EmbedderUnavailableError('HTTP 400 from the embedding service', { rejected });
          return hashing.embed(texts);
        },
      },
      calls: () => calls,
    };
  };

  it('a query the embedder refused leaves meaning search on for the next one', async () => {
    const { embedder } = failingOn('TOO-LONG', true);
    const files = new StoreWorkspaceFiles(store.db, investigationId, embedder);
    const refused = await files.similarLines('TOO-LONG pattern', { k: 5 });
    expect(refused).toMatchObject({ ok: false, rejected: true });
    const next = await files.similarLines('database connections used up', { k: 5 });
    expect(next.ok).toBe(true);
  });

  it('an outage is remembered for the rest of the turn: the embedder is not asked again', async () => {
    const { embedder, calls } = failingOn('', false);
    const files = new StoreWorkspaceFiles(store.db, investigationId, embedder);
    expect(await files.similarLines('pool exhausted', { k: 5 })).toMatchObject({ ok: false, rejected: false });
    expect(await files.similarLines('upstream errors', { k: 5 })).toMatchObject({ ok: false });
    expect(calls()).toBe(1);
  });
});
