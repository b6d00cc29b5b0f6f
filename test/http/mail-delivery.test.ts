import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TestServer, HEADER_SP, asUser, sql } from '../helpers/server';
import { addressOf, startScriptedSmtp, ScriptedSmtp } from '../helpers/mail';
import { availableTransfer as uploadedWhole } from '../helpers/factories';

// Each recipient's mail delivery as the owner sees it (the Recipient's `delivery`): queued, then sent, deferred
// (4xx, retried) or bounced (5xx), with the server's answer; and "Send again" (PUT /recipient/{id} remind),
// which sends that very mail again rather than a second one, for the owner only.
let s: TestServer;
let smtp: ScriptedSmtp;
const alice = asUser('alice');
const BUSY = { code: 450, text: '4.2.1 <busy@example.org>: Mailbox busy, try <b>later</b>' };
const GONE = { code: 550, text: '5.1.1 <gone@example.org>: User unknown' };

/** busy@ is deferred, gone@ bounces, every other address is accepted (each test starts so). */
const usual = (to: string) => (to === 'busy@example.org' ? BUSY : to === 'gone@example.org' ? GONE : null);

test.before(async () => {
  smtp = await startScriptedSmtp(usual);
  s = await startTestServer({ ...HEADER_SP, mail: { transport: smtp.url } });
});
test.before.each(() => {
  smtp.answer = usual;
});
test.after(async () => {
  await s.close();
  await smtp.close();
});

/** A Transfer of alice's, made available to these recipients (its mail queued, not yet delivered). */
async function availableTransfer(recipients: string[]) {
  const data = Buffer.from('data');
  const { t } = await uploadedWhole(s, [{ name: 'a.txt', data }], {
    headers: alice,
    chunk: 4,
    over: { recipients, subject: 'Figures' },
  });
  return t;
}

async function recipientsOf(id: number): Promise<Record<string, any>> {
  const view = await s.request('GET', `/transfer/${id}`, { headers: alice });
  assert.is(view.status, 200, view.text);
  return Object.fromEntries(view.json.recipients.map((r: any) => [r.email, r]));
}

const mailsTo = (address: string) => smtp.received.filter((m) => addressOf(m.to) === address);

test('each recipient shows its mail as queued, then sent, deferred (4xx) or bounced (5xx), with the server’s answer', async () => {
  const done = await availableTransfer(['ok@example.org', 'busy@example.org', 'gone@example.org']);
  // Right after completion nothing has been delivered yet: every recipient's mail is only queued.
  for (const r of done.recipients) {
    assert.is(r.delivery.state, 'queued', r.email);
    assert.is(r.delivery.reason, null);
  }
  await s.app.services.mailQueue.flush();
  const by = await recipientsOf(done.id);
  assert.is(by['ok@example.org'].delivery.state, 'sent');
  assert.type(by['ok@example.org'].delivery.date.raw, 'number');

  const busy = by['busy@example.org'].delivery;
  assert.is(busy.state, 'deferred');
  assert.match(busy.reason, '450 4.2.1 <busy@example.org>: Mailbox busy, try <b>later</b>');
  assert.is(busy.attempts, 1);
  assert.ok(busy.next_attempt.raw > Date.now() / 1000, 'retried later');

  const gone = by['gone@example.org'].delivery;
  assert.is(gone.state, 'bounced');
  assert.match(gone.reason, '550 5.1.1 <gone@example.org>: User unknown');
  assert.is(by['gone@example.org'].errors[0].type, 'bounce', 'the spec’s Tracking error is still recorded');

  // GET /recipient/{id} says the same.
  const one = await s.request('GET', `/recipient/${by['gone@example.org'].id}`, { headers: alice });
  assert.equal(one.json.delivery, gone);
  assert.is(mailsTo('ok@example.org').length, 1);
});

