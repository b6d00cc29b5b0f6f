import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { snapshotSqlite } from '../db/copy';
import { migrations } from '../db/migrations';
import { openSqliteFile, sqliteFile, sqliteSchemaVersion } from '../db/sqlite';
import { snapshotCounts, snapshotFiles, type SnapshotFile } from '../db/snapshot-reads';
import { storedFilePath } from '../storage/fs-store';
import { encryptedSize } from '../shared-crypto/format';
import { VERSION } from '../version';

/** A backup or restore that was not attempted because its input is wrong (the CLI's exit 1). */
export class BackupRefused extends Error {}

export const MANIFEST = 'manifest.json';

export interface ManifestFile {
  /** Relative to the backup (and to the data dir): files/<transfer id>/<uid>. */
  path: string;
  size: number;
  /** The server's SHA-256 of the stored bytes, when it had computed it at snapshot time. */
  sha256: string | null;
}

export interface Manifest {
  format: 1;
  ferry_version: string;
  schema_version: number;
  created: string;
  counts: {
    transfers: number;
    available_transfers: number;
    files: number;
    users: number;
    files_copied: number;
    bytes_copied: number;
    partial_files_copied: number;
  };
  /** Every file of a transfer that was available in the snapshot, copied whole (only with --files). */
  files: ManifestFile[];
  /** Files of transfers still being uploaded at snapshot time: copied as found, not checked on restore. */
  partial_files: string[];
}

export interface BackupReport {
  dir: string;
  manifest: Manifest;
  ms: number;
}

type FileRow = SnapshotFile;

/**
 * `ferry backup <dir> [--files]`, safe while serve runs. The metadata is SQLite's online backup of ferry.db
 * (one consistent moment, however much serve writes meanwhile). The files are copied after that moment, and
 * from the snapshot's rows, never the live ones: a transfer available in the snapshot is immutable from then
 * on (its files may only be removed, by purge or deletion, which makes the backup fail loudly rather than
 * hold a transfer without its bytes), so each of its files is copied whole and checked against the size and
 * SHA-256 the snapshot recorded. Uploads in progress are copied as found.
 */
