import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config.ts';
import { openSpendLedger } from '../spend/open-spend-ledger.ts';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/*
 * S-260 with REDIS_URL: where the replicas book the day's spend in Redis, `ask` books there too (the same keys
 * `serve` opens, openSpendLedger), and opens no database for it. A real, shared Redis named by
 * SANDSCOPE_TEST_REDIS_URL; every key this run writes has a prefix of its own and is deleted afterwards.
 */
const url = process.env.SANDSCOPE_TEST_REDIS_URL;
if (!url) console.log('SKIP ask-daily-ceiling.int.test.ts: SANDSCOPE_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)');

const io = captureOutput();
const QUESTION = 'What is the connection pool ceiling for orders-db?';
const prefix = `sandscope-test:ask-ceiling:${process.pid}:${randomUUID().slice(0, 8)}:`;

describe.skipIf(!url)('sandscope ask with REDIS_URL and a priced provider', () => {
  let stub: StubOpenAIServer | undefined;
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'ask-ceiling-redis-'));
  });
  afterAll(async () => {
    await stub?.close();
    rmSync(dataDir, { recursive: true, force: true });
    const redis = new Redis(url ?? '');
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('books each priced call in Redis, where serve reads the day, and refuses the call the day cannot afford', async () => {
    const drafted = io.out.length;
    expect(await main(['ask', '--json', QUESTION])).toBe(0);
    const { claims } = JSON.parse(io.out.slice(drafted)) as { claims: unknown[] };
    const provider = (stub = await startStubOpenAIServer({
      fallback: { kind: 'json', text: JSON.stringify({ claims }), usage: { promptTokens: 1_650, completionTokens: 100 } },
    }));
    const env = {
      SANDSCOPE_DATA_DIR: dataDir,
      REDIS_URL: url ?? '',
      REDIS_KEY_PREFIX: prefix,
      IP_SALT: 'ask-ceiling-salt-0123456789',
      GROQ_API_KEY: 'test-key',
      GROQ_BASE_URL: provider.baseURL,
      GROQ_INPUT_USD_PER_MTOK: '4',
      GROQ_OUTPUT_USD_PER_MTOK: '4',
      DAILY_SPEND_CEILING_USD: '0.02',
    };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const outcomes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const from = io.out.length;
      expect(await main(['ask', '--json', QUESTION])).toBe(0);
      outcomes.push((JSON.parse(io.out.slice(from)) as { outcome: string }).outcome);
    }
    vi.unstubAllEnvs();
    expect(outcomes).toEqual(['answered', 'answered', 'escalated']);
    expect(provider.requests).toHaveLength(2);
    // No database was needed, and none was made.
    expect(existsSync(join(dataDir, 'pglite'))).toBe(false);

    const parsed = loadConfig(env);
    if (!parsed.ok) throw new Error(parsed.message);
    const opened = await openSpendLedger(parsed.config, undefined, () => {});
    try {
      const usage = await opened.ledger.usage();
      expect(usage.spentUsd).toBeCloseTo(0.014, 9);
      expect(usage.reservedUsd).toBe(0);
    } finally {
      await opened.close();
    }
  }, 120_000);
});
