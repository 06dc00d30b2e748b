import { ReplyError } from 'ioredis';
import { UserError } from '../user-error.ts';
import { startupProbe } from './redis-probe.ts';

/**
 * S-256: a REDIS_URL naming a database the server does not have (`/16` with the default 16, `/99`) failed ioredis's
 * SELECT on connect, and ioredis went on in database 0: the limiter, the spend ledger and the cache wrote another
 * tenant's database while /healthz said ok (a colleague's audit of the replicas). Start-up asks the server once, on a
 * connection of its own: a SELECT it refuses stops the service with one line naming REDIS_URL. A server that cannot be
 * reached is not this check's business: the service starts and refuses runs until it can be (fail closed).
 */
export async function checkRedisDatabase(url: string, timeoutMs = 1_000): Promise<void> {
  const database = redisDatabaseOf(url);
  if (database === 0) return;
  const probe = startupProbe(url, timeoutMs);
  probe.on('error', () => {});
  try {
    try {
      await probe.connect();
    } catch {
      return;
    }
    await probe.select(database);
  } catch (error) {
    if (error instanceof ReplyError) {
      throw new UserError(
        `REDIS_URL names database ${database}, which this Redis refuses (${(error as Error).message}). Use a database number it has (below its \`databases\` setting, 16 by default), the one your deployment was given.`,
      );
    }
  } finally {
    probe.disconnect();
  }
}

/** The database a redis:// URL names in its path (`redis://host:6379/3` → 3); 0 when it names none. */
export function redisDatabaseOf(url: string): number {
  const path = new URL(url).pathname.replace(/^\//, '');
  return path === '' ? 0 : Number(path);
}
