import type {
  AuditEntry,
  FileRecord,
  Guest,
  MailDelivery,
  Recipient,
  TrackingError,
  Transfer,
  TransferStatus,
} from '../../src/domain/model';
import { numericAfter, pageOf, type Page } from '../../src/domain/paging';
import type {
  AuditRepository,
  FrequentRecipientRepository,
  GuestRepository,
  Locks,
  MailQueueRepository,
  NewFile,
  NewGuest,
  NewRecipient,
  NewTransfer,
  OutgoingMessage,
  PurgeRepository,
  Repositories,
  StoredPiece,
  TrackingErrorRepository,
  TrackingTarget,
  TransferExtras,
  TransferRowsAndExtras,
  TransferOwner,
  TransferRepository,
  Tx,
  UnitOfWork,
  UsageRepository,
} from '../../src/domain/ports';
import { addRange, coveredBytes } from '../../src/shared/ranges';
import { MemoryLocalAccounts, MemorySessions, MemoryUsers } from './memory-accounts';
import {
  emptyMoreState,
  forgetTransfer,
  MemoryLoginDevices,
  MemoryLoginFailures,
  MemoryOverrides,
  MemoryRemoteApps,
  MemorySharing,
  MemorySignatures,
  MemoryVirusScans,
  type MoreState,
} from './memory-more-repositories';
import { type ImportedRecord, MemoryImports } from './memory-imports';

/**
 * The domain's repositories in memory: what the domain relies on from its ports, without a database, so that its
 * rules are tested in milliseconds (test/unit/domain-*.test.ts) and the repository contract runs on them too
 * (test/http/transfer-repository-contract.test.ts). The state is one plain object; a unit of work copies it and
 * puts the copy back when its function throws, so "all or nothing" holds as on the databases. Units of work run
 * one at a time, as SQLite runs them. Users, local accounts and sessions are in test/fakes/memory-accounts.ts
 * (outside units of work: sign-in runs none); signed requests, login throttling, overrides, sharing controls and
 * virus scans in test/fakes/memory-more-repositories.ts. Every repository of src/domain/ports has a fake here.
 */

interface MailRow {
  id: number;
  msg: OutgoingMessage;
  created: number;
  target: { type: TrackingTarget; id: number } | null;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  nextAttempt: number;
  sent: number | null;
  error: string | null;
}

export interface MemoryState {
  next: number;
  transfers: Transfer[];
  files: FileRecord[];
  pieces: { fileId: number; piece: StoredPiece }[];
  recipients: Omit<Recipient, 'errors'>[];
  received: { recipientId: number; fileId: number }[];
  audit: AuditEntry[];
  frequent: { userId: string; email: string; date: number; seq: number }[];
  guests: Omit<Guest, 'errors'>[];
  tracking: { target: TrackingTarget; id: number; error: TrackingError }[];
  mail: MailRow[];
  quotas: Record<string, number>;
  storage: Record<string, number>;
  imported: ImportedRecord[];
  more: MoreState;
}

export function emptyState(): MemoryState {
  return {
    next: 1,
    transfers: [],
    files: [],
    pieces: [],
    recipients: [],
    received: [],
    audit: [],
    frequent: [],
    guests: [],
    tracking: [],
    mail: [],
    quotas: {},
    storage: {},
    imported: [],
    more: emptyMoreState(),
  };
}

const OPEN: TransferStatus[] = ['created', 'started', 'uploading', 'available'];
const copy = <T>(v: T): T => structuredClone(v);

/** What a File carries while its completion runs in the background (columns in the database). */
interface Assembly {
  assemblyBy?: string | null;
  assemblyClaim?: number | null;
}

class MemoryTransfers implements TransferRepository {
  constructor(private readonly w: MemoryWorld) {}
  private get s() {
    return this.w.state;
  }
  private transfer(id: number) {
    return this.s.transfers.find((t) => t.id === id);
  }
  private liveFile(id: number) {
    const f = this.s.files.find((x) => x.id === id && x.deleted === null);
    return f && this.transfer(f.transferId)?.status !== 'closed' ? f : undefined;
  }
  private withErrors(r: Omit<Recipient, 'errors'>): Recipient {
    return { ...copy(r), errors: this.w.errorsOf('Recipient', r.id) };
  }

