import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  type FileSenderSource,
  type FsDownload,
  type FsFile,
  type FsGuest,
  type FsRecipient,
  type FsTransfer,
  type FsUser,
  type IdFloor,
  SourceRefused,
} from '../../domain/ports/filesender-source';
import { openSourceDb, type SourceDb } from './filesender-db';
import { instantToWallClock, knownTimeZone, wallClockToInstant } from './wall-clock';

/**
 * FileSender 3.8's tables and the columns the import reads, as its classes define them (classes/data/*.class.php,
 * `$dataMap`; the table of a class is its name plus "s", or its `$dataTable`). Checked before anything is read,
 * so an older or newer schema is refused with the names it lacks rather than half read.
 */
const NEEDED: Record<string, string[]> = {
  metadatas: ['schemaversion'],
  authentications: ['id', 'saml_user_identification_uid'],
  userpreferences: ['id', 'authid', 'lang', 'auth_secret', 'created', 'last_activity'],
  transfers: [
    'id',
    'userid',
    'user_email',
    'guest_id',
    'lang',
    'subject',
    'message',
    'created',
    'made_available',
    'expires',
    'expiry_extensions',
    'status',
    'options',
    'key_version',
    'salt',
    'password_version',
    'password_encoding',
    'password_hash_iterations',
    'client_entropy',
    'roundtriptoken',
    'storage_filesystem_per_day_buckets',
    'storage_filesystem_per_hour_buckets',
    'chunk_size',
    'crypted_chunk_size',
  ],
  files: ['id', 'transfer_id', 'uid', 'name', 'mime_type', 'size', 'encrypted_size', 'iv', 'aead', 'storage_path'],
  recipients: ['id', 'transfer_id', 'email', 'token', 'created', 'last_activity'],
  guests: [
    'id',
    'userid',
    'user_email',
    'token',
    'email',
    'transfer_count',
    'subject',
    'message',
    'options',
    'transfer_options',
    'status',
    'created',
    'expires',
    'last_activity',
  ],
  auditlogs: ['event', 'target_type', 'target_id', 'author_type', 'author_id', 'created', 'transfer_id'],
};

/** A file uid as FileSender makes them (a UUID): anything else never becomes part of a path. */
const SAFE_UID = /^[A-Za-z0-9][A-Za-z0-9-]{0,59}$/;

type Row = Record<string, unknown>;
const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const bool = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 't';
const json = (v: unknown): unknown => {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
};

/**
 * Opens a FileSender site read only. `timeZone`: PHP's time zone on the FileSender server (its `date.timezone`),
 * in which it wrote every date.
 */
export async function openFileSenderSource(
  databaseUrl: string,
  filesDir: string,
  timeZone = 'UTC',
): Promise<FileSenderSource> {
  if (!knownTimeZone(timeZone))
    throw new SourceRefused(`--time-zone: unknown time zone ${timeZone} (an IANA name such as Europe/Amsterdam)`);
  let st: fs.Stats;
  try {
    st = fs.statSync(filesDir);
  } catch {
    throw new SourceRefused(`--files: no folder ${filesDir} (FileSender's storage_filesystem_path)`);
  }
  if (!st.isDirectory()) throw new SourceRefused(`--files: ${filesDir} is not a folder`);
  const db = await openSourceDb(databaseUrl);
  return new FileSenderDb(db, path.resolve(filesDir), timeZone);
}

class FileSenderDb implements FileSenderSource {
  private names: Record<string, string> = {};

  constructor(
    private readonly db: SourceDb,
    private readonly dir: string,
    private readonly zone: string,
  ) {}

  /** A date column's reading as the instant FileSender meant. */
  private at(v: unknown): number {
    return wallClockToInstant(num(v), this.zone);
  }

  private atOrNull(v: unknown): number | null {
    return v === null || v === undefined ? null : this.at(v);
  }

  describe(): string {
    return `${this.db.where} with files in ${this.dir}`;
  }

  async schemaVersion(): Promise<number> {
    const missing: string[] = [];
    for (const [table, columns] of Object.entries(NEEDED)) {
      const found = await this.db.table(table);
      if (!found) {
        missing.push(`table ${table}`);
        continue;
      }
      this.names[table] = found.name;
      for (const c of columns) if (!found.columns.has(c)) missing.push(`${table}.${c}`);
    }
    if (missing.length)
      throw new SourceRefused(
        `${this.db.where} is not a FileSender 3.8 database: it lacks ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ` and ${missing.length - 8} more` : ''}`,
      );
    const [row] = await this.db.query<Row>(
      `SELECT schemaversion FROM ${this.t('metadatas')} ORDER BY schemaversion DESC LIMIT 1`,
    );
    return row ? num(row.schemaversion) : 0;
  }

  private t(name: string): string {
    const n = this.names[name];
    if (!n) throw new Error(`schemaVersion() first: ${name}`);
    return n;
  }

