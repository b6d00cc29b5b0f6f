import { CHUNK_OVERHEAD, DEFAULT_HASH_ITERATIONS } from '../../shared-crypto/format';
import { ApiError, ClientError } from '../errors';
import type { FerryApi } from '../http';
import { completeTransfer, discardTransfer, isObject, transferOf, unusable } from './common';
import { guestOf } from './ferry';
import { configInt, configOn, type ConfigValue } from './filesender-config';
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

/**
 * A FileSender 3.x server, as its REST endpoints answer a remote user (classes/rest/endpoints of FileSender):
 * - GET /user answers only administrators; the account is GET /user/@me, which has no e-mail address, and a
 *   remote user's `from` is taken as given (so it must be given, or be the user id when that is an address);
 * - GET /info tells the chunk size; the encrypted chunk size, the crypto parameters and the limits are in the
 *   settings script (filesender-config.ts);
 * - most refusals are 500 with the refusal's name (errors.ts, namedFailure): final, not retried;
 * - a File says nothing of what arrived, and a transfer not its status: the client keeps count of the chunks
 *   the server acknowledged (the resume record), and sends again what it cannot be sure of. A chunk sent twice
 *   is written twice at the same offset, which FileSender allows while the transfer is uploading.
 */
export class FileSenderServer implements SendServer {
  readonly kind = 'filesender' as const;
  readonly tellsRanges = false;
  roundtripToken: string | undefined;

  constructor(
    readonly api: FerryApi,
    private readonly info: Record<string, unknown>,
    private readonly config: Record<string, ConfigValue>,
    private readonly user: string,
  ) {}

  settings(): ServerSettings {
    const c = this.config;
    const chunk = Number.isSafeInteger(this.info.upload_chunk_size)
      ? (this.info.upload_chunk_size as number)
      : configInt(c.upload_chunk_size);
    if (!chunk || chunk <= 0)
      throw unusable('reading the server settings', 'GET /info', this.info, 'has no upload_chunk_size');
    const crypted = configInt(c.upload_crypted_chunk_size);
    let unsupported: string | null = null;
    if (crypted !== null && crypted !== chunk + CHUNK_OVERHEAD)
      unsupported = `its encrypted chunks are ${crypted} bytes, not ${chunk} + ${CHUNK_OVERHEAD} (AES-GCM)`;
    else if (configOn(c.encryption_encode_encrypted_chunks_in_base64_during_upload))
      unsupported = 'it wants encrypted chunks in base64 (encryption_encode_encrypted_chunks_in_base64_during_upload)';
    const positive = (v: ConfigValue | undefined) => {
      const n = configInt(v);
      return n && n > 0 ? n : null;
    };
    return {
      chunkSize: chunk,
      maxFiles: positive(c.max_transfer_files),
      maxTransferSize: positive(c.max_transfer_size),
      maxFileSize: positive(c.max_transfer_file_size),
      maxEncryptedFileSize: positive(c.max_transfer_encrypted_file_size),
      defaultDays: positive(c.default_transfer_days_valid),
      maxDays: positive(c.max_transfer_days_valid),
      defaultGuestDays: positive(c.default_guest_days_valid),
      maxGuestDays: positive(c.max_guest_days_valid),
      encryption: {
        enabled: configOn(c.encryption_enabled),
        mandatory: configOn(c.encryption_mandatory),
        iterations: positive(c.encryption_password_hash_iterations_new_files) ?? DEFAULT_HASH_ITERATIONS,
        unsupported,
        rules: {
          encryption_min_password_length: configInt(c.encryption_min_password_length) ?? 0,
          encryption_password_must_have_upper_and_lower_case: configOn(
            c.encryption_password_must_have_upper_and_lower_case,
          ),
          encryption_password_must_have_numbers: configOn(c.encryption_password_must_have_numbers),
          encryption_password_must_have_special_characters: configOn(
            c.encryption_password_must_have_special_characters,
          ),
        },
      },
    };
  }

  /** The account, read as FileSender lets its owner read it: GET /user/@me (GET /user is for administrators). */
  async account(what = 'reading your account'): Promise<Record<string, unknown>> {
    const me = await this.api.call<unknown>('GET', '/user/@me', { what });
    if (!isObject(me) || me.id === undefined) throw unusable(what, 'GET /user/@me', me, 'is not an account');
    return me;
  }

