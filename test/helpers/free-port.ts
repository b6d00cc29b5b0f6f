import net from 'node:net';

/**
 * A free TCP port on 127.0.0.1 (for servers whose address must be known before they start). Its own module, so
 * the helpers that start system parts, and the test runner that finds them, load it without the app.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
    srv.once('error', reject);
  });
}
