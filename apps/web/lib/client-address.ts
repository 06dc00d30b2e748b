import type { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIP } from 'node:net';

/**
 * The proxies whose forwarding headers the website believes (TRUSTED_PROXIES).
 * Node's own `net.BlockList` does the address and CIDR matching, IPv4-mapped
 * IPv6 included; no library on the stack does proxy trust (Express's proxy-addr
 * is not a dependency here), and the rule on top of the matcher is ten lines.
 */
export interface TrustedProxies {
  trusts(address: string): boolean;
  /** How many entries were configured; 0 means forwarding headers are never believed. */
  readonly size: number;
}

export type TrustedProxiesResult = { readonly ok: true; readonly proxies: TrustedProxies } | { readonly ok: false; readonly message: string };

/** `10.0.0.0/8, 127.0.0.1 fd00::/8` — addresses and CIDR ranges, separated by commas or whitespace. */
export function parseTrustedProxies(raw: string): TrustedProxiesResult {
  const entries = raw.split(/[\s,]+/).filter(Boolean);
  const list = new BlockList();
  const bad: string[] = [];
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    if (family === 0 || rest.length > 0 || (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits))) {
      bad.push(entry);
      continue;
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  if (bad.length > 0) {
    return {
      ok: false,
      message:
        `TRUSTED_PROXIES has entries that are not IP addresses or CIDR ranges: ${bad.map((b) => JSON.stringify(b)).join(', ')}. ` +
        'Write the addresses of the proxies in front of the website, separated by commas (e.g. 10.0.0.0/8, 127.0.0.1), or unset it when browsers connect directly.',
    };
  }
  const size = entries.length;
  return {
    ok: true,
    proxies: {
      size,
      trusts: (address) => {
        if (size === 0) return false;
        const family = isIP(address);
        return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
      },
    },
  };
}

/** What arrived on one connection: the socket's peer and whatever X-Forwarded-For said. */
export interface Arrival {
  readonly peer: string | undefined;
  readonly forwardedFor: string | readonly string[] | undefined;
}

/**
 * The address the agent's limiter keys this client on (issue 12, defect 2).
 *
 * X-Forwarded-For is written by whoever sends the request, so it is believed
 * only hop by hop from our side: starting at the socket's peer, while the
 * address in hand is a trusted proxy, step to the hop that proxy appended. The
 * first address that is not a trusted proxy is the client — the right-most one
 * the client did not get to choose. Without TRUSTED_PROXIES that is always the
 * peer: a browser that sets the header itself changes nothing.
 */
export function clientAddress(arrival: Arrival, proxies: TrustedProxies): string | null {
  let current = normalisedAddress(arrival.peer ?? '');
  if (current === null) return null;
  if (!proxies.trusts(current)) return current;
  const header = typeof arrival.forwardedFor === 'string' ? arrival.forwardedFor : (arrival.forwardedFor ?? []).join(',');
  const hops = header
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = normalisedAddress(hops[i]!);
    // A trusted proxy passed on something that is not an address: stop at the last one we can vouch for.
    if (hop === null) return current;
    current = hop;
    if (!proxies.trusts(hop)) return hop;
  }
  return current;
}

/**
 * A bare address, or null: proxies write hops as `1.2.3.4`, `1.2.3.4:5678` or
 * `[2001:db8::1]:5678`; an IPv4-mapped IPv6 address is its IPv4 address, so one
 * client is one key whichever way its connection arrived.
 */
export function normalisedAddress(raw: string): string | null {
  let address = raw.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else {
    const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address);
    if (withPort) address = withPort[1]!;
  }
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (mapped) address = mapped[1]!;
  return isIP(address) === 0 ? null : address;
}

/** Headers a client sets as easily as a proxy does; believed only from a trusted proxy. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-real-ip'] as const;

/**
 * Settles one request's forwarding headers before Next.js sees them (server.mts).
 * From a peer that is not a trusted proxy every forwarding header is dropped —
 * Next refills Host-derived ones from the connection — and X-Forwarded-For is the
 * peer. From a trusted proxy X-Forwarded-For becomes the one client address
 * `clientAddress` found and the proxy's other headers stand. Either way the BFF
 * (lib/agent.ts) reads a single address that no browser chose.
 */
export function settleForwarding(headers: IncomingHttpHeaders, peer: string | undefined, proxies: TrustedProxies): void {
  const client = clientAddress({ peer, forwardedFor: headers['x-forwarded-for'] }, proxies);
  const fromTrustedProxy = peer !== undefined && proxies.trusts(normalisedAddress(peer) ?? '');
  if (!fromTrustedProxy) for (const name of FORWARDING_HEADERS) delete headers[name];
  if (client) headers['x-forwarded-for'] = client;
  else delete headers['x-forwarded-for'];
}
