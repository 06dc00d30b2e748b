import { describe, expect, it } from 'vitest';
import { clientAddress, parseTrustedProxies, settleForwarding, type TrustedProxies } from '../lib/client-address';

/*
 * Issue 12, defect 2: the website keyed the agent's limiter on the right-most
 * X-Forwarded-For hop, which a browser sets for itself when no proxy is in
 * front. The rule now: forwarding headers count only when the socket's peer is a
 * proxy TRUSTED_PROXIES names; otherwise the peer is the client.
 */

function proxies(raw: string): TrustedProxies {
  const parsed = parseTrustedProxies(raw);
  if (!parsed.ok) throw new Error(`expected a valid list, got: ${parsed.message}`);
  return parsed.proxies;
}

const NONE = proxies('');

describe('clientAddress without TRUSTED_PROXIES', () => {
  it('ignores a spoofed X-Forwarded-For and keys on the socket address', () => {
    expect(clientAddress({ peer: '192.0.2.7', forwardedFor: '203.0.113.99' }, NONE)).toBe('192.0.2.7');
    expect(clientAddress({ peer: '192.0.2.7', forwardedFor: '10.0.0.1, 203.0.113.99' }, NONE)).toBe('192.0.2.7');
  });

  it('ignores it from loopback too: a browser on this machine is a client like any other', () => {
    expect(clientAddress({ peer: '127.0.0.1', forwardedFor: '203.0.113.99' }, NONE)).toBe('127.0.0.1');
  });

  it('unwraps an IPv4-mapped peer, so one client is one key', () => {
    expect(clientAddress({ peer: '::ffff:192.0.2.7', forwardedFor: undefined }, NONE)).toBe('192.0.2.7');
  });

  it('has no address when the socket has none', () => {
    expect(clientAddress({ peer: undefined, forwardedFor: '203.0.113.99' }, NONE)).toBeNull();
  });
});

describe('clientAddress with TRUSTED_PROXIES', () => {
  const trusted = proxies('10.0.0.0/8, 127.0.0.1');

  it('uses the hop the trusted proxy saw when the peer is that proxy', () => {
    expect(clientAddress({ peer: '10.1.2.3', forwardedFor: '203.0.113.99' }, trusted)).toBe('203.0.113.99');
  });

  it('takes the right-most hop that is not itself a trusted proxy (what the client cannot choose)', () => {
    // the client wrote "198.51.100.1"; proxy 10.9.9.9 appended the client's real address; proxy 10.1.2.3 appended 10.9.9.9
    expect(clientAddress({ peer: '10.1.2.3', forwardedFor: '198.51.100.1, 203.0.113.99, 10.9.9.9' }, trusted)).toBe('203.0.113.99');
  });

  it('ignores the header when the peer is not a trusted proxy', () => {
    expect(clientAddress({ peer: '192.0.2.7', forwardedFor: '203.0.113.99' }, trusted)).toBe('192.0.2.7');
  });

  it('keys on the proxy when it forwarded no header', () => {
    expect(clientAddress({ peer: '127.0.0.1', forwardedFor: undefined }, trusted)).toBe('127.0.0.1');
  });

  it('stops at the last address it can vouch for when a hop is not an address', () => {
    expect(clientAddress({ peer: '10.1.2.3', forwardedFor: 'not-an-ip, 10.9.9.9' }, trusted)).toBe('10.9.9.9');
  });

  it('reads hops written with a port or in brackets, and repeated headers', () => {
    expect(clientAddress({ peer: '10.1.2.3', forwardedFor: '203.0.113.99:4711' }, trusted)).toBe('203.0.113.99');
    expect(clientAddress({ peer: '10.1.2.3', forwardedFor: '[2001:db8::1]:4711' }, trusted)).toBe('2001:db8::1');
    expect(clientAddress({ peer: '10.1.2.3', forwardedFor: ['203.0.113.99', '10.9.9.9'] }, trusted)).toBe('203.0.113.99');
  });

  it('matches IPv6 ranges and an IPv4-mapped peer against an IPv4 range', () => {
    const six = proxies('fd00::/8 ::1');
    expect(clientAddress({ peer: 'fd12::5', forwardedFor: '2001:db8::7' }, six)).toBe('2001:db8::7');
    expect(clientAddress({ peer: '::1', forwardedFor: '2001:db8::7' }, six)).toBe('2001:db8::7');
    expect(clientAddress({ peer: '::ffff:10.1.2.3', forwardedFor: '203.0.113.99' }, trusted)).toBe('203.0.113.99');
  });
});

describe('parseTrustedProxies', () => {
  it('reads addresses and CIDR ranges, separated by commas or spaces', () => {
    const parsed = parseTrustedProxies(' 10.0.0.0/8,192.168.1.5  fd00::/8 ');
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.proxies.size).toBe(3);
  });

  it('names every entry that is not an address or a range, and says what to write', () => {
    const parsed = parseTrustedProxies('10.0.0.0/8, proxy.internal, 10.0.0.0/33');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.message).toBe(
        'TRUSTED_PROXIES has entries that are not IP addresses or CIDR ranges: "proxy.internal", "10.0.0.0/33". ' +
          'Write the addresses of the proxies in front of the website, separated by commas (e.g. 10.0.0.0/8, 127.0.0.1), or unset it when browsers connect directly.',
      );
    }
  });
});

describe('settleForwarding (what server.mts does to every request before Next.js sees it)', () => {
  it('replaces a browser’s own X-Forwarded-For with its socket address and drops the other forwarding headers', () => {
    const headers: Record<string, string | string[] | undefined> = {
      'x-forwarded-for': '203.0.113.99',
      'x-forwarded-host': 'evil.example',
      forwarded: 'for=203.0.113.99',
      'x-real-ip': '203.0.113.99',
      host: '127.0.0.1:3000',
    };
    settleForwarding(headers, '127.0.0.1', NONE);
    expect(headers).toEqual({ 'x-forwarded-for': '127.0.0.1', host: '127.0.0.1:3000' });
  });

  it('keeps a trusted proxy’s headers and narrows X-Forwarded-For to the client it saw', () => {
    const headers: Record<string, string | string[] | undefined> = { 'x-forwarded-for': '198.51.100.1, 203.0.113.99', 'x-forwarded-host': 'sandscope.example' };
    settleForwarding(headers, '::ffff:10.1.2.3', proxies('10.0.0.0/8'));
    expect(headers).toEqual({ 'x-forwarded-for': '203.0.113.99', 'x-forwarded-host': 'sandscope.example' });
  });
});
