import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Chunk } from '../types.ts';
import { HashingEmbedder } from './hashing-embedder.ts';
import { HybridRetriever } from './hybrid-retriever.ts';

/**
 * The index build was rewritten for speed (issue 11: 100k passages took 2.2× MiniSearch's build). A faster
 * build that ranks differently, or moves a score by one ulp, would change decisions the answerability model
 * was trained on — so the ranked results on a generated corpus are pinned, bit for bit, to what the build
 * before the rewrite produced (the digests below were printed by that build).
 */

/** mulberry32, so the corpus is the same on every machine. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Plain words, identifiers, CamelCase alert names, numbers, contractions: every path of the tokenizer.
const VOCABULARY = `pool connection connections saturated saturation exhausted orders-db events-bus payments_api cache.ttl
  DiskUsageHigh OOMKilled ContainerRegistryDBConnPoolSaturationTooHigh PostgreSQL p99 5xx sev3s 30s 85 percent latency
  replica failover rollback deploy deployment canary alert alerts alerting runbook restart restarted restarting node nodes
  kafka consumer lag messages page paging on-call escalate escalation we're don't can't won't it's the a of and to in is
  disk volume usage memory heap garbage collector timeout timeouts retry retries backoff jitter circuit breaker breakers
  certificate expiry rotate rotation dns resolver upstream downstream throttle throttled quota limit ceiling threshold`
  .split(/\s+/)
  .filter(Boolean);

function generatedCorpus(n: number): Chunk[] {
  const random = seeded(42);
  const word = () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const len = 8 + Math.floor(random() * 60);
    const text = Array.from({ length: len }, (_, j) => (j % 13 === 12 ? `${word()}.\n` : word())).join(' ');
    return {
      id: `gen-${i}#p`,
      doc: `dir_${i % 7}/Gen${i % 50}Alert.md`,
      docTitle: `Generated ${i % 50}`,
      heading: `${word()} ${word()}`,
      ...(i % 3 === 0 ? { path: [`${word()} section`] } : {}),
      text,
    };
  });
}

const QUERIES = [
  'connection pool exhausted on orders-db',
  'What is the p99 latency threshold?',
  'DiskUsageHigh alert fired, what do I do',
  'OOMKilled pods restarting',
  'consumer lag on events-bus',
  "we're paging on-call, who escalates?",
  'rotate the certificate before expiry',
  'retry backoff with jitter for payments_api',
  'sev3s and 5xx',
  'cache.ttl timeout',
  'nothing matches this zebra xylophone',
  'canary deployment rollback failover replica',
];

/** Float bits, not decimals: a result that moved by one ulp must change the digest. */
function bits(x: number | null): string {
  if (x === null) return 'null';
  const b = new DataView(new ArrayBuffer(8));
  b.setFloat64(0, x);
  return b.getBigUint64(0).toString(16);
}

async function rankedDigest(retriever: HybridRetriever): Promise<string> {
  const hash = createHash('sha256');
  for (const q of QUERIES) {
    const r = await retriever.search(q, 10);
    hash.update(`${q}|${r.degraded}|`);
    for (const x of r.results) hash.update(`${x.chunk.id}:${bits(x.bm25)}:${bits(x.dense)}:${bits(x.fused)};`);
  }
  return hash.digest('hex');
}

describe('index build: ranked results identical to the build before the speed rewrite', () => {
  const chunks = generatedCorpus(1500);

  it('hybrid (BM25 + hashing embedder): same ids, same raw and fused scores, same order', async () => {
    const retriever = await HybridRetriever.build(chunks, new HashingEmbedder());
    expect(await rankedDigest(retriever)).toBe('903581073210eb34ac99dc64d42cae81e2a5a7879fa4820a3851b5ccea371dcd');
  });

  it('lexical only (no embedder): same BM25 ranking', async () => {
    const retriever = await HybridRetriever.build(chunks, null);
    expect(await rankedDigest(retriever)).toBe('9890eecbea6f0f1bcccc59b697ebc4ff3c25f4f36ccb110edd4bf91ef536fe71');
  });

  it('the embedder gives the same vector, bit for bit, as before', async () => {
    const hash = createHash('sha256');
    for (const v of await new HashingEmbedder().embed(chunks.slice(0, 300).map((c) => c.text)))
      hash.update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    expect(hash.digest('hex')).toBe('be75ba6bf7da378d7314b44ae9a19231a06ab5b12c4b8db241c4c3c8e61fbb2c');
  });
});
