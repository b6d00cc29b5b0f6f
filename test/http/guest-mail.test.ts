import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ParsedMail } from 'mailparser';
import { HEADER_SP, asUser } from '../helpers/server';
import { serverWithSink } from '../helpers/mail-server';
import { addressOf } from '../helpers/mail';
import { GUEST_OPTIONS } from '../../src/domain/options';
import { delivered as deliveredMail } from '../helpers/factories';

// The mails of a Guest's life, delivered over real SMTP into the sink: invitation, receipt, reminder,
// withdrawal, expiry — and the options that turn them on or off.
const DAY = 86400;
const { s, sink } = serverWithSink(test, (sink) => ({
  ...HEADER_SP,
  default_lang: 'en',
  mail: { transport: sink.url, from: 'ferry@files.example' },
}));

/** Delivers everything queued (the queue sends in order, one at a time) and returns the mails received since `from`. */
const delivered = (from = 0): Promise<ParsedMail[]> => deliveredMail(s, sink, from);

async function createGuest(user: string, body: Record<string, unknown>) {
  const r = await s.request('POST', '/guest', { headers: asUser(user), json: body });
  assert.is(r.status, 201, r.text);
  return r.json;
}

const summary = (mails: ParsedMail[]) => mails.map((m) => `${addressOf(m.to)}: ${m.subject}`);

test('invitation to the guest: subject, message, upload link; receipt to the creator when asked', async () => {
  const seen = sink.raw().length;
  const g = await createGuest('alice', {
    recipient: 'gus@example.net',
    subject: 'Lab scans',
    message: 'Please upload the scans of Tuesday',
    options: ['email_guest_created_receipt'],
  });
  const mails = await delivered(seen);
  assert.is(mails.length, 2, summary(mails).join('; '));
  const byTo = Object.fromEntries(mails.map((m) => [addressOf(m.to), m]));
  const invite = byTo['gus@example.net'];
  const receipt = byTo['alice@example.org'];
  assert.ok(invite && receipt, 'guest and creator both got a mail');
  assert.match(invite.subject!, 'alice@example.org invites you to send files');
  assert.match(invite.subject!, 'Lab scans');
  assert.match(invite.text!, 'Please upload the scans of Tuesday');
  assert.match(invite.text!, `${s.url}/?s=upload&vid=${g.token}`);
  assert.is(addressOf(invite.replyTo), 'alice@example.org');
  assert.is(receipt.subject, 'Invitation sent to gus@example.net');
  assert.not.match(receipt.text!, g.token);
});

test('no receipt unless asked; no invitation when email_guest_created is turned off', async () => {
  const seen = sink.raw().length;
  await createGuest('bob', { recipient: 'quiet@example.net', options: { email_guest_created: false } });
  await createGuest('bob', { recipient: 'plain@example.net' });
  assert.equal(summary(await delivered(seen)), ['plain@example.net: bob@example.org invites you to send files']);
});

test('the invitation box means what it says in every form a client sends: the page names every option, FileSender nests them', async () => {
  const seen = sink.raw().length;
  const everyOption = (invite: boolean) =>
    Object.fromEntries(
      GUEST_OPTIONS.map((o) => [o, o === 'email_guest_created' ? invite : o === 'email_upload_started']),
    );
  const off = await createGuest('erin', { recipient: 'page-off@example.net', options: everyOption(false) });
  assert.not.ok(off.options.includes('email_guest_created'), off.options.join());
  const nested = await createGuest('erin', {
    recipient: 'nested-off@example.net',
    options: { guest: { email_guest_created: false, email_guest_created_receipt: true } },
  });
  assert.equal(nested.options, ['email_guest_created_receipt']);
  const on = await createGuest('erin', { recipient: 'page-on@example.net', options: everyOption(true) });
  assert.ok(on.options.includes('email_guest_created'), on.options.join());
  // Unticked: no invitation, and no receipt claiming one was sent; ticked: the invitation.
  assert.equal(summary(await delivered(seen)), ['page-on@example.net: erin@example.org invites you to send files']);
});

test('reminder: the invitation again, with the same link', async () => {
  const g = await createGuest('carol', { recipient: 'rem@example.net', subject: 'Data' });
  const seen = (await delivered(0)).length;
  const r = await s.request('PUT', `/guest/${g.id}`, { headers: asUser('carol'), json: { remind: true } });
  assert.is(r.json, true);
  const mails = await delivered(seen);
  assert.equal(summary(mails), ['rem@example.net: Reminder: carol@example.org invites you to send files: Data']);
  assert.match(mails[0].text!, `${s.url}/?s=upload&vid=${g.token}`);
});

test('deletion: the guest is told, without the link; deleting again sends nothing', async () => {
  const g = await createGuest('dave', { recipient: 'gone@example.net' });
  const seen = (await delivered(0)).length;
  assert.is((await s.request('DELETE', `/guest/${g.id}`, { headers: asUser('dave') })).json, true);
  assert.is((await s.request('DELETE', `/guest/${g.id}`, { headers: asUser('dave') })).json, true);
  const remind = await s.request('PUT', `/guest/${g.id}`, { headers: asUser('dave'), json: { remind: true } });
  assert.is(remind.status, 409);
  const mails = await delivered(seen);
  assert.equal(summary(mails), ['gone@example.net: Your invitation from dave@example.org was withdrawn']);
  assert.not.match(mails[0].text!, g.token);
});

test('expiry: closeExpired mails the guest only with email_guest_expired', async () => {
  const now = Math.floor(Date.now() / 1000);
  const told = await createGuest('erin', {
    recipient: 'told@example.net',
    expires: now + DAY,
    options: ['email_guest_expired'],
  });
  const silent = await createGuest('erin', { recipient: 'silent@example.net', expires: now + DAY });
  const seen = (await delivered(0)).length;
  const closed = (await s.app.services.guests.closeExpired(now + 2 * DAY)).map((g) => g.id);
  assert.ok(closed.includes(told.id) && closed.includes(silent.id));
  assert.equal(summary(await delivered(seen)), ['told@example.net: Your invitation from erin@example.org has expired']);
});

test.run();
