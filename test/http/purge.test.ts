import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, HEADER_SP, asUser, TestServer, sql, sqlOne } from '../helpers/server';
import { startTestSink, TestSink, addressOf } from '../helpers/mail';
import { patternBytes, sendChunks, sha256 } from '../helpers/upload-client';
import { availableTransfer as uploadedWhole, createTransfer } from '../helpers/factories';
import { PURGE_LOCK } from '../../src/domain/purge';
import { runCli } from '../../src/cli/program';

const DAY = 86400;
const now = Math.floor(Date.now() / 1000);
let s: TestServer;
let sink: TestSink;
let cfg: string;
const alice = asUser('alice');

test.before(async () => {
  sink = await startTestSink();
  // This test looks at data/files itself: the filesystem store whatever FERRY_TEST_STORAGE says.
  s = await startTestServer({
    ...HEADER_SP,
    mail: { transport: sink.url },
    auditlog_lifetime_days: 31,
    storage: { type: 'fs' },
  });
  cfg = path.join(s.dir, 'ferry.json');
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      data_dir: path.join(s.dir, 'data'),
      mail: { transport: sink.url },
      auditlog_lifetime_days: 31,
      database_url: s.app.config.database_url,
    }),
  );
});
test.after(async () => {
  await s.close();
  await sink.close();
});

async function purge(...args: string[]) {
  const out: string[] = [];
  const code = await runCli(['purge', '--json', '-c', cfg, ...args], {
    out: (t) => out.push(t),
    err: (t) => out.push(t),
    readStdin: async () => '',
  });
  assert.is(code, 0, out.join('\n'));
  return JSON.parse(out[out.length - 1]);
}

async function availableTransfer(data: Buffer, options: string[] = [], days = 7) {
  const over = { expires: now + days * DAY, options };
  return (await uploadedWhole(s, [{ name: 'd.bin', data }], { headers: alice, over })).t;
}

async function snapshot(): Promise<string> {
  const h = crypto.createHash('sha256');
  for (const table of ['transfers', 'files', 'recipients', 'guests', 'audit_log', 'mail_queue', 'tracking_errors']) {
    h.update(JSON.stringify(await sql(s, `SELECT * FROM ${table} ORDER BY id`)));
  }
  const walk = (d: string): string[] =>
    fs.existsSync(d)
      ? fs
          .readdirSync(d, { withFileTypes: true })
          .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]))
      : [];
  for (const f of walk(path.join(s.dir, 'data', 'files')).sort()) h.update(f).update(fs.readFileSync(f));
  return h.digest('hex');
}

