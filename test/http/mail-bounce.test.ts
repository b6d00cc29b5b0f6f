import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { startTestServer, TestServer, HEADER_SP, asUser, sqlOne } from '../helpers/server';
import { startTestSink, addressOf, TestSink } from '../helpers/mail';
import { sendChunks } from '../helpers/upload-client';

// A delivery refused by the SMTP server, seen as the owner sees it: a `bounce` Tracking error in the
// Recipient's or Guest's `errors`, through the REST API, while the other addresses get their mail.
let s: TestServer;
let sink: TestSink;
const alice = asUser('alice');

test.before(async () => {
  sink = await startTestSink({ rejectRecipients: /@nowhere\.example$/ });
  s = await startTestServer({ ...HEADER_SP, mail: { transport: sink.url } });
});
test.after(async () => {
  await s.close();
  await sink.close();
});

async function deliverAll() {
  await s.app.services.mailQueue.flush();
  await s.app.services.mailQueue.flush();
}

test('a refused recipient shows a bounce in GET /transfer/{id} and GET /recipient/{id}; the other gets the mail', async () => {
  const created = await s.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({
      files: [{ name: 'a.txt', size: 4 }],
      recipients: ['ghost@nowhere.example', 'bob@example.org'],
    }),
  });
  assert.is(created.status, 201, created.text);
  const t = created.json;
  for (const r of await sendChunks(s.request, t.files[0].id, Buffer.from('data'), 4, { headers: alice }))
    assert.is(r.status, 200, r.text);
  assert.is(
    (await s.request('PUT', `/file/${t.files[0].id}`, { headers: alice, json: { complete: true } })).status,
    200,
  );
  const before = sink.raw().length;
  const done = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, 'the REST call succeeds whatever SMTP says');
  await deliverAll();
  const mails = (await sink.messages()).slice(before);
  assert.equal(
    mails.map((m) => addressOf(m.to)),
    ['bob@example.org'],
  );

  const view = await s.request('GET', `/transfer/${t.id}`, { headers: alice });
  const byEmail = Object.fromEntries(view.json.recipients.map((r: any) => [r.email, r]));
  assert.equal(byEmail['bob@example.org'].errors, []);
  const errs = byEmail['ghost@nowhere.example'].errors;
  assert.is(errs.length, 1);
  assert.is(errs[0].type, 'bounce');
  assert.type(errs[0].date.raw, 'number');
  assert.match(errs[0].date.formatted, /^\d{1,2} [A-Z][a-z]{2,3} \d{4}$/);
  assert.match(errs[0].details, /^550 5\.1\.1 <ghost@nowhere\.example>: Recipient address rejected/);

  const one = await s.request('GET', `/recipient/${byEmail['ghost@nowhere.example'].id}`, { headers: alice });
  assert.equal(one.json.errors, errs);

  // A reminder to the same address bounces again: one more error, nothing else breaks.
  assert.is(
    (await s.request('PUT', `/recipient/${one.json.id}`, { headers: alice, json: { remind: true } })).status,
    200,
  );
  await deliverAll();
  assert.is((await s.request('GET', `/recipient/${one.json.id}`, { headers: alice })).json.errors.length, 2);
});

test('a refused guest address shows a bounce in GET /guest/{id}', async () => {
  const g = await s.request('POST', '/guest', {
    headers: alice,
    json: { recipient: 'nobody@nowhere.example', from: 'alice@example.org' },
  });
  assert.is(g.status, 201, g.text);
  assert.equal(g.json.errors, []);
  await deliverAll();
  const after = await s.request('GET', `/guest/${g.json.id}`, { headers: alice });
  assert.is(after.json.errors.length, 1);
  assert.is(after.json.errors[0].type, 'bounce');
  assert.match(after.json.errors[0].details, 'nobody@nowhere.example');
  const row = (await sqlOne(s, `SELECT status FROM mail_queue WHERE to_addr = ?`, 'nobody@nowhere.example')) as {
    status: string;
  };
  assert.is(row.status, 'failed', 'a bounce is not retried');
});

test.run();
