import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { runFerry, startBinary } from '../helpers/binary';
import { listSinkMessages } from '../../src/mail/sink';
import { asUser, HEADER_SP } from '../helpers/server';

// The embedded default (no mail.transport): serve and CLI commands keep their mail in the built-in inbox of the
// data directory, each writing it there itself, so two servers on one machine take no port for mail and an
// admin reads everything in one place.
const SP = { ...HEADER_SP, admin: ['boss'] };
const alice = { ...asUser('alice'), 'Content-Type': 'application/json' };

test('two servers on their defaults and a CLI command keep their mail in their own inboxes; the admin reads it there', async () => {
  const one = await startBinary({ config: SP });
  const two = await startBinary({ config: SP });
  try {
    const inbox = path.join(one.dir, 'data', 'mail-sink');
    assert.match(one.output(), `mail: kept in the built-in inbox ${inbox}, not delivered`);
    const expires = Math.floor(Date.now() / 1000) + 3 * 86400;
    const invite = await fetch(`${one.url}/guest`, {
      method: 'POST',
      headers: alice,
      body: JSON.stringify({
        recipient: 'guest@example.org',
        from: 'alice@example.org',
        subject: 'Scans',
        options: ['email_guest_expired'],
        expires,
      }),
    });
    assert.is(invite.status, 201, await invite.text());
    const other = await fetch(`${two.url}/guest`, {
      method: 'POST',
      headers: alice,
      body: JSON.stringify({ recipient: 'second@example.org', from: 'alice@example.org' }),
    });
    assert.is(other.status, 201);

    // The invitation, written by serve (bounded wait for its queue worker).
    for (let i = 0; i < 100 && listSinkMessages(inbox).length < 1; i++) await new Promise((r) => setTimeout(r, 50));
    assert.is(listSinkMessages(inbox).length, 1, 'the invitation is in the inbox');
    // A CLI command's mail lands in the same folder: the purge tells the guest the invitation expired.
    const purge = runFerry(['purge', '--now', String(expires + 60), '-c', one.configFile]);
    assert.is(purge.code, 0, purge.stderr);
    const stored = listSinkMessages(inbox).reverse();
    assert.is(stored.length, 2, 'the invitation and the expiry notice');
    const mails = await Promise.all(stored.map(async (m) => simpleParser(fs.readFileSync(path.join(inbox, m.id)))));
    assert.equal(
      mails.map((m) => [m.to && !Array.isArray(m.to) ? m.to.text : '', m.subject]),
      [
        ['guest@example.org', 'alice@example.org invites you to send files: Scans'],
        ['guest@example.org', mails[1].subject],
      ],
    );
    assert.match(mails[1].subject!, /expired/i);
    // The other server kept its own mail in its own data directory.
    const twoInbox = path.join(two.dir, 'data', 'mail-sink');
    for (let i = 0; i < 100 && listSinkMessages(twoInbox).length < 1; i++) await new Promise((r) => setTimeout(r, 50));
    assert.is(listSinkMessages(twoInbox).length, 1);

    // The admin's viewer lists both; a user is refused.
    const page = await fetch(`${one.url}/?s=mail-sink`, {
      headers: { 'X-Remote-User': 'boss', 'X-Remote-Email': 'boss@example.org' },
    });
    const html = await page.text();
    assert.is(page.status, 200);
    assert.match(html, 'invites you to send files: Scans');
    assert.is((html.match(/\?s=mail-sink&(amp;)?id=/g) ?? []).length, 2);
    const refused = await fetch(`${one.url}/?s=mail-sink`, {
      headers: { 'X-Remote-User': 'alice', 'X-Remote-Email': 'alice@example.org' },
    });
    assert.is(refused.status, 403);
  } finally {
    await one.stop();
    await two.stop();
  }
});

test.run();
