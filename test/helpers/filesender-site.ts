import crypto from 'node:crypto';
import { typedPasswordKey } from './encryption/typed-password-key';
import fs from 'node:fs';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { aeadText, encryptChunk, fileCrypto, generateFileIv, toBase64 } from '../../src/shared-crypto/format';
import { instantToWallClock } from '../../src/db/filesender/wall-clock';

/**
 * A FileSender 3.8 site as `ferry import filesender` finds one: its database (the tables and columns FileSender's
 * classes define in `$dataMap`, typed as FileSender's database layer creates them on PostgreSQL and on MySQL/
 * MariaDB, where the tables keep their class names: `Transfers`, `UserPreferences`, …) and its storage folder
 * (`<storage_filesystem_path>/<file uid>`, or under a per-day bucket). The rows are a small site: two people,
 * open, expired and closed transfers, one encrypted by ferry's own FileSender-compatible encryption, one file
 * whose stored size is wrong, guests open and closed, a download recorded in the audit log.
 */
export type FsDialect = 'postgres' | 'mysql';

type Col = [name: string, type: string, opts?: string];

/** FileSender 3.8's columns (classes/data/*.class.php), as `id:bigint:null` triples of our own notation. */
const TABLES: Record<string, { mysqlName: string; cols: Col[] }> = {
  metadatas: {
    mysqlName: 'Metadatas',
    cols: [
      ['id', 'id'],
      ['schemaversion', 'int'],
      ['created', 'datetime'],
      ['message', 'text'],
    ],
  },
  authentications: {
    mysqlName: 'Authentications',
    cols: [
      ['id', 'id'],
      ['saml_user_identification_uid', 'str(170)'],
      ['saml_user_identification_uid_hash', 'str(200)', 'null'],
      ['idpid', 'bigint', 'null'],
      ['created', 'datetime', 'null'],
      ['last_activity', 'datetime', 'null'],
      ['comment', 'str(100)', 'null'],
      ['passwordhash', 'str(255)', 'null'],
    ],
  },
  userpreferences: {
    mysqlName: 'UserPreferences',
    cols: [
      ['id', 'id'],
      ['authid', 'bigint'],
      ['additional_attributes', 'text', 'null'],
      ['lang', 'str(8)', 'null'],
      ['aup_ticked', 'bool'],
      ['aup_last_ticked_date', 'date', 'null'],
      ['transfer_preferences', 'text'],
      ['guest_preferences', 'text'],
      ['frequent_recipients', 'text'],
      ['created', 'datetime'],
      ['last_activity', 'datetime', 'null'],
      ['auth_secret', 'str(64)', 'null'],
      ['auth_secret_created', 'datetime', 'null'],
      ['quota', 'bigint', 'null'],
      ['guest_expiry_default_days', 'int', 'null'],
      ['service_aup_accepted_version', 'int', 'default 0'],
      ['service_aup_accepted_time', 'datetime', 'null'],
      ['save_frequent_email_address', 'bool', 'default 1'],
      ['save_transfer_preferences', 'bool', 'default 1'],
    ],
  },
  transfers: {
    mysqlName: 'Transfers',
    cols: [
      ['id', 'id'],
      ['userid', 'bigint'],
      ['user_email', 'str(250)'],
      ['guest_id', 'bigint', 'null'],
      ['lang', 'str(8)', 'null'],
      ['subject', 'str(250)', 'null'],
      ['message', 'text', 'null'],
      ['created', 'datetime'],
      ['made_available', 'datetime', 'null'],
      ['last_chunk_time', 'datetime', 'null'],
      ['expires', 'datetime'],
      ['expiry_extensions', 'smallint', 'default 0'],
      ['status', 'str(32)'],
      ['options', 'text'],
      ['key_version', 'smallint', 'default 0'],
      ['salt', 'str(32)', 'null'],
      ['password_version', 'smallint', 'default 1'],
      ['password_encoding', 'int', 'default 0'],
      ['password_hash_iterations', 'bigint', 'default 150000'],
      ['client_entropy', 'str(44)', 'null'],
      ['roundtriptoken', 'str(44)', 'null'],
      ['guest_transfer_shown_to_user_who_invited_guest', 'bool', 'null'],
      ['storage_filesystem_per_day_buckets', 'bool', 'default 0'],
      ['storage_filesystem_per_hour_buckets', 'bool', 'default 0'],
      ['storage_filesystem_per_idp', 'bool', 'default 0'],
      ['download_count', 'bigint', 'default 0'],
      ['chunk_size', 'bigint', 'default 0'],
      ['crypted_chunk_size', 'bigint', 'default 0'],
      ['idpid', 'bigint', 'null'],
      ['forward_server', 'text', 'null'],
      ['forward_id', 'bigint', 'null'],
    ],
  },
  files: {
    mysqlName: 'Files',
    cols: [
      ['id', 'id'],
      ['transfer_id', 'bigint'],
      ['uid', 'str(60)'],
      ['puid', 'str(60)', 'null'],
      ['name', 'str(255)'],
      ['mime_type', 'str(255)'],
      ['size', 'bigint'],
      ['encrypted_size', 'bigint', 'null'],
      ['upload_start', 'datetime', 'null'],
      ['upload_end', 'datetime', 'null'],
      ['sha1', 'str(40)', 'null'],
      ['storage_class_name', 'str(60)', 'null'],
      ['iv', 'str(24)', 'null'],
      ['aead', 'str(512)', 'null'],
      ['have_avresults', 'bool', 'default 0'],
      ['storage_path', 'str(170)', 'null'],
      ['forward_id', 'bigint', 'null'],
      ['download_count', 'bigint', 'default 0'],
    ],
  },
  recipients: {
    mysqlName: 'Recipients',
    cols: [
      ['id', 'id'],
      ['transfer_id', 'int'],
      ['email', 'str(255)'],
      ['token', 'str(60)'],
      ['created', 'datetime'],
      ['last_activity', 'datetime', 'null'],
      ['options', 'text'],
      ['reminder_count', 'int', 'default 0'],
      ['last_reminder', 'datetime', 'null'],
      ['forward_id', 'bigint', 'null'],
    ],
  },
  guests: {
    mysqlName: 'Guests',
    cols: [
      ['id', 'id'],
      ['userid', 'bigint'],
      ['user_email', 'str(250)'],
      ['token', 'str(60)'],
      ['email', 'str(255)'],
      ['transfer_count', 'int'],
      ['subject', 'str(255)', 'null'],
      ['message', 'text', 'null'],
      ['options', 'text'],
      ['transfer_options', 'text'],
      ['status', 'str(32)'],
      ['created', 'datetime'],
      ['expires', 'datetime', 'null'],
      ['last_activity', 'datetime'],
      ['reminder_count', 'int', 'default 0'],
      ['last_reminder', 'datetime', 'null'],
      ['expiry_extensions', 'smallint', 'default 0'],
      ['service_aup_accepted_version', 'int', 'default 0'],
      ['service_aup_accepted_time', 'datetime', 'null'],
    ],
  },
  auditlogs: {
    mysqlName: 'AuditLogs',
    cols: [
      ['id', 'id'],
      ['event', 'str(20)'],
      ['target_type', 'str(255)'],
      ['target_id', 'str(255)'],
      ['author_type', 'str(255)', 'null'],
      ['author_id', 'str(255)', 'null'],
      ['ip', 'str(45)'],
      ['transaction_id', 'str(36)', 'null'],
      ['created', 'datetime'],
      ['transfer_id', 'bigint', 'null'],
      ['file_id', 'bigint', 'null'],
    ],
  },
};

