import type { Range } from '../../shared/ranges';
import { iterationsFrom } from '../encryption';
import { ApiError, ClientError } from '../errors';
import type { FerryApi } from '../http';
import { completeTransfer, discardTransfer, isObject, numberOr, transferOf, unusable } from './common';
import type {
  ChunkRequest,
  GuestAnswer,
  GuestRequest,
  SendServer,
  ServerSettings,
  ServerTransfer,
  TransferRequest,
  Unfinished,
} from './server';

const DEFAULT_CHUNK = 5 * 1024 * 1024;

/** ferry: every limit and parameter in GET /info; each File's `ranges` say what arrived, so a resume asks the server. */
export class FerryServer implements SendServer {
  readonly kind = 'ferry' as const;
  readonly tellsRanges = true;
  roundtripToken: string | undefined;

  constructor(
    readonly api: FerryApi,
    private readonly info: Record<string, unknown>,
  ) {}

  settings(): ServerSettings {
    const i = this.info;
    const chunk = i.upload_chunk_size;
    return {
      chunkSize: Number.isSafeInteger(chunk) && (chunk as number) > 0 ? (chunk as number) : DEFAULT_CHUNK,
      maxFiles: numberOr(i.max_transfer_files, null),
      maxTransferSize: numberOr(i.max_transfer_size, null),
      maxFileSize: numberOr(i.max_transfer_file_size, null),
      maxEncryptedFileSize: numberOr(i.max_transfer_encrypted_file_size, null),
      defaultDays: numberOr(i.default_transfer_days_valid, null),
      maxDays: numberOr(i.max_transfer_days_valid, null),
      defaultGuestDays: numberOr(i.default_guest_days_valid, null),
      maxGuestDays: numberOr(i.max_guest_days_valid, null),
      encryption: {
        enabled: i.encryption_enabled !== false,
        mandatory: i.encryption_mandatory === true,
        iterations: iterationsFrom(i),
        unsupported: null,
        rules: i,
      },
    };
  }

  async account(what = 'reading your account'): Promise<Record<string, unknown>> {
    const me = await this.api.call<unknown>('GET', '/user', { what });
    if (!isObject(me)) throw unusable(what, 'GET /user', me, 'is not an account');
    return me;
  }

  async senderAddress(given: string | undefined): Promise<string> {
    if (given) return given;
    const me = await this.account();
    const email = Array.isArray(me.email) ? me.email[0] : undefined;
    if (typeof email !== 'string' || !email)
      throw new ClientError('your account has no e-mail address on the server: give one with --from');
    return email;
  }

  async createTransfer(t: TransferRequest): Promise<ServerTransfer> {
    const answer = await this.api.call<unknown>('POST', '/transfer', {
      json: {
        ...(t.encryption ?? {}),
        files: t.files,
        recipients: t.recipients,
        options: t.link ? ['get_a_link'] : [],
        expires: t.expires,
        from: t.from,
        subject: t.subject,
        message: t.message,
        ...(t.downloadLimit !== undefined ? { download_limit: t.downloadLimit } : {}),
      },
      what: 'creating the transfer',
    });
    return transferOf('creating the transfer', 'POST /transfer', answer);
  }

  async unfinished(id: number): Promise<Unfinished> {
    let t: ServerTransfer;
    try {
      t = transferOf(
        'looking up the unfinished transfer',
        `GET /transfer/${id}`,
        await this.api.call('GET', `/transfer/${id}`, { what: 'looking up the unfinished transfer' }),
      );
    } catch (e) {
      if (e instanceof ApiError && e.status < 500)
        return { state: 'gone', why: `the server no longer has it (${e.id})` };
      throw e;
    }
    if (t.status === 'available') return { state: 'done', transfer: t };
    if (t.status === 'created' || t.status === 'started' || t.status === 'uploading')
      return { state: 'open', transfer: t };
    return { state: 'closed', why: `it is ${t.status ?? 'in an unknown state'}` };
  }

  async putChunk(c: ChunkRequest, doneAfterAll: () => Promise<boolean>): Promise<void> {
    await this.api.call('PUT', `/file/${c.fileId}/chunk/${c.offset}`, {
      body: c.body,
      headers: {
        'content-type': 'application/octet-stream',
        'x-service-file-size': String(c.fileSize),
        'x-service-chunk-offset': String(c.offset),
        // The plaintext's length, as FileSender's format has it; the server counts an encrypted body as 32 more.
        'x-service-chunk-size': String(c.length),
      },
      what: `sending ${c.name} at byte ${c.offset}`,
      ahead: c.ahead,
      doneAfterAll,
    });
  }

  async storedRanges(fileId: number, name: string): Promise<Range[]> {
    const f = await this.api.call<unknown>('GET', `/file/${fileId}`, { what: `checking ${name}`, retries: 0 });
    if (!isObject(f)) throw unusable(`checking ${name}`, `GET /file/${fileId}`, f, 'is not a file');
    return Array.isArray(f.ranges) ? (f.ranges as Range[]) : [];
  }

  async completeFile(fileId: number, name: string): Promise<void> {
    await this.api.call('PUT', `/file/${fileId}`, { json: { complete: true }, what: `completing ${name}` });
  }

  completeTransfer(id: number): Promise<ServerTransfer> {
    return completeTransfer(this.api, id);
  }

  discardTransfer(id: number): Promise<string | null> {
    return discardTransfer(this.api, id);
  }

  async inviteGuest(g: GuestRequest): Promise<GuestAnswer> {
    const body: Record<string, unknown> = {
      recipient: g.email,
      subject: g.subject ?? '',
      message: g.message ?? '',
      options: [],
    };
    // Absent, the server takes the account's first address and its default validity.
    if (g.from) body.from = g.from;
    if (g.days !== undefined) body.expires = this.api.serverNow() + Math.round(g.days * 86400);
    const answer = await this.api.call<unknown>('POST', '/guest', { json: body, what: `inviting ${g.email}` });
    return guestOf(g.email, answer);
  }
}

export function guestOf(email: string, answer: unknown): GuestAnswer {
  if (!isObject(answer) || !Number.isSafeInteger(answer.id))
    throw unusable(`inviting ${email}`, 'POST /guest', answer, 'has no guest id');
  return answer as unknown as GuestAnswer;
}