test('purge over time: nothing early, dry run changes nothing, then expiry, abandoned uploads, orphans, old records', async () => {
  const data = patternBytes('purge', 300_000);
  const keep = await availableTransfer(data, [], 20);
  const expiring = await availableTransfer(data, ['email_me_on_expire']);
  const abandoned = await createTransfer(s, { files: [{ name: 'half', size: 10 }], expires: now + 14 * DAY });
  await sendChunks(s.request, abandoned.files[0].id, Buffer.from('12345'), 5, { headers: alice, order: [0] });
  const guest = (
    await s.request('POST', '/guest', {
      headers: alice,
      json: {
        recipient: 'g@example.org',
        from: 'alice@example.org',
        expires: now + 3 * DAY,
        options: ['email_guest_expired'],
      },
    })
  ).json;
  const orphanDir = path.join(s.dir, 'data', 'files', '9999');
  fs.mkdirSync(orphanDir, { recursive: true });
  fs.writeFileSync(path.join(orphanDir, 'f'.repeat(32)), 'orphan');
  await s.app.services.mailQueue.flush();
  await sink.waitFor(3); // the guest invitation and two transfers' mails
  const mailsBefore = (await sink.messages()).length;

  const early = await purge('--now', String(now + 60));
  assert.is(early.transfers_expired, 0);
  assert.is(early.orphan_files_deleted, 1);

  fs.mkdirSync(orphanDir, { recursive: true });
  fs.writeFileSync(path.join(orphanDir, 'f'.repeat(32)), 'orphan again');
  const before = await snapshot();
  const dry = await purge('--dry-run', '--now', String(now + 8 * DAY));
  assert.is(dry.dry_run, true);
  assert.is(dry.transfers_expired, 1);
  assert.is(dry.guests_expired, 1);
  assert.is(dry.abandoned_transfers_deleted, 1);
  assert.is(dry.orphan_files_deleted, 1);
  assert.is(await snapshot(), before, 'a dry run changes nothing');

  const real = await purge('--now', String(now + 8 * DAY));
  assert.equal(
    [real.transfers_expired, real.guests_expired, real.abandoned_transfers_deleted, real.orphan_files_deleted],
    [1, 1, 1, 1],
  );
  assert.ok(real.bytes_freed >= data.length);
  const t = await s.request('GET', `/transfer/${expiring.id}`, { headers: alice });
  assert.is(t.status, 200); // the owner still sees it, closed
  assert.is(t.json.status, 'closed');
  assert.not.ok(fs.existsSync(path.join(s.dir, 'data', 'files', String(expiring.id))));
  assert.ok(fs.existsSync(path.join(s.dir, 'data', 'files', String(keep.id), keep.files[0].uid)));
  assert.not.ok(fs.existsSync(orphanDir));
  assert.is((await s.request('GET', `/transfer/${abandoned.id}`, { headers: alice })).status, 404);
  const log = (await s.request('GET', `/transfer/${expiring.id}/auditlog`, { headers: alice })).json;
  assert.ok(log.some((e: any) => e.event === 'transfer_expired'));
  const page = await s.request('GET', `/?s=download&token=${expiring.recipients[0].token}`);
  assert.is(page.status, 410);
  assert.is((await s.request('GET', `/guest/${guest.id}`, { headers: alice })).json.status, 'closed');
  const mails = await sink.waitFor(mailsBefore + 2);
  const subjects = mails.slice(mailsBefore).map((m) => `${addressOf(m.to)} ${m.subject}`);
  assert.ok(
    subjects.some((x) => x.startsWith('alice@example.org') && x.includes(`#${expiring.id}`) && /expired/.test(x)),
    subjects.join('\n'),
  );
  assert.ok(
    subjects.some((x) => x.startsWith('g@example.org')),
    subjects.join('\n'),
  );

  const again = await purge('--now', String(now + 8 * DAY));
  assert.equal(
    [again.transfers_expired, again.guests_expired, again.abandoned_transfers_deleted, again.orphan_files_deleted],
    [0, 0, 0, 0],
  );

  const late = await purge('--now', String(now + 8 * DAY + 32 * DAY));
  assert.ok(late.closed_transfers_deleted >= 1);
  assert.is((await s.request('GET', `/transfer/${expiring.id}`, { headers: alice })).status, 404);
  assert.is(
    ((await sqlOne(s, 'SELECT COUNT(*) AS n FROM audit_log WHERE transfer_id = ?', expiring.id)) as { n: number }).n,
    0,
  );
});

test('chunks to an expired Transfer are refused', async () => {
  const t = await createTransfer(s, { files: [{ name: 'x', size: 4 }], expires: now + DAY });
  await sql(s, 'UPDATE transfers SET expires = ? WHERE id = ?', now - 1, t.id);
  const r = await s.request('PUT', `/file/${t.files[0].id}/chunk/0`, { headers: alice, body: Buffer.from('abcd') });
  assert.is(r.status, 410);
  assert.is(r.json.message, 'transfer_expired');
});

test('a download in progress when purge deletes its Transfer still delivers every byte, never a truncated file', async () => {
  const data = patternBytes('race', 8 * 1024 * 1024);
  const t = await availableTransfer(data, [], 1);
  const res = await fetch(`${s.url}/download?token=${t.recipients[0].token}&files_ids=${t.files[0].id}`);
  const reader = res.body!.getReader();
  const parts: Buffer[] = [Buffer.from((await reader.read()).value!)];
  const report = await purge('--now', String(now + 2 * DAY));
  assert.ok(report.transfers_expired >= 1);
  for (let i = 0; i < 10_000; i++) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(Buffer.from(value));
  }
  assert.is(sha256(Buffer.concat(parts)), sha256(data));
  assert.is((await fetch(`${s.url}/download?token=${t.recipients[0].token}`)).status, 410);
});

test('two purges never run at once: the second says so and succeeds; the lock is in the database', async () => {
  // Held by this process through the server's database (advisory lock on PostgreSQL, a lock row on SQLite).
  const release = await s.app.db.locks.tryLock(PURGE_LOCK);
  assert.ok(release, 'the lock was free');
  const out: string[] = [];
  const code = await runCli(['purge', '-c', cfg], {
    out: (t) => out.push(t),
    err: (t) => out.push(t),
    readStdin: async () => '',
  });
  assert.is(code, 0);
  assert.match(out.join('\n'), /another purge is running/);
  await release!();
  const done: string[] = [];
  assert.is(
    await runCli(['purge', '-c', cfg, '--json'], {
      out: (t) => done.push(t),
      err: () => {},
      readStdin: async () => '',
    }),
    0,
  );
  assert.ok('transfers_expired' in JSON.parse(done.join('')), 'the second purge ran once the lock was free');
});

test.run();
