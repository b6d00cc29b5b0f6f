import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { retryDelay, GIVE_UP_AFTER_S, CLAIM_S, MailQueue } from '../../src/mail/queue';
import {
  classifySmtpError,
  DeliveryError,
  headerSafe,
  isPlainAddress,
  MailTransport,
  redactTransportUrl,
} from '../../src/mail/transport';
import { humanSize } from '../../src/mail/render';
import { openDatabase, Database } from '../../src/db/database';
import type { OutgoingMessage } from '../../src/domain/ports';
import { silentLogger } from '../../src/log';
import { tempDir } from '../helpers/server';

test('retries back off from 30 s, doubling, capped at 15 min, for days', () => {
  assert.equal([0, 1, 2, 3, 4, 5, 6, 10].map(retryDelay), [30, 60, 120, 240, 480, 900, 900, 900]);
  let t = 0;
  let attempts = 0;
  while (t < 3600) t += retryDelay(attempts++);
  assert.ok(attempts < 12, `an hour-long outage costs ${attempts} attempts`);
  assert.ok(GIVE_UP_AFTER_S >= 86400);
});

test('header values lose line breaks and direction overrides, and are capped', () => {
  assert.is(headerSafe('a\r\nBcc: x@y'), 'a Bcc: x@y');
  assert.is(headerSafe('evil\u202Etxt.exe'), 'evil txt.exe');
  assert.is(headerSafe('x'.repeat(300), 10).length, 10);
});

test('only one plain address is accepted as a recipient: no list, no display name, no line break', () => {
  assert.ok(isPlainAddress('bob@example.org'));
  assert.ok(isPlainAddress('jörg@bücher.example'));
  for (const bad of [
    'a@x.org, b@y.org',
    'a@x.org;b@y.org',
    'Bob <b@y.org>',
    'a@x.org\r\nBcc: c@z.org',
    '"a b"@x.org',
    'noat',
    '',
  ]) {
    assert.not.ok(isPlainAddress(bad), bad);
  }
});

test('transport passwords never reach a log line', () => {
  assert.is(redactTransportUrl('smtp://user:s3cret@mail.example:587'), 'smtp://user:***@mail.example:587');
  assert.is(redactTransportUrl('smtp://mail.example:25'), 'smtp://mail.example:25');
});

test("sizes read as people expect, in the mail's language, a figure never apart from its unit", () => {
  assert.is(humanSize(999, 'en'), '999\u00a0B');
  assert.is(humanSize(2_500_000, 'en'), '2.5\u00a0MB');
  assert.is(humanSize(107_374_182_400, 'en'), '107\u00a0GB');
  assert.is(humanSize(2_500_000, 'de'), '2,5\u00a0MB');
  assert.is(humanSize(2_500_000, 'fr'), '2,5\u202fMo');
  assert.is(humanSize(999, 'fr'), '999\u202fo');
  assert.is(humanSize(2_500_000, 'pl'), '2,5\u00a0MB');
});

