import fs from 'node:fs';
import path from 'node:path';
import { simpleParser, ParsedMail } from 'mailparser';
import { startSink, RunningSink, listSinkMessages } from '../../src/mail/sink';
import { tempDir } from './server';

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
  const sink = await startSink({ host: '127.0.0.1', port: opts.port ?? 0, dir, rejectRecipients: opts.rejectRecipients });
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