export async function backupSqlite(
  dataDir: string,
  dir: string,
  opts: { files?: boolean } = {},
): Promise<BackupReport> {
  const started = Date.now();
  const source = sqliteFile(dataDir);
  if (!fs.existsSync(source)) throw new BackupRefused(`no SQLite database at ${source}`);
  await assertEmptyDir(dir, 'the backup directory');
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const dbFile = path.join(dir, 'ferry.db');
  await snapshotSqlite(source, dbFile);
  const snap = openSqliteFile(dbFile, migrations, { readonly: true });
  let rows: FileRow[];
  let manifest: Manifest;
  try {
    rows = snapshotFiles(snap);
    manifest = {
      format: 1,
      ferry_version: VERSION,
      schema_version: sqliteSchemaVersion(snap),
      created: new Date().toISOString(),
      counts: {
        ...snapshotCounts(snap),
        files_copied: 0,
        bytes_copied: 0,
        partial_files_copied: 0,
      },
      files: [],
      partial_files: [],
    };
  } finally {
    snap.close();
  }
  if (opts.files) {
    const from = path.join(dataDir, 'files');
    for (const r of rows) {
      const rel = path.relative(from, storedFilePath(from, r.transfer_id, r.uid));
      const src = path.join(from, rel);
      const dst = path.join(dir, 'files', rel);
      await fsp.mkdir(path.dirname(dst), { recursive: true, mode: 0o700 });
      if (r.status === 'available') {
        const expected = storedSize(r);
        let copied: { size: number; sha256: string };
        try {
          copied = await copyHashed(src, dst);
        } catch (e) {
          throw new Error(
            `files/${rel} of available transfer ${r.transfer_id} could not be read (${(e as Error).message}); was it deleted during the backup?`,
          );
        }
        if (copied.size !== expected)
          throw new Error(`files/${rel}: ${copied.size} bytes on disk, the snapshot says ${expected}`);
        if (r.sha256 && copied.sha256 !== r.sha256)
          throw new Error(`files/${rel}: SHA-256 differs from the snapshot's`);
        manifest.files.push({ path: `files/${rel}`, size: copied.size, sha256: r.sha256 });
        manifest.counts.files_copied++;
        manifest.counts.bytes_copied += copied.size;
      } else {
        // Still being uploaded: whatever is there now (it may be gone, or grow while read).
        const copied = await copyHashed(src, dst).catch(() => null);
        if (!copied) continue;
        manifest.partial_files.push(`files/${rel}`);
        manifest.counts.partial_files_copied++;
        manifest.counts.bytes_copied += copied.size;
      }
    }
  }
  // Written last, atomically: a directory with a manifest is a finished backup.
  const tmp = path.join(dir, `.${MANIFEST}.tmp`);
  await fsp.writeFile(tmp, JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
  await fsp.rename(tmp, path.join(dir, MANIFEST));
  return { dir, manifest, ms: Date.now() - started };
}

/**
 * `ferry restore <dir>` into an empty (or absent) data directory: copies ferry.db and the files, and checks
 * every file the manifest lists against its size and SHA-256. On any failure the data directory is left
 * as it was found (emptied again), so a second attempt starts clean.
 */
export async function restoreSqlite(dir: string, dataDir: string): Promise<Manifest> {
  const manifest = await readManifest(dir);
  const latest = Math.max(...migrations.map((m) => m.version));
  if (manifest.schema_version > latest)
    throw new BackupRefused(
      `the backup's schema version ${manifest.schema_version} is newer than this ferry's (${latest}): restore it with ferry ${manifest.ferry_version} or later`,
    );
  if (!fs.existsSync(path.join(dir, 'ferry.db'))) throw new BackupRefused(`no ferry.db in ${dir}`);
  await assertEmptyDir(dataDir, 'the data directory');
  const created = !fs.existsSync(dataDir);
  await fsp.mkdir(dataDir, { recursive: true, mode: 0o700 });
  try {
    await fsp.copyFile(path.join(dir, 'ferry.db'), sqliteFile(dataDir), fs.constants.COPYFILE_EXCL);
    await fsp.chmod(sqliteFile(dataDir), 0o600);
    const db = openSqliteFile(sqliteFile(dataDir), migrations, { readonly: true });
    try {
      const v = sqliteSchemaVersion(db);
      if (v !== manifest.schema_version)
        throw new Error(`ferry.db has schema version ${v}, the manifest says ${manifest.schema_version}`);
    } finally {
      db.close();
    }
    const checked = new Map(manifest.files.map((f) => [f.path, f]));
    const listed = new Set([...checked.keys(), ...manifest.partial_files]);
    for (const rel of listed) {
      if (!/^files\/[1-9][0-9]*\/[0-9a-f]{32}$/.test(rel))
        throw new Error(`manifest: unexpected path ${JSON.stringify(rel)}`);
      const src = path.join(dir, rel);
      const dst = path.join(dataDir, rel);
      await fsp.mkdir(path.dirname(dst), { recursive: true, mode: 0o700 });
      const want = checked.get(rel);
      if (!want) {
        await fsp.copyFile(src, dst).catch(() => {});
        continue;
      }
      const got = await copyHashed(src, dst).catch((e: NodeJS.ErrnoException) => {
        throw e.code === 'ENOENT' ? new BackupRefused(`${rel} is missing from the backup`) : e;
      });
      // A damaged backup is the input's fault, not ferry's: exit 1 with the file named.
      if (got.size !== want.size)
        throw new BackupRefused(`${rel}: ${got.size} bytes, the manifest says ${want.size}; the backup is damaged`);
      if (want.sha256 && got.sha256 !== want.sha256)
        throw new BackupRefused(`${rel}: SHA-256 differs from the manifest's; the backup is damaged`);
    }
  } catch (e) {
    // Leave nothing half-restored behind.
    if (created) await fsp.rm(dataDir, { recursive: true, force: true });
    else
      for (const name of await fsp.readdir(dataDir))
        await fsp.rm(path.join(dataDir, name), { recursive: true, force: true });
    throw e;
  }
  return manifest;
}

async function readManifest(dir: string): Promise<Manifest> {
  let text: string;
  try {
    text = await fsp.readFile(path.join(dir, MANIFEST), 'utf8');
  } catch {
    throw new BackupRefused(`no ${MANIFEST} in ${dir}: not a finished ferry backup`);
  }
  let m: Manifest;
  try {
    m = JSON.parse(text);
  } catch {
    throw new BackupRefused(`${path.join(dir, MANIFEST)} is not valid JSON`);
  }
  if (
    m?.format !== 1 ||
    !Number.isInteger(m.schema_version) ||
    !Array.isArray(m.files) ||
    !Array.isArray(m.partial_files)
  ) {
    throw new BackupRefused(`${path.join(dir, MANIFEST)} is not a ferry backup manifest`);
  }
  return m;
}

/** An existing non-empty directory is refused: a backup or restore never merges into, or overwrites, anything. */
async function assertEmptyDir(dir: string, what: string): Promise<void> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') throw new BackupRefused(`${what} ${dir} is not a directory`);
    throw e;
  }
  if (names.length) throw new BackupRefused(`${what} ${dir} is not empty`);
}

/** The bytes on disk of a finished file: the ciphertext's size for an end-to-end encrypted transfer. */
function storedSize(r: FileRow): number {
  if (!r.encryption) return r.size;
  const chunkSize = (JSON.parse(r.encryption) as { chunkSize: number }).chunkSize;
  return encryptedSize(r.size, chunkSize);
}

async function copyHashed(src: string, dst: string): Promise<{ size: number; sha256: string }> {
  const hash = crypto.createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(
    fs.createReadStream(src, { highWaterMark: 1 << 20 }),
    tap,
    fs.createWriteStream(dst, { flags: 'wx', mode: 0o600 }),
  );
  return { size, sha256: hash.digest('hex') };
}
