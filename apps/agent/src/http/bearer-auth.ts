import { createHash, timingSafeEqual } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import { ApiError } from './api-error.ts';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * T-3 (runtime called directly): every `/v1` route needs `Authorization: Bearer
 * <AGENT_TOKEN>`. Compared in constant time over SHA-256 digests: both sides are
 * always 32 bytes, so neither the comparison's duration nor an early length
 * mismatch says how much of a guess was right.
 */
export function bearerAuth(token: string) {
  if (token.length === 0) throw new RangeError('bearerAuth: the token must be non-empty (AGENT_TOKEN)');
  const expected = digest(token);
  return createMiddleware(async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    const given = digest(match?.[1] ?? '');
    // Always compare, even when the header is missing, so both paths take the same time.
    const equal = timingSafeEqual(given, expected);
    if (!match || !equal) {
      c.header('WWW-Authenticate', 'Bearer realm="sandscope"');
      throw new ApiError('unauthorized', match ? 'The bearer token is wrong.' : 'No bearer token was sent.');
    }
    await next();
  });
}
