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

/**
 * Listens with timeouts that keep slow clients from holding sockets: headers must arrive within 20 s and an
 * idle keep-alive connection is dropped after 5 s. Request bodies have no overall deadline (chunks of a big
 * upload over a slow link), but a body that stops flowing is cut by the socket timeout.
 */
export function listen(app: Koa<any>, host: string, port: number): Promise<RunningServer> {
  const handler = app.callback();
  let closing = false;
  // While shutting down, every answer closes its connection, so keep-alive clients do not hold the exit.
  const server = http.createServer((req, res) => {
    if (closing) res.setHeader('Connection', 'close');
    return handler(req, res);
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 0;
  server.keepAliveTimeout = 5_000;
  server.timeout = 120_000;
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
