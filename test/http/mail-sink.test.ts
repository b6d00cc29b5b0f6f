import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, HEADER_SP, asUser, tempDir, testDatabaseUrl } from '../helpers/server';
import { startTestSink, firstSinkMessage } from '../helpers/mail';
import { listSinkMessages, readSinkMessage, startSink } from '../../src/mail/sink';
import { startServe } from '../../src/cli/serve';
import { writeConfig } from '../helpers/config-file';
import { request } from '../helpers/server';
import { spawn } from 'node:child_process';
import { startMailSink } from '../../src/cli/mail-sink';
import { readEml } from '../../src/mail/eml';
import nodemailer from 'nodemailer';

test('the sink stores each message as one .eml file, and no temp file remains', async () => {
  const sink = await startTestSink();
  try {
    const t = nodemailer.createTransport(sink.url);
    await t.sendMail({ from: 'a@example.org', to: 'b@example.org', subject: 'Grüße 1', text: 'one' });
    await t.sendMail({ from: 'a@example.org', to: 'c@example.org', subject: 'two', text: 'two' });
    t.close();
    const mails = await sink.waitFor(2);
    assert.equal(mails.map((m) => m.subject).sort(), ['Grüße 1', 'two']);
    const names = fs.readdirSync(sink.dir);
    assert.is(names.length, 2);
    assert.ok(
      names.every((n) => /^\d{13}-[0-9a-f]{12}\.eml$/.test(n)),
      names.join(),
    );
    assert.match(sink.raw()[0], /^[\s\S]*\r?\n\r?\n/); // headers, blank line, body (RFC 5322)
  } finally {
    await sink.close();
  }
});

test('reading a message only accepts names the sink wrote (no path traversal)', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, '1700000000000-0123456789ab.eml'), 'Subject: x\r\n\r\nbody');
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'nope');
  assert.is(listSinkMessages(dir).length, 1);
  assert.ok(readSinkMessage(dir, '1700000000000-0123456789ab.eml'));
  for (const bad of [
    '../secret.txt',
    'secret.txt',
    '/etc/passwd',
    '..%2Fsecret.txt',
    '1700000000000-0123456789ab.eml/../secret.txt',
  ]) {
    assert.is(readSinkMessage(dir, bad), null, bad);
  }
});

test('the .eml reader decodes encoded headers and the quoted-printable text part', () => {
  const raw = [
    'From: ferry@localhost',
    'Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?= =?UTF-8?B?IGF1cyBLw7Zsbg==?=',
    'Content-Type: multipart/alternative; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    'A link: http://x/?s=3Ddownload&token=3Dabc=',
    'def',
    '--b1',
    'Content-Type: text/html',
    '',
    '<p>x</p>',
    '--b1--',
  ].join('\r\n');
  const m = readEml(raw);
  assert.is(m.headers.subject, 'Grüße aus Köln');
  assert.is(m.text.trim(), 'A link: http://x/?s=download&token=abcdef');
});

test('?s=mail-sink: admins see the list and a message, escaped; others are refused', async () => {
  const sink = await startTestSink();
  const s = await startTestServer({
    ...HEADER_SP,
    admin: ['boss'],
    mail: { transport: sink.url, sink: { dir: sink.dir, port: sink.port } },
  });
  try {
    const r = await s.request('POST', '/guest', {
      headers: asUser('alice'),
      json: { recipient: 'g@example.org', from: 'alice@example.org', subject: '<b>bold</b>' },
    });
    assert.is(r.status, 201);
    await sink.waitFor(1);
    const list = await s.request('GET', '/?s=mail-sink', { headers: asUser('boss') });
    assert.is(list.status, 200);
    assert.match(list.text, 'g@example.org');
    assert.match(list.text, '&lt;b&gt;bold&lt;/b&gt;');
    assert.not.match(list.text, '<b>bold</b>');
    const id = /[?&]id=(\d{13}-[0-9a-f]{12}\.eml)/.exec(list.text.replace(/&amp;/g, '&'))![1];
    const one = await s.request('GET', `/?s=mail-sink&id=${id}`, { headers: asUser('boss') });
    assert.is(one.status, 200);
    assert.match(one.text, `?s=upload&amp;vid=${r.json.token}`);
    // The HTML part is shown as escaped source, never as markup of the page.
    assert.match(one.text, '&lt;a href=&quot;');
    assert.match(one.text, '&amp;lt;b&amp;gt;bold&amp;lt;/b&amp;gt;');
    // The only links of the page's own are the text part's addresses, each written as itself; the HTML part
    // shows in a sandboxed frame served under its own policy.
    assert.not.match(one.text, /<a href="http[^"]*s=upload[^"]*">(?!http)/);
    assert.match(
      one.text,
      /<iframe class="mail-frame"[^>]* sandbox="allow-popups allow-popups-to-escape-sandbox allow-top-navigation-by-user-activation"/,
    );
    const part = await s.request('GET', `/?s=mail-sink&id=${id}&part=html`, { headers: asUser('boss') });
    assert.match(part.headers.get('content-security-policy') ?? '', /^default-src 'none'; .*sandbox /);
    assert.is(part.headers.get('x-frame-options'), 'SAMEORIGIN');
    const stranger = await s.request('GET', `/?s=mail-sink&id=${id}&part=html`, { headers: asUser('alice') });
    assert.is(stranger.status, 403);
    const other = await s.request('GET', '/?s=mail-sink', { headers: asUser('alice') });
    assert.is(other.status, 403);
    assert.not.match(other.text, 'g@example.org');
    const traversal = await s.request('GET', '/?s=mail-sink&id=..%2F..%2Fferry.db', { headers: asUser('boss') });
    assert.is(traversal.status, 404);
  } finally {
    await s.close();
    await sink.close();
  }
});

