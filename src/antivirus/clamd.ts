import net from 'node:net';
import type { ScanVerdict, VirusScanner } from '../domain/ports';

/**
 * clamd's INSTREAM over TCP ("tcp://host:port") or a unix socket ("unix:/run/clamav/clamd.ctl"), one
 * connection per file (docs/sharing.md, Virus scanning). The command is `zINSTREAM\0`, then each block
 * prefixed by its length (4 bytes, big-endian), then a zero length; clamd answers `stream: OK`,
 * `stream: <signature> FOUND` or `<reason> ERROR`. Each block is handed to the socket and its write awaited
 * before the next is asked for, so a slow clamd slows the reads from the store instead of filling memory.
 */
export class ClamdScanner implements VirusScanner {
  constructor(
    private readonly address: string,
    /** Silence (no read, no answer) longer than this fails the scan. */
    private readonly timeoutMs: number,
  ) {}

  scan(blocks: AsyncIterable<Uint8Array>): Promise<ScanVerdict> {
    return new Promise<ScanVerdict>((resolve, reject) => {
      const sock = this.address.startsWith('unix:')
        ? net.connect({ path: this.address.slice('unix:'.length) })
        : net.connect(tcpTarget(this.address));
      const answer: Buffer[] = [];
      let settled = false;
      const fail = (why: string) => {
        if (settled) return;
        settled = true;
        sock.destroy();
        reject(scannerDown(`clamd at ${this.address}: ${why}`));
      };
      const settleWithAnswer = () => {
        if (settled) return;
        const text = Buffer.concat(answer).toString('utf8').replace(/\0+$/, '').trim();
        if (!text) return fail('closed the connection without an answer');
        settled = true;
        sock.destroy();
        const verdict = parseAnswer(text);
        if (verdict) resolve(verdict);
        else reject(scannerDown(`clamd at ${this.address} answered: ${text.slice(0, 200)}`));
      };
      sock.setTimeout(this.timeoutMs, () => fail(`no answer within ${Math.round(this.timeoutMs / 1000)} s`));
      sock.on('data', (d: Buffer) => {
        answer.push(d);
        // The answer ends with NUL (the z-prefixed command's terminator); clamd may answer before the stream
        // ends (a size limit), which ends the scan too.
        if (d.includes(0)) settleWithAnswer();
      });
      sock.on('end', settleWithAnswer);
      // A write failing because clamd closed early (EPIPE after its answer) leaves the answer to decide.
      sock.on('error', (e) => (answer.length ? settleWithAnswer() : fail(e.message)));
      sock.on('connect', () => {
        void (async () => {
          try {
            await write(sock, Buffer.from('zINSTREAM\0'));
            const len = Buffer.alloc(4);
            for await (const block of blocks) {
              if (settled) return;
              if (block.length === 0) continue;
              len.writeUInt32BE(block.length);
              await write(sock, len);
              await write(sock, block);
            }
            if (!settled) await write(sock, Buffer.alloc(4));
          } catch (e) {
            // A store that failed mid-read is the scan's failure too: nothing was decided about the file.
            if (answer.length) settleWithAnswer();
            else fail((e as Error).message);
          }
        })();
      });
    });
  }
}

function tcpTarget(address: string): { host: string; port: number } {
  const m = /^tcp:\/\/(.+):(\d+)$/.exec(address);
  if (!m) throw new Error(`not a clamd address: ${address}`);
  return { host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

/** `stream: OK` → clean; `stream: Name FOUND` → infected; anything else is no verdict. */
export function parseAnswer(text: string): ScanVerdict | null {
  if (/^stream: OK$/.test(text)) return { clean: true };
  const m = /^stream: (.+) FOUND$/.exec(text);
  return m ? { clean: false, signature: m[1] } : null;
}

function write(sock: net.Socket, b: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    sock.write(b, (e) => (e ? reject(e) : resolve()));
  });
}

function scannerDown(message: string): Error {
  return Object.assign(new Error(message), { code: 'FERRY_SCANNER_DOWN' });
}