  async create(t: NewTransfer, files: NewFile[], recipients: NewRecipient[]): Promise<number> {
    const id = this.s.next++;
    this.s.transfers.push({
      ...copy(t),
      encryption: t.encryption ?? null,
      id,
      status: 'created',
      expiryExtensionsUsed: 0,
      madeAvailable: null,
      closed: null,
      closedReason: null,
    });
    for (const f of files) {
      this.s.files.push({
        id: this.s.next++,
        transferId: id,
        uid: f.uid,
        name: f.name,
        size: f.size,
        mimeType: f.mimeType,
        cid: f.cid,
        received: 0,
        ranges: [],
        complete: false,
        crc32: null,
        sha256: null,
        created: t.created,
        deleted: null,
        iv: f.iv ?? null,
        aead: f.aead ?? null,
        storeUpload: null,
      });
    }
    for (const r of recipients) await this.addRecipient(id, r, t.created);
    return id;
  }
  async find(id: number) {
    return copy(this.transfer(id));
  }
  async lock(id: number) {
    return this.find(id);
  }
  async listOfUser(userId: string) {
    return this.listPage({ userId }, null);
  }
  async listOfGuest(guestId: number) {
    return this.listPage({ guestId }, null);
  }
  async listAll() {
    return this.listPage('all', null);
  }
  async countByStatus() {
    const out: Record<string, number> = {};
    for (const t of this.s.transfers) out[t.status] = (out[t.status] ?? 0) + 1;
    return out;
  }
  async probe() {}
  async lockMany(ids: number[]) {
    const wanted = new Set(ids);
    return copy(this.s.transfers.filter((t) => wanted.has(t.id)).sort((a, b) => a.id - b.id));
  }
  async closeMany(ids: number[], now: number, reason: string) {
    for (const id of ids) await this.setStatus(id, 'closed', now, reason);
  }
  async listPage(owner: TransferOwner, page: Page | null) {
    const mine = this.s.transfers.filter(
      (t) => owner === 'all' || ('userId' in owner ? t.userId === owner.userId : t.guestId === owner.guestId),
    );
    const sorted = mine.sort((a, b) => b.id - a.id);
    return copy(pageOf(sorted, page, (t) => t.id, true));
  }
  async filesOf(transferIds: number[]) {
    const ids = new Set(transferIds);
    return copy(this.s.files.filter((f) => ids.has(f.transferId) && f.deleted === null).sort((a, b) => a.id - b.id));
  }
  async recipientsOf(transferIds: number[]) {
    const ids = new Set(transferIds);
    return this.s.recipients
      .filter((r) => ids.has(r.transferId) && r.deleted === null)
      .sort((a, b) => a.id - b.id)
      .map((r) => this.withErrors(r));
  }
  async setStatus(id: number, status: TransferStatus, now: number, reason: string | null = null) {
    const t = this.transfer(id);
    if (!t) return;
    t.status = status;
    if (status === 'available') t.madeAvailable = now;
    if (status === 'closed') Object.assign(t, { closed: now, closedReason: reason });
  }
  async markUploading(id: number) {
    const t = this.transfer(id);
    if (!t || (t.status !== 'created' && t.status !== 'started')) return false;
    t.status = 'uploading';
    return true;
  }
  async extendExpiry(id: number, expires: number) {
    const t = this.transfer(id);
    if (t) Object.assign(t, { expires, expiryExtensionsUsed: t.expiryExtensionsUsed + 1 });
  }
  async files(transferId: number) {
    return this.filesOf([transferId]);
  }
  async findFile(id: number) {
    return copy(this.s.files.find((f) => f.id === id && f.deleted === null));
  }
  async fileUids(transferId: number) {
    return (await this.files(transferId)).map((f) => f.uid);
  }
  async recordRange(fileId: number, start: number, end: number, piece?: StoredPiece) {
    const f = this.liveFile(fileId);
    if (!f) return undefined;
    f.ranges = addRange(f.ranges, start, end);
    f.received = coveredBytes(f.ranges);
    if (piece) {
      this.s.pieces = this.s.pieces.filter(
        (p) => p.fileId !== fileId || p.piece.start < piece.start || p.piece.end > piece.end,
      );
      this.s.pieces.push({ fileId, piece: copy(piece) });
    }
    return copy(f);
  }
  async pieces(fileId: number) {
    return copy(
      this.s.pieces
        .filter((p) => p.fileId === fileId)
        .map((p) => p.piece)
        .sort((a, b) => a.start - b.start),
    );
  }
  async lockStoreUpload(fileId: number) {
    const f = this.liveFile(fileId);
    return f ? { upload: f.storeUpload } : undefined;
  }
  async setStoreUpload(fileId: number, upload: string | null) {
    const f = this.s.files.find((x) => x.id === fileId);
    if (f) f.storeUpload = upload;
  }
  async storeUploads(transferId: number) {
    return this.s.files
      .filter((f) => f.transferId === transferId && f.storeUpload !== null)
      .map((f) => ({ fileId: f.id, uid: f.uid, upload: f.storeUpload as string }));
  }
  async completeFile(fileId: number, crc32: number, sha256: string | null) {
    const f = this.liveFile(fileId);
    if (!f) return false;
    Object.assign(f, {
      complete: true,
      crc32,
      sha256,
      storeUpload: null,
      assembling: false,
      assemblyBy: null,
      assemblyClaim: null,
    });
    return true;
  }
  // Background completions (src/domain/assembly.ts): kept on the records as the database keeps them in columns.
  async verifiableFiles(afterId: number, limit: number) {
    return copy(
      this.s.files
        .filter(
          (f) =>
            f.id > afterId &&
            f.complete &&
            f.deleted === null &&
            f.sha256 !== null &&
            this.transfer(f.transferId)?.status !== 'closed',
        )
        .sort((a, b) => a.id - b.id)
        .slice(0, limit),
    );
  }
  async recipientTokenWithdrawn(token: string) {
    return this.s.recipients.some((r) => r.token === token && r.deleted !== null);
  }
  async requestAssembly(fileId: number, by: string) {
    const f = this.liveFile(fileId) as (FileRecord & Assembly) | undefined;
    if (!f || f.complete) return false;
    Object.assign(f, { assembling: true, assemblyBy: by });
    return true;
  }
  async claimAssembly(now: number, until: number) {
    const f = this.s.files.find((x) => {
      const a = x as FileRecord & Assembly;
      return a.assemblyBy && !x.complete && this.liveFile(x.id) && (a.assemblyClaim == null || a.assemblyClaim < now);
    }) as (FileRecord & Assembly) | undefined;
    if (!f) return undefined;
    f.assemblyClaim = until;
    const { assemblyBy, assemblyClaim: _claim, ...file } = copy(f);
    return { file, by: assemblyBy as string };
  }
  async renewAssembly(fileId: number, until: number) {
    const f = this.s.files.find((x) => x.id === fileId && !x.complete) as (FileRecord & Assembly) | undefined;
    if (f) f.assemblyClaim = until;
  }
  async releaseAssembly(fileId: number) {
    const f = this.s.files.find((x) => x.id === fileId && !x.complete) as (FileRecord & Assembly) | undefined;
    if (f) f.assemblyClaim = null;
  }
  async requestCompletion(transferId: number, by: string) {
    const t = this.transfer(transferId) as (Transfer & { completeBy?: string }) | undefined;
    if (t && !t.completeBy) Object.assign(t, { completeBy: by, completing: true });
  }
  async completionsDue() {
    return (this.s.transfers as (Transfer & { completeBy?: string })[])
      .filter((t) => t.completeBy && t.status !== 'available' && t.status !== 'closed')
      .map((t) => ({ transferId: t.id, by: t.completeBy as string }));
  }
  async claimDigest(): Promise<FileRecord | undefined> {
    const f = this.s.files.find((x) => x.complete && x.sha256 === null && x.deleted === null);
    return copy(f);
  }
  async renewDigest() {}
  async saveDigest(fileId: number, sha256: string) {
    const f = this.s.files.find((x) => x.id === fileId);
    if (f) f.sha256 = sha256;
  }
  async deleteFile(fileId: number, now: number) {
    const f = this.s.files.find((x) => x.id === fileId);
    if (f) f.deleted = now;
  }
  async recipients(transferId: number) {
    return this.recipientsOf([transferId]);
  }
  async findRecipient(id: number) {
    const r = this.s.recipients.find((x) => x.id === id && x.deleted === null);
    return r && this.withErrors(r);
  }
  async recipientByToken(token: string) {
    const r = this.s.recipients.find((x) => x.token === token && x.deleted === null);
    return r && this.withErrors(r);
  }
  async addRecipient(transferId: number, r: NewRecipient, now: number) {
    const id = this.s.next++;
    this.s.recipients.push({
      id,
      transferId,
      email: r.email,
      token: r.token,
      lang: r.lang,
      created: now,
      lastActivity: null,
      deleted: null,
    });
    return id;
  }
  async deleteRecipient(id: number, now: number) {
    const r = this.s.recipients.find((x) => x.id === id);
    if (r) r.deleted = now;
  }
  async touchRecipient(recipientId: number, now: number) {
    const r = this.s.recipients.find((x) => x.id === recipientId);
    if (r) r.lastActivity = now;
  }
  async markReceived(recipientId: number, fileIds: number[], allFileIds: number[]) {
    const hasAll = () =>
      allFileIds.length > 0 &&
      allFileIds.every((f) => this.s.received.some((x) => x.recipientId === recipientId && x.fileId === f));
    const had = hasAll();
    for (const fileId of fileIds) {
      if (!this.s.received.some((x) => x.recipientId === recipientId && x.fileId === fileId))
        this.s.received.push({ recipientId, fileId });
    }
    return !had && hasAll();
  }
}

