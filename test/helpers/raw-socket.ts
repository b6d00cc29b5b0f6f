import net from 'node:net';

/**
 * A bare TCP connection to a test server, for clients no HTTP library would be: ones that stall, trickle or
 * vanish mid-request. Everything received is kept in `received`; `closed` resolves with the time (ms since
 * the connection opened) at which the server ended it.
 */
export interface RawConn {
  sock: net.Socket;
  received: () => string;
  openedAt: number;
  closed: Promise<number>;
  /** Resolves once `received` matches, or rejects after timeoutMs. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  write(data: string | Buffer): void;
}

export function rawConnect(port: number, host = '127.0.0.1'): Promise<RawConn> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, host);
    let text = '';
    const waiters = new Set<() => void>();
    sock.on('data', (d) => {
      text += d.toString('latin1');
      for (const w of [...waiters]) w();
    });
    // Errors (a reset after the server cut us) only matter through `closed`.
    sock.on('error', () => {});
    const openedAt = Date.now();
    const closed = new Promise<number>((done) => sock.once('close', () => done(Date.now() - openedAt)));
    const conn: RawConn = {
      sock,
      openedAt,
      closed,
      received: () => text,
      write: (data) => {
        if (!sock.destroyed && sock.writable) sock.write(data);
      },
      waitFor: (pattern, timeoutMs = 5000) =>
        new Promise((ok, fail) => {
          const check = () => {
            if (!pattern.test(text)) return;
            cleanup();
            ok(text);
          };
          const timer = setTimeout(() => {
            cleanup();
            fail(new Error(`no ${pattern} within ${timeoutMs} ms; got ${JSON.stringify(text.slice(0, 300))}`));
          }, timeoutMs);
          const onClose = () =>
            setImmediate(() => {
              if (!waiters.has(check)) return;
              cleanup();
              if (pattern.test(text)) ok(text);
              else fail(new Error(`closed before ${pattern}; got ${JSON.stringify(text.slice(0, 300))}`));
            });
          const cleanup = () => {
            clearTimeout(timer);
            waiters.delete(check);
            sock.off('close', onClose);
          };
          waiters.add(check);
          sock.on('close', onClose);
          check();
        }),
    };
    sock.once('connect', () => resolve(conn));
    sock.once('error', reject);
  });
}

/** Resolves with the promise's value, or rejects when it takes longer than ms. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
