import busboy from 'busboy';
import type { Readable } from 'node:stream';
import { Api, created } from '../api';
import { owner, publicAccess } from '../access';
import { roundtripToken } from '../roundtrip-token';
import { invitedGuest } from '../invited-guest';
import { Errors } from '../../domain/errors';
import type { FileRecord, Transfer } from '../../domain/model';
import { presentFile } from '../presenters/transfer';
import { z } from 'zod';
import { actorOf } from '../actor';
import { idParams, input } from '../input';
import { loadFile } from './loaders';
import { uploadSlot } from '../upload-slot';
import type { FerryContext } from '../state';

/** The form field carrying the progress key: PHP's session.upload_progress.name, which FileSender's legacy uploader uses. */
export const PROGRESS_FIELD = 'PHP_SESSION_UPLOAD_PROGRESS';

/**
 * Streams the first file part of a multipart body to `onFile`; fields seen before it are passed along. A signed
 * request's body was already read (its signature covers it) and comes from ctx.state.rawBody instead.
 */
function firstFilePart(
  ctx: FerryContext,
  onFile: (stream: Readable, fields: Record<string, string>) => Promise<FileRecord>,
): Promise<FileRecord> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: ctx.req.headers, limits: { files: 1, fields: 20, fieldSize: 1024 } });
    } catch {
      reject(Errors.badRequestBody('multipart/form-data'));
      return;
    }
    const fields: Record<string, string> = {};
    let handled = false;
    bb.on('field', (name, value) => (fields[name] = value));
    bb.on('file', (_name, stream) => {
      handled = true;
      onFile(stream, fields).then(resolve, (e) => {
        stream.resume();
        reject(e);
      });
    });
    bb.on('error', () => reject(Errors.badRequestBody('multipart/form-data')));
    bb.on('close', () => {
      if (!handled) reject(Errors.restMissingParameter('file'));
    });
    if (ctx.state.rawBody) bb.end(ctx.state.rawBody);
    else ctx.req.pipe(bb);
  });
}

/** POST /file/{id}/whole and GET /legacyuploadprogress/{key}: uploads from clients that cannot send chunks. */
export function legacyUploadRoutes(api: Api): void {
  api.post(
    '/file/:id/whole',
    owner(loadFile, { notFound: Errors.fileNotFound, chunkKey: true }),
    input({ params: idParams, body: 'bytes' }), // multipart, streamed by firstFilePart
    roundtripToken,
    invitedGuest,
    uploadSlot,
    async (ctx) => {
      if (!ctx.is('multipart/form-data')) throw Errors.badRequestBody('content-type');
      const { file, transfer } = ctx.state.resource as { file: FileRecord; transfer: Transfer };
      const uploads = ctx.state.services.uploads;
      const after = await firstFilePart(ctx, (stream, fields) => {
        const key = fields[PROGRESS_FIELD];
        const progress =
          key && key.length <= 128 ? ctx.state.services.uploadProgress.start(key, ctx.state.services.clock()) : null;
        return uploads.writeWhole(actorOf(ctx), transfer, file, stream, progress);
      });
      return created(ctx, presentFile(after), `/file/${after.id}`);
    },
  );

  const progressInput = input({ params: z.object({ key: z.string().max(128) }) });
  api.get('/legacyuploadprogress/:key', publicAccess, progressInput, (ctx, { params: { key } }) => {
    return ctx.state.services.uploadProgress.get(key, ctx.state.services.clock());
  });
}
