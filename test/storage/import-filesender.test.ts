import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../../src/cli/program';
import { decryptChunk, deriveKey, fileCrypto } from '../../src/shared-crypto/format';
import { startTestServer, tempDir, type TestServer, sql } from '../helpers/server';
import { signedPath, nowS } from '../helpers/signing';
import { sendChunks } from '../helpers/upload-client';
import { zipEntries } from '../browser/zip-reader';
import { freshPostgresDatabase } from '../helpers/system/postgres';
import { mariadbServer } from '../helpers/system/mariadb';
import { startS3, type S3Server, s3Storage } from '../helpers/system/s3';
import { buildSite, openSiteDb, type Site, type SiteDb, siteSnapshot } from '../helpers/filesender-site';

/*
 * `ferry import filesender` (docs/moving-from-filesender.md) against FileSender 3.8-shaped databases on a real
 * PostgreSQL and a real MariaDB, with stored files, imported into SQLite + filesystem and into PostgreSQL + S3;
 * then a real ferry server on the imported data answers FileSender's old links and API keys.
 */
let s3: S3Server;

test.before(async () => {
  s3 = await startS3();
});

async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const code = await runCli(args, { out: (t) => out.push(t), err: (t) => out.push(t), readStdin: async () => '' });
  return { code, out: out.join('\n') };
}

interface Target {
  dir: string;
  configFile: string;
  config: Record<string, unknown>;
}

function ferryTarget(config: Record<string, unknown> = {}): Target {
  const dir = tempDir();
  const full = { data_dir: path.join(dir, 'data'), purge_interval_s: 0, ...config };
  const configFile = path.join(dir, 'ferry.json');
  fs.writeFileSync(configFile, JSON.stringify(full));
  return { dir, configFile, config: full };
}

async function site(url: string, zone = 'UTC'): Promise<{ db: SiteDb; files: string; site: Site }> {
  const db = await openSiteDb(url);
  const files = tempDir();
  return { db, files, site: await buildSite(db, files, 258, zone) };
}

const importArgs = (url: string, files: string, t: Target, ...more: string[]) => [
  'import',
  'filesender',
  '--database',
  url,
  '--files',
  files,
  '-c',
  t.configFile,
  ...more,
];

async function bytes(s: TestServer, p: string, headers: Record<string, string> = {}) {
  const r = await fetch(s.url + p, { headers });
  return { status: r.status, headers: r.headers, body: Buffer.from(await r.arrayBuffer()) };
}

