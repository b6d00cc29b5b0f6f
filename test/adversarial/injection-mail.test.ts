import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { simpleParser, ParsedMail } from 'mailparser';
import { HEADER_SP, asUser } from '../helpers/server';
import { serverWithSink } from '../helpers/mail-server';
import { addressOf } from '../helpers/mail';
import { inAWeek, sendChunks } from '../helpers/upload-client';
import { alice, assertErrorShape } from './fixture';
import { HOSTILE_TEXTS, ODD_ADDRESSES, UNSAFE, assertCleanMailHead } from './injection-fixture';

// Injection through subjects, messages and e-mail addresses: each goes through a whole Transfer
// or Guest and its mail into the real SMTP sink; the stored .eml must carry only ferry's own header lines,
// the HTML part and every page must show the text escaped. A subject is one line: line breaks and other
// control characters in it are refused, as POST /guest does; a message keeps its lines and is stored as given.
const boss = asUser('boss');
const ONE_LINE = /^[^\u0000-\u0008\u000a-\u001f\u007f]*$/;
const sent: { subject: string | null; message: string; to: string[]; token: string; id: number }[] = [];

const { s, sink } = serverWithSink(test, (sink) => ({
  ...HEADER_SP,
  admin: ['boss'],
  mail: { transport: sink.url, sink: { dir: sink.dir, port: sink.port } },
}));

/** Each run of hidden characters as one space: what a header line may show. */
const oneLine = (text: string) => text.replace(new RegExp(`${UNSAFE.source}+`, 'g'), ' ').trim();

