import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, asUser, TestServer, freePort, sqlOne } from '../helpers/server';
import type { Notifier, Tx } from '../../src/domain/ports';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { startTestSink, addressOf, TestSink } from '../helpers/mail';
import { listSinkMessages } from '../../src/mail/sink';
import { defaultConfig } from '../../src/config/defaults';
import type { FileRecord, Recipient, Transfer } from '../../src/domain/model';
import { fileRecord, RECORD_TIME, recipientRecord, transferRecord } from '../helpers/domain-factories';

const NOW = RECORD_TIME;

function transfer(over: Partial<Transfer> = {}): Transfer {
  return transferRecord({ subject: 'Q3 report', message: 'Here you go', expires: NOW + 86400 * 10, ...over });
}
function file(name: string, size: number): FileRecord {
  return fileRecord({ name, size });
}
function recipient(id: number, email: string, lang: string | null = null): Recipient {
  return recipientRecord({ id, email, lang, token: `tok${id}${'x'.repeat(30)}` });
}

async function withMail(
  fn: (s: TestServer, sink: TestSink) => Promise<void>,
  opts: { reject?: RegExp; config?: Record<string, unknown> } = {},
) {
  const sink = await startTestSink({ rejectRecipients: opts.reject });
  const s = await startTestServer({
    ...HEADER_SP,
    default_lang: 'en',
    mail: { transport: sink.url, from: 'ferry@files.example' },
    ...opts.config,
  });
  try {
    await fn(s, sink);
  } finally {
    await s.close();
    await sink.close();
  }
}

/** Queues mail as a service would: through the notifier, in a unit of work. */
function notify(s: TestServer, fn: (n: Notifier, tx: Tx) => Promise<void>): Promise<void> {
  return s.app.db.uow.run((tx) => fn(s.app.notifier, tx));
}

test('Transfer available: one mail per recipient, in each recipient language, with its own download link', () =>
  withMail(async (s, sink) => {
    await notify(s, (n, tx) =>
      n.transferAvailable(
        tx,
        transfer(),
        [file('plan.pdf', 2_500_000)],
        [recipient(1, 'bob@example.org', 'de'), recipient(2, 'carol@example.org')],
      ),
    );
    const mails = await sink.waitFor(2);
    const byTo = Object.fromEntries(mails.map((m) => [addressOf(m.to), m]));
    const bob = byTo['bob@example.org'];
    const carol = byTo['carol@example.org'];
    assert.ok(bob && carol, 'both recipients got a mail');
    assert.is(bob.subject, 'alice@example.org hat Ihnen Dateien gesendet: Q3 report');
    assert.is(carol.subject, 'alice@example.org sent you files: Q3 report');
    assert.is(addressOf(bob.from), 'ferry@files.example');
    assert.is(addressOf(bob.replyTo), 'alice@example.org');
    assert.match(bob.text!, `${s.url}/?s=download&token=tok1`);
    assert.match(carol.text!, `${s.url}/?s=download&token=tok2`);
    assert.not.match(carol.text!, 'tok1');
    assert.match(carol.text!, 'plan.pdf (2.5\u00a0MB)');
    assert.match(carol.text!, 'Here you go');
    assert.match(String(bob.html), `href="${s.url}/?s=download&amp;token=tok1`);
    assert.is(bob.headers.get('content-language'), 'de');
  }));

test('the default language applies when the recipient has none', () =>
  withMail(
    async (s, sink) => {
      await notify(s, (n, tx) =>
        n.transferReminder(tx, transfer({ subject: null }), [file('a.txt', 10)], [recipient(3, 'dan@example.org')]),
      );
      const [m] = await sink.waitFor(1);
      assert.is(m.subject, 'Rappel : alice@example.org vous a envoyé des fichiers');
    },
    { config: { default_lang: 'fr' } },
  ));

test('header injection through the subject or names is impossible; HTML is escaped', () =>
  withMail(async (s, sink) => {
    const evil = transfer({
      subject: 'Hi\r\nBcc: victim@example.org\r\nX-Evil: 1',
      message: '<script>alert(1)</script>',
    });
    await notify(s, (n, tx) =>
      n.transferAvailable(tx, evil, [file('<img src=x onerror=alert(1)>.txt', 1)], [recipient(4, 'erin@example.org')]),
    );
    const [m] = await sink.waitFor(1);
    const headers = sink.raw()[0].split(/\r?\n\r?\n/)[0];
    assert.not.match(headers, /^Bcc:/im);
    assert.not.match(headers, /^X-Evil:/im);
    assert.is(m.bcc, undefined);
    assert.match(m.subject!, 'Hi Bcc: victim@example.org X-Evil: 1');
    const html = String(m.html);
    assert.not.match(html, '<script>');
    assert.match(html, '&lt;script&gt;alert(1)&lt;/script&gt;');
    assert.not.match(html, '<img src=x');
  }));

