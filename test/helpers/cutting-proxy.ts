import net from 'node:net';

/**
 * A real TCP relay on 127.0.0.1 in front of a server, that can drop the network: cut() destroys every
 * connection at once and refuses new ones for a while, as a Wi-Fi drop or a restarting router would.
 */
export interface CuttingProxy {
  url: string;
  /** Bytes relayed from clients to the server so far. */
  bytesUp(): number;
  /** Drops every connection now and refuses new ones for `downMs`. */
  cut(downMs: number): void;
  /**
   * From now on relays nothing more: connections stay open, what clients send is held, new connections are
   * accepted and held too, as a server that stopped answering (requests hang, nothing fails).
   */
  stall(): void;
  close(): Promise<void>;
}

export async function startCuttingProxy(targetUrl: string): Promise<CuttingProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  let up = 0;
  let downUntil = 0;
  let stalled = false;
  const server = net.createServer((client) => {
    if (Date.now() < downUntil) {
      client.destroy();
      return;
    }
    if (stalled) {
      client.pause();
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      client.on('error', () => client.destroy());
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (d: Buffer) => {
      up += d.length;
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    bytesUp: () => up,
    stall() {
      stalled = true;
      for (const s of sockets) {
        s.unpipe();
        s.pause();
      }
    },
    cut(downMs) {
      downUntil = Date.now() + downMs;
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