class MemoryAudit implements AuditRepository {
  constructor(private readonly w: MemoryWorld) {}
  async record(e: AuditEntry) {
    this.w.state.audit.push(copy(e));
  }
  async recordMany(entries: AuditEntry[]) {
    for (const e of entries) await this.record(e);
  }
  async forTransfer(transferId: number) {
    return copy(this.w.state.audit.filter((e) => e.transferId === transferId));
  }
}

class MemoryFrequentRecipients implements FrequentRecipientRepository {
  private seq = 0;
  constructor(private readonly w: MemoryWorld) {}
  async remember(userId: string, emails: string[], now: number) {
    const s = this.w.state;
    for (const e of emails.map((x) => x.toLowerCase())) {
      s.frequent = s.frequent.filter((f) => !(f.userId === userId && f.email === e));
      s.frequent.push({ userId, email: e, date: now, seq: ++this.seq });
    }
  }
  async list(userId: string, contains: string | null, limit: number) {
    const needle = contains?.toLowerCase() ?? null;
    return this.w.state.frequent
      .filter((f) => f.userId === userId && (needle === null || f.email.includes(needle)))
      .sort((a, b) => b.date - a.date || b.seq - a.seq)
      .slice(0, limit)
      .map((f) => f.email);
  }
}

class MemoryGuests implements GuestRepository {
  constructor(private readonly w: MemoryWorld) {}
  private get s() {
    return this.w.state;
  }
  private full(g: Omit<Guest, 'errors'> | undefined): Guest | undefined {
    return g && { ...copy(g), errors: this.w.errorsOf('Guest', g.id) };
  }
  async insert(g: NewGuest) {
    const row = {
      ...copy(g),
      id: this.s.next++,
      status: 'available' as const,
      transferCount: 0,
      lastActivity: null,
      closed: null,
    };
    this.s.guests.push(row);
    return this.full(row) as Guest;
  }
  async find(id: number) {
    return this.full(this.s.guests.find((g) => g.id === id));
  }
  async lock(id: number) {
    return this.find(id);
  }
  async findByToken(token: string) {
    return this.full(this.s.guests.find((g) => g.token === token));
  }
  async listOpenOf(userId: string) {
    return this.s.guests
      .filter((g) => g.userId === userId && g.status === 'available')
      .sort((a, b) => b.id - a.id)
      .map((g) => this.full(g) as Guest);
  }
  async listOpenPage(page: Page) {
    const after = numericAfter(page);
    const open = await this.listOpen();
    return after === null
      ? open.slice(page.offset, page.offset + page.limit)
      : open.filter((g) => g.id < after).slice(0, page.limit);
  }
  async listOpen() {
    return this.s.guests
      .filter((g) => g.status === 'available')
      .sort((a, b) => b.id - a.id)
      .map((g) => this.full(g) as Guest);
  }
  async listExpired(now: number) {
    return this.s.guests
      .filter((g) => g.status === 'available' && g.expires !== null && g.expires <= now)
      .map((g) => this.full(g) as Guest);
  }
  async close(id: number, now: number) {
    const g = this.s.guests.find((x) => x.id === id);
    if (!g || g.status === 'closed') return false;
    Object.assign(g, { status: 'closed', closed: now });
    return true;
  }
  async incrementTransferCount(id: number) {
    const g = this.s.guests.find((x) => x.id === id);
    if (g) g.transferCount += 1;
  }
  async touch(id: number, now: number) {
    const g = this.s.guests.find((x) => x.id === id);
    if (g) g.lastActivity = now;
  }
  async countTransfersUsed(guestId: number) {
    return this.s.transfers.filter((t) => t.guestId === guestId && (t.status !== 'closed' || t.madeAvailable !== null))
      .length;
  }
}

