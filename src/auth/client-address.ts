import net from 'node:net';
import { normaliseIp } from './header-sp';

/**
 * The address the login throttle counts failures against. ferry listens on the loopback interface by default,
 * behind a reverse proxy on the same host that ends TLS: then every login arrives from 127.0.0.1 and counting
 * the TCP peer would let twenty wrong passwords from anyone lock everybody out. A loopback peer is that proxy,
 * so the client it saw — the last X-Forwarded-For entry, which the proxy itself appended (or X-Real-IP) — is
 * counted instead. From any other peer the forwarded headers are ignored: a client cannot choose its address.
 * A local process faking the header gains nothing the per-account limit does not still hold back.
 */
export function throttleAddress(peer: string, headers: Record<string, string | string[] | undefined>): string {
  const own = normaliseIp(peer);
  if (!isLoopback(own)) return own;
  const forwarded = lastForwarded(headers['x-forwarded-for']) ?? single(headers['x-real-ip']);
  return forwarded && net.isIP(normaliseIp(forwarded)) ? normaliseIp(forwarded) : own;
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || (net.isIPv4(ip) && ip.startsWith('127.'));
}

function lastForwarded(v: string | string[] | undefined): string | undefined {
  const all = (Array.isArray(v) ? v.join(',') : (v ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return all[all.length - 1];
}

function single(v: string | string[] | undefined): string | undefined {
  return (Array.isArray(v) ? v[v.length - 1] : v)?.trim() || undefined;
}
