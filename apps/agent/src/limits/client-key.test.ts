import { describe, expect, it } from 'vitest';
import { clientKeyFor, normaliseIp } from './client-key.ts';

describe('clientKeyFor (T-9)', () => {
  it('is HMAC-SHA256(salt, ip) in hex and never contains the address', () => {
    // Known answer computed independently: printf '203.0.113.7' | openssl dgst -sha256 -hmac 'pepper-0123456789'
    const key = clientKeyFor('pepper-0123456789', '203.0.113.7');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(key).toBe('41f776a2b3eeeb5aa671c038cec405dc7962f29622441b4915e56c2d29474291');
    expect(key).not.toContain('203.0.113.7');
  });

  it('depends on the salt, so digests from different deployments cannot be correlated', () => {
    expect(clientKeyFor('salt-one-xxxxxxxx', '203.0.113.7')).not.toBe(clientKeyFor('salt-two-xxxxxxxx', '203.0.113.7'));
  });

  it('treats an IPv4-mapped IPv6 address as the same client as the IPv4 address', () => {
    expect(normaliseIp(' ::FFFF:203.0.113.7 ')).toBe('203.0.113.7');
    expect(clientKeyFor('s', '::ffff:203.0.113.7')).toBe(clientKeyFor('s', '203.0.113.7'));
    expect(normaliseIp('2001:DB8::1')).toBe('2001:db8::1');
  });

  it('refuses an empty salt', () => {
    expect(() => clientKeyFor('', '203.0.113.7')).toThrow(RangeError);
  });
});