async function sendTransfer(subject: string | null, message: string, to: string[]) {
  const r = await s.request('POST', '/transfer', {
    headers: alice,
    json: {
      files: [{ name: 'f.txt', size: 2 }],
      recipients: to,
      from: 'alice@example.org',
      expires: inAWeek(),
      subject,
      message,
    },
  });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.subject, subject);
  assert.is(r.json.message, message);
  await sendChunks(s.request, r.json.files[0].id, Buffer.from('ok'), 1024, { headers: alice });
  assert.is(
    (await s.request('PUT', `/file/${r.json.files[0].id}`, { headers: alice, json: { complete: true } })).status,
    200,
  );
  const done = await s.request('PUT', `/transfer/${r.json.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  sent.push({ subject, message, to, token: done.json.recipients[0].token, id: r.json.id });
}

async function mailsTo(address: string, n: number): Promise<{ raw: string; mail: ParsedMail }[]> {
  await sink.waitFor(1);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const all = await Promise.all(sink.raw().map(async (raw) => ({ raw, mail: await simpleParser(raw) })));
    const mine = all.filter((m) => addressOf(m.mail.to) === address);
    if (mine.length >= n || Date.now() > deadline) return mine;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function assertSafeMail(raw: string, mail: ParsedMail, label: string): void {
  const head = assertCleanMailHead(raw, label);
  assert.ok(!/x-injected|bcc/i.test(Object.keys(head).join(' ')), `${label}: injected header`);
  assert.not.ok(/[\r\n]/.test(mail.subject ?? ''), `${label}: subject`);
  assert.not.ok(UNSAFE.test(mail.subject ?? ''), `${label}: hidden characters in the subject`);
  assert.is(mail.bcc, undefined, `${label}: Bcc`);
  const htmlPart = String(mail.html);
  assert.not.match(htmlPart, '<script>alert', label);
  assert.not.match(htmlPart, '<html>body', label);
  assert.not.ok(/[\u202a-\u202e\u2066-\u2069]/.test(htmlPart), `${label}: bidi override in the HTML part`);
  for (const line of (mail.text ?? '').split('\n'))
    assert.not.ok(UNSAFE.test(line.replace(/\r$|\t/g, '')), `${label}: ${JSON.stringify(line)}`);
}

test('subjects: one-line hostile ones stored exactly, multi-line ones refused with 400 naming the subject', async () => {
  for (const [label, text] of HOSTILE_TEXTS) {
    const r = await s.request('POST', '/transfer', {
      headers: alice,
      json: transferBody({ files: [{ name: 'a', size: 1 }], subject: text }),
    });
    if (ONE_LINE.test(text)) {
      assert.is(r.status, 201, `${label}: ${r.text}`);
      assert.is((await s.request('GET', `/transfer/${r.json.id}`, { headers: alice })).json.subject, text, label);
      assert.is((await s.request('DELETE', `/transfer/${r.json.id}`, { headers: alice })).status, 200);
    } else {
      assert.is(r.status, 400, `${label}: ${r.text}`);
      assertErrorShape(r, label);
      assert.equal([r.json.message, r.json.details], ['rest_bad_parameter', ['subject']], label);
    }
  }
});

test("hostile subjects and messages through complete: mail headers are ferry's alone, HTML escaped, To as given", async () => {
  for (const [i, [label, text]] of HOSTILE_TEXTS.entries()) {
    const to = [`t${i}@example.org`, ...(i < ODD_ADDRESSES.length ? [ODD_ADDRESSES[i]] : [])];
    await sendTransfer(ONE_LINE.test(text) ? text : label, text, to);
  }
  for (const t of sent) {
    for (const address of t.to) {
      const [m] = await mailsTo(address, 1);
      assert.ok(m, `a mail to ${address}`);
      assertSafeMail(m.raw, m.mail, address);
      assert.is(m.mail.subject, `alice@example.org sent you files: ${oneLine(t.subject!)}`, address);
      assert.is(m.mail.to && 'value' in m.mail.to ? m.mail.to.value.length : 0, 1, `${address}: one address`);
      assert.match(
        m.mail.text ?? '',
        t.message
          .replace(new RegExp(UNSAFE.source.replace('\\u0000-\\u001f', '\\u0000-\\u0008\\u000b-\\u001f'), 'g'), '')
          .replace(/\r/g, ''),
      );
    }
  }
});

test('the download page shows each subject and message escaped, as one text', async () => {
  for (const t of sent) {
    const page = await s.request('GET', `/?s=download&token=${t.token}`, { headers: { accept: 'text/html' } });
    assert.is(page.status, 200);
    assert.not.match(page.text, '<script>alert');
    assert.not.match(page.text, '<html>body');
    assert.not.ok(/[\u202a-\u202e\u2066-\u2069\u0085]/.test(page.text), `${t.subject}: hidden characters`);
    assert.is(page.text.match(/<h1>/g)?.length, 1);
  }
  const script = sent.find((t) => t.message === '<script>alert(1)</script>')!;
  const page = await s.request('GET', `/?s=download&token=${script.token}`);
  assert.match(page.text, '<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>');
  assert.match(page.text, '<p class="message">&lt;script&gt;alert(1)&lt;/script&gt;</p>');
});

test('guests: hostile subject, message and odd addresses reach the invitation only as data; the upload page escapes them', async () => {
  for (const [i, address] of ODD_ADDRESSES.entries()) {
    const [label, text] = HOSTILE_TEXTS[i + 2];
    const g = await s.request('POST', '/guest', {
      headers: alice,
      json: { recipient: address, from: 'alice@example.org', subject: text, message: text },
    });
    assert.is(g.status, 201, `${label}: ${g.text}`);
    assert.equal([g.json.email, g.json.subject, g.json.message], [address, text, text], label);
    const mails = await mailsTo(address, 2);
    const invite = mails.find((m) => m.mail.text?.includes(`vid=${g.json.token}`));
    assert.ok(invite, `${address}: invitation`);
    assertSafeMail(invite!.raw, invite!.mail, `${address} invitation`);
    const page = await s.request('GET', `/?s=upload&vid=${g.json.token}`, { headers: { accept: 'text/html' } });
    assert.is(page.status, 200);
    assert.match(page.text, `data-guest-email="${address.replace(/&/g, '&amp;').replace(/'/g, '&#39;')}"`);
  }
  const refused = await s.request('POST', '/guest', {
    headers: alice,
    json: { recipient: 'g@example.org', subject: HOSTILE_TEXTS[0][1] },
  });
  assert.is(refused.status, 400);
  assert.equal(refused.json.details, ['subject']);
});

test('addresses that would be a second header, a display name, a bidi disguise or an SMTP syntax error are refused', async () => {
  const refused = [
    'a@example.org\r\nBcc: evil@example.org',
    '"Evil" <e@example.org>',
    'a@example.org, b@example.org',
    '<script>@example.org',
    'moc.live\u202E@example.org',
    'a\u0085b@example.org',
    'a@example.org\u0085',
    '../../etc@example.org',
    '.a@example.org',
    'a.@example.org',
    "' OR 1=1 --@example.org",
  ];
  for (const address of refused) {
    const r = await s.request('POST', `/transfer/${sent[0].id}/recipient`, {
      headers: alice,
      json: { recipient: address },
    });
    assert.is(r.status, 400, `${JSON.stringify(address)}: ${r.text}`);
    assert.is(r.json.message, 'bad_email');
  }
});

test('audit-log mail: names in the table escaped in HTML, visible in text', async () => {
  const r = await s.request('GET', `/transfer/${sent[2].id}/auditlog/mail`, { headers: alice });
  assert.is(r.status, 200, r.text);
  const [m] = await mailsTo('alice@example.org', 1);
  assert.ok(m);
  assertSafeMail(m.raw, m.mail, 'audit mail');
});

test('the mail sink page lists and shows every stored mail escaped', async () => {
  const list = await s.request('GET', '/?s=mail-sink', { headers: boss });
  assert.is(list.status, 200);
  assert.not.match(list.text, '<script>alert');
  const ids = [...list.text.matchAll(/\?s=mail-sink&(?:amp;)?id=([0-9a-f-]+\.eml)/g)].map((x) => x[1]);
  assert.is(ids.length, sink.raw().length);
  for (const id of ids) {
    const one = await s.request('GET', `/?s=mail-sink&id=${id}`, { headers: boss });
    assert.is(one.status, 200);
    assert.not.match(one.text, '<script>alert');
    assert.not.match(one.text, '<html>body');
    assert.not.match(one.text, /<dt>x-injected<\/dt>/i);
  }
});

test('pages of a user whose proxy-given address is odd show it escaped', async () => {
  const odd = ODD_ADDRESSES[0];
  for (const q of ['?s=transfers', '?s=guests', '?s=upload']) {
    const page = await s.request('GET', `/${q}`, { headers: { ...asUser('odd', odd), accept: 'text/html' } });
    assert.is(page.status, 200, q);
    assert.match(page.text, 'o&#39;brien&amp;{x}@example.org');
    assert.not.match(page.text, odd);
  }
});

test.run();
