import { Errors } from './errors';
import type { FileRecord, Recipient, Transfer } from './model';
import type { Clock, FileStore, Notifier, PositionalReader, Repositories, SharingControls, UnitOfWork } from './ports';
import type { Range } from '../shared/ranges';
import crypto from 'node:crypto';
import {
  CLAIM_LEASE_S,
  CLAIM_WAIT_MS,
  type FileSpan,
  filesSpent,
  linkSpent,
  planClaims,
  progressOf,
  receivedWhole,
} from './download-limits';
import { LINK_PASSWORD_MAX, linkThrottleKey, proofMatches, unlockProof, verifyLinkPassword } from './link-password';
import { LoginThrottle } from './login-throttle';

export type { PositionalReader } from './ports';

export interface DownloadAccess {
  transfer: Transfer;
  recipient: Recipient;
  files: FileRecord[];
  /** The transfer's download limit and link password (docs/sharing.md). */
  controls: SharingControls;
  /** Files this link may no longer download (its limit reached for them). */
  spent: number[];
}

/**
 * What a request shows to open a transfer whose links ask for a password: the password itself (a form, or
 * the X-Ferry-Link-Password header of a command-line client), or the proof a browser keeps once it gave it.
 */
export interface LinkUnlock {
  password?: string;
  proof?: string;
  ip: string;
}

export type DownloadKind = 'file' | 'archive';

export type { FileSpan } from './download-limits';

/** One file's part of a response, on its claim (docs/sharing.md, Download limits). */
export interface ClaimUse {
  id: number;
  span: FileSpan;
  /** What the claim had sent before this response. */
  before: { sent: Range[]; resent: number; done: number | null };
}

/** A response's hold on the claims of the files it sends: renewed while it sends, recorded at its end. */
export interface DownloadUse {
  lease: string;
  claims: ClaimUse[];
  /** Bytes of each claim's span written to the connection so far (the sender keeps it up to date). */
  sent: number[];
  /** Its end is recorded (or being recorded): later ends change nothing. */
  ended?: boolean;
}

/** Who downloads, for the audit log. */
export interface Downloader {
  ip: string | null;
}

export interface DownloadDeps {
  repos: Repositories;
  uow: UnitOfWork;
  notifier: Notifier;
  clock: Clock;
  /** Where the files' bytes are (open). */
  files: FileStore;
}

/**
 * The recipients' side: a download token opens its own Transfer only, and only while it is available and
 * unexpired. Starts and ends of downloads are audited; once a recipient has received every file whole the
 * owner is told (email_download_complete), once.
 */
type Outcome = { wait: true } | { refused: true } | { refused: false; claims: ClaimUse[] };

export class DownloadsService {
  private readonly throttle: LoginThrottle;
  /** Responses sending now, each with how to record its end as cut (when the node stops). */
  private readonly live = new Map<DownloadUse, () => Promise<void>>();

  constructor(private readonly d: DownloadDeps) {
    this.throttle = new LoginThrottle(d.uow);
  }

  /** Opens bytes [start, end] (inclusive) of a stored File for forward reads (a download, an archive's entry). */
  open(file: FileRecord, start: number, end: number): Promise<PositionalReader> {
    return this.d.files.openRead(file.transferId, file.uid, start, end);
  }

