import net from 'node:net';

/**
 * A TCP server on 127.0.0.1 that takes every connection, reads what comes and never says a word: a mail server or
 * a clamd that hangs, for the tests of what a node does with work it claimed and cannot finish.
 */
export interface SilentServer {
  port: number;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const held = new Set<net.Socket>();
  const server = net.createServer((s) => {
    held.add(s);
    s.on('error', () => {});
    s.resume();
    s.on('close', () => held.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    async close() {
      for (const s of held) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
