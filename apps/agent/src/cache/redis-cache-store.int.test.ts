import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { describeCacheStoreContract } from '@sandscope/engine/testing/contracts';
import { Redis } from 'ioredis';
import { RedisCacheStore } from './redis-cache-store.ts';

/**
 * The CacheStore contract on a real, shared Redis named by SANDSCOPE_TEST_REDIS_URL
 * (CI and the project machines: redis://127.0.0.1:6379). The replica is a second
 * client on the same prefix, as a second agent process would be. Every key this
 * run writes starts with a prefix unique to the run, and is deleted afterwards.
 */
const url = process.env.SANDSCOPE_TEST_REDIS_URL;
if (!url) console.log('SKIP redis-cache-store.int.test.ts: SANDSCOPE_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)');

const prefix = `sandscope-test:cache:${process.pid}:${randomUUID().slice(0, 8)}:`;
const opened: RedisCacheStore[] = [];
const open = async () => {
  const store = new RedisCacheStore({ url: url ?? '', keyPrefix: prefix });
  opened.push(store);
  await store.ready();
  return store;
};

describeCacheStoreContract(
  'redis',
  {
    create: open,
    createReplica: open,
    async dispose() {
      for (const store of opened) await store.close();
      const inspector = new Redis(url ?? '');
      let cursor = '0';
      do {
        const [next, keys] = await inspector.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await inspector.del(...keys);
      } while (cursor !== '0');
      inspector.disconnect();
    },
  },
  { skip: !url },
);

describe.skipIf(!url)('RedisCacheStore: entries written before candidates', () => {
  it('scans an entry that has no candidate key (written by the version before S-079) from the entry itself', async () => {
    const own = `${prefix}before:`;
    const inspector = new Redis(url ?? '');
    const store = new RedisCacheStore({ url: url ?? '', keyPrefix: own });
    try {
      await store.ready();
      const entry = { key: 'k-old', namespace: 'v1\u241ftriage', embedderId: 'e', vector: [0.5, 0, -0.25], evidenceIds: ['d#1'], text: 'old', createdAt: 5 };
      await inspector.set(`${own}entry:k-old`, JSON.stringify(entry));
      await inspector.zadd(`${own}ns:v1\u241ftriage`, 5, 'k-old');
      const scanned = await store.scan('v1\u241ftriage');
      expect(scanned.map((c) => [c.key, Array.from(c.vector ?? []), 'text' in c])).toEqual([['k-old', [0.5, 0, -0.25], false]]);
    } finally {
      await store.close();
      await inspector.del(`${own}entry:k-old`, `${own}ns:v1\u241ftriage`);
      inspector.disconnect();
    }
  });
});
