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
  /** Ends stall(): the held connections are dropped (as by a router whose state timed out), new ones relayed. */
  unstall(): void;
  /**
   * The link lost without the device noticing (no `offline` event): of the connections carrying client bytes in
   * the last half second, the `keep` most recent are held (nothing relayed either way, as over a link that
   * drops every packet); every other connection is dropped and new ones are refused until `release()`, which
   * relays the held ones again from where they stopped.
   */
  hold(keep: number): { held: number; dropped: number };
  release(): void;
  close(): Promise<void>;
}

export async function startCuttingProxy(targetUrl: string): Promise<CuttingProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<net.Socket>();
  let up = 0;
  let downUntil = 0;
  let stalled = false;
  let holding = false;
  /** Each relayed client connection: its server side and when its client last sent bytes. */
  const pairs = new Map<net.Socket, { upstream: net.Socket; lastData: number }>();
  const held: net.Socket[] = [];
  const server = net.createServer((client) => {
    if (Date.now() < downUntil || holding) {
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
    const pair = { upstream, lastData: 0 };
    pairs.set(client, pair);
    client.on('close', () => pairs.delete(client));
    client.on('data', (d: Buffer) => {
      up += d.length;
      pair.lastData = Date.now();
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
    unstall() {
      stalled = false;
      for (const s of sockets) s.destroy();
    },
    hold(keep) {
      holding = true;
      const active = [...pairs]
        .filter(([, p]) => Date.now() - p.lastData < 500)
        .sort(([, a], [, b]) => b.lastData - a.lastData)
        .slice(0, keep);
      for (const [client, p] of active) {
        client.unpipe();
        p.upstream.unpipe();
        client.pause();
        p.upstream.pause();
        held.push(client);
      }
      let dropped = 0;
      for (const [client, p] of pairs) {
        if (held.includes(client)) continue;
        client.destroy();
        p.upstream.destroy();
        dropped++;
      }
      return { held: held.length, dropped };
    },
    release() {
      holding = false;
      for (const client of held.splice(0)) {
        const p = pairs.get(client);
        if (!p) continue;
        client.pipe(p.upstream);
        p.upstream.pipe(client);
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