test('ferry mail-sink runs the sink alone and says where it listens', async () => {
  const out: string[] = [];
  const dir = path.join(tempDir(), 'box');
  const sink = await startMailSink(
    { port: '0', dir },
    { out: (t) => out.push(t), err: (t) => out.push(t), readStdin: async () => '' },
  );
  try {
    assert.match(out[0], /^listening on smtp:\/\/127\.0\.0\.1:\d+$/);
    assert.match(out[1], dir);
    const t = nodemailer.createTransport(sink.url);
    await t.sendMail({ from: 'a@example.org', to: 'b@example.org', subject: 'hello', text: 'x' });
    t.close();
    assert.is(listSinkMessages(dir).length, 1);
  } finally {
    await sink.close();
  }
});

test('the sink refuses a message over its size limit without keeping any of it', async () => {
  const dir = path.join(tempDir(), 'box');
  const sink = await startSink({ host: '127.0.0.1', port: 0, dir, maxSize: 20_000 });
  try {
    const t = nodemailer.createTransport(sink.url);
    // Watch what lands on disk while 8 MB arrive: writing stops at the limit, not at the end of DATA.
    let largest = 0;
    const watch = setInterval(() => {
      for (const n of fs.readdirSync(dir)) {
        try {
          largest = Math.max(largest, fs.statSync(path.join(dir, n)).size);
        } catch {
          // gone meanwhile
        }
      }
    }, 1);
    const err = await t
      .sendMail({ from: 'a@example.org', to: 'b@example.org', subject: 'big', text: 'x'.repeat(8_000_000) })
      .then(
        () => null,
        (e: { responseCode?: number }) => e,
      );
    clearInterval(watch);
    assert.is(err?.responseCode, 552);
    assert.ok(largest < 1_000_000, `at most ${largest} bytes were written`);
    assert.equal(fs.readdirSync(dir), [], 'neither the message nor its temp file remains');
    await t.sendMail({ from: 'a@example.org', to: 'b@example.org', subject: 'small', text: 'ok' });
    t.close();
    assert.is(listSinkMessages(dir).length, 1, 'the sink still works after a refusal');
  } finally {
    await sink.close();
  }
});

test('ferry serve with mail.sink runs the sink and sends the mail of REST calls to it', async () => {
  const dir = tempDir();
  const box = path.join(dir, 'mail-box');
  const file = writeConfig(dir, {
    ...HEADER_SP,
    mail: { from: 'ferry@lab.example', sink: { port: 0, dir: box } },
    database_url: await testDatabaseUrl(),
  });
  const out: string[] = [];
  const handle = await startServe(
    { config: file },
    { out: (t) => out.push(t), err: (t) => out.push(t), readStdin: async () => '' },
  );
  try {
    assert.match(out.join('\n'), /mail sink listening on smtp:\/\/127\.0\.0\.1:\d+, storing messages in .*mail-box/);
    const r = await request(handle.url, 'POST', '/guest', {
      headers: { ...asUser('alice'), 'Accept-Language': 'fr' },
      json: { recipient: 'g@example.org', from: 'alice@example.org' },
    });
    assert.is(r.status, 201, r.text);
    const m = await firstSinkMessage(box, 'the invitation in the sink');
    assert.is(m.subject, 'alice@example.org vous invite à envoyer des fichiers');
    assert.is(m.from?.value[0].address, 'ferry@lab.example');
    assert.match(m.text!, `/?s=upload&vid=${r.json.token}`);
  } finally {
    await handle.stop();
  }
});

test('the ferry mail-sink command prints its address and directory, stores mail, and stops on SIGTERM', async () => {
  const dir = tempDir();
  const box = path.join(dir, 'box');
  const cfg = path.join(dir, 'ferry.json');
  fs.writeFileSync(cfg, JSON.stringify({ data_dir: path.join(dir, 'data') }));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', 'mail-sink', '--port', '0', '--dir', box, '-c', cfg],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 15_000;
    while (!/storing messages in/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    const url = /^listening on (smtp:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1];
    assert.ok(url, out);
    assert.match(out, box);
    const t = nodemailer.createTransport(url!);
    await t.sendMail({ from: 'a@example.org', to: 'b@example.org', subject: 'from the cli', text: 'x' });
    t.close();
    assert.is(listSinkMessages(box).length, 1);
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 10_000).unref())]);
    assert.is(code, 0, 'exits cleanly on SIGTERM');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test.run();