function typeOf(dialect: FsDialect, type: string): string {
  const str = /^str\((\d+)\)$/.exec(type);
  if (str) return `VARCHAR(${str[1]})`;
  const pgTypes: Record<string, string> = {
    id: 'BIGSERIAL PRIMARY KEY',
    bigint: 'BIGINT',
    int: 'INTEGER',
    smallint: 'SMALLINT',
    bool: 'BOOLEAN',
    text: 'TEXT',
    datetime: 'TIMESTAMP',
    date: 'DATE',
  };
  const myTypes: Record<string, string> = {
    id: 'BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY',
    bigint: 'BIGINT UNSIGNED',
    int: 'INT UNSIGNED',
    smallint: 'SMALLINT UNSIGNED',
    bool: 'TINYINT(1) UNSIGNED',
    text: 'TEXT',
    datetime: 'DATETIME',
    date: 'DATE',
  };
  return (dialect === 'postgres' ? pgTypes : myTypes)[type];
}

function createSql(dialect: FsDialect, table: string): string {
  const t = TABLES[table];
  const cols = t.cols.map(([name, type, opts]) => {
    let d = `${name} ${typeOf(dialect, type)}`;
    if (type === 'id') return d;
    if (opts?.startsWith('default')) {
      const v = opts.slice(8);
      d += ` NOT NULL DEFAULT ${type === 'bool' && dialect === 'postgres' ? (v === '1' ? 'true' : 'false') : v}`;
    } else if (opts !== 'null') d += ' NOT NULL';
    return d;
  });
  return `CREATE TABLE ${dialect === 'mysql' ? t.mysqlName : table} (${cols.join(', ')})`;
}