test('a 5xx to RCPT TO or DATA is a bounce; a 5xx at login or MAIL FROM, a 4xx or a dead server is retried', () => {
  const smtp = (command: string, responseCode: number, code = 'EENVELOPE') => ({
    code,
    command,
    responseCode,
    response: `${responseCode} refused`,
    message: 'x',
  });
  assert.ok(classifySmtpError(smtp('RCPT TO', 550)).permanent);
  assert.ok(classifySmtpError(smtp('DATA', 554, 'EMESSAGE')).permanent);
  assert.is(classifySmtpError(smtp('RCPT TO', 550)).message, '550 refused');
  assert.not.ok(classifySmtpError(smtp('RCPT TO', 452)).permanent, 'mailbox full for now');
  assert.not.ok(classifySmtpError(smtp('AUTH PLAIN', 535, 'EAUTH')).permanent, 'wrong SMTP password: a config problem');
  assert.not.ok(classifySmtpError(smtp('MAIL FROM', 550)).permanent, 'sender refused: a config problem');
  assert.not.ok(classifySmtpError(smtp('CONN', 554, 'EPROTOCOL')).permanent, 'greeting refused');
  assert.not.ok(classifySmtpError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNECTION' })).permanent);
  assert.ok(classifySmtpError({ code: 'EENVELOPE', command: 'API', message: 'Invalid recipient "x"' }).permanent);
});

// --- the queue worker on a real SQLite file, with a scripted transport ---

interface Scripted extends MailTransport {
  sent: string[];
}
function transport(behave: (msg: OutgoingMessage) => Promise<void> = async () => {}): Scripted {
  const sent: string[] = [];
  return {
    sent,
    async send(msg) {
      await behave(msg);
      sent.push(msg.to);
    },
    close() {},
  };
}
const message = (to: string): OutgoingMessage => ({
  from: 'ferry@x.org',
  to,
  subject: 's',
  text: 't',
  html: '<p>t</p>',
  lang: 'en',
});

function queueOn(db: Database, t: MailTransport, clock: () => number, stopWaitMs?: number) {
  const repo = db.repos.mailQueue;
  const tracking = db.repos.trackingErrors;
  return { repo, tracking, queue: new MailQueue(repo, tracking, t, clock, silentLogger, { stopWaitMs }) };
}
const statuses = (db: Database) => db.query('SELECT to_addr, status, attempts FROM mail_queue ORDER BY id');
const open = (dir: string) => openDatabase({ dataDir: dir, url: null });

test('two processes on one DB (serve and a CLI command) never send the same message twice', async () => {
  const dir = tempDir();
  const db1 = await open(dir);
  const db2 = await open(dir);
  const slow = () => transport(() => new Promise((r) => setTimeout(r, 5)));
  const a = queueOn(db1, slow(), () => 1000);
  const b = queueOn(db2, slow(), () => 1000);
  for (let i = 0; i < 20; i++) await a.repo.enqueue(message(`r${i}@x.org`), 1000, null);
  await Promise.all([a.queue.flush(), b.queue.flush()]);
  const all = [...(a.queue as any).transport.sent, ...(b.queue as any).transport.sent].sort();
  assert.is(all.length, 20, 'each message sent exactly once');
  assert.is(new Set(all).size, 20);
  assert.equal(await a.repo.counts(), { sent: 20 });
  await db1.close();
  await db2.close();
});

test('a transient failure is retried later; after 3 days it is given up and the recipient shows a bounce', async () => {
  const db = await open(tempDir());
  let now = 1000;
  let up = false;
  const t = transport(async () => {
    if (!up) throw new DeliveryError('421 try later', false);
  });
  const { repo, tracking, queue } = queueOn(db, t, () => now);
  await repo.enqueue(message('late@x.org'), now, { type: 'Recipient', id: 5 });
  await repo.enqueue(message('never@x.org'), now, { type: 'Guest', id: 6 });
  await queue.flush();
  assert.equal(await statuses(db), [
    { to_addr: 'late@x.org', status: 'pending', attempts: 1 },
    { to_addr: 'never@x.org', status: 'pending', attempts: 1 },
  ]);
  await queue.flush();
  assert.is(t.sent.length, 0, 'not retried before its time');
  now += 3600;
  // late@ is delivered once the server is back; never@ is removed from the retries by hand to stay failing.
  up = true;
  await db.query("UPDATE mail_queue SET next_attempt = ? WHERE to_addr = 'never@x.org'", [now + GIVE_UP_AFTER_S]);
  await queue.flush();
  assert.equal(t.sent, ['late@x.org']);
  assert.equal(await tracking.forTarget('Recipient', 5), []);
  up = false;
  now += GIVE_UP_AFTER_S;
  await queue.flush();
  assert.is(
    ((await db.query("SELECT status FROM mail_queue WHERE to_addr = 'never@x.org'"))[0] as any).status,
    'failed',
  );
  const errs = await tracking.forTarget('Guest', 6);
  assert.is(errs.length, 1);
  assert.is(errs[0].type, 'bounce');
  assert.match(errs[0].details, /^not delivered after 2 attempts over 73 h: 421 try later$/);
  await db.close();
});

test('stopping does not wait forever for a hanging server, and the message in flight is not lost', async () => {
  const dir = tempDir();
  const db = await open(dir);
  let now = 1000;
  const hang = transport(() => new Promise(() => {}));
  const first = queueOn(db, hang, () => now, 50);
  await first.repo.enqueue(message('a@x.org'), now, null);
  void first.queue.flush();
  await new Promise((r) => setTimeout(r, 20));
  const t0 = Date.now();
  await first.queue.stop();
  assert.ok(Date.now() - t0 < 1000, 'stop returned promptly');
  assert.equal(await statuses(db), [{ to_addr: 'a@x.org', status: 'pending', attempts: 0 }]);
  // A later start (another process, or after a restart) sends it once the claim has lapsed.
  const ok = transport();
  const second = queueOn(db, ok, () => now);
  await second.queue.flush();
  assert.equal(ok.sent, [], 'still claimed');
  now += CLAIM_S + 1;
  await second.queue.flush();
  assert.equal(ok.sent, ['a@x.org']);
  await db.close();
});

test('flush() delivers mail committed while another pass was already looking: it waits for a pass that starts after it', async () => {
  const db = await open(tempDir());
  const t = transport();
  const { repo, queue } = queueOn(db, t, () => 1000);
  // Hold the first pass inside its look for due mail, as a slow database does.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const claimDue = repo.claimDue.bind(repo);
  let looks = 0;
  (repo as any).claimDue = async (...args: Parameters<typeof repo.claimDue>) => {
    const found = await claimDue(...args);
    if (looks++ === 0) await held;
    return found;
  };
  const early = queue.flush(); // found nothing, not yet returned
  await new Promise((r) => setTimeout(r, 20));
  await repo.enqueue(message('late@x.org'), 1000, null);
  const mine = queue.flush();
  release();
  await early;
  await mine;
  assert.equal(t.sent, ['late@x.org'], 'the second flush saw the mail committed before it was called');
  await db.close();
});

test('a damaged queue row is set aside and does not block the mail behind it', async () => {
  const db = await open(tempDir());
  const t = transport();
  const { repo, queue } = queueOn(db, t, () => 1000);
  await repo.enqueue(message('first@x.org'), 1000, null);
  await repo.enqueue(message('second@x.org'), 1000, null);
  await db.query("UPDATE mail_queue SET message = '{broken' WHERE to_addr = 'first@x.org'");
  await queue.flush();
  assert.equal(t.sent, ['second@x.org']);
  assert.equal(await statuses(db), [
    { to_addr: 'first@x.org', status: 'failed', attempts: 1 },
    { to_addr: 'second@x.org', status: 'sent', attempts: 1 },
  ]);
  await db.close();
});

test('a started worker picks up mail another process queued, without being told', async () => {
  const dir = tempDir();
  const db = await open(dir);
  const other = await open(dir);
  const t = transport();
  const queue = new MailQueue(
    db.repos.mailQueue,
    db.repos.trackingErrors,
    t,
    () => Math.floor(Date.now() / 1000),
    silentLogger,
    { idlePollS: 1 },
  );
  queue.start();
  await new Promise((r) => setTimeout(r, 50));
  // Written straight to the table, as `ferry purge` in another process does: no kick reaches this worker.
  await other.repos.mailQueue.enqueue(message('cli@x.org'), Math.floor(Date.now() / 1000), null);
  const deadline = Date.now() + 5000;
  while (t.sent.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await queue.stop();
  assert.equal(t.sent, ['cli@x.org']);
  await db.close();
  await other.close();
});

test.run();
