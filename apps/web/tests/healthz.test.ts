import { afterEach, describe, expect, it, vi } from 'vitest';
import { GET } from '../app/healthz/route';

/*
 * The website's liveness route answers on its own: a probe that followed the agent
 * would pull every website replica whenever the agent is down (app/healthz/route.ts).
 */

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('GET /healthz', () => {
  it('is 200 {status: ok}, never cached, and never calls the agent', async () => {
    const fetchSpy = vi.fn(() => Promise.reject(new Error('the agent is down')));
    vi.stubGlobal('fetch', fetchSpy);
    const res = GET();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
