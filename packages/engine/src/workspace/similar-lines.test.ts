import { beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../knowledge-base.ts';
import { corpusKnowledgeBase } from '../orchestrator/testing/corpus-fixture.ts';
import { cosine, type Embedder, EmbedderUnavailableError } from '../retrieval/embedder.ts';
import { HashingEmbedder } from '../retrieval/hashing-embedder.ts';
import { searchFiles } from './search-files.ts';
import { DEFAULT_MIN_LINE_SIMILARITY } from './similar-lines.ts';
import { WorkspaceToolbox } from './tools.ts';
import { InMemoryWorkspaceFiles } from './workspace-files.ts';

/**
 * The uploaded files' embeddings put to use: search_files finds a line that
 * says what the pattern says in other words, beside the lines that hold it.
 */
const embedder = new HashingEmbedder();
const THROTTLED = '2024-05-01T09:12:01Z WARN payments-api request throttled by upstream rate limiter';
const log = () =>
  Array.from({ length: 200 }, (_, i) =>
    i === 120
      ? THROTTLED
      : i === 150
        ? '2024-05-01T09:14:00Z ERROR orders-db connection pool exhausted (100/100)'
        : `2024-05-01T09:${String(i % 60).padStart(2, '0')}:00Z INFO GET /health 200 1ms`,
  ).join('\n');

let kb: KnowledgeBase;
beforeAll(async () => {
  kb = await corpusKnowledgeBase();
});

describe('lines similar in meaning (the stored embeddings in use)', () => {
  it("the floor separates a line sharing a word's stem from one sharing only letters", async () => {
    const [q] = await embedder.embed(['throttling']);
    const [pool] = await embedder.embed(['exhaustion']);
    expect(cosine(q!, embedder.embedOne(THROTTLED))).toBeGreaterThanOrEqual(DEFAULT_MIN_LINE_SIMILARITY);
    expect(cosine(pool!, embedder.embedOne('ERROR orders-db connection pool exhausted (100/100)'))).toBeGreaterThanOrEqual(DEFAULT_MIN_LINE_SIMILARITY);
    for (const unrelated of ['INFO GET /health 200 1ms', 'ERROR checkout upstream orders-db returned 502 Bad Gateway']) {
      for (const word of ['throttling', 'certificate', 'expire', 'kafka-broker-7']) {
        const [v] = await embedder.embed([word]);
        expect(cosine(v!, embedder.embedOne(unrelated)), `${word} ~ ${unrelated}`).toBeLessThan(DEFAULT_MIN_LINE_SIMILARITY);
      }
    }
  });

  it('a pattern no line holds still finds the line worded differently, marked similar, after the literal hits', async () => {
    const files = new InMemoryWorkspaceFiles({ 'app.log': log() }, { embedder });
    const found = await searchFiles(files, 'throttling');
    expect(found.totalHits).toBe(0);
    expect(found.hits).toEqual([{ path: 'app.log', line: 121, text: THROTTLED, match: 'similar', similarity: expect.any(Number) }]);
    const both = await searchFiles(files, 'exhaustion');
    expect(both.hits.map((h) => [h.line, h.match])).toEqual([[151, 'similar']]);
    const literal = await searchFiles(files, 'exhausted');
    expect(literal.hits.map((h) => [h.line, h.match])).toEqual([[151, 'text']]);
    const box = new WorkspaceToolbox({ files, kb });
    const out = await box.call('search_files', { pattern: 'throttling' });
    expect(out.text).toMatch(
      /^No line contains "throttling".*\nLines similar in meaning to "throttling":\napp\.log:121: .*throttled.*\[similar in meaning, 0\.\d+\]$/s,
    );
    // Nothing near in meaning is nothing: no line is offered for a word the log never approaches.
    expect((await searchFiles(files, 'certificate')).hits).toEqual([]);
  });

  it('without embeddings the search is literal only; with the embedder down it is literal and says why', async () => {
    expect((await searchFiles(new InMemoryWorkspaceFiles({ 'app.log': log() }), 'throttling')).hits).toEqual([]);
    let calls = 0;
    const flaky: Embedder = {
      id: 'flaky',
      dimensions: embedder.dimensions,
      cacheSimilarityThreshold: 0.9,
      async embed(texts) {
        // Passages embed (the upload); the query's embedding fails (the service went down since).
        if (++calls > 1) throw new EmbedderUnavailableError('timed out after 3 attempts');
        return embedder.embed(texts);
      },
    };
    const files = new InMemoryWorkspaceFiles({ 'app.log': log() }, { embedder: flaky });
    const found = await searchFiles(files, 'exhausted');
    expect(found.hits.map((h) => h.line)).toEqual([151]);
    expect(found.similarUnavailable).toMatch(/embedder is unavailable \(timed out after 3 attempts\)/);
    const out = await new WorkspaceToolbox({ files, kb }).call('search_files', { pattern: 'exhausted' });
    expect(out.ok).toBe(true);
    expect(out.text).toMatch(/not searched by meaning: the embedder is unavailable.*the literal search above stands/);
  });
});
