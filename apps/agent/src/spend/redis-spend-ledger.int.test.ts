import { randomUUID } from 'node:crypto';
import { SpendLedgerUnavailableError, utcDayOf } from '@sandscope/engine/models';
import { describeSpendLedgerContract } from '@sandscope/engine/testing/contracts';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { REDIS_SERVER_BIN, redisServerAvailable, startPrivateRedis } from '../limits/private-redis-server.ts';
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

/**
 * A replica whose system clock is `skewMs` off: the ledger reads `Date.now` when
 * it is built (no injected clock, as in production), so it is built with a
 * skewed one in place; every other reader of `Date.now` keeps the true clock.
 */
function onSkewedClock<T>(skewMs: number, build: () => T): T {
  const trueNow = Date.now;
  Date.now = () => trueNow() + skewMs;
  try {
    return build();
  } finally {
    Date.now = trueNow;
  }
}

describe.skipIf(!url)('RedisSpendLedger replicas with skewed clocks (shared server)', () => {
  afterEach(async () => {
    for (const ledger of opened.splice(0)) await ledger.close();
    const inspector = new Redis(url ?? '');
    const keys = await inspector.keys(`${run}skew:*`);
    if (keys.length > 0) await inspector.del(...keys);
    inspector.disconnect();
  });

  it("holds expire by the server's clock, not a replica's: one running ahead does not charge live holds, one running behind books no hold already expired (defect 9)", async () => {
    const skewMs = 10_000;
    // Near midnight the skewed replicas would book on another UTC day (their day key is their own clock's): wait it out.
    while (utcDayOf(Date.now() - skewMs - 5_000) !== utcDayOf(Date.now() + skewMs + 5_000)) await new Promise((r) => setTimeout(r, 1_000));
    const options = { url: url ?? '', keyPrefix: `${run}skew:`, ceilingUsd: 1, holdTtlMs: 3_000 };
    const onTime = await open(options);
    const ahead = await onSkewedClock(skewMs, () => open(options));
    const behind = await onSkewedClock(-skewMs, () => open(options));

    await onTime.reserve(0.4);
    await ahead.usage(); // sweeps: by its own clock the hold expired 7 s ago
    await behind.reserve(0.2); // by its own clock the hold expires 7 s before now
    expect(await onTime.usage()).toMatchObject({ spentUsd: 0, reservedUsd: 0.6 });
  });
});

const privateServer = redisServerAvailable();
if (!privateServer) console.log(`SKIP slow-server cases of redis-spend-ledger.int.test.ts: no redis-server binary at ${REDIS_SERVER_BIN}`);

/**
 * A slow server, made by stopping a private redis-server of the test's own
 * (SIGSTOP keeps the socket open; the server just does not answer) — never the
 * shared one, which other tests are using.
 */
describe.skipIf(!privateServer)('RedisSpendLedger on a slow server (private redis-server)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('a reservation that timed out but ran on the server late is released, not charged in full when its hold expires (defect 4)', async () => {
    const server = await startPrivateRedis();
    cleanups.push(() => server.kill());
    const ledger = new RedisSpendLedger({ url: server.url, keyPrefix: `${run}slow:`, ceilingUsd: 1, commandTimeoutMs: 200, holdTtlMs: 60_000 });
    cleanups.push(() => ledger.close());
    await ledger.ready(5_000);

    server.signal('SIGSTOP');
    try {
      // Fail closed: the caller makes no model call.
      await expect(ledger.reserve(0.4)).rejects.toThrow(SpendLedgerUnavailableError);
    } finally {
      server.signal('SIGCONT');
    }

    // The reserve ran once the server answered; nobody holds it, so nothing may stay booked.
    expect(await ledger.usage()).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
    expect(await ledger.reserve(0.9)).not.toBeNull();
  });
});
