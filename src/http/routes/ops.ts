import { Errors } from '../../domain/errors';
import { requestClientAddress } from '../client-address';
import { Api, Reply } from '../api';
import { publicAccess } from '../access';
import type { Metrics } from '../ops/metrics';
import type { Readiness } from '../ops/readiness';

export interface OpsDeps {
  /** null: metrics are off and GET /metrics is an unknown endpoint. */
  metrics: { registry: Metrics; allowed: (ip: string) => boolean } | null;
  readiness: Readiness;
}

/** Seconds a load balancer is told to wait before asking /readyz again. */
const RETRY_AFTER_S = '5';

/** GET /metrics (Prometheus text, for metrics.allow only) and GET /readyz (the parts a request needs answer). */
export function opsRoutes(deps: OpsDeps) {
  return (api: Api): void => {
    api.get('/metrics', publicAccess, async (ctx) => {
      const m = deps.metrics;
      if (!m) throw Errors.restEndpointNotFound(ctx.path);
      // The address the project trusts for a client (src/auth/client-address.ts): behind a reverse proxy on the
      // same host (trusted_proxies), the client the proxy names, so allowing 127.0.0.1 lets a local scraper in, not everyone the
      // proxy serves. Forwarded headers from any other peer are ignored.
      const peer = requestClientAddress(ctx);
      if (!m.allowed(peer)) throw Errors.restAccessForbidden();
      const { body, contentType } = await m.registry.text();
      return new Reply(body, 200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
    });

    // Readiness, unlike /healthz: 503 while a part every request needs does not answer, so a load balancer
    // sends users elsewhere and systemd or a deploy script waits.
    api.get('/readyz', publicAccess, async () => {
      const failing = await deps.readiness.failing();
      if (failing.length === 0) return new Reply({ status: 'ok' }, 200, { 'Cache-Control': 'no-store' });
      return new Reply({ status: 'unavailable', failing }, 503, {
        'Retry-After': RETRY_AFTER_S,
        'Cache-Control': 'no-store',
      });
    });
  };
}
