import { clientAddress, type TrustedProxies, trustedProxies } from '../auth/client-address';
import type { FerryContext } from './state';

const compiled = new WeakMap<readonly string[], TrustedProxies>();

/**
 * The client of this request by the one rule of src/auth/client-address.ts, with the config's trusted_proxies:
 * what every throttle counts, /metrics checks and the audit log records. Never `ctx.ip` (Koa's, with
 * `app.proxy` off, is the TCP peer: behind the proxy everybody would be 127.0.0.1).
 */
export function requestClientAddress(ctx: FerryContext): string {
  const entries = ctx.state.services.settings.get().trusted_proxies;
  let trusted = compiled.get(entries);
  if (!trusted) compiled.set(entries, (trusted = trustedProxies(entries)));
  return clientAddress(ctx.req.socket.remoteAddress ?? '', ctx.headers, trusted);
}
