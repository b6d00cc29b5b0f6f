import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

export interface RunningServer {
  server: http.Server;
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to graceMs), then closes idle keep-alive sockets. */
  close(graceMs?: number): Promise<void>;
}

/** How long a connection may take at each stage before the server cuts it (milliseconds). */
export interface ServerTimeouts {
  /** From the first byte of a request to the end of its headers: trickling headers does not extend it. */
  headersMs: number;
  /** An idle keep-alive connection between requests. */
  keepAliveMs: number;
  /** A socket on which nothing arrives (a body that stopped flowing, a client that never spoke). */
  idleMs: number;
  /** How often the headers deadline is checked, so a slowloris is cut at most this late. */
  checkEveryMs: number;
}

/**
 * Headers must arrive within 20 s and an idle keep-alive connection is dropped after 5 s. Request bodies have
 * no overall deadline (chunks of a big upload over a slow link), but a body that stops flowing is cut after
 * 120 s of silence.
 */
export const DEFAULT_TIMEOUTS: Readonly<ServerTimeouts> = Object.freeze({
  headersMs: 20_000,
  keepAliveMs: 5_000,
  idleMs: 120_000,
  checkEveryMs: 1_000,
});

/**
 * Listens with timeouts that keep slow clients from holding sockets (DEFAULT_TIMEOUTS). Tests pass shorter
 * ones so that watching a connection being cut takes seconds.
 */
export function listen(
  app: Koa<any>,
  host: string,
  port: number,
  timeouts: Partial<ServerTimeouts> = {},
): Promise<RunningServer> {
  const t = { ...DEFAULT_TIMEOUTS, ...timeouts };
  const handler = app.callback();
  let closing = false;
  // Node checks the headers deadline on this interval (30 s by default, which would let a slowloris hold its
  // socket for up to 50 s instead of 20).
  const server = http.createServer({ connectionsCheckingInterval: t.checkEveryMs }, (req, res) => {
    // While shutting down, every answer closes its connection, so keep-alive clients do not hold the exit.
    if (closing) res.setHeader('Connection', 'close');
    return handler(req, res);
  });
  server.headersTimeout = t.headersMs;
  server.requestTimeout = 0;
  server.keepAliveTimeout = t.keepAliveMs;
  server.timeout = t.idleMs;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const addr = server.address() as AddressInfo;
      const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      resolve({
        server,
        port: addr.port,
        url: `http://${shownHost}:${addr.port}`,
        close: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            closing = true;
            const timer = setTimeout(() => server.closeAllConnections(), graceMs);
            timer.unref();
            // Connections that become idle after their last answer are closed too, not left to time out.
            const sweep = setInterval(() => server.closeIdleConnections(), 100);
            sweep.unref();
            server.close(() => {
              clearTimeout(timer);
              clearInterval(sweep);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