test('Send again (PUT /recipient/{id} remind) re-sends the deferred or bounced mail itself once the server accepts', async () => {
  const done = await availableTransfer(['busy@example.org', 'gone@example.org']);
  await s.app.services.mailQueue.flush();
  let by = await recipientsOf(done.id);
  assert.is(by['busy@example.org'].delivery.state, 'deferred');
  assert.is(by['gone@example.org'].delivery.state, 'bounced');
  const before = { busy: mailsTo('busy@example.org').length, gone: mailsTo('gone@example.org').length };

  // Still refused: sending again leads to the same answer, recorded again.
  const again = await s.request('PUT', `/recipient/${by['gone@example.org'].id}`, {
    headers: alice,
    json: { remind: true },
  });
  assert.is(again.status, 200, again.text);
  assert.is(again.json.delivery.state, 'queued', 'queued again at once');
  await s.app.services.mailQueue.flush();
  by = await recipientsOf(done.id);
  assert.is(by['gone@example.org'].delivery.state, 'bounced');

  // The mail server takes them now.
  smtp.answer = () => null;
  for (const who of ['busy@example.org', 'gone@example.org']) {
    const r = await s.request('PUT', `/recipient/${by[who].id}`, { headers: alice, json: { remind: true } });
    assert.is(r.status, 200, r.text);
    assert.is(r.json.delivery.state, 'queued');
    assert.is(r.json.delivery.reason, null);
  }
  await s.app.services.mailQueue.flush();
  by = await recipientsOf(done.id);
  assert.is(by['busy@example.org'].delivery.state, 'sent');
  assert.is(by['gone@example.org'].delivery.state, 'sent');
  // Exactly one mail each, the original one ("sent you files"), not a reminder beside a late original.
  for (const who of ['busy@example.org', 'gone@example.org'] as const) {
    const got = mailsTo(who).slice(before[who === 'busy@example.org' ? 'busy' : 'gone']);
    assert.is(got.length, 1, who);
    assert.is(got[0].subject, 'alice@example.org sent you files: Figures');
  }
  // Once delivered, the same call is an ordinary reminder again.
  assert.is(
    (await s.request('PUT', `/recipient/${by['busy@example.org'].id}`, { headers: alice, json: { remind: true } }))
      .status,
    200,
  );
  await s.app.services.mailQueue.flush();
  const last = mailsTo('busy@example.org').at(-1)!;
  assert.match(last.subject!, /^Reminder/);
  // The audit log names the owner's requests as the spec's events, whatever the mail did.
  const log = await s.request('GET', `/transfer/${done.id}/auditlog`, { headers: alice });
  assert.ok(log.json.some((e: any) => e.event === 'transfer_sent'));
  assert.is(log.json.filter((e: any) => e.event === 'transfer_reminded').length, 4);
});

test('"remind all" sends the undelivered mail again and reminds the others, no address twice', async () => {
  const done = await availableTransfer(['ok@example.org', 'busy@example.org']);
  await s.app.services.mailQueue.flush();
  smtp.answer = () => null;
  const before = smtp.received.length;
  assert.is((await s.request('PUT', `/transfer/${done.id}`, { headers: alice, json: { remind: true } })).status, 200);
  await s.app.services.mailQueue.flush();
  const got = smtp.received
    .slice(before)
    .map((m) => `${addressOf(m.to)} ${m.subject}`)
    .sort();
  assert.equal(got, [
    'busy@example.org alice@example.org sent you files: Figures',
    'ok@example.org Reminder: alice@example.org sent you files: Figures',
  ]);
});

test('only the owner sees the delivery state or sends again: 401 anonymous, 404 for another user, nothing re-queued', async () => {
  const done = await availableTransfer(['gone@example.org']);
  await s.app.services.mailQueue.flush();
  const id = done.recipients[0].id;
  const rows = () =>
    sql(
      s,
      `SELECT status, attempts, next_attempt FROM mail_queue WHERE target_type = 'Recipient' AND target_id = ?`,
      id,
    );
  const before = await rows();
  assert.is(before.length, 1);
  assert.is(before[0].status, 'failed');

  const anonymous = await s.request('PUT', `/recipient/${id}`, { json: { remind: true } });
  assert.is(anonymous.status, 401, anonymous.text);
  const mallory = asUser('mallory');
  const other = await s.request('PUT', `/recipient/${id}`, { headers: mallory, json: { remind: true } });
  assert.is(other.status, 404, other.text);
  assert.is(other.json.message, 'recipient_not_found');
  assert.is((await s.request('GET', `/recipient/${id}`, { headers: mallory })).status, 404);
  assert.is((await s.request('GET', `/transfer/${done.id}`, { headers: mallory })).status, 404);
  assert.is((await s.request('GET', `/recipient/${id}`)).status, 401);
  assert.equal(await rows(), before, 'the bounced mail was not queued again');

  // A wrong value is refused before anything happens.
  const bad = await s.request('PUT', `/recipient/${id}`, { headers: alice, json: { remind: 'yes' } });
  assert.is(bad.status, 400);
  assert.equal(await rows(), before);
});

test('a closed transfer’s undelivered mail is not sent again', async () => {
  const done = await availableTransfer(['gone@example.org', 'ok@example.org']);
  await s.app.services.mailQueue.flush();
  const gone = done.recipients.find((r: any) => r.email === 'gone@example.org');
  assert.is((await s.request('PUT', `/transfer/${done.id}`, { headers: alice, json: { closed: true } })).status, 200);
  const r = await s.request('PUT', `/recipient/${gone.id}`, { headers: alice, json: { remind: true } });
  assert.ok(r.status >= 400 && r.status < 500, `${r.status} ${r.text}`);
  const [row] = await sql(
    s,
    `SELECT status FROM mail_queue WHERE target_type = 'Recipient' AND target_id = ? ORDER BY id DESC`,
    gone.id,
  );
  assert.is(row.status, 'failed');
});

test.run();
