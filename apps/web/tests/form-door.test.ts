import { describe, expect, it } from 'vitest';
import { sendToPage } from '../lib/form-door';

/* A GET on a form door (lib/form-door.ts); e2e/console.spec.ts meets it on the built website. */

describe('a GET on a form door', () => {
  it('is sent on (303) to the page the form lives on, not answered with an empty 405', async () => {
    const door = sendToPage(({ id }) => `/investigations/${id}`);
    const res = await door(new Request('http://localhost/api/investigations/abc/turns'), { params: Promise.resolve({ id: 'abc' }) });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/investigations/abc');
    expect(await res.text()).toBe('');
  });

  it('a door without segments', async () => {
    const res = await sendToPage(() => '/')(new Request('http://localhost/api/runs'), {});
    expect(res.headers.get('location')).toBe('/');
  });

  it('puts each segment back encoded, so the location stays a path on this site', async () => {
    const door = sendToPage(({ id }) => `/runs/${id}`);
    const res = await door(new Request('http://localhost/x'), { params: Promise.resolve({ id: '//evil.example/a?b' }) });
    expect(res.headers.get('location')).toBe('/runs/%2F%2Fevil.example%2Fa%3Fb');
  });
});
