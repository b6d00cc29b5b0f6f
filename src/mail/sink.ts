import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Logger } from '../log';
import { smtpUrl } from './route';

/**
 * The built-in SMTP sink: accepts every message on loopback and stores it as an RFC 5322 .eml file (the DATA
 * stream as received), so air-gapped installs and tests see exactly what would have been delivered.
 */
export interface SinkOptions {
  host: string;
  port: number;
  dir: string;
  /** Largest message accepted (bytes). */
  maxSize?: number;
  /** Test aid: recipients matching this are refused with a permanent 550, like a real server's bounce. */
  rejectRecipients?: RegExp;
  log?: Logger;
}

export interface RunningSink {
  host: string;
  port: number;
  dir: string;
  /** smtp://host:port, for mail.transport. */
  url: string;
  close(): Promise<void>;
}

export const EML_NAME = /^\d{13}-[0-9a-f]{12}\.eml$/;

/** A new message's file name: arrival time in ms first (name order is arrival order), then 48 random bits. */
function emlName(): string {
  return `${Date.now()}-${crypto.randomBytes(6).toString('hex')}.eml`;
}

/** A message is written under this name and renamed to `name` once whole. */
const tempName = (name: string) => `.${name}.tmp`;

/** A message of the inbox, whole or still being written. */
export function isInboxFileName(n: string): boolean {
  return EML_NAME.test(n) || (n.startsWith('.') && n.endsWith('.tmp') && EML_NAME.test(n.slice(1, -'.tmp'.length)));
}

/** Stores one whole message in dir, written to a temp name (0600) and renamed, as the SMTP sink stores it. */
export async function storeEml(dir: string, message: Buffer): Promise<void> {
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  const name = emlName();
  const tmp = path.join(dir, tempName(name));
  try {
    await fs.promises.writeFile(tmp, message, { mode: 0o600, flag: 'wx' });
    await fs.promises.rename(tmp, path.join(dir, name));
  } catch (e) {
    await fs.promises.rm(tmp, { force: true });
    throw e;
  }
}

export async function startSink(opts: SinkOptions): Promise<RunningSink> {
  fs.mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const maxSize = opts.maxSize ?? 50 * 1024 * 1024;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    banner: 'ferry mail sink',
    size: maxSize,
    maxClients: 100,
    // No reverse DNS of the client: an air-gapped host may wait on a resolver that never answers.
    disableReverseLookup: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (opts.rejectRecipients?.test(address.address)) {
        const err = new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`) as Error & {
          responseCode: number;
        };
        err.responseCode = 550;
        return callback(err);
      }
      callback();
    },
    onData(stream, _session, callback) {
      const name = emlName();
      const tmp = path.join(opts.dir, tempName(name));
      const out = fs.createWriteStream(tmp, { mode: 0o600 });
      let failed: Error | null = null;
      const fail = (e: Error) => {
        if (failed) return;
        failed = e;
        // Stop writing at once (an oversized message must not fill the disk) but read the rest of DATA,
        // which the SMTP dialogue requires before the refusal can be answered.
        stream.unpipe(out);
        out.destroy();
        stream.resume();
      };
      out.on('error', fail);
      stream.on('data', () => {
        if (stream.sizeExceeded)
          fail(Object.assign(new Error(`5.3.4 Message too big (limit ${maxSize} bytes)`), { responseCode: 552 }));
      });
      stream.pipe(out);
      stream.on('end', () => {
        const finish = () => {
          if (stream.sizeExceeded && !failed)
            failed = Object.assign(new Error(`5.3.4 Message too big (limit ${maxSize} bytes)`), { responseCode: 552 });
          if (failed) {
            const err = failed;
            // Removed once closed, so a file still being opened cannot reappear after the removal.
            const remove = () => fs.rm(tmp, { force: true }, () => callback(err));
            if (out.closed) remove();
            else out.once('close', remove);
            return;
          }
          // Rename makes the file appear whole: readers never see a half-written message.
          fs.rename(tmp, path.join(opts.dir, name), (e) => callback(e ?? null));
        };
        if (failed) finish();
        else out.end(() => finish());
      });
    },
  });
  server.on('error', (e) => opts.log?.error(`mail sink: ${e.message}`));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    host: opts.host,
    port,
    dir: opts.dir,
    url: smtpUrl(opts.host, port),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface SinkMessage {
  id: string;
  size: number;
  mtime: number;
}

/** The stored messages, newest first. Names are checked so a listing never yields a path outside dir. */
export function listSinkMessages(dir: string): SinkMessage[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: SinkMessage[] = [];
  for (const n of names) {
    if (!EML_NAME.test(n)) continue;
    try {
      const st = fs.statSync(path.join(dir, n));
      if (st.isFile()) out.push({ id: n, size: st.size, mtime: st.mtimeMs });
    } catch {
      // removed between the listing and the stat: not listed
    }
  }
  // Names start with the arrival time in ms, so name order is arrival order.
  return out.sort((a, b) => (a.id < b.id ? 1 : -1));
}

/**
 * Reads one message by id (at most maxBytes of it); null unless the id is exactly the name of a message
 * stored in dir, so no id can reach another file.
 */
export function readSinkMessage(dir: string, id: string, maxBytes = Infinity): Buffer | null {
  if (!EML_NAME.test(id)) return null;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return null;
  }
  if (!names.includes(id)) return null;
  const fd = fs.openSync(path.join(dir, id), 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, maxBytes));
    let got = 0;
    while (got < buf.length) {
      const n = fs.readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}

/** The newest `limit` messages with the first bytes of each (enough for the headers), for listings. */
export function sinkMessageHeads(
  dir: string,
  limit: number,
  headBytes = 64 * 1024,
): { message: SinkMessage; head: Buffer }[] {
  const out: { message: SinkMessage; head: Buffer }[] = [];
  for (const message of listSinkMessages(dir).slice(0, limit)) {
    try {
      // The name comes from the listing just made (checked against EML_NAME): no path from the request.
      const fd = fs.openSync(path.join(dir, message.id), 'r');
      try {
        const buf = Buffer.alloc(Math.min(message.size, headBytes));
        const n = fs.readSync(fd, buf, 0, buf.length, 0);
        out.push({ message, head: buf.subarray(0, n) });
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      // removed meanwhile: skipped
    }
  }
  return out;
}
