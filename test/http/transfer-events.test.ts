import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ParsedMail } from 'mailparser';
import { HEADER_SP, asUser } from '../helpers/server';
import { serverWithSink } from '../helpers/mail-server';
import { addressOf } from '../helpers/mail';
import { inAWeek, sendChunks } from '../helpers/upload-client';
import { delivered as deliveredMail } from '../helpers/factories';

// The spec's Events: every case that mails, delivered over real SMTP into the sink, and the options of
// docs/architecture.md, Options that turn mails on or off.
const alice = asUser('alice');
const { s, sink } = serverWithSink(test, (sink) => ({
  ...HEADER_SP,
  default_lang: 'en',
  mail: { transport: sink.url, from: 'ferry@files.example' },
}));

/** Delivers what is queued so far and returns how many mails the sink holds: the mark for delivered(). */
async function mark(): Promise<number> {
  await s.app.services.mailQueue.flush();
  await s.app.services.mailQueue.flush();
  return sink.raw().length;
}

const delivered = (from = 0): Promise<ParsedMail[]> => deliveredMail(s, sink, from);
const summary = (mails: ParsedMail[]) => mails.map((m) => `${addressOf(m.to)}: ${m.subject}`).sort();

async function create(over: Record<string, unknown> = {}) {
  const body = {
    files: [
      { name: 'a.txt', size: 3 },
      { name: 'b.txt', size: 3 },
    ],
    recipients: ['r1@example.org', 'r2@example.org'],
    from: 'alice@example.org',
    expires: inAWeek(),
    ...over,
  };
  const r = await s.request('POST', '/transfer', { headers: alice, json: body });
  assert.is(r.status, 201, r.text);
  return r.json;
}

async function upload(t: any) {
  for (const f of t.files) {
    for (const r of await sendChunks(s.request, f.id, Buffer.alloc(f.size, 120), 1024, { headers: alice }))
      assert.is(r.status, 200, r.text);
    assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  }
}

async function available(over: Record<string, unknown> = {}) {
  const t = await create(over);
  await upload(t);
  const done = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  return done.json;
}

test('complete: each recipient gets its own link; a retried completion mails nobody twice; no mail before', async () => {
  const seen = await mark();
  const t = await create();
  await upload(t);
  assert.equal(await delivered(seen), [], 'nothing is sent before the Transfer is complete');
  assert.is(
    (await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } })).json.status,
    'available',
  );
  assert.is((await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } })).status, 200);
  const mails = await delivered(seen);
  assert.equal(summary(mails), [
    'r1@example.org: alice@example.org sent you files',
    'r2@example.org: alice@example.org sent you files',
  ]);
  for (const [i, m] of mails.entries()) {
    const r = t.recipients.find((x: any) => x.email === addressOf(m.to));
    assert.match(m.text!, `${s.url}/?s=download&token=${r.token}`, `mail ${i} carries its own link`);
    assert.is(addressOf(m.replyTo), 'alice@example.org');
  }
});

test('email_upload_complete tells the sender; get_a_link mails no recipient; add_me_to_recipients mails the sender too', async () => {
  let seen = await mark();
  await available({ options: ['email_upload_complete'] });
  assert.ok(summary(await delivered(seen)).includes('alice@example.org: Your files were sent'));
  seen = await mark();
  const link = await available({ recipients: [], options: ['get_a_link'] });
  assert.is(link.recipients.length, 1);
  assert.equal(await delivered(seen), [], 'a link transfer mails nobody');
  seen = await mark();
  await available({ recipients: ['r3@example.org'], options: ['add_me_to_recipients'] });
  assert.equal(summary(await delivered(seen)), [
    'alice@example.org: alice@example.org sent you files',
    'r3@example.org: alice@example.org sent you files',
  ]);
});

test('remind: the Transfer reminds every recipient, a Recipient only itself; not before available (409)', async () => {
  const early = await create();
  const refused = await s.request('PUT', `/transfer/${early.id}`, { headers: alice, json: { remind: true } });
  assert.is(refused.status, 409);
  const t = await available();
  let seen = await mark();
  assert.is((await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { remind: true } })).status, 200);
  assert.equal(summary(await delivered(seen)), [
    'r1@example.org: Reminder: alice@example.org sent you files',
    'r2@example.org: Reminder: alice@example.org sent you files',
  ]);
  seen = await mark();
  const r = await s.request('PUT', `/recipient/${t.recipients[1].id}`, { headers: alice, json: { remind: true } });
  assert.is(r.status, 200);
  assert.is(r.json.email, 'r2@example.org');
  assert.equal(summary(await delivered(seen)), ['r2@example.org: Reminder: alice@example.org sent you files']);
  seen = await mark();
  assert.is((await s.request('PUT', `/recipient/${t.recipients[1].id}`, { headers: alice, json: {} })).status, 200);
  assert.is(
    (await s.request('PUT', `/recipient/${t.recipients[1].id}`, { headers: alice, json: { remind: 'yes' } })).status,
    400,
  );
  assert.equal(await delivered(seen), [], 'no remind, no mail');
  const log = (await s.request('GET', `/transfer/${t.id}/auditlog`, { headers: alice })).json;
  const reminded = log.filter((e: any) => e.event === 'transfer_reminded').map((e: any) => e.target);
  assert.equal(reminded, [
    { type: 'Transfer', id: String(t.id) },
    { type: 'Recipient', id: String(t.recipients[1].id), email: 'r2@example.org' },
  ]);
});