class MemoryTrackingErrors implements TrackingErrorRepository {
  constructor(private readonly w: MemoryWorld) {}
  async add(target: TrackingTarget, targetId: number, error: TrackingError) {
    this.w.state.tracking.push({ target, id: targetId, error: copy(error) });
  }
  async forTarget(target: TrackingTarget, targetId: number) {
    return this.w.errorsOf(target, targetId);
  }
  async forTargets(target: TrackingTarget, ids: number[]) {
    const out = new Map<number, TrackingError[]>();
    for (const id of new Set(ids)) {
      const found = this.w.errorsOf(target, id);
      if (found.length) out.set(id, found);
    }
    return out;
  }
}

class MemoryMailQueue implements MailQueueRepository {
  constructor(private readonly w: MemoryWorld) {}
  private get s() {
    return this.w.state;
  }
  async enqueue(msg: OutgoingMessage, now: number, target: { type: TrackingTarget; id: number } | null) {
    const id = this.s.next++;
    this.s.mail.push({
      id,
      msg: copy(msg),
      created: now,
      target,
      status: 'pending',
      attempts: 0,
      nextAttempt: now,
      sent: null,
      error: null,
    });
    return id;
  }
  async claimDue(now: number, until: number, limit: number) {
    const due = this.s.mail.filter((m) => m.status === 'pending' && m.nextAttempt <= now).slice(0, limit);
    for (const m of due) {
      m.nextAttempt = until;
      m.attempts += 1;
    }
    return due.map((m) => ({
      id: m.id,
      created: m.created,
      to: m.msg.to,
      message: copy(m.msg),
      attempts: m.attempts,
      nextAttempt: m.nextAttempt,
      targetType: m.target?.type ?? null,
      targetId: m.target?.id ?? null,
    }));
  }
  async renewClaims(ids: number[], _node: string, held: number, until: number) {
    const mine = this.s.mail.filter((m) => ids.includes(m.id) && m.status === 'pending' && m.nextAttempt === held);
    for (const m of mine) m.nextAttempt = until;
    return mine.map((m) => m.id);
  }
  async nextDue(now: number) {
    const pending = this.s.mail.filter((m) => m.status === 'pending');
    return pending.length ? Math.max(0, Math.min(...pending.map((m) => m.nextAttempt)) - now) : null;
  }
  async markSent(id: number, now: number) {
    const m = this.s.mail.find((x) => x.id === id);
    if (m) Object.assign(m, { status: 'sent', sent: now });
  }
  async markRetry(id: number, next: number, error: string) {
    const m = this.s.mail.find((x) => x.id === id);
    if (m) Object.assign(m, { nextAttempt: next, error });
  }
  async markFailed(id: number, error: string) {
    const m = this.s.mail.find((x) => x.id === id);
    if (m) Object.assign(m, { status: 'failed', error });
  }
  async counts() {
    const out: Record<string, number> = {};
    for (const m of this.s.mail) out[m.status] = (out[m.status] ?? 0) + 1;
    return out;
  }
  async requeueUndelivered(target: TrackingTarget, targetId: number, now: number) {
    const latest = this.s.mail.filter((m) => m.target?.type === target && m.target.id === targetId).at(-1);
    if (!latest || latest.status === 'sent' || (latest.status === 'pending' && latest.error === null)) return false;
    Object.assign(latest, { status: 'pending', nextAttempt: now, attempts: 0, error: null, created: now });
    return true;
  }
  async deliveryFor(target: TrackingTarget, ids: number[]) {
    const out = new Map<number, MailDelivery>();
    for (const m of this.s.mail) {
      if (m.target?.type !== target || !ids.includes(m.target.id)) continue;
      const state = m.status === 'sent' ? 'sent' : m.status === 'failed' ? 'bounced' : m.error ? 'deferred' : 'queued';
      out.set(m.target.id, {
        state,
        date: m.sent ?? m.created,
        reason: m.error,
        attempts: m.attempts,
        nextAttempt: state === 'deferred' ? m.nextAttempt : null,
      });
    }
    return out;
  }
}

