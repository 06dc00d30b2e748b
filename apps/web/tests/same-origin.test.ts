import { describe, expect, it } from 'vitest';
import { crossSite, crossSiteRefusal } from '../lib/same-origin';

/* The BFF refuses a cross-site form post itself (lib/same-origin.ts). */

const post = (headers: Record<string, string>) => new Request('http://127.0.0.1:3000/api/runs', { method: 'POST', headers });

describe('crossSite', () => {
  it('allows a post from the website itself, and one with no Origin (curl)', () => {
    expect(crossSite(post({ origin: 'http://127.0.0.1:3000', host: '127.0.0.1:3000' }))).toBe(false);
    expect(crossSite(post({ host: '127.0.0.1:3000' }))).toBe(false);
    expect(crossSite(post({ origin: 'https://sandscope.example', host: 'internal:3000', 'x-forwarded-host': 'sandscope.example' }))).toBe(false);
  });

  it('refuses another site, an opaque origin, and an origin that is not a URL', () => {
    expect(crossSite(post({ origin: 'https://evil.example', host: '127.0.0.1:3000' }))).toBe(true);
    expect(crossSite(post({ origin: 'http://127.0.0.1:3001', host: '127.0.0.1:3000' }))).toBe(true);
    expect(crossSite(post({ origin: 'null', host: '127.0.0.1:3000' }))).toBe(true);
    expect(crossSite(post({ origin: 'not a url', host: '127.0.0.1:3000' }))).toBe(true);
  });

  it('the refusal is a plain 403 that says why', async () => {
    const res = crossSiteRefusal();
    expect(res.status).toBe(403);
    expect(await res.text()).toMatch(/^Refused: this form can only be posted from the Sandscope website itself/);
  });
});
