// Loads a PostgreSQL database that ferry has migrated with many users, transfers, files and recipients, for the
// scale rows (scripts/bench/scale.mjs, docs/performance.md "Scale"). The rows are made by the server itself
// (INSERT … SELECT over generate_series): no row crosses the connection, so a million transfers take minutes,
// not hours. Shape, as measured on a busy instance: 3 files and 1–2 recipients per transfer, 2 audit entries,
// a sent mail per recipient (a third of them with every file downloaded, one in fifty with a bounce),
// a user "user0" with 1 % of all transfers, and `expiredShare` of the transfers past their expiry (for the
// purge row). `node scripts/bench/scale-load.mjs <postgres-url> <transfers> [users]` loads one by hand.
import pg from 'pg';

/** The users' ids: user0 … user<n-1>. The admin of the bench is user0. */
export const userId = (i) => `user${i}`;

/**
 * Fills the database at `url` (migrated, empty). Returns the seconds it took and the number of expired
 * transfers. The user-defined triggers (quota totals) are off while it loads and the totals are counted once
 * at the end, as a migration counts them.
 */
export async function loadScale(
  url,
  { transfers, users = Math.max(10, Math.round(transfers / 100)), expiredShare = 0.1 },
) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const now = Math.floor(Date.now() / 1000);
  const t0 = process.hrtime.bigint();
  const q = (text, params = []) => client.query(text, params);
  try {
    const hasTotals = (await q(`SELECT to_regclass('user_usage')::text AS t`)).rows[0].t !== null;
    await q('BEGIN');
    for (const t of ['transfers', 'files']) await q(`ALTER TABLE ${t} DISABLE TRIGGER USER`);
    await q(
      `INSERT INTO users (id, created, last_activity)
       SELECT 'user' || i, $1::bigint - 86400 * 30, $1 FROM generate_series(0, $2::int - 1) i`,
      [now, users],
    );
    await q(
      `INSERT INTO user_emails (user_id, email, position)
       SELECT 'user' || i, 'user' || i || '@example.org', 0 FROM generate_series(0, $1::int - 1) i`,
      [users],
    );
    // Every expiredShare-th transfer (spread over all users and ages) expired an hour ago; the others expire
    // in ten days. Transfer i was created i seconds after the first.
    const every = Math.max(1, Math.round(1 / expiredShare));
    await q(
      `INSERT INTO transfers (user_id, user_email, subject, message, options, status, lang, created, expires,
         made_available, roundtrip_token)
       SELECT u, u || '@example.org', 'Quarterly figures ' || i, 'Here are the files we spoke about.',
         '["email_me_copies","email_upload_complete"]', 'available', 'en', $1::bigint - $2::int + i,
         CASE WHEN i % $4::int = 1 THEN $1::bigint - 3600 ELSE $1::bigint + 864000 END, $1::bigint - $2::int + i + 60,
         md5('rt' || i)
       FROM (SELECT i, CASE WHEN i % 100 = 0 THEN 'user0' ELSE 'user' || (i % $3::int) END AS u
             FROM generate_series(1, $2::int) i) s`,
      [now, transfers, users, every],
    );
    await q(
      `INSERT INTO files (transfer_id, uid, name, size, mime_type, cid, received, ranges, complete, crc32, sha256,
         created)
       SELECT t.id, md5(t.id || '-' || k), 'report-' || k || '.pdf', 1000000 * k + t.id % 1000,
         'application/pdf', 'c' || k, 1000000 * k + t.id % 1000, '[[0,' || (1000000 * k + t.id % 1000) || ']]', 1,
         (t.id * k) % 2147483647, md5('a' || t.id || k) || md5('b' || t.id || k), t.created
       FROM transfers t CROSS JOIN generate_series(1, 3) k`,
    );
    await q(
      `INSERT INTO recipients (transfer_id, email, token, lang, created)
       SELECT t.id, 'r' || k || '.' || t.id || '@example.net', md5('tok' || t.id || '-' || k), 'en', t.created
       FROM transfers t CROSS JOIN generate_series(1, 2) k WHERE k = 1 OR t.id % 2 = 0`,
    );
    await q(
      `INSERT INTO audit_log (transfer_id, date, event, author_type, author_id, author_ip, target_type, target_id)
       SELECT t.id, t.created + k * 30, CASE k WHEN 1 THEN 'transfer_started' ELSE 'transfer_available' END,
         'User', t.user_id, '192.0.2.1', 'Transfer', t.id::text
       FROM transfers t CROSS JOIN generate_series(1, 2) k`,
    );
    // What a list shows beside each recipient: every one was mailed (and the mail sent), a third have downloaded
    // every file, one in fifty has a bounce. The mails' texts are left out ('{}'): a list never reads them, and
    // the purge removes sent mail after auditlog_lifetime_days.
    await q(
      `INSERT INTO mail_queue (created, to_addr, message, status, attempts, next_attempt, sent, target_type, target_id)
       SELECT r.created + 60, r.email, '{}', 'sent', 1, r.created + 60, r.created + 65, 'Recipient', r.id
       FROM recipients r`,
    );
    await q(
      `INSERT INTO download_claims (recipient_id, file_id, claimed, active, done)
       SELECT r.id, f.id, r.created + 100, 0, r.created + 200
       FROM recipients r INNER JOIN files f ON f.transfer_id = r.transfer_id WHERE r.id % 3 = 0`,
    );
    await q(
      `INSERT INTO tracking_errors (target_type, target_id, type, date, details)
       SELECT 'Recipient', r.id, 'bounce', r.created + 70, '550 5.1.1 mailbox unknown' FROM recipients r
       WHERE r.id % 50 = 0`,
    );
    for (const t of ['transfers', 'files']) await q(`ALTER TABLE ${t} ENABLE TRIGGER USER`);
    if (hasTotals) {
      await q('DELETE FROM user_usage');
      await q(
        `INSERT INTO user_usage (user_id, open_bytes)
         SELECT t.user_id, SUM(f.size) FROM files f INNER JOIN transfers t ON t.id = f.transfer_id
         WHERE f.deleted IS NULL AND t.status IN ('created', 'started', 'uploading', 'available')
         GROUP BY t.user_id`,
      );
    }
    await q('COMMIT');
    // As after any bulk load (and as `ferry db copy` does): statistics and the visibility map.
    await q('VACUUM ANALYZE');
    const expired = Number(
      (await q(`SELECT COUNT(*) AS n FROM transfers WHERE status <> 'closed' AND expires <= $1`, [now])).rows[0].n,
    );
    return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, expired, users };
  } catch (e) {
    await q('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    await client.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [url, n, u] = process.argv.slice(2);
  if (!url || !n) {
    console.error(
      'usage: node scripts/bench/scale-load.mjs <postgres-url of a migrated ferry database> <transfers> [users]',
    );
    process.exit(2);
  }
  const r = await loadScale(url, { transfers: Number(n), ...(u ? { users: Number(u) } : {}) });
  console.log(`loaded ${n} transfers for ${r.users} users in ${r.seconds.toFixed(1)} s (${r.expired} expired)`);
}