  async users(): Promise<FsUser[]> {
    const s = (c: string) => this.db.seconds(c);
    const rows = await this.db.query<Row>(
      `SELECT u.id, a.saml_user_identification_uid AS uid, u.lang, u.auth_secret,
              ${s('u.created')} AS created, ${s('u.last_activity')} AS last_activity
       FROM ${this.t('userpreferences')} u JOIN ${this.t('authentications')} a ON a.id = u.authid ORDER BY u.id`,
    );
    return rows.map((r) => ({
      rowId: num(r.id),
      uid: String(r.uid),
      lang: str(r.lang) || null,
      secret: str(r.auth_secret) || null,
      created: this.at(r.created),
      lastActivity: this.atOrNull(r.last_activity),
    }));
  }

  async senderAddresses(): Promise<Map<number, string[]>> {
    const s = (c: string) => this.db.seconds(c);
    const rows = await this.db.query<Row>(
      `SELECT userid, user_email, MAX(${s('created')}) AS last FROM ${this.t('transfers')} WHERE guest_id IS NULL GROUP BY userid, user_email
       UNION ALL
       SELECT userid, user_email, MAX(${s('created')}) AS last FROM ${this.t('guests')} GROUP BY userid, user_email`,
    );
    const byUser = new Map<number, { email: string; last: number }[]>();
    for (const r of rows) {
      const email = str(r.user_email);
      if (!email) continue;
      const list = byUser.get(num(r.userid)) ?? [];
      const had = list.find((e) => e.email.toLowerCase() === email.toLowerCase());
      if (had) had.last = Math.max(had.last, num(r.last));
      else list.push({ email, last: num(r.last) });
      byUser.set(num(r.userid), list);
    }
    return new Map([...byUser].map(([id, list]) => [id, list.sort((a, b) => b.last - a.last).map((e) => e.email)]));
  }

  async transfers(statuses: string[], now: number): Promise<FsTransfer[]> {
    const s = (c: string) => this.db.seconds(c);
    const marks = statuses.map(() => '?').join(', ');
    const rows = await this.db.query<Row>(
      `SELECT id, userid, user_email, guest_id, lang, subject, message, ${s('created')} AS created,
              ${s('made_available')} AS made_available, ${s('expires')} AS expires, expiry_extensions, status, options,
              key_version, salt, password_version, password_encoding, password_hash_iterations, client_entropy,
              roundtriptoken, storage_filesystem_per_day_buckets AS day_buckets,
              storage_filesystem_per_hour_buckets AS hour_buckets, chunk_size, crypted_chunk_size
       FROM ${this.t('transfers')} WHERE status IN (${marks}) AND ${s('expires')} > ? ORDER BY id`,
      [...statuses, instantToWallClock(now, this.zone)],
    );
    const out: FsTransfer[] = rows.map((r) => ({
      id: num(r.id),
      userRowId: num(r.userid),
      userEmail: String(r.user_email),
      guestId: numOrNull(r.guest_id),
      lang: str(r.lang) || null,
      subject: str(r.subject) || null,
      message: str(r.message) || null,
      created: this.at(r.created),
      madeAvailable: this.atOrNull(r.made_available),
      expires: this.at(r.expires),
      expiryExtensions: num(r.expiry_extensions),
      status: String(r.status),
      options: json(r.options),
      keyVersion: num(r.key_version),
      salt: str(r.salt),
      passwordVersion: num(r.password_version),
      passwordEncoding: num(r.password_encoding),
      passwordHashIterations: num(r.password_hash_iterations),
      clientEntropy: str(r.client_entropy) || null,
      roundtripToken: str(r.roundtriptoken) || null,
      chunkSize: num(r.chunk_size),
      cryptedChunkSize: num(r.crypted_chunk_size),
      dayBuckets: bool(r.day_buckets),
      hourBuckets: bool(r.hour_buckets),
      files: [],
      recipients: [],
    }));
    const byId = new Map(out.map((t) => [t.id, t]));
    for (const part of slices([...byId.keys()])) {
      const marks2 = part.map(() => '?').join(', ');
      const files = await this.db.query<Row>(
        `SELECT id, transfer_id, uid, name, mime_type, size, encrypted_size, iv, aead, storage_path
         FROM ${this.t('files')} WHERE transfer_id IN (${marks2}) ORDER BY id`,
        part,
      );
      for (const f of files)
        byId.get(num(f.transfer_id))?.files.push({
          id: num(f.id),
          uid: String(f.uid),
          name: String(f.name),
          mimeType: str(f.mime_type) || null,
          size: num(f.size),
          encryptedSize: numOrNull(f.encrypted_size),
          iv: str(f.iv) || null,
          aead: str(f.aead) || null,
          storagePath: str(f.storage_path) || null,
        });
      const recipients = await this.db.query<Row>(
        `SELECT id, transfer_id, email, token, ${s('created')} AS created, ${s('last_activity')} AS last_activity
         FROM ${this.t('recipients')} WHERE transfer_id IN (${marks2}) ORDER BY id`,
        part,
      );
      for (const r of recipients) {
        const rec: FsRecipient = {
          id: num(r.id),
          email: str(r.email) ?? '',
          token: String(r.token),
          created: this.at(r.created),
          lastActivity: this.atOrNull(r.last_activity),
        };
        byId.get(num(r.transfer_id))?.recipients.push(rec);
      }
    }
    return out;
  }

