import { Api } from '../api';
import { formUnlock, linkUnlock, setUnlockCookie } from '../download/link-unlock';
import { requestClientAddress } from '../client-address';
import { publicAccess } from '../access';
import { Errors, ServiceError } from '../../domain/errors';
import type { DownloadAccess, DownloadKind, FileSpan } from '../../domain/downloads';
import { CLAIM_RENEW_MS } from '../../domain/download-limits';
import type { FileRecord } from '../../domain/model';
import { ArchiveEntry, ArchiveLayout, safeEntryNames } from '../../archive/layout';
import { archivePieces, DigestMismatch, Piece, SendOptions, sendPieces } from '../download/send-pieces';
import { inlineCheck, threadCheck } from '../download/stored-check';
import { zipLayout } from '../../archive/zip64';
import { tarLayout } from '../../archive/tar';
import {
  contentDisposition,
  parseEncryptedRange,
  parseRange,
  safeContentType,
  type RangeResult,
} from '../download/http-range';
import { encryptedSize, storedOffset } from '../../shared-crypto/format';
import { downloadErrorPage } from '../web/download-page';
import { archiveStem } from '../download/archive-name';
import type { FerryContext } from '../state';
import { presentDate } from '../presenters/date';
import { requestLang } from '../request-lang';
import { basePath } from '../web/layout';
import { z } from 'zod';
import { input, tokenQuery } from '../input';
import type { Step } from '../access';

/** GET /download's query: the link's token, the files asked for (ids, comma-separated or repeated), the archive. */
const downloadQuery = tokenQuery.extend({
  files_ids: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v) => (v === undefined ? null : (Array.isArray(v) ? v : [v]).flatMap((p) => p.split(','))))
    .refine((ids) => ids === null || ids.every((p) => /^\d{1,15}$/.test(p.trim())))
    .transform((ids) => (ids === null ? null : ids.map(Number))),
  archive_format: z.enum(['zip', 'tar']).optional(),
});
type DownloadQuery = z.output<typeof downloadQuery>;

/** The link password form's fields; a missing one is empty, and the download service says what is wrong. */
const unlockBody = z.object({
  token: z.string().catch(''),
  password: z.string().catch(''),
});

/** A person who followed a link gets a page, not JSON, for whatever refuses it, a malformed query included. */
const errorsAsPage: Step = async (ctx, next) => {
  try {
    await next();
  } catch (e) {
    if (!(e instanceof ServiceError && ctx.accepts(['json', 'html']) === 'html' && ctx.method === 'GET')) throw e;
    const token = (ctx.state.input as { query?: DownloadQuery } | undefined)?.query?.token;
    ctx.body = (await downloadErrorPage(ctx, e, token ?? '')).value;
  }
};

/**
 * GET|HEAD /download?token=T[&files_ids=1,2][&archive_format=zip|tar] (docs/architecture.md, HTTP surface). One file: its bytes
 * with Range, ETag and the original name; several files or an archive_format: one stored ZIP64 (or tar)
 * whose exact length is known, also with Range. The token is the credential, so the route is public.
 * GET /download/files?token=T: the same files as JSON for command-line clients.
 */
export function downloadRoutes(api: Api): void {
  const downloadInput = input({ query: downloadQuery });
  api.get('/download', publicAccess, errorsAsPage, downloadInput, download);

  // The link password form (docs/sharing.md, Link password): the right password keeps a proof in a cookie and
  // goes back to the recipient's page; a wrong one shows the form again. Tries are throttled in the database.
  api.post(
    '/download/unlock',
    publicAccess,
    input({ body: unlockBody }),
    async (ctx, { body: { token, password } }) => {
      const wantsPage = ctx.accepts(['json', 'html']) === 'html';
      try {
        const svc = ctx.state.services.downloads;
        const access = await svc.access(token, formUnlock(ctx, token, password));
        const proof = await svc.proofFor(access);
        if (proof) setUnlockCookie(ctx, token, proof, access.transfer.expires);
        if (!wantsPage) return true;
        ctx.status = 303;
        ctx.redirect(`${basePath(ctx)}/?s=download&token=${encodeURIComponent(token)}`);
        return undefined;
      } catch (e) {
        if (e instanceof ServiceError && wantsPage) return (await downloadErrorPage(ctx, e, token)).value;
        throw e;
      }
    },
  );
  // FileSender's name for it, where filesender.py -d fetches each file ({site}/download.php?token=…&files_ids=…).
  api.get('/download.php', publicAccess, errorsAsPage, downloadInput, download);

  // What a recipient's command-line client (`ferry get <link>`) needs before downloading: each file's id, name,
  // size and the SHA-256 stored when its upload completed, to save it under a safe name, resume it with Range
  // and check it. Never a File's uid (it is the sender's chunk-upload key). The token is the credential, checked
  // as for a download (available, unexpired), so the route is public like /download.
  api.get('/download/files', publicAccess, input({ query: tokenQuery }), async (ctx, { query: { token } }) => {
    const svc = ctx.state.services.downloads;
    const access = await svc.access(token, linkUnlock(ctx, token));
    await svc.viewed(access);
    return presentRecipientFiles(access, await requestLang(ctx));
  });
}