/** A connection to the site's database, to build it and to look at it. */
export interface SiteDb {
  dialect: FsDialect;
  insert(table: string, row: Record<string, unknown>): Promise<void>;
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** The table's name in this database. */
  name(table: string): string;
  close(): Promise<void>;
}

export async function openSiteDb(url: string): Promise<SiteDb> {
  const dialect: FsDialect = url.startsWith('mysql') ? 'mysql' : 'postgres';
  const name = (table: string) => (dialect === 'mysql' ? TABLES[table].mysqlName : table);
  if (dialect === 'postgres') {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const query = async <T>(text: string, params: unknown[] = []) => {
      let n = 0;
      return (
        await c.query(
          text.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as T[];
    };
    return {
      dialect,
      name,
      query,
      insert: async (table, row) => {
        const cols = Object.keys(row);
        await query(
          `INSERT INTO ${name(table)} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
          Object.values(row),
        );
      },
      close: () => c.end(),
    };
  }
  const c = await mysql.createConnection({ uri: url });
  const query = async <T>(text: string, params: unknown[] = []) => (await c.query(text, params))[0] as T[];
  return {
    dialect,
    name,
    query,
    insert: async (table, row) => {
      const cols = Object.keys(row);
      const values = Object.values(row).map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
      await query(`INSERT INTO ${name(table)} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, values);
    },
    close: () => c.end(),
  };
}

/** FileSender's DATETIME text (UTC here) of UNIX seconds. */
export function datetime(s: number): string {
  return new Date(s * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

export interface SiteFile {
  id: number;
  uid: string;
  name: string;
  /** The plaintext (of an encrypted file, what it decrypts to). */
  plain: Buffer;
  /** What FileSender stored. */
  stored: Buffer;
}

export interface Site {
  now: number;
  aliceSecret: string;
  password: string;
  /** Transfer 41: two plain files in a per-day bucket; recipients 201 and 202 (201 downloaded file 102). */
  plain: { id: number; files: SiteFile[]; tokens: string[] };
  /** Transfer 42: one file encrypted by ferry's FileSender-compatible encryption, chunks of 1 MiB. */
  encrypted: { id: number; file: SiteFile; token: string; salt: string; iterations: number; chunkSize: number };
  /** Transfer 43: file 104 whole, file 105 stored shorter than recorded. */
  partial: { id: number; good: SiteFile; badId: number; token: string };
  guestToken: string;
  closedGuestToken: string;
  /** Transfer 47 sent by the open guest 61, transfer 46 by the closed guest 62 (which is not imported). */
  fromGuests: { id: number; guestId: number; file: SiteFile }[];
}

const MiB = 1024 * 1024;

/** Builds FileSender 3.8's schema and the site's rows in an empty database, and its stored files under `filesDir`. */
/** `zone`: PHP's time zone on the FileSender server, in which its dates are written as wall-clock text. */
export async function buildSite(db: SiteDb, filesDir: string, schemaVersion = 258, zone = 'UTC'): Promise<Site> {
  for (const table of Object.keys(TABLES)) await db.query(createSql(db.dialect, table));
  const now = Math.floor(Date.now() / 1000);
  const day = 86400;
  const t = (s: number) => datetime(instantToWallClock(s, zone));
  await db.insert('metadatas', { schemaversion: schemaVersion, created: t(now - 30 * day), message: 'upgrade' });
  const aliceSecret = crypto.randomBytes(32).toString('hex');
  for (const [id, uid] of [
    [1, 'filesender-upgrade@localhost.localdomain'],
    [7, 'alice'],
    [8, 'bob'],
  ] as const)
    await db.insert('authentications', { id, saml_user_identification_uid: uid, created: t(now - 20 * day) });
  const user = (id: number, authid: number, secret: string | null, lang: string | null) =>
    db.insert('userpreferences', {
      id,
      authid,
      lang,
      aup_ticked: false,
      transfer_preferences: 'null',
      guest_preferences: 'null',
      frequent_recipients: 'null',
      created: t(now - 20 * day),
      last_activity: t(now - day),
      auth_secret: secret,
    });
  await user(10, 1, crypto.randomBytes(32).toString('hex'), null);
  await user(11, 7, aliceSecret, 'fr');
  await user(12, 8, null, null);

  const created = now - 2 * day;
  const transfer = (id: number, over: Record<string, unknown> = {}) =>
    db.insert('transfers', {
      id,
      userid: 11,
      user_email: 'alice@example.org',
      lang: 'en',
      subject: `transfer ${id}`,
      message: 'from FileSender',
      created: t(created),
      made_available: t(created + 60),
      expires: t(now + 5 * day),
      status: 'available',
      options: JSON.stringify({
        get_a_link: false,
        email_download_complete: true,
        hide_sender_email: false,
        encryption: false,
      }),
      roundtriptoken: crypto.randomBytes(16).toString('hex'),
      chunk_size: 5 * MiB,
      crypted_chunk_size: 5 * MiB + 32,
      ...over,
    });
  const write = (rel: string, bytes: Buffer) => {
    fs.mkdirSync(path.dirname(path.join(filesDir, rel)), { recursive: true });
    fs.writeFileSync(path.join(filesDir, rel), bytes);
  };
  const file = async (id: number, transferId: number, name: string, plain: Buffer, stored = plain, over = {}) => {
    const uid = crypto.randomUUID();
    await db.insert('files', {
      id,
      transfer_id: transferId,
      uid,
      puid: crypto.randomUUID(),
      name,
      mime_type: name.endsWith('.txt') ? 'text/plain' : 'application/octet-stream',
      size: plain.length,
      encrypted_size: plain.length + 32,
      upload_start: t(created),
      upload_end: t(created + 60),
      ...over,
    });
    return { id, uid, name, plain, stored } as SiteFile;
  };
  const recipient = async (id: number, transferId: number, email: string) => {
    const token = crypto.randomUUID();
    await db.insert('recipients', { id, transfer_id: transferId, email, token, created: t(created), options: 'null' });
    return token;
  };

  // 41: plain, per-day bucket (its uids are UUIDv4, so the bucket comes from the transfer's creation).
  await transfer(41, { storage_filesystem_per_day_buckets: true });
  const bucket = String(created - (created % day));
  const f101 = await file(101, 41, 'report.bin', crypto.randomBytes(3 * MiB + 17));
  const f102 = await file(102, 41, 'notes.txt', Buffer.from('notes from FileSender\n'.repeat(50)));
  for (const f of [f101, f102]) write(path.join(bucket, f.uid), f.stored);
  const tokens = [await recipient(201, 41, 'carol@example.org'), await recipient(202, 41, 'dave@example.org')];
  await db.insert('auditlogs', {
    event: 'download_ended',
    target_type: 'File',
    target_id: '102',
    author_type: 'Recipient',
    author_id: '201',
    ip: '192.0.2.1',
    created: t(now - day),
    transfer_id: 41,
    file_id: 102,
  });

  // 42: encrypted as FileSender's clients do (key version 3), by ferry's own implementation of the format.
  const password = 'Imported-Secret-42';
  const salt = crypto.randomBytes(24).toString('base64').slice(0, 32);
  const chunkSize = MiB;
  const iterations = 1000;
  await transfer(42, {
    options: JSON.stringify({ get_a_link: false, encryption: true }),
    key_version: 3,
    salt,
    password_version: 1,
    password_encoding: 0,
    password_hash_iterations: iterations,
    chunk_size: chunkSize,
    crypted_chunk_size: chunkSize + 32,
  });
  const secretPlain = crypto.randomBytes(2 * MiB + 1000);
  const iv = generateFileIv();
  const aead = toBase64(new TextEncoder().encode(aeadText(secretPlain.length, chunkSize, iv)));
  const key = await typedPasswordKey(password, salt, iterations);
  const fc = fileCrypto(iv, aead, chunkSize);
  const sealed: Buffer[] = [];
  for (let i = 0; i * chunkSize < secretPlain.length; i++)
    sealed.push(Buffer.from(await encryptChunk(key, fc, i, secretPlain.subarray(i * chunkSize, (i + 1) * chunkSize))));
  const stored = Buffer.concat(sealed);
  const f103 = await file(103, 42, 'secret.bin', secretPlain, stored, { encrypted_size: stored.length, iv, aead });
  write(f103.uid, stored);
  const encToken = await recipient(203, 42, 'carol@example.org');

  // 43: one file as recorded, one stored shorter than FileSender recorded it.
  await transfer(43);
  const f104 = await file(104, 43, 'whole.txt', Buffer.from('whole\n'));
  write(f104.uid, f104.stored);
  const f105 = await file(105, 43, 'cut.bin', crypto.randomBytes(4000));
  write(f105.uid, f105.stored.subarray(0, 3000));
  const partialToken = await recipient(204, 43, 'erin@example.org');

  // Not to be imported: expired, closed.
  await transfer(44, { expires: t(now - day) });
  const f106 = await file(106, 44, 'old.txt', Buffer.from('old'));
  write(f106.uid, f106.stored);
  await transfer(45, { status: 'closed' });

  const guest = async (id: number, status: string) => {
    const token = crypto.randomUUID();
    await db.insert('guests', {
      id,
      userid: 11,
      user_email: 'alice@example.org',
      token,
      email: `guest${id}@example.org`,
      transfer_count: 0,
      subject: 'send me the files',
      options: JSON.stringify({ email_upload_started: true, valid_only_one_time: false }),
      transfer_options: JSON.stringify({ email_download_complete: true, get_a_link: false }),
      status,
      created: t(created),
      expires: t(now + 10 * day),
      last_activity: t(created),
    });
    return token;
  };
  const guestToken = await guest(61, 'available');
  const closedGuestToken = await guest(62, 'closed');
  // Transfers guests sent (FileSender records the inviting user as their owner): from the open guest and from
  // the closed one.
  const fromGuests: Site['fromGuests'] = [];
  for (const [id, guestId, fileId] of [
    [47, 61, 107],
    [46, 62, 108],
  ] as const) {
    await transfer(id, { guest_id: guestId, user_email: `guest${guestId}@example.org` });
    const f = await file(fileId, id, `from-guest-${guestId}.txt`, Buffer.from(`sent by guest ${guestId}\n`));
    write(f.uid, f.stored);
    await recipient(200 + fileId, id, 'alice@example.org');
    fromGuests.push({ id, guestId, file: f });
  }
  return {
    now,
    aliceSecret,
    password,
    plain: { id: 41, files: [f101, f102], tokens },
    encrypted: { id: 42, file: f103, token: encToken, salt, iterations, chunkSize },
    partial: { id: 43, good: f104, badId: 105, token: partialToken },
    guestToken,
    closedGuestToken,
    fromGuests,
  };
}

/** Everything the site's database holds, table by table (to show the import changed nothing there). */
export async function siteSnapshot(db: SiteDb): Promise<string> {
  const out: Record<string, unknown[]> = {};
  for (const table of Object.keys(TABLES)) out[table] = await db.query(`SELECT * FROM ${db.name(table)} ORDER BY id`);
  return JSON.stringify(out);
}