  /**
   * Resolves a token, or explains why it opens nothing: unknown 404, expired 410, closed 410; a link password
   * not given or wrong 401 (tries throttled as logins are, in the database), a spent download limit 410.
   */
  async access(token: unknown, unlock?: LinkUnlock, opts: { resuming?: boolean } = {}): Promise<DownloadAccess> {
    if (typeof token !== 'string' || token.length < 16 || token.length > 128) throw Errors.transferNotFound('token');
    const recipient = await this.d.repos.transfers.recipientByToken(token);
    if (!recipient && (await this.d.repos.transfers.recipientTokenWithdrawn(token)))
      throw Errors.recipientWithdrawn('token');
    const transfer = recipient ? await this.d.repos.transfers.find(recipient.transferId) : undefined;
    if (!recipient || !transfer) throw Errors.transferNotFound('token');
    const now = this.d.clock();
    if (transfer.expires <= now || transfer.closedReason === 'expired') throw Errors.transferExpired();
    if (transfer.status === 'closed') throw Errors.transferClosed();
    if (transfer.status !== 'available') {
      // Completed but not released by its virus scan: say why rather than "not found" (docs/sharing.md).
      const scan = await this.d.repos.virusScans.find(transfer.id);
      if (scan?.state === 'infected') throw Errors.transferInfected('token');
      if (scan?.state === 'checking' || scan?.state === 'held') throw Errors.transferBeingChecked('token');
      throw Errors.transferNotFound('token');
    }
    const [files, controls] = await Promise.all([
      this.d.repos.transfers.files(transfer.id),
      this.d.repos.sharing.controls(transfer.id),
    ]);
    if (controls.passwordHash !== null) await this.unlock(recipient, controls.passwordHash, unlock, now);
    let spent: number[] = [];
    if (controls.downloadLimit !== null) {
      const ids = files.map((f) => f.id);
      const claims = await this.d.repos.sharing.claims(recipient.id, ids);
      // A Range request may resume a counted copy's last bytes (a cut the server could not see): started() decides.
      if (linkSpent(claims, ids, controls.downloadLimit) && !opts.resuming) throw Errors.downloadLimitReached('token');
      spent = filesSpent(claims, ids, controls.downloadLimit);
    }
    return { transfer, recipient, files, controls, spent };
  }

  private async unlock(
    recipient: Recipient,
    stored: string,
    unlock: LinkUnlock | undefined,
    now: number,
  ): Promise<void> {
    // A browser that unlocked this link before gets through whatever the count (docs/hardening.md).
    if (proofMatches(stored, recipient.token, unlock?.proof)) return;
    if (unlock?.password === undefined || unlock.password === '') throw Errors.downloadPasswordRequired('password');
    if (unlock.password.length > LINK_PASSWORD_MAX) throw Errors.downloadPasswordIncorrect('password');
    const attempt = await this.throttle.attempt(linkThrottleKey(recipient.id, unlock.ip), unlock.ip, now);
    if (!(await verifyLinkPassword(unlock.password, stored))) throw Errors.downloadPasswordIncorrect('password');
    await attempt.succeeded();
  }

  /** The proof a browser keeps for the link once the right password was given (see link-password.ts). */
  async proofFor(access: DownloadAccess): Promise<string | null> {
    return access.controls.passwordHash === null
      ? null
      : unlockProof(access.controls.passwordHash, access.recipient.token);
  }

  /** The files named by files_ids (all of them when none are named); an id of another Transfer is not found. */
  select(access: DownloadAccess, ids: number[] | null): FileRecord[] {
    if (!ids || ids.length === 0) return access.files;
    const byId = new Map(access.files.map((f) => [f.id, f]));
    const picked: FileRecord[] = [];
    for (const id of new Set(ids)) {
      const f = byId.get(id);
      if (!f) throw Errors.fileNotFound('files_ids');
      picked.push(f);
    }
    if (picked.length === 0) throw Errors.fileNotFound('files_ids');
    return picked;
  }

  /** The recipient opened the download page. */
  async viewed(access: DownloadAccess): Promise<void> {
    await this.d.repos.transfers.touchRecipient(access.recipient.id, this.d.clock());
  }

