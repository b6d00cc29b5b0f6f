import net from 'node:net';
import { addressList } from '../util/address-list';
import { normaliseIp } from './header-sp';

/** Whether an address is one of `trusted_proxies`. */
export type TrustedProxies = (ip: string) => boolean;

/** The config's trusted_proxies as a test of one address. */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  return addressList(entries, 'trusted_proxies');
}

/** The default: a reverse proxy on the same host (loopback), the setup docs/deploying.md describes. */
export const LOOPBACK_PROXIES: TrustedProxies = trustedProxies(['127.0.0.0/8', '::1']);

/**
 * The one client-address rule: the address every throttle counts against (login, link passwords), that
 * /metrics checks and the audit log records. ferry listens on the loopback interface by default, behind a
 * reverse proxy on the same host that ends TLS: then every request arrives from 127.0.0.1, and counting the TCP
 * peer would let twenty wrong passwords from anyone lock everybody out. So when the peer is one of
 * `trusted_proxies` the client it names is taken: X-Forwarded-For read from its end (where each proxy appends
 * the address it saw), passing over the entries that are trusted proxies themselves (a chain of them), else
 * X-Real-IP. From any other peer the forwarded headers are ignored: a client cannot choose its address. An
 * entry that is no IP address ends the walk at the last trusted hop.
 */
export function clientAddress(
  peer: string,
  headers: Record<string, string | string[] | undefined>,
  trusted: TrustedProxies = LOOPBACK_PROXIES,
): string {
  let client = normaliseIp(peer);
  if (!trusted(client)) return client;
  const chain = forwardedChain(headers['x-forwarded-for']);
  if (chain.length === 0) {
    const real = hopAddress(single(headers['x-real-ip']) ?? '');
    return real ?? client;
  }
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = hopAddress(chain[i]);
    if (!hop) return client;
    client = hop;
    if (!trusted(hop)) return hop;
  }
  return client;
}

/** An entry's address; some proxies add the client's port (`192.0.2.1:4711`, `[2001:db8::1]:4711`). */
function hopAddress(entry: string): string | null {
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(entry) ?? /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(entry);
  const ip = normaliseIp(m ? m[1] : entry);
  return net.isIP(ip) ? ip : null;
}

function forwardedChain(v: string | string[] | undefined): string[] {
  return (Array.isArray(v) ? v.join(',') : (v ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function single(v: string | string[] | undefined): string | undefined {
  return (Array.isArray(v) ? v[v.length - 1] : v)?.trim() || undefined;
}