class MemoryPurge implements PurgeRepository {
  constructor(private readonly w: MemoryWorld) {}
  private get s() {
    return this.w.state;
  }
  private ids(which: (t: Transfer) => boolean) {
    return this.s.transfers
      .filter(which)
      .map((t) => t.id)
      .sort((a, b) => a - b);
  }
  async expiredOpenTransfers(now: number) {
    return this.ids((t) => t.status !== 'closed' && t.expires <= now);
  }
  async abandonedTransfers(createdBefore: number) {
    return this.ids(
      (t) => t.madeAvailable === null && t.status !== 'closed' && t.status !== 'available' && t.created < createdBefore,
    );
  }
  async closedBefore(closedBefore: number) {
    return this.ids((t) => t.status === 'closed' && t.closed !== null && t.closed < closedBefore);
  }
  async deleteTransfersRecords(ids: number[]) {
    for (const id of ids) await this.deleteTransferRecords(id);
  }
  async deleteTransferRecords(id: number) {
    const s = this.s;
    const recipientIds = new Set(s.recipients.filter((r) => r.transferId === id).map((r) => r.id));
    s.tracking = s.tracking.filter((e) => !(e.target === 'Recipient' && recipientIds.has(e.id)));
    const fileIds = new Set(s.files.filter((f) => f.transferId === id).map((f) => f.id));
    s.pieces = s.pieces.filter((p) => !fileIds.has(p.fileId));
    s.received = s.received.filter((x) => !recipientIds.has(x.recipientId));
    s.files = s.files.filter((f) => f.transferId !== id);
    s.recipients = s.recipients.filter((r) => r.transferId !== id);
    s.audit = s.audit.filter((e) => e.transferId !== id);
    s.transfers = s.transfers.filter((t) => t.id !== id);
    forgetTransfer(s, id, recipientIds);
  }
  async deadStoreUploads() {
    return this.s.files
      .filter(
        (f) =>
          f.storeUpload !== null &&
          (f.deleted !== null || this.s.transfers.find((t) => t.id === f.transferId)?.status === 'closed'),
      )
      .map((f) => ({ transferId: f.transferId, fileId: f.id, uid: f.uid, upload: f.storeUpload as string }));
  }
  async liveFileKeys(transferIds: number[]) {
    const asked = new Set(transferIds);
    const open = new Set(this.s.transfers.filter((t) => t.status !== 'closed' && asked.has(t.id)).map((t) => t.id));
    return new Set(
      this.s.files.filter((f) => f.deleted === null && open.has(f.transferId)).map((f) => `${f.transferId}/${f.uid}`),
    );
  }
  async deleteOldRows() {
    return {};
  }
  async countOldRows() {
    return {};
  }
}