test('a refused recipient becomes a bounce tracking error; the others are delivered', () =>
  withMail(
    async (s, sink) => {
      await notify(s, (n, tx) =>
        n.transferAvailable(
          tx,
          transfer(),
          [file('a', 1)],
          [recipient(10, 'nobody@bounce.example'), recipient(11, 'ok@example.org')],
        ),
      );
      await sink.waitFor(1);
      await s.app.services.mailQueue.flush();
      const errs = (await s.app.services.recipients.deliveryStatus([10])).errors.get(10) ?? [];
      assert.is(errs.length, 1);
      assert.is(errs[0].type, 'bounce');
      assert.match(errs[0].details, /550|rejected/);
      assert.equal((await s.app.services.recipients.deliveryStatus([11])).errors.get(11) ?? [], []);
      const row = (await sqlOne(s, `SELECT status FROM mail_queue WHERE to_addr = ?`, 'nobody@bounce.example')) as {
        status: string;
      };
      assert.is(row.status, 'failed');
    },
    { reject: /@bounce\.example$/ },
  ));

test('a down SMTP server fails nothing: mail waits in the queue and goes out once the server is back', async () => {
  const port = await freePort();
  let now = NOW;
  const s = await startTestServer(
    { ...HEADER_SP, mail: { transport: `smtp://127.0.0.1:${port}` } },
    { clock: () => now },
  );
  let sink: TestSink | null = null;
  try {
    // A REST call that sends mail still succeeds while SMTP is down.
    const r = await s.request('POST', '/guest', {
      headers: asUser('alice'),
      json: { recipient: 'guest@example.org', from: 'alice@example.org' },
    });
    assert.is(r.status, 201, r.text);
    await s.app.services.mailQueue.flush();
    const row = async () =>
      (await sqlOne(s, `SELECT status, attempts, next_attempt, last_error FROM mail_queue`)) as {
        status: string;
        attempts: number;
        next_attempt: number;
      };
    assert.is((await row()).status, 'pending');
    assert.is((await row()).attempts, 1);
    assert.ok((await row()).next_attempt > now, 'retry scheduled later');
    sink = await startTestSink({ port });
    now += 3600; // an hour later
    await s.app.services.mailQueue.flush();
    const [m] = await sink.waitFor(1);
    assert.is(addressOf(m.to), 'guest@example.org');
    assert.is((await row()).status, 'sent');
  } finally {
    await s.close();
    await sink?.close();
  }
});

test('POST /guest mails the guest through the sink with the upload link, in the inviter’s language', () =>
  withMail(async (s, sink) => {
    const r = await s.request('POST', '/guest', {
      headers: { ...asUser('alice'), 'Accept-Language': 'nl' },
      json: { recipient: 'gast@example.org', from: 'alice@example.org', subject: 'Stukken', message: 'Graag uploaden' },
    });
    assert.is(r.status, 201, r.text);
    const [m] = await sink.waitFor(1);
    assert.is(addressOf(m.to), 'gast@example.org');
    assert.is(m.subject, 'alice@example.org nodigt u uit bestanden te sturen: Stukken');
    assert.match(m.text!, `${s.url}/?s=upload&vid=${r.json.token}`);
    assert.match(m.text!, 'Graag uploaden');
  }));

test('the default config (no mail.transport) keeps each mail in the built-in inbox as an .eml file, whole and readable', async () => {
  assert.is(defaultConfig().mail.transport, null);
  const lines: string[] = [];
  // No mail key at all: the embedded default, as `npm start` runs it.
  const s = await startTestServer(
    { ...HEADER_SP },
    { log: { info: (l) => lines.push(l), error: (l) => lines.push(l) } },
  );
  try {
    const inbox = path.join(s.app.config.data_dir, 'mail-sink');
    assert.is(s.app.services.mailInbox, inbox);
    await notify(s, (n, tx) =>
      n.transferAvailable(tx, transfer(), [file('plan.pdf', 1)], [recipient(20, 'x@example.org')]),
    );
    await s.app.services.mailQueue.flush();
    const stored = listSinkMessages(inbox);
    assert.is(stored.length, 1);
    assert.is(fs.statSync(path.join(inbox, stored[0].id)).mode & 0o777, 0o600);
    const m = await simpleParser(fs.readFileSync(path.join(inbox, stored[0].id)));
    assert.is(addressOf(m.to), 'x@example.org');
    assert.is(m.subject, 'alice@example.org sent you files: Q3 report');
    assert.match(m.text!, `${s.url}/?s=download&token=tok20`);
    const row = (await sqlOne(s, `SELECT status FROM mail_queue`)) as { status: string };
    assert.is(row.status, 'sent');
    // The start-up line says where mail goes and how to have it delivered.
    assert.ok(
      lines.some((l) => l.includes(`kept in the built-in inbox ${inbox}`) && l.includes('mail.transport')),
      lines.join('\n'),
    );
  } finally {
    await s.close();
  }
});

test.run();
