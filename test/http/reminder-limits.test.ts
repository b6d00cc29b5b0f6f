import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ParsedMail } from 'mailparser';
import { HEADER_SP, asUser, sql } from '../helpers/server';
import { serverWithSink } from '../helpers/mail-server';
import { addressOf } from '../helpers/mail';
import { availableTransfer, delivered as deliveredMail } from '../helpers/factories';

// Reminders by hand are bounded (docs/sharing.md, "Reminders"): each recipient and each guest gets at most 3 a
// day, whichever route asks; one more is 429 rate_limit_exceeded with details and Retry-After, in the spec's shape.

const alice = asUser('alice');
const { s, sink } = serverWithSink(test, (sink) => ({
  ...HEADER_SP,
  default_lang: 'en',
  mail: { transport: sink.url, from: 'ferry@f.example' },
}));

const delivered = (from = 0): Promise<ParsedMail[]> => deliveredMail(s, sink, from);
const to = (mails: ParsedMail[], addr: string) => mails.filter((m) => addressOf(m.to) === addr);

function assertLimited(r: { status: number; json: any; headers: Headers }) {
  assert.is(r.status, 429, JSON.stringify(r.json));
  assert.is(r.json.message, 'rate_limit_exceeded');
  assert.is(r.json.details[0], 'remind');
  const m = /^retry_after=(\d+)$/.exec(r.json.details[1]);
  assert.ok(m, `details ${JSON.stringify(r.json.details)}`);
  assert.ok(Number(m![1]) > 86000 && Number(m![1]) <= 86400, `retry after ${m![1]} s`);
  assert.is(r.headers.get('retry-after'), m![1]);
  assert.type(r.json.uid, 'string');
}

test('a transfer: 15 reminders and 5 to the recipient give one address its mail and 3 reminders, then 429', async () => {
  const seen = sink.raw().length;
  const { t } = await availableTransfer(s, [{ name: 'a.txt', data: Buffer.from('0123456789') }], {
    over: { recipients: ['flooded@example.org'] },
  });
  const answers: number[] = [];
  let last: any;
  for (let i = 0; i < 15; i++) {
    last = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { remind: true } });
    answers.push(last.status);
  }
  assert.equal(answers, [200, 200, 200, ...Array(12).fill(429)]);
  assertLimited(last);
  const rid = t.recipients[0].id;
  for (let i = 0; i < 5; i++) {
    const r = await s.request('PUT', `/recipient/${rid}`, { headers: alice, json: { remind: true } });
    assertLimited(r);
  }
  const mails = to(await delivered(seen), 'flooded@example.org');
  assert.is(mails.length, 4, mails.map((m) => m.subject).join('; '));
  // A day later the owner may remind again.
  await sql(s, 'UPDATE login_failures SET at = at - 86400 WHERE key = ?', `remind:recipient:${rid}`);
  assert.is((await s.request('PUT', `/recipient/${rid}`, { headers: alice, json: { remind: true } })).status, 200);
});

test('a reminder to all leaves out the recipients who had their 3, and is refused when that is everyone', async () => {
  const seen = sink.raw().length;
  const { t } = await availableTransfer(s, [{ name: 'b.txt', data: Buffer.from('0123456789') }], {
    over: { recipients: ['one@example.org', 'two@example.org'] },
  });
  const one = t.recipients.find((r: any) => r.email === 'one@example.org').id;
  for (let i = 0; i < 3; i++)
    assert.is((await s.request('PUT', `/recipient/${one}`, { headers: alice, json: { remind: true } })).status, 200);
  for (let i = 0; i < 3; i++)
    assert.is((await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { remind: true } })).status, 200);
  assertLimited(await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { remind: true } }));
  const mails = await delivered(seen);
  assert.is(to(mails, 'one@example.org').length, 4, 'the availability mail and 3 reminders');
  assert.is(to(mails, 'two@example.org').length, 4);
});

test('a guest: 10 reminders give the invitation and 3 reminders, then 429', async () => {
  const seen = sink.raw().length;
  const g = await s.request('POST', '/guest', { headers: alice, json: { recipient: 'gus@example.net' } });
  assert.is(g.status, 201, g.text);
  const answers: number[] = [];
  let last: any;
  for (let i = 0; i < 10; i++) {
    last = await s.request('PUT', `/guest/${g.json.id}`, { headers: alice, json: { remind: true } });
    answers.push(last.status);
  }
  assert.equal(answers, [200, 200, 200, ...Array(7).fill(429)]);
  assertLimited(last);
  assert.is(to(await delivered(seen), 'gus@example.net').length, 4);
});

test('reminders asked at once are counted one by one', async () => {
  const seen = sink.raw().length;
  const { t } = await availableTransfer(s, [{ name: 'c.txt', data: Buffer.from('0123456789') }], {
    over: { recipients: ['rush@example.org'] },
  });
  const all = await Promise.all(
    Array.from({ length: 8 }, () => s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { remind: true } })),
  );
  assert.equal(all.map((r) => r.status).sort(), [200, 200, 200, 429, 429, 429, 429, 429]);
  assert.is(to(await delivered(seen), 'rush@example.org').length, 4);
});

test.run();