  async guests(statuses: string[], now: number): Promise<FsGuest[]> {
    const s = (c: string) => this.db.seconds(c);
    const marks = statuses.map(() => '?').join(', ');
    const rows = await this.db.query<Row>(
      `SELECT id, userid, user_email, token, email, transfer_count, subject, message, options, transfer_options, status,
              ${s('created')} AS created, ${s('expires')} AS expires, ${s('last_activity')} AS last_activity
       FROM ${this.t('guests')} WHERE status IN (${marks}) AND (expires IS NULL OR ${s('expires')} > ?) ORDER BY id`,
      [...statuses, instantToWallClock(now, this.zone)],
    );
    return rows.map((r) => ({
      id: num(r.id),
      userRowId: num(r.userid),
      userEmail: String(r.user_email),
      email: String(r.email),
      token: String(r.token),
      subject: str(r.subject) || null,
      message: str(r.message) || null,
      options: json(r.options),
      transferOptions: json(r.transfer_options),
      status: String(r.status),
      transferCount: num(r.transfer_count),
      created: this.at(r.created),
      expires: this.atOrNull(r.expires),
      lastActivity: this.atOrNull(r.last_activity),
    }));
  }

  async downloads(transferIds: number[]): Promise<FsDownload[]> {
    const out: FsDownload[] = [];
    for (const part of slices(transferIds)) {
      const marks = part.map(() => '?').join(', ');
      const rows = await this.db.query<Row>(
        `SELECT transfer_id, author_id, target_id, MIN(${this.db.seconds('created')}) AS date
         FROM ${this.t('auditlogs')}
         WHERE event = 'download_ended' AND author_type = 'Recipient' AND target_type = 'File' AND transfer_id IN (${marks})
         GROUP BY transfer_id, author_id, target_id`,
        part,
      );
      for (const r of rows) {
        const recipientId = Number(r.author_id);
        const fileId = Number(r.target_id);
        if (Number.isSafeInteger(recipientId) && Number.isSafeInteger(fileId))
          out.push({ transferId: num(r.transfer_id), recipientId, fileId, date: this.at(r.date) });
      }
    }
    return out;
  }

  async maxIds(): Promise<IdFloor> {
    const max = async (table: string) =>
      num((await this.db.query<Row>(`SELECT MAX(id) AS m FROM ${this.t(table)}`))[0]?.m);
    return {
      transfers: await max('transfers'),
      files: await max('files'),
      recipients: await max('recipients'),
      guests: await max('guests'),
    };
  }

  async storedSize(t: FsTransfer, f: FsFile): Promise<number | null> {
    const p = this.locate(t, f);
    return p ? fs.statSync(p).size : null;
  }

  read(t: FsTransfer, f: FsFile, start: number, end: number): Readable {
    const p = this.locate(t, f);
    if (!p) throw new SourceRefused(`file ${f.id}: no stored file ${f.uid}`);
    return fs.createReadStream(p, { start, end: end - 1, highWaterMark: 1024 * 1024 });
  }

  /**
   * Where FileSender's filesystem storage put a file (classes/storage/StorageFilesystem.class.php, buildPath):
   * `<storage_filesystem_path>/<uid>`, under the folder it recorded for the file when it keeps one, under
   * per-day and per-hour buckets (from the UUIDv7 uid's time, else the transfer's creation), or under
   * `storage_filesystem_hashing` folders of the uid's first letters.
   */
  private locate(t: FsTransfer, f: FsFile): string | null {
    if (!SAFE_UID.test(f.uid)) return null;
    const at = uuid7Seconds(f.uid) ?? t.created;
    const day = String(at - (at % 86400));
    const hour = String(at - (at % 3600));
    const candidates = [
      path.join(this.dir, f.uid),
      ...(f.storagePath
        ? [path.join(path.isAbsolute(f.storagePath) ? f.storagePath : path.join(this.dir, f.storagePath), f.uid)]
        : []),
      path.join(this.dir, day, f.uid),
      path.join(this.dir, hour, f.uid),
      path.join(this.dir, day, hour, f.uid),
      path.join(this.dir, f.uid.slice(0, 1), f.uid),
      path.join(this.dir, f.uid.slice(0, 1), f.uid.slice(0, 2), f.uid),
    ];
    for (const c of candidates) {
      try {
        if (fs.statSync(c).isFile()) return c;
      } catch {
        // not there: the next layout
      }
    }
    return null;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/** The time of a UUID version 7 (its first 48 bits are milliseconds since 1970), or null for other versions. */
function uuid7Seconds(uid: string): number | null {
  const hex = uid.replace(/-/g, '');
  if (hex.length !== 32 || hex[12] !== '7') return null;
  return Math.floor(Number.parseInt(hex.slice(0, 12), 16) / 1000);
}

function slices<T>(list: T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
