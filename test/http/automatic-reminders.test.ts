import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HEADER_SP, asUser, sql } from '../helpers/server';
import { serverWithSink } from '../helpers/mail-server';
import { addressOf } from '../helpers/mail';
import { sendChunks } from '../helpers/upload-client';

// Automatic reminders (docs/sharing.md): at each configured number of days before expiry, recipients who have
// not downloaded everything, and guests who have not used their invitation, get a reminder, sent by the purge
// pass; claimed in the database, so passes run again, or at once, send each one once.

const DAY = 86400;
const alice = asUser('alice');
const { s, sink } = serverWithSink(test, (sink) => ({
  ...HEADER_SP,
  mail: { transport: sink.url },
  transfer_automatic_reminder: [3, 1],
  guest_automatic_reminder: [2],
  admin: ['root'],
}));

async function mailsTo(address: string, subject: RegExp) {
  await s.app.services.mailQueue.flush();
  return (await sink.messages()).filter((m) => addressOf(m.to) === address && subject.test(m.subject ?? ''));
}

test('config: the marks are validated, and shown to admins in GET /config', async () => {
  const { validateConfig } = await import('../../src/config/validate');
  assert.throws(
    () => validateConfig({ transfer_automatic_reminder: [0] }, 'test'),
    /transfer_automatic_reminder\[0\]: must be between 1 and 365/,
  );
  assert.throws(() => validateConfig({ guest_automatic_reminder: 'soon' }, 'test'), /guest_automatic_reminder/);
  const cfg = await s.request('GET', '/config', { headers: asUser('root') });
  assert.is(cfg.status, 200, cfg.text);
  assert.equal(cfg.json.transfer_automatic_reminder, [3, 1]);
  assert.equal(cfg.json.guest_automatic_reminder, [2]);
  const changed = await s.request('PUT', '/config', {
    headers: asUser('root'),
    json: { guest_automatic_reminder: [-1] },
  });
  assert.equal([changed.status, changed.json.message], [400, 'rest_bad_parameter']);
});

test('transfer: each day-mark once per recipient who has not downloaded everything, however many passes', async () => {
  const now = Math.floor(Date.now() / 1000);
  const created = await s.request('POST', '/transfer', {
    headers: alice,
    json: {
      files: [{ name: 'a.txt', size: 5 }],
      recipients: ['slow@example.org', 'quick@example.org'],
      from: 'alice@example.org',
      expires: now + 5 * DAY,
    },
  });
  assert.is(created.status, 201, created.text);
  const t = created.json;
  await sendChunks(s.request, t.files[0].id, Buffer.from('hello'), 5, { headers: alice });
  await s.request('PUT', `/file/${t.files[0].id}`, { headers: alice, json: { complete: true } });
  const done = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  const quick = done.json.recipients.find((r: { email: string }) => r.email === 'quick@example.org');
  await (await fetch(`${s.url}/download?token=${quick.token}&files_ids=${t.files[0].id}`)).arrayBuffer();
  const expires = done.json.expires.raw as number;
  const purge = (at: number) => s.app.services.purge.run({ now: at });

  await purge(expires - 4 * DAY);
  assert.is((await mailsTo('slow@example.org', /^Reminder/)).length, 0, 'no mark reached yet');
  // Three passes at once (as three nodes and a cron run would), then one more: one reminder.
  const reports = await Promise.all([
    purge(expires - 3 * DAY + 60),
    purge(expires - 3 * DAY + 60),
    purge(expires - 3 * DAY + 61),
  ]);
  assert.is(
    reports.reduce((n, r) => n + (r.reminders_sent?.recipients ?? 0), 0),
    1,
  );
  await purge(expires - 2 * DAY);
  assert.is((await mailsTo('slow@example.org', /^Reminder/)).length, 1);
  assert.is((await mailsTo('quick@example.org', /^Reminder/)).length, 0, 'who has everything is not reminded');
  await purge(expires - DAY + 60);
  await purge(expires - DAY + 120);
  assert.is((await mailsTo('slow@example.org', /^Reminder/)).length, 2, 'the 1-day mark once more');
  const rows = await sql(s, "SELECT days FROM automatic_reminders WHERE target_type = 'Recipient' ORDER BY days");
  assert.equal(
    rows.map((r) => Number(r.days)),
    [1, 3],
  );
  const log = await s.request('GET', `/transfer/${t.id}/auditlog`, { headers: alice });
  const entries = log.json.filter((e: { event: string }) => e.event === 'transfer_automatic_reminder');
  assert.is(entries.length, 2);
  assert.is(entries[0].target.email, 'slow@example.org');
});

test('guest: an unused invitation is reminded once at its mark; a mark passed before the invitation is not sent', async () => {
  const now = Math.floor(Date.now() / 1000);
  const g = await s.request('POST', '/guest', {
    headers: alice,
    json: { recipient: 'gus@example.org', from: 'alice@example.org', expires: now + 4 * DAY, options: [] },
  });
  assert.is(g.status, 201, g.text);
  const short = await s.request('POST', '/guest', {
    headers: alice,
    json: { recipient: 'hal@example.org', from: 'alice@example.org', expires: now + DAY, options: [] },
  });
  assert.is(short.status, 201, short.text);
  const expires = g.json.expires.raw as number;
  for (let i = 0; i < 3; i++) await s.app.services.purge.run({ now: expires - 2 * DAY + 60 + i });
  assert.is((await mailsTo('gus@example.org', /^Reminder/)).length, 1);
  assert.is((await mailsTo('hal@example.org', /^Reminder/)).length, 0, 'its 2-day mark was before it was made');
});

test.run();
