import * as assert from 'uvu/assert';
import { ServiceError } from '../../src/domain/errors';
import type { DownloadAccess, DownloadKind } from '../../src/domain/downloads';
import type { Actor, FileRecord, Recipient, Transfer } from '../../src/domain/model';
import type { TransferDraft } from '../../src/domain/transfer-input';
import type { DomainOnFakes } from '../fakes/domain';

/**
 * What the domain's unit tests (test/unit/domain-*.test.ts) make before they test anything, on the services of
 * test/fakes/domain.ts: a Transfer's draft, a Transfer uploaded whole, a refusal checked by its error id.
 */

const DAY = 86400;

/** The time the stored records below are made at, unless a test says otherwise. */
export const RECORD_TIME = 1_900_000_000;

/**
 * A Transfer as a repository returns it (for presenters and mail templates, which take records): number 7 of
 * alice, available, no subject, no message, no option, expiring a day after RECORD_TIME; `over` replaces.
 */
export function transferRecord(over: Partial<Transfer> = {}): Transfer {
  return {
    id: 7,
    userId: 'alice',
    userEmail: 'alice@example.org',
    guestId: null,
    subject: null,
    message: null,
    options: [],
    status: 'available',
    lang: null,
    created: RECORD_TIME,
    expires: RECORD_TIME + DAY,
    expiryExtensionsUsed: 0,
    madeAvailable: RECORD_TIME,
    closed: null,
    closedReason: null,
    roundtripToken: null,
    encryption: null,
    ...over,
  };
}

/** A File of Transfer 7 as stored: `a.bin` of `over.size` bytes (100 unless given), every byte received. */
export function fileRecord(over: Partial<FileRecord> = {}): FileRecord {
  const size = over.size ?? 100;
  return {
    id: 1,
    transferId: 7,
    uid: 'u',
    name: 'a.bin',
    size,
    mimeType: null,
    cid: null,
    received: size,
    ranges: [[0, size]],
    complete: true,
    crc32: null,
    sha256: null,
    created: RECORD_TIME,
    deleted: null,
    iv: null,
    aead: null,
    storeUpload: null,
    ...over,
  };
}

/** A recipient of Transfer 7 as stored: number 3, r3@example.org, no language, no error; `over` replaces. */
export function recipientRecord(over: Partial<Recipient> = {}): Recipient {
  return {
    id: 3,
    transferId: 7,
    email: 'r3@example.org',
    token: 'T'.repeat(32),
    lang: null,
    created: RECORD_TIME,
    lastActivity: null,
    deleted: null,
    errors: [],
    ...over,
  };
}

/** A Transfer of one 3000-byte file to r@example.org from alice, expiring in a week; `over` replaces. */
export function draft(d: DomainOnFakes, over: Partial<TransferDraft> = {}): TransferDraft {
  return {
    files: [{ name: 'a.bin', size: 3000, mimeType: null, cid: 'c0' }],
    recipients: ['r@example.org'],
    options: [],
    expires: d.time.now + 7 * DAY,
    from: 'alice@example.org',
    subject: 's',
    message: null,
    ...over,
  };
}

/** The promise fails with the ServiceError `id` (and these details, when given). */
export async function refused(p: Promise<unknown>, id: string, details?: string[]): Promise<ServiceError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  assert.instance(e, ServiceError, `expected ${id}`);
  assert.is((e as ServiceError).id, id);
  if (details) assert.equal((e as ServiceError).details, details);
  return e as ServiceError;
}

/** Every byte of the Transfer's files sent in 1 KiB chunks, each file completed, then the Transfer. */
export async function upload(d: DomainOnFakes, actor: Actor, transferId: number) {
  const t = await d.transfers.get(transferId);
  for (const f of await d.world.repos.transfers.files(transferId)) {
    for (let at = 0; at < f.size; at += 1024) {
      const body = Buffer.alloc(Math.min(1024, f.size - at), at % 251);
      await d.uploads.writeChunk(actor, t, await d.uploads.getFile(f.id), {
        offset: at,
        size: body.length,
        declaredFileSize: null,
        declaredOffset: null,
        body,
      });
    }
    await d.uploads.completeFile(actor, t, await d.uploads.getFile(f.id));
  }
  return d.transfers.complete(actor, await d.transfers.get(transferId));
}

/** A Transfer of `actor` made with `over`, uploaded whole and completed; answers its id and recipients. */
export async function sentTransfer(d: DomainOnFakes, actor: Actor, over: Partial<TransferDraft> = {}) {
  const v = await d.transfers.create(actor, draft(d, over), 'en');
  await upload(d, actor, v.transfer.id);
  return { id: v.transfer.id, recipients: v.recipients, files: v.files };
}

/**
 * One response sending these files through a link (docs/sharing.md, Download limits): started on spans from
 * byte `from` to the end, then ended, after writing every byte or, with `cutAfter`, that many of each span.
 */
export async function download(
  d: DomainOnFakes,
  a: DownloadAccess,
  files: FileRecord[],
  opts: { kind?: DownloadKind; from?: number; cutAfter?: number; ip?: string | null } = {},
): Promise<void> {
  const who = { ip: opts.ip ?? null };
  const kind = opts.kind ?? 'file';
  const spans = files.map((f) => ({ fileId: f.id, size: f.size, start: opts.from ?? 0, end: f.size }));
  const use = await d.downloads.started(a, spans, kind, who);
  use.sent = spans.map((s) => opts.cutAfter ?? s.end - s.start);
  await d.downloads.ended(a, files, kind, who, use, opts.cutAfter === undefined);
}
