import { randomUUID } from 'node:crypto';
import { describeSpendLedgerContract } from '@sandscope/engine/testing/contracts';
import { Redis } from 'ioredis';
import { RedisSpendLedger } from './redis-spend-ledger.ts';

/**
 * The SpendLedger contract on a real, shared Redis named by SANDSCOPE_TEST_REDIS_URL
 * (CI and the project machines: redis://127.0.0.1:6379). The replica is a second
 * client on the same prefix, as a second agent process would be. Each case gets
 * a prefix of its own (an empty backing), and every key is deleted afterwards.
 */
const url = process.env.SANDSCOPE_TEST_REDIS_URL;
if (!url) console.log('SKIP redis-spend-ledger.int.test.ts: SANDSCOPE_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)');

const run = `sandscope-test:spend:${process.pid}:${randomUUID().slice(0, 8)}:`;
let prefix = run;
let cases = 0;
const opened: RedisSpendLedger[] = [];
const open = async (options: ConstructorParameters<typeof RedisSpendLedger>[0]) => {
  const ledger = new RedisSpendLedger(options);
  opened.push(ledger);
  await ledger.ready();
  return ledger;
};

describeSpendLedgerContract(
  'redis',
  {
    async create(options) {
      prefix = `${run}${++cases}:`;
      return open({ ...options, url: url ?? '', keyPrefix: prefix });
    },
    createReplica: async (options) => open({ ...options, url: url ?? '', keyPrefix: prefix }),
    async dispose() {
      for (const ledger of opened) await ledger.close();
      const inspector = new Redis(url ?? '');
      let cursor = '0';
      do {
        const [next, keys] = await inspector.scan(cursor, 'MATCH', `${run}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await inspector.del(...keys);
      } while (cursor !== '0');
      inspector.disconnect();
    },
  },
  { skip: !url },
);
