import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { simpleParser, ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { startSink, RunningSink, listSinkMessages } from '../../src/mail/sink';
import { tempDir } from './temp-dir';
import { until } from './until';

/**
 * The first message stored in a sink's folder (the sink a `serve` runs from its config), waited for at most
 * `timeoutMs`, parsed; `what` names it when it does not come.
 */
export async function firstSinkMessage(dir: string, what: string, timeoutMs = 10_000): Promise<ParsedMail> {
  await until(what, () => listSinkMessages(dir).length > 0, timeoutMs);
  const [msg] = listSinkMessages(dir);
  return simpleParser(fs.readFileSync(path.join(dir, msg.id)));
}

export interface TestSink extends RunningSink {
  /** Waits (bounded) until at least n messages are stored, then parses them all, oldest first. */
  waitFor(n: number, timeoutMs?: number): Promise<ParsedMail[]>;
  /** Parses every stored message, oldest first. */
  messages(): Promise<ParsedMail[]>;
  /** Raw .eml texts, oldest first. */
  raw(): string[];
}

/** A real SMTP sink on 127.0.0.1 port 0, storing into a fresh temp dir. */
export async function startTestSink(opts: { rejectRecipients?: RegExp; port?: number } = {}): Promise<TestSink> {
  const dir = path.join(tempDir('ferry-sink-'), 'mail');
  const sink = await startSink({
    host: '127.0.0.1',
    port: opts.port ?? 0,
    dir,
    rejectRecipients: opts.rejectRecipients,
  });
  const files = () => listSinkMessages(dir).reverse();
  const raw = () => files().map((m) => fs.readFileSync(path.join(dir, m.id), 'utf8'));
  const messages = () => Promise.all(raw().map((r) => simpleParser(r)));
  return {
    ...sink,
    raw,
    messages,
    async waitFor(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (files().length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} messages in the sink, got ${files().length}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return messages();
    },
  };
}

/** The first address of a parsed header (to, from, reply-to). */
export function addressOf(field: ParsedMail['to'] | ParsedMail['from'] | ParsedMail['replyTo']): string {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list[0]?.value[0]?.address ?? '';
}

/** What a scripted SMTP server answers to RCPT TO for one address: accept (null), or a code and text. */
export type SmtpAnswer = { code: number; text: string } | null;

export interface ScriptedSmtp {
  url: string;
  port: number;
  /** Change what RCPT TO gets from now on (e.g. 450 while "busy", then accept). */
  answer: (address: string) => SmtpAnswer;
  /** Messages accepted so far, parsed, in arrival order. */
  received: ParsedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1 whose answer to each recipient the test decides (450 defers, 550 bounces),
 * to make delivery fail for real; accepted messages are kept in memory.
 */
export async function startScriptedSmtp(
  answer: (address: string) => SmtpAnswer = () => null,
  port = 0,
): Promise<ScriptedSmtp> {
  const received: ParsedMail[] = [];
  const state = { answer };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      const a = state.answer(address.address);
      if (!a) return callback();
      callback(Object.assign(new Error(a.text), { responseCode: a.code }));
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (m) => (received.push(m), callback()),
        (e: Error) => callback(e),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${bound}`,
    port: bound,
    get answer() {
      return state.answer;
    },
    set answer(f) {
      state.answer = f;
    },
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
