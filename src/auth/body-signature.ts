import crypto from 'node:crypto';
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

  constructor(
    private readonly signature: string,
    secrets: string[],
    heads: SignedHead[],
    private readonly credential: string,
    private readonly req: AuthRequest,
    private readonly then: () => Promise<void>,
  ) {
    this.hmacs = [];
    for (const secret of secrets)
      for (const h of heads)
        this.hmacs.push({ hmac: crypto.createHmac('sha1', secret).update(h.head), shape: h.shape });
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

/** The ways to hash a body about to stream: the learned one when it is among them, else all of them. */
export function streamingSignature(
  signature: string,
  secrets: string[],
  req: AuthRequest,
  baseUrl: string,
  credential: string,
  then: () => Promise<void>,
): StreamingSignature {
  const heads = signedHeadVariants(req, baseUrl);
  const hint = learned.get(learnedKey(credential, req));
  const one = hint === undefined ? undefined : heads.find((h) => h.shape === hint);
  return new StreamingSignature(signature, secrets, one ? [one] : heads, credential, req, then);
}