/** What a user of the old site relies on, asked of a ferry server running on the imported data. */
async function checkServed(s: TestServer, st: Site): Promise<void> {
  // The dates are the instants FileSender meant, whatever its server's time zone.
  assert.equal(await sql(s, 'SELECT created, expires FROM transfers WHERE id = 41'), [
    { created: st.now - 2 * 86400, expires: st.now + 5 * 86400 },
  ]);
  const [f101, f102] = st.plain.files;
  const token = st.plain.tokens[0];
  // The download page of the mail's link, and each file whole, by FileSender's ids.
  assert.is((await s.request('GET', `/?s=download&token=${token}`)).status, 200);
  const whole = await bytes(s, `/download.php?token=${token}&files_ids=${f101.id}`);
  assert.is(whole.status, 200);
  assert.ok(whole.body.equals(f101.plain), 'file 101 byte-identical');
  assert.ok((await bytes(s, `/download?token=${st.plain.tokens[1]}&files_ids=${f102.id}`)).body.equals(f102.plain));
  // A Range.
  const part = await bytes(s, `/download?token=${token}&files_ids=${f101.id}`, { Range: 'bytes=1000000-1999999' });
  assert.is(part.status, 206);
  assert.ok(part.body.equals(f101.plain.subarray(1_000_000, 2_000_000)), 'range byte-identical');
  // Both as one ZIP.
  const zip = await bytes(s, `/download?token=${token}&files_ids=${f101.id},${f102.id}`);
  assert.is(zip.status, 200);
  const zipFile = path.join(tempDir(), 'all.zip');
  fs.writeFileSync(zipFile, zip.body);
  const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
  assert.equal(
    (await zipEntries(zipFile)).map((e) => [e.name, e.sha256]),
    [
      [f101.name, sha(f101.plain)],
      [f102.name, sha(f102.plain)],
    ],
  );

  // The encrypted transfer: the stored ciphertext served as it was, decrypting with the parameters ferry serves.
  const enc = st.encrypted;
  const cipher = await bytes(s, `/download?token=${enc.token}&files_ids=${enc.file.id}`);
  assert.ok(cipher.body.equals(enc.file.stored), 'ciphertext byte-identical');
  const host = new URL(s.url).host;
  const signed = (p: string) =>
    s.request(
      'GET',
      signedPath({
        method: 'GET',
        host,
        path: p,
        args: { remote_user: 'alice', timestamp: nowS() },
        secret: st.aliceSecret,
      }),
    );
  // A FileSender client's signed request with the API secret of its filesender.py.ini.
  const mine = await signed('/rest.php/transfer');
  assert.is(mine.status, 200, mine.text);
  // Hers, and those her guests sent (FileSender records her as their owner).
  assert.equal(mine.json.map((t: { id: number }) => t.id).sort(), [
    st.plain.id,
    st.encrypted.id,
    st.partial.id,
    46,
    47,
  ]);
  const t42 = (await signed(`/rest.php/transfer/${enc.id}`)).json;
  const f = t42.files[0];
  assert.equal(
    [t42.salt, t42.encryption_key_version, t42.encryption_password_hash_iterations],
    [enc.salt, 3, enc.iterations],
  );
  const key = await deriveKey({
    password: st.password,
    passwordVersion: t42.encryption_password_version,
    passwordEncoding: t42.encryption_password_encoding,
    salt: t42.salt,
    iterations: t42.encryption_password_hash_iterations,
  });
  const fc = fileCrypto(f.iv, f.aead, enc.chunkSize);
  const plain: Buffer[] = [];
  for (let i = 0; i < fc.chunkCount; i++) {
    const from = i * (enc.chunkSize + 32);
    plain.push(Buffer.from(await decryptChunk(key, fc, i, cipher.body.subarray(from, from + enc.chunkSize + 32))));
  }
  assert.ok(Buffer.concat(plain).equals(enc.file.plain), 'decrypts to the original');
  // And as a recipient does it with the link of the mail FileSender sent: `ferry get` with the password.
  const into = tempDir();
  const out: string[] = [];
  const got = await runCli(['get', `${s.url}/?s=download&token=${enc.token}`, '-o', into, '--password-stdin'], {
    out: (x) => out.push(x),
    err: (x) => out.push(x),
    readStdin: async () => `${st.password}\n`,
  });
  assert.is(got, 0, out.join('\n'));
  assert.ok(fs.readFileSync(path.join(into, enc.file.name)).equals(enc.file.plain), '`ferry get` decrypts it');

  // The file stored shorter than recorded was left out; its transfer's other file came.
  const t43 = (await signed(`/rest.php/transfer/${st.partial.id}`)).json;
  assert.equal(
    t43.files.map((x: { id: number }) => x.id),
    [st.partial.good.id],
  );
  assert.is((await s.request('GET', `/?s=download&token=${st.partial.token}`)).status, 200);

  // The invitation link: the page opens and the guest uploads.
  assert.is((await s.request('GET', `/?s=upload&vid=${st.guestToken}`)).status, 200);
  const created = await s.request('POST', `/transfer?vid=${st.guestToken}`, {
    json: { files: [{ name: 'back.bin', size: 1000 }], recipients: ['back@example.org'], expires: nowS() + 86400 },
  });
  assert.is(created.status, 201, created.text);
  const fid = created.json.files[0].id;
  // New records take ids FileSender never gave (its last file was 108, its last transfer 47).
  assert.equal([created.json.id > 47, fid > 108], [true, true], JSON.stringify(created.json));
  for (const r of await sendChunks(s.request, fid, Buffer.alloc(1000, 7), 1000, { query: `?vid=${st.guestToken}` }))
    assert.is(r.status, 200, r.text);
  assert.is((await s.request('PUT', `/file/${fid}?vid=${st.guestToken}`, { json: { complete: true } })).status, 200);
  const done = await s.request('PUT', `/transfer/${created.json.id}?vid=${st.guestToken}`, {
    json: { complete: true },
  });
  assert.is(done.status, 200, done.text);
  assert.is((await s.request('GET', `/?s=upload&vid=${st.closedGuestToken}`)).status !== 200, true);
}

