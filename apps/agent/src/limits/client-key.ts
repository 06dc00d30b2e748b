import { createHmac } from 'node:crypto';

/**
 * T-9 (IP correlation): a client is identified by `HMAC-SHA256(IP_SALT, ip)` in hex,
 * and only that digest is ever handed to a limiter, stored, logged or traced. The
 * raw address is used for exactly one thing — this function's input.
 *
 * A keyed HMAC rather than a plain hash: IPv4 has 2^32 addresses, so an unsalted
 * SHA-256 of an address is reversible by enumeration in minutes.
 *
 * The address is normalised first so one client cannot double its quota by
 * arriving as both `1.2.3.4` and its IPv4-mapped IPv6 form `::ffff:1.2.3.4`.
 */
export function clientKeyFor(salt: string, ip: string): string {
  if (salt.length === 0) {
    throw new RangeError('clientKeyFor: the salt must be non-empty (IP_SALT)');
  }
  return createHmac('sha256', salt).update(normaliseIp(ip)).digest('hex');
}

/** Trim, lower-case (IPv6 hex), and unwrap IPv4-mapped IPv6 addresses. */
export function normaliseIp(ip: string): string {
  const trimmed = ip.trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(trimmed);
  return mapped?.[1] ?? trimmed;
}
