import * as assert from 'uvu/assert';
import { ServiceError } from '../../src/domain/errors';
import type { DownloadAccess, DownloadKind } from '../../src/domain/downloads';
import type { Actor, FileRecord } from '../../src/domain/model';
import type { TransferDraft } from '../../src/domain/transfer-input';
import type { DomainOnFakes } from '../fakes/domain';

/**
 * What the domain's unit tests (test/unit/domain-*.test.ts) make before they test anything, on the services of
 * test/fakes/domain.ts: a Transfer's draft, a Transfer uploaded whole, a refusal checked by its error id.
 */

const DAY = 86400;

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
