import { Api } from '../api';
import { owner } from '../access';
import { Errors } from '../../domain/errors';
import type { FileRecord, Transfer } from '../../domain/model';
import { presentFile } from '../presenters/transfer';
import { z } from 'zod';
import { actorOf } from '../actor';
import { failsAs, idParams, input, pathId } from '../input';
import { loadFile } from './loaders';
import { uploadSlot } from '../upload-slot';
import { roundtripToken } from '../roundtrip-token';
import { invitedGuest } from '../invited-guest';
import type { FerryContext } from '../state';
import { CHUNK_OVERHEAD } from '../../shared-crypto/format';

type Loaded = { file: FileRecord; transfer: Transfer };
const loaded = (ctx: FerryContext) => ctx.state.resource as Loaded;

/** An optional integer header under its spec name or the X-Filesender- alias (docs/architecture.md, HTTP surface). */
function intHeader(ctx: FerryContext, name: string): number | null {
  const v = ctx.get(`X-Service-${name}`) || ctx.get(`X-Filesender-${name}`);
  if (v === '') return null;
  if (!/^\d{1,16}$/.test(v.trim())) throw Errors.restSanityCheckFailed(`X-Service-${name}`);
  return Number(v);
}

const CHUNK_PATH = /^\/file\/[^/]+\/chunk\/[^/]+\/?$/;

/** PUT /file/{id}/chunk/{offset}: its body is file data, never parsed as JSON or a form. */
export function isChunkUpload(ctx: { method: string; path: string }): boolean {
  return ctx.method === 'PUT' && CHUNK_PATH.test(ctx.path);
}

const idInput = input({ params: idParams });
/** A chunk: its offset in the path, its bytes the body (streamed, never parsed). */
const chunkInput = input({
  params: z.object({
    id: pathId,
    offset: z
      .string()
      .regex(/^\d{1,16}$/)
      .transform(Number),
  }),
  body: 'bytes',
});
/** PUT /file/{id} does one thing: completes the file. */
const completeInput = input({
  params: idParams,
  body: z.object({ complete: z.literal(true, failsAs(Errors.restBadParameter)) }),
});

/** File endpoints of the spec: read, chunk upload, completion, deletion. */
export function fileRoutes(api: Api): void {
  const own = owner(loadFile, { notFound: Errors.fileNotFound });
  const ownOrKey = owner(loadFile, { notFound: Errors.fileNotFound, chunkKey: true });

  api.get('/file/:id', own, idInput, (ctx) => presentFile(loaded(ctx).file));

  api.put(
    '/file/:id/chunk/:offset',
    ownOrKey,
    chunkInput,
    roundtripToken,
    invitedGuest,
    uploadSlot,
    async (ctx, { params }) => {
      const { file, transfer } = loaded(ctx);
      const lengthHeader = ctx.get('Content-Length');
      const length = /^\d{1,16}$/.test(lengthHeader) ? Number(lengthHeader) : null;
      // Of an encrypted file's chunk, X-Service-Chunk-Size is the plaintext length, as FileSender has it: the body
      // (IV ‖ ciphertext ‖ tag) is 32 octets longer.
      const overhead = transfer.encryption ? CHUNK_OVERHEAD : 0;
      const declaredSize = intHeader(ctx, 'Chunk-Size');
      if (declaredSize !== null && length !== null && declaredSize + overhead !== length)
        throw Errors.restSanityCheckFailed('X-Service-Chunk-Size');
      const announced = declaredSize !== null ? declaredSize + overhead : length;
      const raw = ctx.state.rawBody; // set when a signature had to cover the body
      const req = {
        offset: params.offset,
        size: raw ? raw.length : announced,
        declaredFileSize: intHeader(ctx, 'File-Size'),
        declaredOffset: intHeader(ctx, 'Chunk-Offset'),
      };
      if (raw && announced !== null && announced !== raw.length)
        throw Errors.restSanityCheckFailed('X-Service-Chunk-Size');
      const uploads = ctx.state.services.uploads;
      uploads.checkChunk(transfer, file, req); // refuse before reading a byte
      const p = ctx.state.principal;
      const signed = p.type === 'user' || p.type === 'application' ? p.signedBody : undefined;
      const after = await uploads.writeChunk(actorOf(ctx), transfer, file, {
        ...req,
        body: raw ?? ctx.req,
        ...(signed ? { signed } : {}),
      });
      return presentFile(after);
    },
  );

  api.put('/file/:id', ownOrKey, completeInput, roundtripToken, invitedGuest, async (ctx) => {
    const { file, transfer } = loaded(ctx);
    await ctx.state.services.uploads.completeFile(actorOf(ctx), transfer, file);
    return true;
  });

  api.delete('/file/:id', own, idInput, async (ctx) => {
    await ctx.state.services.transfers.deleteFile(actorOf(ctx), loaded(ctx).file);
    return true;
  });
}