test('a recipient added to an available Transfer is mailed its link; one added before availability waits', async () => {
  const early = await create();
  let seen = await mark();
  const waiting = await s.request('POST', `/transfer/${early.id}/recipient`, {
    headers: alice,
    json: { recipient: 'later@example.org' },
  });
  assert.is(waiting.status, 201);
  assert.equal(await delivered(seen), []);
  await upload(early);
  await s.request('PUT', `/transfer/${early.id}`, { headers: alice, json: { complete: true } });
  assert.ok(summary(await delivered(seen)).includes('later@example.org: alice@example.org sent you files'));
  const t = await available();
  seen = await mark();
  const added = await s.request('POST', `/transfer/${t.id}/recipient`, {
    headers: alice,
    json: { recipient: 'new@example.org' },
  });
  assert.is(added.status, 201);
  const mails = await delivered(seen);
  assert.equal(summary(mails), ['new@example.org: alice@example.org sent you files']);
  assert.match(mails[0].text!, added.json.download_url);
});

test('removing a file tells the recipients; the last file closes the Transfer and reports when asked', async () => {
  const t = await available({ options: ['email_report_on_closing'] });
  let seen = await mark();
  assert.is((await s.request('DELETE', `/file/${t.files[0].id}`, { headers: alice })).json, true);
  assert.equal(summary(await delivered(seen)), [
    'r1@example.org: A file was removed from the files alice@example.org sent you',
    'r2@example.org: A file was removed from the files alice@example.org sent you',
  ]);
  seen = await mark();
  assert.is((await s.request('DELETE', `/file/${t.files[1].id}`, { headers: alice })).json, true);
  assert.equal(summary(await delivered(seen)), [`alice@example.org: Transfer #${t.id} is closed`]);
  const after = (await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json;
  assert.is(after.status, 'closed');
  assert.is((await s.request('DELETE', `/file/${t.files[1].id}`, { headers: alice })).status, 404);
});

test('removing a recipient tells that recipient only; the last one closes the Transfer', async () => {
  const t = await available();
  let seen = await mark();
  assert.is((await s.request('DELETE', `/recipient/${t.recipients[0].id}`, { headers: alice })).json, true);
  assert.equal(summary(await delivered(seen)), [
    'r1@example.org: Files from alice@example.org are no longer available to you',
  ]);
  seen = await mark();
  assert.is((await s.request('DELETE', `/recipient/${t.recipients[1].id}`, { headers: alice })).json, true);
  assert.equal(await delivered(seen), [], 'closing without email_report_on_closing mails nobody');
  assert.is((await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json.status, 'closed');
  const d = await fetch(`${s.url}/download?token=${t.recipients[1].token}&files_ids=${t.files[0].id}`);
  assert.is(d.status >= 400, true, 'a closed Transfer serves no bytes');
});

test('closing by PUT {closed} reports to the owner only with email_report_on_closing', async () => {
  const quiet = await available();
  let seen = await mark();
  assert.is(
    (await s.request('PUT', `/transfer/${quiet.id}`, { headers: alice, json: { closed: true } })).json.status,
    'closed',
  );
  assert.equal(await delivered(seen), []);
  const loud = await available({ options: ['email_report_on_closing'] });
  seen = await mark();
  await s.request('DELETE', `/transfer/${loud.id}`, { headers: alice });
  assert.equal(summary(await delivered(seen)), [`alice@example.org: Transfer #${loud.id} is closed`]);
});

test('GET /transfer/{id}/auditlog/mail sends the audit log to the asking user', async () => {
  const t = await available();
  const seen = await mark();
  const r = await s.request('GET', `/transfer/${t.id}/auditlog/mail`, { headers: alice });
  assert.is(r.status, 200);
  assert.is(r.json, true);
  const mails = await delivered(seen);
  assert.equal(summary(mails), [`alice@example.org: Audit log of transfer #${t.id}`]);
  assert.match(mails[0].text!, 'transfer_available');
  assert.is((await s.request('GET', `/transfer/${t.id}/auditlog/mail`, { headers: asUser('bob') })).status, 404);
});

test.run();