function presentRecipientFiles(access: DownloadAccess, lang: string) {
  const { transfer, files } = access;
  return {
    transfer_id: transfer.id,
    subject: transfer.subject ?? '',
    message: transfer.message ?? '',
    from: transfer.userEmail,
    expires: presentDate(transfer.expires, lang),
    files: files.map((f) => ({
      id: f.id,
      name: f.name,
      size: f.size,
      mime_type: f.mimeType ?? 'application/octet-stream',
      sha256: f.sha256 ?? null,
      downloads_left: !access.spent.includes(f.id),
    })),
    // docs/sharing.md: each file may be downloaded this many times through this link (null: no limit).
    download_limit: access.controls.downloadLimit,
  };
}

async function download(ctx: FerryContext, { query }: { query: DownloadQuery }): Promise<undefined> {
  const svc = ctx.state.services.downloads;
  // A Range may resume the last bytes of a copy already counted: the claims decide (docs/sharing.md).
  const resuming = ctx.method === 'GET' && ctx.get('Range') !== '';
  const access = await svc.access(query.token, linkUnlock(ctx, query.token), { resuming });
  const files = svc.select(access, query.files_ids);
  const format = query.archive_format;
  // The server cannot read an encrypted file, so it cannot put it into an archive: the page fetches such
  // files one by one (and may build an archive itself).
  if (access.transfer.encryption && (files.length > 1 || format !== undefined))
    throw Errors.encryptedFilesNotArchivable('files_ids');
  if (files.length === 1 && format === undefined) await serveFile(ctx, access, files[0]);
  else await serveArchive(ctx, access, files, format === 'tar' ? 'tar' : 'zip');
  return undefined;
}

function etagOf(files: FileRecord[], format: string): string {
  return `"${format}-${files.map((f) => `${f.uid.slice(0, 12)}${(f.crc32 ?? 0).toString(16)}`).join('.')}"`.slice(
    0,
    200,
  );
}

function serveFile(ctx: FerryContext, access: DownloadAccess, file: FileRecord): Promise<void> {
  const etag = etagOf([file], 'f');
  const open = (start: number, end: number) => ctx.state.services.downloads.open(file, start, end);
  const enc = access.transfer.encryption;
  // Of an encrypted file: the stored ciphertext (IV ‖ ciphertext ‖ tag per chunk), for the recipient's client to
  // decrypt; its recorded SHA-256 is of those stored bytes.
  const served = enc ? encryptedSize(file.size, enc.chunkSize) : file.size;
  const of = { id: file.id, uid: file.uid, size: served, sha256: file.sha256 };
  const pieces = (start: number, end: number): Piece[] => [{ kind: 'file', open, start, end, file: of }];
  ctx.set('Content-Disposition', contentDisposition(file.name));
  if (!enc) {
    ctx.set('Content-Type', safeContentType(file.mimeType));
    return respond(ctx, access, [file], 'file', file.size, etag, pieces, parseRange);
  }
  ctx.set('Content-Type', 'application/octet-stream');
  return respond(ctx, access, [file], 'file', served, etag, pieces, (header) =>
    parseEncryptedRange(header, served, (p) => storedOffset(p, enc.chunkSize)),
  );
}

function serveArchive(
  ctx: FerryContext,
  access: DownloadAccess,
  files: FileRecord[],
  format: 'zip' | 'tar',
): Promise<void> {
  const names = safeEntryNames(files.map((f) => f.name));
  const entries = files.map((f, i) => ({
    name: names[i],
    size: f.size,
    crc32: f.crc32 ?? 0,
    mtime: f.created,
    ref: f,
  }));
  const layout: ArchiveLayout = format === 'zip' ? zipLayout(entries) : tarLayout(entries);
  const stem = archiveStem(access.transfer.subject, access.transfer.id);
  ctx.set('Content-Type', format === 'zip' ? 'application/zip' : 'application/x-tar');
  ctx.set('Content-Disposition', contentDisposition(`${stem}.${format}`));
  const downloads = ctx.state.services.downloads;
  const fileOf = (e: ArchiveEntry) => {
    const f = e.ref as FileRecord;
    return { id: f.id, uid: f.uid, size: f.size, sha256: f.sha256 };
  };
  return respond(ctx, access, files, 'archive', layout.length, etagOf(files, format), (start, end) =>
    archivePieces(layout, start, end, (e, s, en) => downloads.open(e.ref as FileRecord, s, en), fileOf),
  );
}

