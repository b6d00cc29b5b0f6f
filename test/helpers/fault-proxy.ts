import http from 'node:http';
import net from 'node:net';

/**
 * What an S3 server does wrong, as the fault proxy plays it (one at a time, switched by the test):
 * - `none`: every request is relayed as it is;
 * - `internal`, `slowdown`: every request is answered 500 InternalError or 503 SlowDown (its body read first);
 * - `reset`: a request is relayed, and its connection cut once 256 KiB of its body passed (at once when it has
 *   none): a reset mid-part;
 * - `stall`: a request is taken and never answered nor read, its connection left open for good (also after the
 *   fault ends: a frozen connection, as a crashed store's kernel leaves it);
 * - `stall-body`: a request is relayed and its answer's headers too, then its body stops once 2.5 MiB of it
 *   passed (more than a node's 1 MiB reads; an answer with less stops before its end), the connection left open
 *   for good: a store that froze mid-download;
 * - `down`: every open connection is cut and new ones are refused.
 */
export type StoreFault = 'none' | 'internal' | 'slowdown' | 'reset' | 'stall' | 'stall-body' | 'down';

export interface FaultProxy {
  url: string;
  fault(): StoreFault;
  set(fault: StoreFault): void;
  /** Requests seen in each mode (relayed ones under `none`). */
  seen: Record<StoreFault, number>;
  close(): Promise<void>;
}

const RESET_AFTER = 256 * 1024;
const STALL_BODY_AFTER = 2.5 * 1024 * 1024;

function errorXml(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>fault-proxy</RequestId></Error>`;
}

/**
 * An HTTP relay on 127.0.0.1 in front of an S3 server, that plays the store's faults (StoreFault). Requests are
 * relayed with their headers unchanged (the signature covers the Host the client used, which the store takes as
 * it comes), except `Expect`, which the relay answers itself.
 */
export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const sockets = new Set<net.Socket>();
  const upstreams = new Set<http.ClientRequest>();
  let mode: StoreFault = 'none';
  const seen: Record<StoreFault, number> = {
    none: 0,
    internal: 0,
    slowdown: 0,
    reset: 0,
    stall: 0,
    'stall-body': 0,
    down: 0,
  };

  const server = http.createServer((req, res) => {
    const now = mode;
    seen[now]++;
    if (now === 'stall' || now === 'down') {
      // Neither read nor answered: the client's own deadline is all that ends it.
      if (now === 'down') req.socket.destroy();
      return;
    }
    if (now === 'internal' || now === 'slowdown') {
      req.resume();
      req.once('end', () => {
        const [status, body] =
          now === 'internal'
            ? [500, errorXml('InternalError', 'We encountered an internal error. Please try again.')]
            : [503, errorXml('SlowDown', 'Please reduce your request rate.')];
        res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
        res.end(req.method === 'HEAD' ? undefined : body);
      });
      return;
    }
    const headers = { ...req.headers };
    delete headers.expect;
    const up = http.request(
      { host: target.hostname, port: Number(target.port), method: req.method, path: req.url, headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.once('error', () => req.socket.destroy());
        if (now !== 'stall-body') {
          answer.pipe(res);
          return;
        }
        res.flushHeaders();
        let passed = 0;
        const onData = (d: Buffer) => {
          const take = Math.min(d.length, STALL_BODY_AFTER - passed);
          if (take > 0) res.write(d.subarray(0, take));
          passed += take;
          // The rest is neither read nor sent: the store's socket and the client's both stay open, silent.
          if (passed >= STALL_BODY_AFTER) {
            answer.off('data', onData);
            answer.pause();
          }
        };
        answer.on('data', onData);
      },
    );
    upstreams.add(up);
    up.once('close', () => upstreams.delete(up));
    up.once('error', () => req.socket.destroy());
    req.once('error', () => up.destroy());
    if (now === 'reset') {
      const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'];
      if (!hasBody) {
        up.destroy();
        req.socket.destroy();
        return;
      }
      let passed = 0;
      req.on('data', (d: Buffer) => {
        passed += d.length;
        if (passed >= RESET_AFTER) {
          up.destroy();
          req.socket.destroy();
        }
      });
    }
    req.pipe(up);
  });
  server.on('connection', (socket) => {
    if (mode === 'down') {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  });
  // A client's keep-alive connection may sit idle for long: the server must not close it first.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    fault: () => mode,
    set(fault) {
      mode = fault;
      if (fault === 'down') {
        for (const s of sockets) s.destroy();
        for (const u of upstreams) u.destroy();
      }
    },
    seen,
    async close() {
      for (const s of sockets) s.destroy();
      for (const u of upstreams) u.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
