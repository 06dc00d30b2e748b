import { randomBytes } from 'node:crypto';
import { getCookie, setCookie } from 'hono/cookie';
import { createMiddleware } from 'hono/factory';

export const SESSION_COOKIE = 'sandscope_session';

/** What the agent issues: 32 random bytes, base64url. Anything else a client sends is replaced. */
const SESSION_ID = /^[A-Za-z0-9_-]{32,128}$/;
const THIRTY_DAYS_S = 30 * 24 * 60 * 60;

export interface SessionVariables {
  /** The `sandscope_session` cookie value. */
  sessionId: string;
}

/**
 * T-17: the session cookie scopes memory and approvals (a run can be approved
 * only by the session that asked); it is NOT authentication — the bearer token
 * is. HttpOnly so page script cannot read it, SameSite=Lax. The website's BFF
 * forwards the browser's Cookie header and relays Set-Cookie.
 */
export function sessionCookie() {
  return createMiddleware<{ Variables: SessionVariables }>(async (c, next) => {
    let sessionId = getCookie(c, SESSION_COOKIE);
    if (sessionId === undefined || !SESSION_ID.test(sessionId)) {
      sessionId = randomBytes(32).toString('base64url');
      setCookie(c, SESSION_COOKIE, sessionId, { httpOnly: true, sameSite: 'Lax', path: '/', maxAge: THIRTY_DAYS_S });
    }
    c.set('sessionId', sessionId);
    await next();
  });
}