  /**
   * A response is about to send these spans of files: each is sent on a claim of the link (docs/sharing.md,
   * Download limits), taken in the database before any byte while the link is held, so the limit holds across
   * nodes and racing downloads: a claim no other response holds that may send these bytes (a resumed copy),
   * else a new one if the limit leaves a slot. Refused with download_limit_reached before any byte when a
   * file has none. The claims stay held (a lease) until ended(); progress() renews them.
   */
  async started(access: DownloadAccess, spans: FileSpan[], kind: DownloadKind, who: Downloader): Promise<DownloadUse> {
    const now = this.d.clock();
    const r = access.recipient;
    const lease = crypto.randomBytes(16).toString('base64url');
    const until = now + CLAIM_LEASE_S;
    const ids = [...new Set(spans.map((sp) => sp.fileId))];
    const waitUntil = Date.now() + CLAIM_WAIT_MS;
    const attempt = async (tx: Repositories, last: boolean): Promise<Outcome> => {
      await tx.sharing.holdLink(r.id);
      // Read again inside the unit of work: an owner who raised the limit a moment ago is seen at once.
      const { downloadLimit } = await tx.sharing.controls(access.transfer.id);
      const plan = planClaims(await tx.sharing.claims(r.id, ids), spans, downloadLimit, this.d.clock());
      // The copy this goes on with is still held by the answer before it: wait for that one's end.
      if (plan.busy && !last) return { wait: true };
      return this.take(tx, access, who, kind, ids, plan, lease, until, now);
    };
    let outcome: Outcome;
    // Waits (outside any unit of work) while the copy this would go on with is held, up to CLAIM_WAIT_MS.
    for (;;) {
      const last = Date.now() >= waitUntil;
      outcome = await this.d.uow.run((tx) => attempt(tx, last));
      if (!('wait' in outcome)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (outcome.refused) throw Errors.downloadLimitReached('files_ids');
    const use: DownloadUse = { lease, claims: outcome.claims, sent: [] };
    this.live.set(use, () => this.ended(access, access.files, kind, who, use, false));
    return use;
  }

  /** Takes the claims a plan goes on with, or records the refusal (thrown by the caller after the commit). */
  private async take(
    tx: Repositories,
    access: DownloadAccess,
    who: Downloader,
    kind: DownloadKind,
    ids: number[],
    plan: ReturnType<typeof planClaims>,
    lease: string,
    until: number,
    now: number,
  ): Promise<Outcome> {
    const r = access.recipient;
    if (plan.refused.length) {
      await tx.audit.record({
        transferId: access.transfer.id,
        date: now,
        event: 'download_refused',
        author: this.author(access, who),
        target: { type: 'Transfer', id: String(access.transfer.id) },
      });
      return { refused: true };
    }
    const claims: ClaimUse[] = [];
    for (const { span, claim } of plan.steps) {
      if (claim) {
        await tx.sharing.take(claim.id, lease, until);
        claims.push({ id: claim.id, span, before: { sent: claim.sent, resent: claim.resent, done: claim.done } });
      } else {
        const id = await tx.sharing.claim(r.id, span.fileId, now, lease, until);
        claims.push({ id, span, before: { sent: [], resent: 0, done: null } });
      }
    }
    await tx.transfers.touchRecipient(r.id, now);
    await this.record(
      tx,
      access,
      access.files.filter((f) => ids.includes(f.id)),
      kind === 'archive' ? 'archive_download_started' : 'download_started',
      who,
      now,
    );
    return { refused: false, claims };
  }

  /**
   * A response is still sending: `sent[i]` bytes of claims[i]'s span are written so far. Records them and
   * renews the lease; false when a claim is no longer this response's (its lease lapsed and another took it:
   * the caller stops sending).
   */
  async progress(use: DownloadUse): Promise<boolean> {
    const sent = use.sent;
    if (use.claims.length === 0 || use.ended) return true;
    const now = this.d.clock();
    return this.d.uow.run(async (tx) => {
      let held = true;
      for (const [i, c] of use.claims.entries()) {
        const p = progressOf(c.before, c.span, sent[i] ?? 0, now);
        held = (await tx.sharing.record(c.id, use.lease, { ...p, leaseUntil: now + CLAIM_LEASE_S })) && held;
      }
      return held;
    });
  }

  /**
   * A response ended, `finished` (its last byte written) or cut: records what each claim sent and lets the
   * claims go. A file whose every byte has now been sent on its claim counts as a download, and the recipient
   * as having received it (email_download_complete once they have every file).
   */
  async ended(
    access: DownloadAccess,
    files: FileRecord[],
    kind: DownloadKind,
    who: Downloader,
    use: DownloadUse,
    finished: boolean,
  ): Promise<void> {
    if (use.ended) return;
    use.ended = true;
    this.live.delete(use);
    await this.recordEnd(access, files, kind, who, use, use.sent, finished);
  }

  /**
   * The node stops: every response still sending is recorded as cut where it is now (the recipient resumes on
   * another node), before the database closes.
   */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.live.values()].map((end) => end()));
  }

  private async recordEnd(
    access: DownloadAccess,
    files: FileRecord[],
    kind: DownloadKind,
    who: Downloader,
    use: DownloadUse,
    sent: number[],
    finished: boolean,
  ): Promise<void> {
    const now = this.d.clock();
    await this.d.uow.run(async (tx) => {
      const whole: number[] = [];
      const partly = new Map<number, number>();
      for (const [i, c] of use.claims.entries()) {
        const p = progressOf(c.before, c.span, sent[i] ?? 0, now);
        const mine = await tx.sharing.record(c.id, use.lease, { ...p, leaseUntil: null });
        if (mine && p.done !== null && c.before.done === null) whole.push(c.span.fileId);
        else if (mine && p.done === null && (sent[i] ?? 0) > 0) partly.set(c.span.fileId, c.span.size);
      }
      // A file this response ended on a copy of its own may complete what another copy began (a resumed range).
      // The recipient's ends read their copies one at a time, each after recording its own: one that reads later
      // sees every end that read before it, so two halves ending at once still make one file received. Only these
      // ends take the lock; a response that completed or sent nothing has nothing to add up.
      if (partly.size > 0) {
        await tx.sharing.holdLink(access.recipient.id);
        const claims = await tx.sharing.claims(access.recipient.id, [...partly.keys()]);
        for (const [fileId, size] of partly) if (receivedWhole(claims, fileId, size)) whole.push(fileId);
      }
      if (finished)
        await this.record(
          tx,
          access,
          files,
          kind === 'archive' ? 'archive_download_ended' : 'download_ended',
          who,
          now,
        );
      if (whole.length === 0) return;
      const all = (await tx.transfers.files(access.transfer.id)).map((f) => f.id);
      const completed = await tx.transfers.markReceived(access.recipient.id, whole, all, now);
      const opts = access.transfer.options;
      if (
        completed &&
        (opts.includes('email_download_complete') || opts.includes('enable_recipient_email_download_complete'))
      ) {
        await this.d.notifier.downloadComplete(
          tx,
          access.transfer,
          access.recipient,
          await tx.transfers.files(access.transfer.id),
        );
      }
    });
  }

  private author(access: DownloadAccess, who: Downloader) {
    return {
      type: 'Recipient' as const,
      id: String(access.recipient.id),
      ip: who.ip,
      email: access.recipient.email || null,
    };
  }

  private async record(
    repos: Repositories,
    access: DownloadAccess,
    files: FileRecord[],
    event: string,
    who: Downloader,
    now: number,
  ): Promise<void> {
    const author = this.author(access, who);
    if (event.startsWith('archive_')) {
      await repos.audit.record({
        transferId: access.transfer.id,
        date: now,
        event,
        author,
        target: { type: 'Transfer', id: String(access.transfer.id) },
      });
      return;
    }
    for (const f of files) {
      await repos.audit.record({
        transferId: access.transfer.id,
        date: now,
        event,
        author,
        target: { type: 'File', id: String(f.id), name: f.name, size: f.size },
      });
    }
  }

  /**
   * The subject and sender of a link whose downloads are spent, for the page that says so: the recipient
   * knows what they received. Asked only after access() refused the link with download_limit_reached, which
   * it does after any link password was given.
   */
  async spentLinkFacts(token: string): Promise<{ subject: string; from: string } | null> {
    const recipient = await this.d.repos.transfers.recipientByToken(token);
    const transfer = recipient ? await this.d.repos.transfers.find(recipient.transferId) : undefined;
    return transfer ? { subject: transfer.subject ?? '', from: transfer.userEmail } : null;
  }
}
