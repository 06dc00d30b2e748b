import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { toApiError } from './api-error.ts';
import { agentBearerAuth } from './bearer-auth.ts';

const TOKEN = 'a'.repeat(32);

function app() {
  const a = new Hono();
  a.onError((error, c) => c.json(toApiError(error).apiError.body(), toApiError(error).apiError.status));
  a.use('*', agentBearerAuth(TOKEN));
  a.get('/', (c) => c.text('ok'));
  return a;
}

describe('agentBearerAuth (T-3, on hono/bearer-auth)', () => {
  it('refuses at start-up a token no Authorization header can carry, saying how to make one', () => {
    expect(() => agentBearerAuth('correct horse battery staple, with spaces')).toThrow(/AGENT_TOKEN may hold only .*openssl rand -hex 32/);
    expect(() => agentBearerAuth('')).toThrow(/non-empty/);
  });

  it('a wrong scheme is the API’s 401 unauthorized naming the header, not Hono’s bare 400', async () => {
    const res = await app().request('/', { headers: { authorization: `Basic ${TOKEN}` } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="sandscope"');
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/^The Authorization header is not `Bearer <token>`\./),
    });
    expect((await app().request('/', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});