class MemoryUsage implements UsageRepository {
  constructor(private readonly w: MemoryWorld) {}
  private get s() {
    return this.w.state;
  }
  async holdQuota() {
    // Units of work run one at a time here: nothing to wait for.
  }
  async counts(now: number) {
    return {
      transfers: this.s.transfers.length,
      liveTransfers: this.s.transfers.filter((t) => OPEN.includes(t.status) && t.expires >= now).length,
      guests: this.s.guests.filter((g) => g.status === 'available').length,
      users: this.w.users.rows.size,
      localUsers: this.w.users.hashes.size,
    };
  }
  private openFiles(userId: string | null) {
    const open = new Map(
      this.s.transfers
        .filter((t) => OPEN.includes(t.status) && (userId === null || t.userId === userId))
        .map((t) => [t.id, t]),
    );
    return this.s.files
      .filter((f) => f.deleted === null && open.has(f.transferId))
      .map((f) => ({ f, owner: open.get(f.transferId)!.userId }));
  }
  async openBytes(userId: string | null) {
    return this.openFiles(userId).reduce((n, { f }) => n + f.size, 0);
  }
  async recountOpenBytes() {
    const out = new Map<string, number>();
    for (const { f, owner } of this.openFiles(null)) out.set(owner, (out.get(owner) ?? 0) + f.size);
    return out;
  }
  async openBytesOf(userIds: string[]) {
    const all = await this.recountOpenBytes();
    return new Map(userIds.filter((u) => all.has(u)).map((u) => [u, all.get(u)!]));
  }
  async quotaOf(userId: string) {
    return this.s.quotas[userId] ?? null;
  }
  async setQuota(userId: string, bytes: number | null) {
    if (bytes === null) delete this.s.quotas[userId];
    else this.s.quotas[userId] = bytes;
    return true;
  }
  async quotas() {
    return new Map(Object.entries(this.s.quotas));
  }
  async transfersSince(since: number) {
    return this.s.transfers
      .filter((t) => t.created >= since)
      .map((t) => ({
        userId: t.userId,
        created: t.created,
        bytes: this.s.files.filter((f) => f.transferId === t.id && f.deleted === null).reduce((n, f) => n + f.size, 0),
      }));
  }
  async recordStorage(day: string, bytes: number) {
    this.s.storage[day] = bytes;
  }
  async storageSince(day: string) {
    return Object.entries(this.s.storage)
      .filter(([d]) => d >= day)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([d, bytes]) => ({ day: d, bytes }));
  }
}