async function respond(
  ctx: FerryContext,
  access: DownloadAccess,
  files: FileRecord[],
  kind: DownloadKind,
  size: number,
  etag: string,
  pieces: (start: number, end: number) => Piece[],
  rangeOf: (header: string | undefined, size: number) => RangeResult = parseRange,
): Promise<void> {
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'private, no-cache');
  const ifRange = ctx.get('If-Range');
  const range =
    ifRange && ifRange !== etag ? ({ kind: 'full' } as const) : rangeOf(ctx.get('Range') || undefined, size);
  if (range.kind === 'unsatisfiable') {
    ctx.set('Content-Range', `bytes */${size}`);
    throw Errors.rangeNotSatisfiable();
  }
  const start = range.kind === 'partial' ? range.start : 0;
  const end = range.kind === 'partial' ? range.end : size - 1;
  ctx.status = range.kind === 'partial' ? 206 : 200;
  if (range.kind === 'partial') ctx.set('Content-Range', `bytes ${start}-${end}/${size}`);
  if (ctx.method === 'HEAD') {
    ctx.length = end - start + 1;
    return;
  }
  const svc = ctx.state.services.downloads;
  const who = { ip: requestClientAddress(ctx) || null };
  const log = ctx.state.services.log;
  const body = size === 0 ? [] : pieces(start, end);
  // Each file's bytes in this answer are sent on a claim of the link, taken before any byte: refused here
  // when the limit leaves none (docs/sharing.md, Download limits).
  const spans = claimSpans(body, files, kind, size === 0 || (start === 0 && end === size - 1));
  const use = await svc.started(access, spans, kind, who);
  const sent = use.sent;
  const recordEnd = (finished: boolean) => {
    // Finished: every byte was written (the write callbacks of the last ones may not have run yet).
    if (finished) spans.forEach((sp, i) => (sent[i] = sp.end - sp.start));
    return svc
      .ended(access, files, kind, who, use, finished)
      .catch((e: Error) =>
        log.error(`download of transfer ${access.transfer.id}: recording its end failed: ${e.message}`),
      );
  };
  if (size === 0) {
    ctx.length = 0;
    ctx.body = Buffer.alloc(0);
    await recordEnd(true);
    return;
  }
  const res = ctx.res;
  // Gone while its claims were taken (a request may wait for them): nothing was sent, they are let go at once.
  if (res.destroyed || !res.socket || res.socket.destroyed) {
    await recordEnd(false);
    return;
  }
  // While it sends, the answer keeps its claims (a lease) and records how far it got, so that no other
  // request borrows them and a node that dies lets them go with what it sent counted.
  const renew = setInterval(() => {
    svc
      .progress(use)
      .then((held) => {
        if (held || use.ended) return;
        log.error(`download of transfer ${access.transfer.id} cut: its download claim was taken over`);
        res.destroy();
      })
      .catch((e: Error) =>
        log.error(`download of transfer ${access.transfer.id}: renewing its claims failed: ${e.message}`),
      );
  }, CLAIM_RENEW_MS);
  renew.unref();
  res.once('finish', () => {
    clearInterval(renew);
    void recordEnd(true);
  });
  // Cut before the end: what was written is recorded, and the link may resume it (docs/sharing.md).
  res.once('close', () => {
    clearInterval(renew);
    if (!res.writableFinished) void recordEnd(false);
  });
  ctx.length = end - start + 1;
  ctx.respond = false;
  const storedDigest = ctx.state.services.storedDigest;
  const byId = new Map(files.map((f) => [f.id, f]));
  // A file piece that ends its file is checked against the file's recorded SHA-256 before its last bytes go
  // (docs/hardening.md, "Corrupted stored files"): on the store's hashing threads when it has them.
  const check: SendOptions['check'] = (p) =>
    storedDigest
      ? threadCheck(storedDigest.stream(byId.get(p.file.id)!), p.start, p.file.size)
      : inlineCheck(p.open, p.start, p.file.size);
  ctx.state.sendBody = () =>
    sendPieces(res, body, { check, sent }).catch((e: Error) => {
      // A short, vanished or corrupted file aborts the response: never a truncated or altered download that
      // looks complete.
      let what = files.length === 1 ? ` file ${files[0].id} (${files[0].uid})` : '';
      if (e instanceof DigestMismatch) {
        ctx.state.digestMismatch = true;
        what = ` file ${e.file.id} (${e.file.uid})`;
      }
      // The store stopped sending (or went away) mid-answer: the client resumes with Range.
      if (e instanceof ServiceError && e.id === Errors.storageUnavailable.id) ctx.state.storeCut = true;
      log.error(`download of transfer ${access.transfer.id}${what} cut: ${e.message}`);
      res.destroy();
    });
}

/**
 * What an answer sends of each file, for its claims: the file pieces' ranges, and the empty files of a whole
 * archive (they have no bytes, but the archive delivers them).
 */
function claimSpans(body: Piece[], files: FileRecord[], kind: DownloadKind, whole: boolean): FileSpan[] {
  const spans: FileSpan[] = [];
  for (const p of body)
    if (p.kind === 'file' && p.file)
      spans.push({ fileId: p.file.id, size: p.file.size, start: p.start, end: p.end + 1 });
  if (whole) {
    const named = new Set(spans.map((sp) => sp.fileId));
    for (const f of files)
      if (!named.has(f.id) && (kind === 'archive' || files.length === 1) && f.size === 0)
        spans.push({ fileId: f.id, size: 0, start: 0, end: 0 });
  }
  return spans;
}
