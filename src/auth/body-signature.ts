import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import type { SignedBody } from '../domain/ports';
import type { AuthRequest } from './principal';
import { signedHeadVariants, type SignedHead } from './signature';
import { Errors } from '../domain/errors';

const AMP = Buffer.from('&');

/**
 * Which way of writing the signed string (docs/architecture.md, HTTP surface) a credential last matched with,
 * by credential and Host header. A client signs every request the same way: its chunks are then hashed for
 * that one way only, one HMAC per byte, instead of one per way. A hint only: it is set by a signature that
 * matched, and a chunk hashed only its way and not matching is refused like any wrong signature.
 */
const learned = new Map<string, string>();
const LEARNED_MAX = 4096;

function learnedKey(credential: string, req: AuthRequest): string {
  return `${credential}\n${String(req.headers.host ?? '')}`;
}

/** Notes the way a credential's signature matched (called by the checks that try every way). */
export function learnShape(credential: string, req: AuthRequest, shape: string): void {
  const key = learnedKey(credential, req);
  learned.delete(key);
  learned.set(key, shape);
  if (learned.size > LEARNED_MAX) learned.delete(learned.keys().next().value!);
}

/**
 * A signed chunk's HMAC, computed while its body streams (docs/architecture.md, Signed chunks while they
 * stream): each piece is fed to the HMACs as it arrives, in the same pass that writes it; `verified` compares
 * once the last piece is seen and then runs `then` (the replay check), once. A wrong signature rejects with
 * auth_remote_signature_check_failed (401).
 */
export class StreamingSignature implements SignedBody {
  private readonly hmacs: { hmac: crypto.Hmac; shape: string }[];
  private started = false;
  private verdict: Promise<void> | null = null;
  readonly verifyStored?: (file: string, offset: number, length: number) => Promise<void>;

  constructor(
    private readonly signature: string,
    private readonly secrets: string[],
    private readonly heads: SignedHead[],
    private readonly credential: string,
    private readonly req: AuthRequest,
    private readonly then: () => Promise<void>,
    stored?: StoredHmac,
  ) {
    this.hmacs = [];
    for (const secret of secrets)
      for (const h of heads)
        this.hmacs.push({ hmac: crypto.createHmac('sha1', secret).update(h.head), shape: h.shape });
    if (stored) {
      this.verifyStored = (file, offset, length) => {
        this.verdict ??= this.checkStored(stored, file, offset, length);
        return this.verdict;
      };
    }
  }

  private async checkStored(stored: StoredHmac, file: string, offset: number, length: number): Promise<void> {
    if (this.started || !/^[0-9a-f]{40}$/i.test(this.signature)) throw Errors.authRemoteSignatureCheckFailed();
    // As text: a Buffer would carry its whole backing store across to the thread.
    const heads = this.heads.map((h) => h.head.toString('latin1'));
    const given = this.signature.toLowerCase();
    // The hashing thread reads the bytes back; if it is gone, this thread does.
    const index = await stored(file, offset, length, this.secrets, heads, given).catch(() =>
      storedHmacHere(file, offset, length, this.secrets, heads, given),
    );
    if (index < 0) throw Errors.authRemoteSignatureCheckFailed();
    if (this.heads.length > 1) learnShape(this.credential, this.req, this.heads[index].shape);
    await this.then();
  }

  see(piece: Uint8Array): void {
    if (piece.length === 0 || this.verdict) return;
    // The '&' before the body is in the string only when there is a body (spec: signed request).
    if (!this.started) for (const h of this.hmacs) h.hmac.update(AMP);
    this.started = true;
    for (const h of this.hmacs) h.hmac.update(piece);
  }

  verified(): Promise<void> {
    this.verdict ??= this.check();
    return this.verdict;
  }

  private async check(): Promise<void> {
    if (!/^[0-9a-f]{40}$/i.test(this.signature)) throw Errors.authRemoteSignatureCheckFailed();
    const given = Buffer.from(this.signature.toLowerCase(), 'hex');
    let shape: string | null = null;
    for (const h of this.hmacs) if (crypto.timingSafeEqual(h.hmac.digest(), given) && shape === null) shape = h.shape;
    if (shape === null) throw Errors.authRemoteSignatureCheckFailed();
    if (this.hmacs.length > 1) learnShape(this.credential, this.req, shape);
    await this.then();
  }
}

/**
 * The HMAC of bytes [offset, offset + length) of a file, for each head under each secret: the index of the first
 * head that gives `given` (hex), or -1. The server's runs on its hashing thread.
 */
export type StoredHmac = (
  file: string,
  offset: number,
  length: number,
  secrets: string[],
  heads: string[],
  given: string,
) => Promise<number>;

/** StoredHmac on this thread (tests, and when the hashing thread is gone). */
export async function storedHmacHere(
  file: string,
  offset: number,
  length: number,
  secrets: string[],
  heads: string[],
  given: string,
): Promise<number> {
  const hmacs = secrets.flatMap((secret) =>
    heads.map((head, i) => ({ i, h: crypto.createHmac('sha1', secret).update(Buffer.from(head, 'latin1')) })),
  );
  if (length > 0) {
    for (const x of hmacs) x.h.update(AMP);
    const fh = await fsp.open(file, 'r');
    try {
      const buf = Buffer.allocUnsafe(Math.min(1024 * 1024, length));
      for (let pos = 0; pos < length; ) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, length - pos), offset + pos);
        if (bytesRead === 0) throw new Error('file shorter than its chunk');
        for (const x of hmacs) x.h.update(buf.subarray(0, bytesRead));
        pos += bytesRead;
      }
    } finally {
      await fh.close();
    }
  }
  const want = Buffer.from(given, 'hex');
  let found = -1;
  for (const x of hmacs) if (crypto.timingSafeEqual(x.h.digest(), want) && found < 0) found = x.i;
  return found;
}

/** The ways to hash a body about to stream: the learned one when it is among them, else all of them. */
export function streamingSignature(
  signature: string,
  secrets: string[],
  req: AuthRequest,
  baseUrl: string,
  credential: string,
  then: () => Promise<void>,
  stored?: StoredHmac,
): StreamingSignature {
  const heads = signedHeadVariants(req, baseUrl);
  const hint = learned.get(learnedKey(credential, req));
  const one = hint === undefined ? undefined : heads.find((h) => h.shape === hint);
  return new StreamingSignature(signature, secrets, one ? [one] : heads, credential, req, then, stored);
}
