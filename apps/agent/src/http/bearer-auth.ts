import type { Context, MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { ApiError } from './api-error.ts';

/** RFC 6750's b64token: the only token syntax Hono's bearerAuth accepts in a header. */
const B64TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

/** What `serve` says, before anything starts, about an AGENT_TOKEN no header can carry. */
export const UNCARRIABLE_TOKEN = 'AGENT_TOKEN may hold only letters, digits and - . _ ~ + / (then = padding); `openssl rand -hex 32` prints one.';

/** Whether an `Authorization: Bearer` header can carry this token at all. */
export const isBearerToken = (token: string): boolean => B64TOKEN.test(token);

const refuse = (detail: string) => (c: Context) => {
  c.header('WWW-Authenticate', 'Bearer realm="sandscope"');
  throw new ApiError('unauthorized', detail);
};

/**
 * T-3 (runtime called directly): every `/v1` route needs `Authorization: Bearer
 * <AGENT_TOKEN>`. Hono's `bearerAuth` compares SHA-256 digests of both sides in
 * constant time, so neither the comparison's duration nor a length mismatch says
 * how much of a guess was right. Its refusals are turned into the API's one
 * `unauthorized` error (a wrong scheme too, which Hono would answer 400), each
 * saying which of the three it was.
 */
export function agentBearerAuth(token: string): MiddlewareHandler {
  if (token.length === 0) throw new RangeError('bearerAuth: the token must be non-empty (AGENT_TOKEN)');
  // A token no header can carry would lock every client out with a "wrong token" that is right.
  if (!isBearerToken(token)) throw new RangeError(UNCARRIABLE_TOKEN);
  return bearerAuth({
    token,
    realm: 'sandscope',
    noAuthenticationHeader: { message: refuse('No bearer token was sent.') },
    invalidAuthenticationHeader: { message: refuse('The Authorization header is not `Bearer <token>`.') },
    invalidToken: { message: refuse('The bearer token is wrong.') },
  });
}
