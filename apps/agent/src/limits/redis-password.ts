import { UserError } from '../user-error.ts';
import { startupProbe } from './redis-probe.ts';

/**
 * S-275 (the replicas audit): with a wrong password in REDIS_URL, ioredis's handshake failed with WRONGPASS on every
 * reconnect, and every part read it as an outage: /healthz said Redis was unreachable (degraded), runs were refused
 * until it "came back", and the replica retried for ever — a setting to fix, reported as a server to wait for. NOAUTH
 * (a Redis that requires a password, and a REDIS_URL that gives none) is the same. Both are told apart from an
 * outage here, by the reply's first word, and said in words.
 */
export type RedisPasswordRefusal = 'WRONGPASS' | 'NOAUTH';

/** The refusal an error is, or carries as a cause (a ledger's or limiter's error wraps the connection's); null otherwise. */
export function passwordRefusalOf(error: unknown): RedisPasswordRefusal | null {
  for (let at = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    const word = /^(WRONGPASS|NOAUTH)\b/.exec(at.message)?.[1];
    if (word) return word as RedisPasswordRefusal;
  }
  return null;
}

/** What was refused, in words; never the password, and no host (/healthz is public). */
export function passwordRefusalWords(refusal: RedisPasswordRefusal): string {
  return refusal === 'WRONGPASS'
    ? 'Redis refused the password in REDIS_URL (WRONGPASS: a wrong password, or a user name it does not know or has disabled)'
    : 'Redis refused the password in REDIS_URL: it gives none, and this Redis requires one (NOAUTH)';
}

/**
 * Start-up asks the server once, on a connection of its own (as checkRedisDatabase does for S-256): credentials it
 * refuses stop the service with one line. A server that cannot be reached is not this check's business: the service
 * starts and refuses runs until it can be (fail closed).
 */
export async function checkRedisPassword(url: string, timeoutMs = 1_000): Promise<void> {
  const probe = startupProbe(url, timeoutMs);
  // The handshake's reply comes as an 'error' event; connect() itself only says "Connection is closed".
  let refusal: RedisPasswordRefusal | null = null;
  probe.on('error', (error) => {
    refusal ??= passwordRefusalOf(error);
  });
  try {
    await probe.connect();
    // A server that lets a connection in without credentials refuses its first command instead.
    await probe.ping();
  } catch (error) {
    refusal ??= passwordRefusalOf(error);
  } finally {
    probe.disconnect();
  }
  if (refusal)
    throw new UserError(
      `${passwordRefusalWords(refusal)}. Set the right one in REDIS_URL (redis://:PASSWORD@host:port, or redis://USER:PASSWORD@host:port with an ACL user) and start again.`,
    );
}
