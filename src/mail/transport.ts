import nodemailer from 'nodemailer';
import type { Logger } from '../log';
import type { OutgoingMessage } from '../db/mail-queue-repo';

/** Sends one rendered message; throws a DeliveryError describing whether a retry can help. */
export interface MailTransport {
  send(msg: OutgoingMessage): Promise<void>;
  close(): void;
}

export class DeliveryError extends Error {
  constructor(
    message: string,
    /** A permanent refusal (5xx): retrying will not help; the address bounced. */
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** Strips what could end a header line or hide text; nodemailer encodes the rest. */
export function headerSafe(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** Hides the password of smtp://user:pass@host URLs before they reach a log line. */
export function redactTransportUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

export function smtpTransport(url: string): MailTransport {
  const t = nodemailer.createTransport(url, { disableFileAccess: true, disableUrlAccess: true } as never);
  return {
    async send(msg) {
      try {
        await t.sendMail({
          from: msg.from,
          to: msg.to,
          replyTo: msg.replyTo,
          subject: headerSafe(msg.subject, 250),
          text: msg.text,
          html: msg.html,
          headers: { 'Content-Language': msg.lang, 'Auto-Submitted': 'auto-generated' },
          disableFileAccess: true,
          disableUrlAccess: true,
        });
      } catch (e) {
        const err = e as { responseCode?: number; response?: string; message?: string };
        const code = err.responseCode ?? 0;
        throw new DeliveryError((err.response ?? err.message ?? String(e)).slice(0, 500), code >= 500 && code < 600);
      }
    },
    close: () => t.close(),
  };
}

/** mail.transport null: messages are logged (recipient and subject only), not delivered. */
export function logTransport(log: Logger): MailTransport {
  return {
    async send(msg) {
      log.info(`mail (not sent: no transport) to=${msg.to} subject=${JSON.stringify(headerSafe(msg.subject))}`);
    },
    close() {},
  };
}
