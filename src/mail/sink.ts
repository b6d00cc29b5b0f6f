import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { Logger } from '../log';

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

export async function startSink(opts: SinkOptions): Promise<RunningSink> {
  fs.mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const maxSize = opts.maxSize ?? 50 * 1024 * 1024;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    banner: 'ferry mail sink',
    size: maxSize,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (opts.rejectRecipients?.test(address.address)) {
        const err = new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown`) as Error & { responseCode: number };
        err.responseCode = 550;
        return callback(err);
      }
      callback();
    },
    onData(stream, _session, callback) {
      const name = `${Date.now()}-${crypto.randomBytes(6).toString('hex')}.eml`;
      const tmp = path.join(opts.dir, `.${name}.tmp`);
      const out = fs.createWriteStream(tmp, { mode: 0o600 });
      let failed: Error | null = null;
      out.on('error', (e) => (failed = e));
      stream.pipe(out);
      stream.on('end', () => {
        out.end(() => {
          if (stream.sizeExceeded) failed = Object.assign(new Error('5.3.4 Message too big'), { responseCode: 552 });
          if (failed) {
            fs.rm(tmp, { force: true }, () => callback(failed));
            return;
          }
          // Rename makes the file appear whole: readers never see a half-written message.
          fs.rename(tmp, path.join(opts.dir, name), (e) => callback(e ?? null));
        });
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
    url: `smtp://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${port}`,
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
  return names
    .filter((n) => EML_NAME.test(n))
    .map((n) => {
      const st = fs.statSync(path.join(dir, n));
      return { id: n, size: st.size, mtime: st.mtimeMs };
    })
    .sort((a, b) => (a.id < b.id ? 1 : -1));
}

/** Reads one message by id; null unless the id is exactly one of the stored file names. */
export function readSinkMessage(dir: string, id: string): Buffer | null {
  if (!EML_NAME.test(id)) return null;
  if (!listSinkMessages(dir).some((m) => m.id === id)) return null;
  return fs.readFileSync(path.join(dir, id));
}