/** The in-memory world: its state, the root repositories, units of work and named locks. */
export class MemoryWorld {
  state: MemoryState = emptyState();
  readonly repos: Repositories;
  /** Users and local accounts (test/fakes/memory-accounts.ts), for the sign-in rule's tests. */
  readonly users = new MemoryUsers();
  readonly uow: UnitOfWork;
  readonly locks: Locks;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly held = new Set<string>();

  constructor() {
    const view = () => this.state;
    this.repos = {
      transfers: new MemoryTransfers(this),
      audit: new MemoryAudit(this),
      frequentRecipients: new MemoryFrequentRecipients(this),
      guests: new MemoryGuests(this),
      trackingErrors: new MemoryTrackingErrors(this),
      mailQueue: new MemoryMailQueue(this),
      purge: new MemoryPurge(this),
      usage: new MemoryUsage(this),
      users: this.users,
      localAccounts: new MemoryLocalAccounts(this.users),
      sessions: new MemorySessions(),
      remoteApps: new MemoryRemoteApps(view),
      signatures: new MemorySignatures(view),
      loginFailures: new MemoryLoginFailures(view),
      overrides: new MemoryOverrides(view),
      sharing: new MemorySharing(view),
      loginDevices: new MemoryLoginDevices(view),
      virusScans: new MemoryVirusScans(view),
      imports: new MemoryImports(view),
      transferExtras: {
        of: (ids) => extrasOf(this.repos, ids),
        withRowsOf: (ids) => withRowsOf(this.repos, ids),
        pageWithRows: async (owner, page) => {
          const transfers = await this.repos.transfers.listPage(owner, page);
          return {
            transfers,
            ...(await withRowsOf(
              this.repos,
              transfers.map((t) => t.id),
            )),
          };
        },
      },
    };
    this.uow = {
      run: <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => {
        const turn = this.queue.then(async () => {
          const before = copy(this.state);
          const hooks: (() => void)[] = [];
          const tx: Tx = { ...this.repos, afterCommit: (h) => hooks.push(h) };
          try {
            const out = await fn(tx);
            for (const h of hooks) h();
            return out;
          } catch (e) {
            this.state = before;
            throw e;
          }
        });
        this.queue = turn.catch(() => {});
        return turn;
      },
    };
    this.locks = {
      tryLock: async (name) => {
        if (this.held.has(name)) return null;
        this.held.add(name);
        let released = false;
        return async () => {
          if (!released) this.held.delete(name);
          released = true;
        };
      },
    };
  }

  errorsOf(target: TrackingTarget, id: number): TrackingError[] {
    return copy(this.state.tracking.filter((e) => e.target === target && e.id === id).map((e) => e.error));
  }
}

/** TransferExtrasRepository.withRowsOf on the fakes: the six reads it stands for. */
async function withRowsOf(repos: Repositories, ids: number[]): Promise<TransferRowsAndExtras> {
  return {
    ...(await extrasOf(repos, ids)),
    files: await repos.transfers.filesOf(ids),
    recipients: await repos.transfers.recipientsOf(ids),
  };
}

/** TransferExtrasRepository on the fakes: the four reads it stands for, as the port says. */
async function extrasOf(repos: Repositories, transferIds: number[]): Promise<TransferExtras> {
  const recipients = (await repos.transfers.recipientsOf(transferIds)).map((r) => r.id);
  const [sharing, scans, errors, delivery] = await Promise.all([
    repos.sharing.viewsOf(transferIds),
    repos.virusScans.findMany(transferIds),
    repos.trackingErrors.forTargets('Recipient', recipients),
    repos.mailQueue.deliveryFor('Recipient', recipients),
  ]);
  return { sharing, scans, errors, delivery };
}