  async senderAddress(given: string | undefined): Promise<string> {
    await this.account();
    if (given) return given;
    if (/^[^@\s|]+@[^@\s]+\.[^@\s|]+$/.test(this.user)) return this.user;
    throw new ClientError(
      `FileSender does not tell a remote client your address, and your user id ${JSON.stringify(this.user)} is not one: give it with --from (or FERRY_FROM)`,
    );
  }

  async createTransfer(t: TransferRequest): Promise<ServerTransfer> {
    if (t.downloadLimit !== undefined)
      throw new ClientError(
        'creating the transfer: FileSender servers have no download limit (--download-limit is for ferry servers)',
        1,
      );
    const answer = await this.api.call<unknown>('POST', '/transfer', {
      json: {
        ...(t.encryption ?? {}),
        from: t.from,
        files: t.files,
        recipients: t.recipients,
        subject: t.subject,
        message: t.message,
        expires: t.expires,
        // Needed where the server asks for its terms to be accepted (aup_enabled), ignored elsewhere.
        aup_checked: 1,
        options: { get_a_link: t.link },
      },
      what: 'creating the transfer',
    });
    const transfer = transferOf('creating the transfer', 'POST /transfer', answer);
    if (typeof transfer.roundtriptoken === 'string' && transfer.roundtriptoken)
      this.roundtripToken = transfer.roundtriptoken;
    return transfer;
  }

  async unfinished(id: number): Promise<Unfinished> {
    try {
      const t = await this.api.call<unknown>('GET', `/transfer/${id}`, { what: 'looking up the unfinished transfer' });
      // FileSender's answer has no status: an open transfer and a finished one look alike. Sending what is
      // missing and completing again tells (a finished transfer refuses chunks; completing twice is allowed).
      return { state: 'open', transfer: transferOf('looking up the unfinished transfer', `GET /transfer/${id}`, t) };
    } catch (e) {
      // A deleted or purged transfer is 500 transfer_not_found (FileSender gives its not-found errors no status of their own).
      if (e instanceof ApiError && (e.status < 500 || /not_found|permission/.test(e.id)))
        return { state: 'gone', why: `the server no longer has it (${e.id})` };
      throw e;
    }
  }

  async putChunk(c: ChunkRequest): Promise<void> {
    const headers: Record<string, string> = {
      'content-type': 'application/octet-stream',
      'x-filesender-file-size': String(c.fileSize),
      'x-filesender-chunk-offset': String(c.offset),
      // Of an encrypted chunk, the plaintext's length (FileSender subtracts the 32 octets of IV and tag).
      'x-filesender-chunk-size': String(c.length),
    };
    if (c.encrypted) {
      headers['x-filesender-encrypted'] = '1';
      headers['x-filesender-chunk-size-encrypted'] = String(c.body.length);
    }
    const request = `PUT /file/${c.fileId}/chunk/${c.offset}`;
    const what = `sending ${c.name} at byte ${c.offset}`;
    const answer = await this.api.call<unknown>('PUT', `/file/${c.fileId}/chunk/${c.offset}`, {
      body: c.body,
      headers,
      args: this.roundtripToken ? { roundtriptoken: this.roundtripToken } : {},
      what,
      ahead: c.ahead,
    });
    // The storage's own count of what it wrote: anything else is not a stored chunk.
    if (!isObject(answer) || answer.written !== c.body.length)
      throw unusable(what, request, answer, `does not say ${c.body.length} bytes were written`);
  }

  async storedRanges(): Promise<null> {
    return null;
  }

  async completeFile(fileId: number, name: string): Promise<void> {
    await this.api.call('PUT', `/file/${fileId}`, {
      json: { complete: true },
      args: this.roundtripToken ? { roundtriptoken: this.roundtripToken } : {},
      what: `completing ${name}`,
    });
  }

  completeTransfer(id: number): Promise<ServerTransfer> {
    return completeTransfer(this.api, id);
  }

  discardTransfer(id: number): Promise<string | null> {
    return discardTransfer(this.api, id);
  }

  async inviteGuest(g: GuestRequest): Promise<GuestAnswer> {
    const from = await this.senderAddress(g.from);
    const body: Record<string, unknown> = {
      from,
      recipient: g.email,
      subject: g.subject ?? '',
      message: g.message ?? '',
      aup_checked: 1,
      options: { get_a_link: 0 },
    };
    // Absent, FileSender takes its default_guest_days_valid.
    if (g.days !== undefined) body.expires = this.api.serverNow() + Math.round(g.days * 86400);
    const answer = await this.api.call<unknown>('POST', '/guest', { json: body, what: `inviting ${g.email}` });
    return guestOf(g.email, answer);
  }
}
