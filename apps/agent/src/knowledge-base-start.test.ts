import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashingEmbedder } from '@sandscope/engine';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CorpusSource, DEFAULT_CORPUS_DIR, loadCorpusSource } from './corpus-source.ts';
import { indexCodeTag } from './index-code-tag.ts';
import { startKnowledgeBase } from './knowledge-base-start.ts';

let store: Store;
let source: CorpusSource;
beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  source = loadCorpusSource(DEFAULT_CORPUS_DIR, { warn: () => {} });
}, 60_000);
afterAll(async () => {
  await store?.close();
});

const QUESTION = 'What is the connection pool ceiling for orders-db?';
const trace = async (kb: Awaited<ReturnType<typeof startKnowledgeBase>>['kb']) => JSON.stringify(await kb.examine(QUESTION));

describe('a replica starting its knowledge base (issue 11)', () => {
  it('builds and saves when the store has no snapshot; the next replica loads it and decides the same', async () => {
    const tag = 'kb-snapshot-test/hashing-768-v1/one';
    const first = await startKnowledgeBase(store.db, source, { indexCodeTag: tag });
    expect(first.from).toBe('built');
    expect(first.note).toMatch(/none saved for this corpus version and index code.*snapshot saved/);
    const second = await startKnowledgeBase(store.db, source, { indexCodeTag: tag });
    expect(second.from).toBe('snapshot');
    expect(second.note).toMatch(/loaded from snapshot/);
    expect(await trace(second.kb)).toBe(await trace(first.kb));
  }, 60_000);

  it('never loads the snapshot of other index code, or of another corpus version', async () => {
    await startKnowledgeBase(store.db, source, { indexCodeTag: 'kb-snapshot-test/hashing-768-v1/two' });
    expect((await startKnowledgeBase(store.db, source, { indexCodeTag: 'kb-snapshot-test/hashing-768-v1/three' })).from).toBe('built');
    const edited = { ...source, documents: source.documents.map((d, i) => (i === 0 ? { ...d, text: `${d.text}\n\nOne more line.\n` } : d)) };
    const other = await startKnowledgeBase(store.db, edited, { indexCodeTag: 'kb-snapshot-test/hashing-768-v1/three' });
    expect(other.from).toBe('built');
  }, 60_000);

  it('builds over a corrupt snapshot and saves a good one in its place', async () => {
    const tag = 'kb-snapshot-test/hashing-768-v1/four';
    await startKnowledgeBase(store.db, source, { indexCodeTag: tag });
    await store.db.query("update index_snapshot set bytes = overlay(bytes placing '\\x01'::bytea from 100) where index_format = $1 and part = 0", [tag]);
    const rebuilt = await startKnowledgeBase(store.db, source, { indexCodeTag: tag });
    expect(rebuilt.from).toBe('built');
    expect(rebuilt.note).toMatch(/corrupt: its bytes do not match their digest/);
    expect((await startKnowledgeBase(store.db, source, { indexCodeTag: tag })).from).toBe('snapshot');
  }, 60_000);

  it('uses no snapshot when the index code cannot be tagged', async () => {
    const started = await startKnowledgeBase(store.db, source, { indexCodeTag: null });
    expect(started.from).toBe('built');
    expect(started.note).toMatch(/no snapshot/);
  }, 60_000);
});

describe('the index code tag', () => {
  it('changes with any engine source or the lockfile, not with a test, and is null without sources', () => {
    const root = mkdtempSync(join(tmpdir(), 'sandscope-tag-'));
    mkdirSync(join(root, 'packages/engine/src/retrieval'), { recursive: true });
    writeFileSync(join(root, 'packages/engine/package.json'), '{}');
    writeFileSync(join(root, 'package-lock.json'), '{"a":1}');
    writeFileSync(join(root, 'packages/engine/src/retrieval/tokenizer.ts'), 'export const a = 1;');
    const embedder = new HashingEmbedder();
    const before = indexCodeTag(embedder, root);
    expect(before).toMatch(/^kb-snapshot-\d+\/hashing-768-v1\/[0-9a-f]{16}$/);
    writeFileSync(join(root, 'packages/engine/src/retrieval/tokenizer.test.ts'), 'test');
    expect(indexCodeTag(embedder, root)).toBe(before);
    writeFileSync(join(root, 'packages/engine/src/retrieval/tokenizer.ts'), 'export const a = 2;');
    const edited = indexCodeTag(embedder, root);
    expect(edited).not.toBe(before);
    writeFileSync(join(root, 'package-lock.json'), '{"a":2}');
    expect(indexCodeTag(embedder, root)).not.toBe(edited);
    expect(indexCodeTag(null, root)).toMatch(/\/no-embedder\//);
    expect(indexCodeTag(embedder, join(root, 'nowhere'))).toBeNull();
  });
});
