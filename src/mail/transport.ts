import fs from 'node:fs';
import nodemailer from 'nodemailer';
import type { OutgoingMessage } from '../domain/ports';
import { spacedLine } from '../util/names';
import { storeEml } from './sink';

/** Sends one rendered message; throws a DeliveryError describing whether a retry can help. */
export interface MailTransport {
  send(msg: OutgoingMessage): Promise<void>;
  /** Resolves when the mail server answers (connects and greets); /readyz asks. Absent: nothing to reach. */
  verify?(): Promise<void>;
  close(): void;
}

export class DeliveryError extends Error {
  constructor(
    message: string,
    /** A permanent refusal of this address or message: retrying will not help; the address bounced. */
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** Strips what could end a header line or hide text; nodemailer encodes the rest. */
export function headerSafe(text: string, max = 200): string {
  const clean = spacedLine(text).trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * A header value that reads back as exactly this text. nodemailer passes text that already looks like an
 * RFC 2047 encoded word ("=?UTF-8?B?…?=") through as is, so a subject typed as such would be decoded by the
 * reader into other characters (markup, bidi overrides, line breaks). Such a value is encoded whole here,
 * in words of at most 30 bytes cut on character boundaries; adjacent encoded words join without spaces.
 */
export function literalHeader(text: string): string {
  if (!text.includes('=?')) return text;
  const words: string[] = [];
  let chunk = '';
  for (const ch of text) {
    if (Buffer.byteLength(chunk + ch) > 30) {
      words.push(chunk);
      chunk = '';
    }
    chunk += ch;
  }
  words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString('base64')}?=`).join(' ');
}

/**
 * One plain address (local@domain), nothing an address parser could read as a display name, a group or a
 * second address. The domain validates addresses already; this keeps the mail layer safe on its own.
 */
// eslint-disable-next-line no-control-regex
const PLAIN_ADDRESS = /^[^\s@,;:<>()[\]\\"\u0000-\u001f\u007f]+@[^\s@,;:<>()[\]\\"\u0000-\u001f\u007f]+$/;

export function isPlainAddress(address: string): boolean {
  return address.length <= 320 && PLAIN_ADDRESS.test(address);
}

/** Hides the password of smtp://user:pass@host URLs before they reach a log line. */
export function redactTransportUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

interface SmtpFailure {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/**
 * Only a 5xx answer to RCPT TO or to the message itself is the recipient's bounce. A 5xx elsewhere (greeting,
 * AUTH, MAIL FROM) is the server's or ferry's configuration refusing everything: retried, so an admin who
 * fixes it within the retry window loses no mail, and no recipient is marked as bounced for it.
 */
export function classifySmtpError(e: unknown): DeliveryError {
  const err = (e ?? {}) as SmtpFailure;
  const text = (err.response ?? err.message ?? String(e)).trim().slice(0, 500);
  const code = err.responseCode ?? 0;
  const atRecipient = err.command === 'RCPT TO' || err.command === 'DATA';
  if (code >= 500 && code < 600 && atRecipient) return new DeliveryError(text, true);
  // nodemailer refusing the address itself before talking to the server: no retry will change that.
  if (err.code === 'EENVELOPE' && err.command === 'API' && /recipient/i.test(err.message ?? ''))
    return new DeliveryError(text, true);
  return new DeliveryError(text, false);
}

/** Bounded waits, so a server that accepts connections and then hangs cannot hold the queue (or shutdown) for long. */
const TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000, dnsTimeout: 15_000 };

/**
 * One pooled connection, reused for consecutive messages: a Transfer to 50 recipients costs one SMTP
 * handshake, not 50 (servers often delay each greeting). The queue does the retrying, so the pool
 * requeues a message at most once when a connection drops mid-send.
 */
const POOL = { pool: true, maxConnections: 1, maxMessages: 100, maxRequeues: 1 };

/** The message as nodemailer takes it, the same for SMTP and for the built-in inbox. */
function mailOptions(msg: OutgoingMessage) {
  return {
    // Objects, not strings: nodemailer then takes each address as one address, never parses it as a list.
    from: { name: '', address: msg.from },
    to: { name: '', address: msg.to },
    replyTo: msg.replyTo && isPlainAddress(msg.replyTo) ? { name: '', address: msg.replyTo } : undefined,
    subject: literalHeader(headerSafe(msg.subject, 250)),
    text: msg.text,
    html: msg.html,
    headers: { 'Content-Language': msg.lang, 'Auto-Submitted': 'auto-generated' },
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

export function smtpTransport(url: string): MailTransport {
  // Options given in the URL (?connectionTimeout=…, ?pool=false) override these.
  const t = nodemailer.createTransport({
    url,
    ...POOL,
    ...TIMEOUTS,
    disableFileAccess: true,
    disableUrlAccess: true,
  } as never);
  return {
    async verify() {
      await t.verify();
    },
    async send(msg) {
      if (!isPlainAddress(msg.to)) throw new DeliveryError(`invalid recipient address`, true);
      try {
        await t.sendMail(mailOptions(msg));
      } catch (e) {
        throw classifySmtpError(e);
      }
    },
    close: () => t.close(),
  };
}

/**
 * No mail.transport: each message is written, as the SMTP sink would store it, into the built-in inbox's
 * folder by the process that sends it (serve or a CLI command alike), where admins read it at /?s=mail-sink.
 * A write that fails (disk full, permissions) is retried by the queue like a deferral.
 */
export function inboxTransport(dir: string): MailTransport {
  // CRLF line ends, as the message would travel over SMTP and as the sink stores what it receives.
  const t = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'windows',
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    async verify() {
      await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
      await fs.promises.access(dir, fs.constants.W_OK);
    },
    async send(msg) {
      if (!isPlainAddress(msg.to)) throw new DeliveryError(`invalid recipient address`, true);
      let built: Buffer;
      try {
        built = (await t.sendMail(mailOptions(msg))).message as Buffer;
      } catch (e) {
        throw new DeliveryError(String((e as Error)?.message ?? e).slice(0, 500), false);
      }
      try {
        await storeEml(dir, built);
      } catch (e) {
        throw new DeliveryError(`built-in inbox ${dir}: ${(e as Error).message}`.slice(0, 500), false);
      }
    },
    close: () => t.close(),
  };
}
