import crypto from 'node:crypto';
import { Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { Clock, FileStore, Repositories, StoredFile, StoredPiece, UnitOfWork } from './ports';
import { hasMultipartUploads } from './ports';
import type { FileSenderSource, FsDownload, FsFile, FsGuest, FsTransfer, FsUser } from './ports/filesender-source';
import type { FileRecord, Guest, Recipient, Transfer, TransferEncryption } from './model';
import { GUEST_OPTIONS, TRANSFER_OPTIONS } from './options';
import { CHUNK_OVERHEAD, encryptedSize, KEY_VERSION_AES_GCM_PBKDF2 } from '../shared-crypto/format';

/**
 * `ferry import filesender` (docs/moving-from-filesender.md): users, open transfers with their files,
 * recipients and downloads, open guests and API secrets, read from a FileSender 3.8 installation and written
 * through ferry's own repositories and file store, so any database and store ferry runs on receives them.
 * Records keep their FileSender ids and tokens, so every link already sent opens the same thing on ferry.
 *
 * Idempotent: each transfer's records are written in one unit of work and marked imported; its files' bytes
 * are copied after, each completed on its own, so a run cut short is continued by the next one (files not
 * complete are copied again from their first byte). Nothing is written on FileSender's side.
 */

/** The schema version FileSender 3.8 records in `metadatas` (DatabaseSchemaVersions::VERSION_CURRENT). */
export const FILESENDER_SCHEMA_VERSION = 258;

/** Transfers still worth bringing: their bytes are there and their links may still be used. */
const OPEN_TRANSFERS = ['created', 'started', 'uploading', 'available'];
/** FileSender's accounts for its own scripts (upgrade, cron, tests), never people. */
const INTERNAL_UID = /^filesender-[a-z0-9]+@localhost\.localdomain$/;
/** FileSender's password encodings (DBConstantPasswordEncoding) that ferry's decryption knows. */
const PASSWORD_ENCODINGS: Record<number, string> = { 0: 'none', 1: 'base64' };
const SOURCE = 'filesender';
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/**
 * ferry's uid of an imported file: FileSender's UUID without its dashes, the 32 hexadecimal digits ferry's own
 * uids have (the stores address files by them and accept nothing else), or null for a uid of another form.
 */
export function ferryUid(fileSenderUid: string): string | null {
  return UUID.test(fileSenderUid) ? fileSenderUid.replace(/-/g, '').toLowerCase() : null;
}

export interface ImportOptions {
  dryRun: boolean;
  /** Import into a ferry that already holds transfers or guests of its own. */
  merge: boolean;
  /** uids FileSender's config names as admins (`admin`): they become ferry admins. */
  admins: string[];
}

/** Something the import could not bring over, and why (the report lists each). */
export interface Unmapped {
  what: 'user' | 'transfer' | 'file' | 'guest' | 'option';
  id: string;
  why: string;
}

export interface ImportReport {
  dryRun: boolean;
  source: string;
  users: number;
  /** Imported in this run (or, dry, that would be). */
  transfers: number;
  files: number;
  bytes: number;
  recipients: number;
  guests: number;
  downloads: number;
  /** Already there from an earlier run: transfers and guests whose records were in, files already copied. */
  already: { transfers: number; guests: number; files: number };
  unmapped: Unmapped[];
}

export interface ImportProgress {
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

/** The import cannot start: the message says what to change (exit code 1). */
export class ImportRefused extends Error {}

export interface ImportDeps {
  repos: Repositories;
  uow: UnitOfWork;
  files: FileStore;
  clock: Clock;
  /**
   * Bytes handed to the store per write, as an upload's chunks are (`upload_chunk_size`): a part of an S3
   * multipart upload, a positional write on the filesystem.
   */
  pieceSize: () => number;
}

interface FilePlan {
  file: FsFile;
  /** Bytes ferry stores: the ciphertext of an encrypted file. */
  stored: number;
  /** The stored bytes are all there: they are copied. Otherwise the record comes without data (an upload under way). */
  copy: boolean;
}

interface TransferPlan {
  t: FsTransfer;
  owner: string;
  encryption: TransferEncryption | null;
  files: FilePlan[];
}

/** Refuses a source whose schema is not FileSender 3.8's (before anything of ferry is opened). */
export async function checkFileSenderSource(source: FileSenderSource): Promise<void> {
  const version = await source.schemaVersion();
  if (version !== FILESENDER_SCHEMA_VERSION)
    throw new ImportRefused(
      `FileSender's database has schema version ${version}; this import reads version ${FILESENDER_SCHEMA_VERSION} (FileSender 3.8): upgrade FileSender first`,
    );
}

export async function importFromFileSender(
  deps: ImportDeps,
  source: FileSenderSource,
  opts: ImportOptions,
  onProgress: (p: ImportProgress) => void = () => {},
): Promise<ImportReport> {
  await checkFileSenderSource(source);
  const { repos } = deps;
  const now = deps.clock();
  if (!opts.merge) {
    const other = await repos.imports.otherRecords();
    if (other.transfers || other.guests)
      throw new ImportRefused(
        `ferry already holds ${other.transfers} transfer(s) and ${other.guests} guest(s) that no import brought: import into an empty ferry, or pass --merge to add FileSender's records beside them`,
      );
  }
  const report: ImportReport = {
    dryRun: opts.dryRun,
    source: source.describe(),
    users: 0,
    transfers: 0,
    files: 0,
    bytes: 0,
    recipients: 0,
    guests: 0,
    downloads: 0,
    already: { transfers: 0, guests: 0, files: 0 },
    unmapped: [],
  };
  const skip = (what: Unmapped['what'], id: string | number, why: string) =>
    report.unmapped.push({ what, id: String(id), why });

  // Users: every person FileSender knows, with the addresses they sent from (FileSender keeps a user's
  // addresses only in the identity provider's answer, so the transfers and guests are where they are found).
  const users = await source.users();
  const addresses = await source.senderAddresses();
  const uidOf = new Map<number, string>();
  const people: FsUser[] = [];
  for (const u of users) {
    if (INTERNAL_UID.test(u.uid)) continue;
    uidOf.set(u.rowId, u.uid);
    people.push(u);
  }
  report.users = people.length;

  // Guests still open.
  const importedGuests = await repos.imports.imported('guest');
  const guests: Guest[] = [];
  const fsGuests = await source.guests(['available'], now);
  const guestIdsTaken = new Set(
    await repos.imports.taken(
      'guest',
      fsGuests.filter((g) => !importedGuests.has(g.id)).map((g) => g.id),
    ),
  );
  const guestTokensTaken = new Set(
    await repos.imports.tokensTaken(
      'guest',
      fsGuests.filter((g) => !importedGuests.has(g.id)).map((g) => g.token),
    ),
  );
  for (const g of fsGuests) {
    if (importedGuests.has(g.id)) {
      report.already.guests++;
      continue;
    }
    const owner = uidOf.get(g.userRowId);
    if (!owner) skip('guest', g.id, `its user (row ${g.userRowId}) is not in FileSender's users`);
    else if (guestIdsTaken.has(g.id)) skip('guest', g.id, `ferry already has another guest with id ${g.id}`);
    else if (guestTokensTaken.has(g.token)) skip('guest', g.id, 'ferry already has a guest with its token');
    else guests.push(guestOf(g, owner, (name) => skip('option', `guest ${g.id}: ${name}`, 'no such option in ferry')));
  }

  // Transfers still open, with the files whose stored bytes are as FileSender recorded them.
  const importedTransfers = await repos.imports.imported('transfer');
  const fsTransfers = await source.transfers(OPEN_TRANSFERS, now);
  const plans: TransferPlan[] = [];
  const continued: TransferPlan[] = [];
  const fresh = fsTransfers.filter((t) => !importedTransfers.has(t.id));
  const taken = await takenBy(repos, fresh);
  for (const t of fsTransfers) {
    const owner = uidOf.get(t.userRowId);
    if (!owner) {
      skip('transfer', t.id, `its user (row ${t.userRowId}) is not in FileSender's users`);
      continue;
    }
    const enc = encryptionOf(t);
    if (typeof enc === 'string') {
      skip('transfer', t.id, enc);
      continue;
    }
    const files: FilePlan[] = [];
    for (const f of t.files) {
      if (!ferryUid(f.uid)) {
        skip('file', f.id, `its uid ${JSON.stringify(f.uid.slice(0, 60))} is not a UUID`);
        continue;
      }
      const stored = enc ? encryptedSize(f.size, enc.chunkSize) : f.size;
      if (enc && f.encryptedSize !== null && f.encryptedSize !== stored) {
        skip(
          'file',
          f.id,
          `FileSender records ${f.encryptedSize} encrypted bytes; its size and chunk size make ${stored}`,
        );
        continue;
      }
      const onDisk = await source.storedSize(t, f);
      if (onDisk === stored) {
        files.push({ file: f, stored, copy: true });
        continue;
      }
      if (t.status !== 'available' && (onDisk === null || onDisk < stored)) {
        // An upload under way: the record comes over, the uploader sends the file to ferry again.
        files.push({ file: f, stored, copy: false });
        continue;
      }
      skip(
        'file',
        f.id,
        onDisk === null
          ? `no stored file ${f.uid} under the storage folder`
          : `stored size ${onDisk} differs from the recorded ${stored}`,
      );
    }
    const plan: TransferPlan = { t, owner, encryption: enc, files };
    if (importedTransfers.has(t.id)) {
      report.already.transfers++;
      continued.push(plan);
      continue;
    }
    if (!files.length) {
      skip('transfer', t.id, 'none of its files can be brought over');
      continue;
    }
    const clash = clashOf(t, files, taken);
    if (clash) {
      skip('transfer', t.id, clash);
      continue;
    }
    plans.push(plan);
  }

  // Downloads already made: each recipient's received files.
  const downloads = await source.downloads(plans.map((p) => p.t.id));

  // What is to be copied: the new transfers' files, and files an earlier run left incomplete.
  const toCopy: { plan: TransferPlan; f: FilePlan }[] = [];
  for (const plan of plans) for (const f of plan.files) if (f.copy) toCopy.push({ plan, f });
  for (const plan of continued) {
    const have = new Map((await repos.transfers.files(plan.t.id)).map((r) => [r.id, r]));
    for (const f of plan.files) {
      const rec = have.get(f.file.id);
      if (!rec) continue;
      if (rec.complete) report.already.files++;
      else if (f.copy) toCopy.push({ plan, f });
    }
  }
  report.transfers = plans.length;
  report.guests = guests.length;
  report.recipients = plans.reduce((n, p) => n + p.t.recipients.length, 0);
  const fileIds = new Set(plans.flatMap((p) => p.files.map((f) => f.file.id)));
  report.downloads = downloads.filter((d) => fileIds.has(d.fileId)).length;
  report.files = toCopy.length;
  report.bytes = toCopy.reduce((n, c) => n + c.f.stored, 0);
  for (const p of plans)
    optionsOf(p.t.options, TRANSFER_OPTIONS, (name) =>
      skip('option', `transfer ${p.t.id}: ${name}`, 'no such option in ferry'),
    );
  if (opts.dryRun) return report;

  // Users first: transfers and guests name them.
  // What a user already has in ferry (signed in since, rotated the secret, chose a language) is kept.
  for (const u of people) {
    const known = await repos.users.record(u.uid);
    await repos.users.upsertSeen(u.uid, known ? [] : (addresses.get(u.rowId) ?? []), u.lastActivity ?? u.created);
    if (u.secret && !(await repos.users.remoteSecret(u.uid))) await repos.users.setRemoteSecret(u.uid, u.secret);
    if (u.lang && !known?.lang) await repos.users.setLang(u.uid, u.lang);
  }
  for (const uid of opts.admins) if ([...uidOf.values()].includes(uid)) await repos.users.addAdmin(uid, now);

  for (const g of guests) await deps.uow.run((tx) => tx.imports.insertGuest(g, SOURCE, now));

  // A transfer a guest sent keeps its guest when the guest is in ferry; a guest left behind (closed, expired)
  // leaves the transfer with the user who invited them, as FileSender records it.
  const guestsIn = new Set([...importedGuests, ...guests.map((g) => g.id)]);
  const received = new Map<number, FsDownload[]>();
  for (const d of downloads) received.set(d.transferId, [...(received.get(d.transferId) ?? []), d]);
  for (const plan of plans) {
    await deps.uow.run(async (tx) => {
      const { transfer, files, recipients } = recordsOf(plan, now);
      if (transfer.guestId !== null && !guestsIn.has(transfer.guestId)) transfer.guestId = null;
      await tx.imports.insertTransfer(transfer, files, recipients, SOURCE, now);
      const ids = new Set(files.map((f) => f.id));
      const rids = new Set(recipients.map((r) => r.id));
      await tx.imports.recordReceived(
        (received.get(plan.t.id) ?? [])
          .filter((d) => ids.has(d.fileId) && rids.has(d.recipientId))
          .map((d) => ({ recipientId: d.recipientId, fileId: d.fileId, date: d.date })),
      );
      await tx.audit.record({
        transferId: transfer.id,
        date: now,
        event: 'transfer_imported',
        author: { type: 'User', id: plan.owner, ip: null, email: transfer.userEmail },
        target: { type: 'Transfer', id: String(transfer.id) },
        detail: `from FileSender: ${files.length} file(s), ${recipients.length} recipient(s)`,
      });
    });
  }
  await repos.imports.moveSequences(await source.maxIds());

  // The bytes, file by file: each one complete (range, digests) or not at all.
  const progress: ImportProgress = { files: 0, totalFiles: toCopy.length, bytes: 0, totalBytes: report.bytes };
  onProgress({ ...progress });
  for (const { plan, f } of toCopy) {
    await copyFile(deps, source, plan, f, (n) => {
      progress.bytes += n;
      onProgress({ ...progress });
    });
    progress.files++;
    onProgress({ ...progress });
  }
  // A transfer is made available once all its files are in (so no link opens a file still being copied).
  for (const plan of [...plans, ...continued]) {
    if (plan.t.status !== 'available') continue;
    const recs = await repos.transfers.files(plan.t.id);
    const t = await repos.transfers.find(plan.t.id);
    if (t && t.status !== 'available' && recs.every((r) => r.complete))
      await repos.imports.setImportedStatus(plan.t.id, 'available', plan.t.madeAvailable ?? plan.t.created);
  }
  return report;
}

async function takenBy(
  repos: Repositories,
  fresh: FsTransfer[],
): Promise<{
  transfers: Set<number>;
  files: Set<number>;
  recipients: Set<number>;
  tokens: Set<string>;
  uids: Set<string>;
}> {
  const files = fresh.flatMap((t) => t.files);
  const recipients = fresh.flatMap((t) => t.recipients);
  return {
    transfers: new Set(
      await repos.imports.taken(
        'transfer',
        fresh.map((t) => t.id),
      ),
    ),
    files: new Set(
      await repos.imports.taken(
        'file',
        files.map((f) => f.id),
      ),
    ),
    recipients: new Set(
      await repos.imports.taken(
        'recipient',
        recipients.map((r) => r.id),
      ),
    ),
    tokens: new Set(
      await repos.imports.tokensTaken(
        'recipient',
        recipients.map((r) => r.token),
      ),
    ),
    uids: new Set(await repos.imports.uidsTaken(files.map((f) => ferryUid(f.uid) ?? ''))),
  };
}

/** Why a new transfer cannot keep its ids and tokens in this ferry (merging into one in use), or null. */
function clashOf(t: FsTransfer, files: FilePlan[], taken: Awaited<ReturnType<typeof takenBy>>): string | null {
  if (taken.transfers.has(t.id)) return `ferry already has another transfer with id ${t.id}`;
  for (const { file } of files) {
    if (taken.files.has(file.id)) return `ferry already has another file with id ${file.id}`;
    if (taken.uids.has(ferryUid(file.uid) ?? '')) return `ferry already has a file with uid ${file.uid}`;
  }
  for (const r of t.recipients) {
    if (taken.recipients.has(r.id)) return `ferry already has another recipient with id ${r.id}`;
    if (taken.tokens.has(r.token)) return 'ferry already has a recipient with one of its tokens';
  }
  return null;
}

/** The transfer's encryption in ferry's terms, null for a plain one, or why ferry could not decrypt it. */
function encryptionOf(t: FsTransfer): TransferEncryption | null | string {
  if (!optionOn(t.options, 'encryption')) return null;
  if (t.keyVersion !== KEY_VERSION_AES_GCM_PBKDF2)
    return `encrypted with key version ${t.keyVersion}: ferry decrypts key version ${KEY_VERSION_AES_GCM_PBKDF2} (AES-GCM) only`;
  const encoding = PASSWORD_ENCODINGS[t.passwordEncoding];
  if (!encoding) return `password encoding ${t.passwordEncoding} (ascii85) is not one ferry knows`;
  if (!t.salt) return 'encrypted without a salt';
  if (t.chunkSize <= 0 || (t.cryptedChunkSize && t.cryptedChunkSize !== t.chunkSize + CHUNK_OVERHEAD))
    return `chunk sizes ${t.chunkSize}/${t.cryptedChunkSize} are not those of key version ${KEY_VERSION_AES_GCM_PBKDF2}`;
  return {
    keyVersion: t.keyVersion,
    passwordVersion: t.passwordVersion,
    passwordEncoding: encoding,
    hashIterations: t.passwordHashIterations,
    clientEntropy: t.clientEntropy || null,
    salt: t.salt,
    chunkSize: t.chunkSize,
  };
}

function optionOn(options: unknown, name: string): boolean {
  if (Array.isArray(options)) return options.includes(name);
  if (options && typeof options === 'object') {
    const v = (options as Record<string, unknown>)[name];
    return v === true || v === 1 || v === '1';
  }
  return false;
}

/** FileSender's options (an object of name → value, or a list) as ferry's list; names ferry lacks go to `unknown`. */
function optionsOf(options: unknown, known: readonly string[], unknown: (name: string) => void): string[] {
  const on: string[] = [];
  const names = Array.isArray(options)
    ? options.filter((n): n is string => typeof n === 'string')
    : options && typeof options === 'object'
      ? Object.keys(options)
      : [];
  for (const name of names) {
    if (!optionOn(options, name)) continue;
    if (known.includes(name)) on.push(name);
    // FileSender's own flag of an encrypted transfer is carried by the encryption parameters.
    else if (name !== 'encryption') unknown(name);
  }
  return known.filter((o) => on.includes(o));
}

function guestOf(g: FsGuest, owner: string, unknown: (name: string) => void): Guest {
  const options = optionsOf(g.options, GUEST_OPTIONS, unknown);
  if (g.expires === null && !options.includes('does_not_expire')) options.push('does_not_expire');
  return {
    id: g.id,
    userId: owner,
    userEmail: g.userEmail,
    email: g.email,
    token: g.token,
    subject: g.subject,
    message: g.message,
    options: GUEST_OPTIONS.filter((o) => options.includes(o)),
    transferOptions: optionsOf(g.transferOptions, TRANSFER_OPTIONS, unknown),
    status: 'available',
    transferCount: g.transferCount,
    lang: null,
    created: g.created,
    expires: g.expires,
    lastActivity: g.lastActivity,
    closed: null,
    errors: [],
  };
}

function recordsOf(
  plan: TransferPlan,
  now: number,
): { transfer: Transfer; files: FileRecord[]; recipients: Recipient[] } {
  const { t } = plan;
  const transfer: Transfer = {
    id: t.id,
    userId: plan.owner,
    userEmail: t.userEmail,
    guestId: t.guestId,
    subject: t.subject,
    message: t.message,
    options: optionsOf(t.options, TRANSFER_OPTIONS, () => {}),
    // Made available once its files are copied; until then a link finds it being uploaded.
    status:
      t.status === 'available' || t.status === 'uploading'
        ? 'uploading'
        : t.status === 'started'
          ? 'started'
          : 'created',
    lang: t.lang,
    created: t.created,
    expires: t.expires,
    expiryExtensionsUsed: t.expiryExtensions,
    madeAvailable: null,
    closed: null,
    closedReason: null,
    roundtripToken: t.roundtripToken,
    encryption: plan.encryption,
  };
  const files: FileRecord[] = plan.files.map(({ file: f }) => ({
    id: f.id,
    transferId: t.id,
    uid: ferryUid(f.uid) as string,
    name: f.name,
    size: f.size,
    mimeType: f.mimeType,
    cid: null,
    received: 0,
    ranges: [],
    complete: false,
    crc32: null,
    sha256: null,
    created: t.created,
    deleted: null,
    iv: plan.encryption ? f.iv : null,
    aead: plan.encryption ? f.aead : null,
    storeUpload: null,
  }));
  const recipients: Recipient[] = t.recipients.map((r) => ({
    id: r.id,
    transferId: t.id,
    email: r.email,
    token: r.token,
    lang: null,
    created: r.created || now,
    lastActivity: r.lastActivity,
    deleted: null,
    errors: [],
  }));
  return { transfer, files, recipients };
}

/** Copies one file's stored bytes into ferry's store, hashing them on the way, then records it complete. */
async function copyFile(
  deps: ImportDeps,
  source: FileSenderSource,
  plan: TransferPlan,
  f: FilePlan,
  onBytes: (n: number) => void,
): Promise<void> {
  const store = deps.files;
  const target: StoredFile = { transferId: plan.t.id, uid: ferryUid(f.file.uid) as string, size: f.stored };
  const piece = deps.pieceSize();
  const upload =
    hasMultipartUploads(store) && store.uploadNeeded(f.stored, piece) ? await store.beginUpload(target, piece) : null;
  const sha = crypto.createHash('sha256');
  let crc = 0;
  const pieces: StoredPiece[] = [];
  try {
    for (let at = 0; at < f.stored || (at === 0 && f.stored === 0); at += piece) {
      const end = Math.min(f.stored, at + piece);
      if (end === at) break;
      // Hashed as the store reads them: a Transform passes each piece on once it is counted.
      const tap = new Transform({
        transform(b: Buffer, _enc, done) {
          sha.update(b);
          crc = zlib.crc32(b, crc);
          onBytes(b.length);
          done(null, b);
        },
      });
      source
        .read(plan.t, f.file, at, end)
        .on('error', (e) => tap.destroy(e))
        .pipe(tap);
      const w = await store.writeChunk(target, at, tap, end - at, upload, true);
      if (w.written !== end - at) throw new Error(`file ${f.file.id}: ${w.written} of ${end - at} bytes read at ${at}`);
      pieces.push({ start: at, end, crc32: w.crc32, receipt: w.receipt });
    }
    await store.complete(target, pieces, upload);
  } catch (e) {
    if (upload && hasMultipartUploads(store))
      await store.abortUpload(target.transferId, target.uid, upload).catch(() => {});
    throw e;
  }
  const sha256 = sha.digest('hex');
  await deps.uow.run(async (tx) => {
    await tx.transfers.recordRange(f.file.id, 0, f.file.size);
    await tx.transfers.completeFile(f.file.id, crc >>> 0, sha256);
  });
}