test('from PostgreSQL into SQLite and the filesystem: refusals, a dry run, the import, a second run, an interrupted one; the old links work', async () => {
  const url = await freshPostgresDatabase('filesender');
  const { db, files, site: st } = await site(url);
  try {
    const before = await siteSnapshot(db);
    const t = ferryTarget({ storage: { type: 'fs' } });

    // Clear refusals, exit code 1.
    const wrong = await cli(...importArgs('postgres://nobody@127.0.0.1:1/none', files, t));
    assert.equal([wrong.code, /cannot open FileSender's database/.test(wrong.out)], [1, true], wrong.out);
    const noDir = await cli(...importArgs(url, path.join(files, 'absent'), t));
    assert.equal([noDir.code, /--files: no folder/.test(noDir.out)], [1, true], noDir.out);
    const empty = await cli(...importArgs(await freshPostgresDatabase('not_filesender'), files, t));
    assert.equal(
      [
        empty.code,
        /is not a FileSender 3\.8 database: it lacks table metadatas, table authentications/.test(empty.out),
      ],
      [1, true],
      empty.out,
    );
    const older = await freshPostgresDatabase('filesender_old');
    const oldDb = await openSiteDb(older);
    await buildSite(oldDb, tempDir(), 22);
    await oldDb.close();
    const version = await cli(...importArgs(older, files, t));
    assert.equal(
      [version.code, /schema version 22; this import reads version 258/.test(version.out)],
      [1, true],
      version.out,
    );

    // A dry run: counts and reasons, nothing written (not even ferry's data folder).
    const dry = await cli(...importArgs(url, files, t, '--dry-run', '--json'));
    assert.is(dry.code, 0, dry.out);
    const report = JSON.parse(dry.out.split('\n').pop()!);
    assert.equal(
      [report.users, report.transfers, report.files, report.recipients, report.guests, report.downloads],
      [2, 5, 6, 6, 1, 1],
    );
    const fromGuests = st.fromGuests.reduce((n, g) => n + g.file.plain.length, 0);
    assert.is(
      report.bytes,
      st.plain.files[0].plain.length +
        st.plain.files[1].plain.length +
        st.encrypted.file.stored.length +
        6 +
        fromGuests,
    );
    assert.ok(
      report.unmapped.some(
        (u: { what: string; id: string; why: string }) =>
          u.what === 'file' && u.id === '105' && /stored size 3000 differs from the recorded 4000/.test(u.why),
      ),
    );
    assert.ok(
      report.unmapped.some((u: { id: string }) => /hide_sender_email/.test(u.id)) === false,
      'an option set false is nothing to report',
    );
    assert.not.ok(fs.existsSync(t.config.data_dir as string), 'a dry run makes no data folder');

    const first = await cli(...importArgs(url, files, t, '--admins', 'alice'));
    assert.is(first.code, 0, first.out);
    assert.match(first.out, /imported: 2 user\(s\), 5 transfer\(s\), 6 file\(s\)/);
    assert.match(first.out, /not imported: file 105: stored size 3000 differs/);
    const again = await cli(...importArgs(url, files, t));
    assert.is(again.code, 0, again.out);
    assert.match(again.out, /already imported: 5 transfer\(s\), 1 guest\(s\), 6 file\(s\)/);
    assert.match(again.out, /imported: 2 user\(s\), 0 transfer\(s\), 0 file\(s\)/);

    const s = await startTestServer({ ...t.config, database_url: null });
    try {
      const counts = await sql(
        s,
        'SELECT (SELECT COUNT(*) FROM transfers) AS t, (SELECT COUNT(*) FROM files) AS f, (SELECT COUNT(*) FROM recipients) AS r, (SELECT COUNT(*) FROM guests) AS g',
      );
      assert.equal(counts[0], { t: 5, f: 6, r: 6, g: 1 }, 'no duplicates');
      // The open guest's transfer stays the guest's; the closed guest's (not imported) stays with its user.
      assert.equal(await sql(s, 'SELECT id, user_id, guest_id FROM transfers WHERE id IN (46, 47) ORDER BY id'), [
        { id: 46, user_id: 'alice', guest_id: null },
        { id: 47, user_id: 'alice', guest_id: 61 },
      ]);
      const f101 = (await sql(s, 'SELECT sha256 FROM files WHERE id = 101'))[0];
      assert.is(f101.sha256, crypto.createHash('sha256').update(st.plain.files[0].plain).digest('hex'));
      assert.equal(await sql(s, 'SELECT recipient_id, file_id FROM recipient_downloads'), [
        { recipient_id: 201, file_id: 102 },
      ]);
      assert.equal(
        (await sql(s, "SELECT transfer_id FROM audit_log WHERE event = 'transfer_imported' ORDER BY transfer_id")).map(
          (r) => r.transfer_id,
        ),
        [41, 42, 43, 46, 47],
      );
      assert.equal(await sql(s, 'SELECT user_id FROM admins'), [{ user_id: 'alice' }]);
      // A run cut short after the records, before a file's bytes: the next run finishes it.
      await sql(s, "UPDATE files SET complete = 0, received = 0, ranges = '[]', sha256 = NULL WHERE id = 101");
      await sql(s, "UPDATE transfers SET status = 'uploading' WHERE id = 41");
    } finally {
      await s.close();
    }
    const resumed = await cli(...importArgs(url, files, t));
    assert.is(resumed.code, 0, resumed.out);
    assert.match(resumed.out, /imported: 2 user\(s\), 0 transfer\(s\), 1 file\(s\)/);
    const served = await startTestServer({ ...t.config, database_url: null });
    try {
      await checkServed(served, st);
    } finally {
      await served.close();
    }

    // A ferry in use is refused unless asked.
    const used = ferryTarget({ storage: { type: 'fs' } });
    const other = await startTestServer({ ...used.config, database_url: null });
    await sql(
      other,
      "INSERT INTO transfers (id, user_id, user_email, status, created, expires) VALUES (41, 'zed', 'z@example.org', 'created', 1, 2)",
    );
    await other.close();
    const refused = await cli(...importArgs(url, files, used));
    assert.equal(
      [refused.code, /ferry already holds 1 transfer\(s\) and 0 guest\(s\).*--merge/.test(refused.out)],
      [1, true],
      refused.out,
    );
    // Asked to merge: FileSender's records come beside ferry's, but none takes an id ferry already gave.
    const merged = await cli(...importArgs(url, files, used, '--merge'));
    assert.is(merged.code, 0, merged.out);
    assert.match(merged.out, /not imported: transfer 41: ferry already has another transfer with id 41/);
    assert.match(merged.out, /imported: 2 user\(s\), 4 transfer\(s\), 4 file\(s\)/);

    assert.is(await siteSnapshot(db), before, "FileSender's database is unchanged");
  } finally {
    await db.close();
  }
});

test('from MariaDB into PostgreSQL and S3: the old links, the API key and the guest link work', async () => {
  const maria = await mariadbServer();
  // This FileSender ran with PHP in Europe/Amsterdam: its dates are that zone's wall-clock text.
  const { db, files, site: st } = await site(await maria.createDatabase(), 'Europe/Amsterdam');
  // The import reaches MariaDB over its Unix socket, as on a FileSender host.
  const url = `mysql://root@localhost/${(await db.query<{ d: string }>('SELECT DATABASE() AS d'))[0].d}?socket=${maria.socket}`;
  try {
    const before = await siteSnapshot(db);
    const t = ferryTarget({
      // Files of several chunks go to S3 as multipart uploads.
      upload_chunk_size: 1024 * 1024,
      database_url: await freshPostgresDatabase('ferry_import'),
      storage: s3Storage(s3, `import-${crypto.randomBytes(4).toString('hex')}/`),
    });
    const first = await cli(...importArgs(url, files, t, '--time-zone', 'Europe/Amsterdam'));
    assert.is(first.code, 0, first.out);
    assert.match(first.out, /imported: 2 user\(s\), 5 transfer\(s\), 6 file\(s\)/);
    assert.match(
      (await cli(...importArgs(url, files, t, '--time-zone', 'Europe/Amsterdam'))).out,
      /already imported: 5 transfer\(s\)/,
    );
    const s = await startTestServer(t.config);
    try {
      await checkServed(s, st);
    } finally {
      await s.close();
    }
    assert.is(await siteSnapshot(db), before, "FileSender's database is unchanged");
  } finally {
    await db.close();
  }
});

test.run();
