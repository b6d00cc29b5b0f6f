import { Errors } from './errors';
import type { FileRecord, Recipient, Transfer } from './model';
import type { Clock, Notifier, Repositories, SharingControls, UnitOfWork } from './ports';
import { CLAIM_IDLE_S, filesSpent, linkSpent, planClaims } from './download-limits';
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

/** Who downloads, for the audit log. */
export interface Downloader {
  ip: string | null;
}

export interface DownloadDeps {
  repos: Repositories;
  uow: UnitOfWork;
  notifier: Notifier;
  clock: Clock;
}

/**
 * The recipients' side: a download token opens its own Transfer only, and only while it is available and
 * unexpired. Starts and ends of downloads are audited; once a recipient has received every file whole the
 * owner is told (email_download_complete), once.
 */
export class DownloadsService {
  private readonly throttle: LoginThrottle;

  constructor(private readonly d: DownloadDeps) {
    this.throttle = new LoginThrottle(d.uow);
  }

  /**
   * Resolves a token, or explains why it opens nothing: unknown 404, expired 410, closed 410; a link password
   * not given or wrong 401 (tries throttled as logins are, in the database), a spent download limit 410.
   */
  async access(token: unknown, unlock?: LinkUnlock): Promise<DownloadAccess> {
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
      const claims = await this.d.repos.sharing.claims(recipient.id, ids, now - CLAIM_IDLE_S);
      if (linkSpent(claims, ids, controls.downloadLimit)) throw Errors.downloadLimitReached('token');
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
   * A response is about to send bytes of these files: each file's download is claimed for the link first (or
   * a claim of it resumed: `fromStart` false for a Range past byte 0), in the database, so the limit holds
   * across nodes and racing downloads (docs/sharing.md, Download limits). Refused with download_limit_reached
   * before any byte when a file has no download left. Returns the claims, for ended() and cut().
   */
  async started(
    access: DownloadAccess,
    files: FileRecord[],
    kind: DownloadKind,
    who: Downloader,
    fromStart = true,
  ): Promise<number[]> {
    const now = this.d.clock();
    const r = access.recipient;
    const outcome = await this.d.uow.run(
      async (tx): Promise<{ refused: true } | { refused: false; claims: number[] }> => {
        await tx.sharing.holdLink(r.id);
        // Read again inside the unit of work: an owner who raised the limit a moment ago is seen at once.
        const { downloadLimit } = await tx.sharing.controls(access.transfer.id);
        const ids = files.map((f) => f.id);
        const plan = planClaims(await tx.sharing.claims(r.id, ids, now - CLAIM_IDLE_S), ids, downloadLimit, fromStart);
        if (plan.refused.length) {
          await tx.audit.record({
            transferId: access.transfer.id,
            date: now,
            event: 'download_refused',
            author: this.author(access, who),
            target: { type: 'Transfer', id: String(access.transfer.id) },
          });
          // Recorded, and the refusal thrown after the commit so that the record stays.
          return { refused: true };
        }
        const claims: number[] = [];
        for (const step of plan.steps) {
          if ('resume' in step) {
            await tx.sharing.resume(step.resume, now);
            claims.push(step.resume);
          } else claims.push(await tx.sharing.claim(r.id, step.fileId, now));
        }
        await tx.transfers.touchRecipient(r.id, now);
        await this.record(
          tx,
          access,
          files,
          kind === 'archive' ? 'archive_download_started' : 'download_started',
          who,
          now,
        );
        return { refused: false, claims };
      },
    );
    if (outcome.refused) throw Errors.downloadLimitReached('files_ids');
    return outcome.claims;
  }

  /** A response ended before its last byte: its claims wait for the download to be resumed. */
  async cut(claims: number[]): Promise<void> {
    if (claims.length === 0) return;
    const now = this.d.clock();
    await this.d.uow.run(async (tx) => {
      for (const id of claims) await tx.sharing.release(id, now, false);
    });
  }

  /**
   * A response finished. `wholeFiles` are the files whose every byte has now been sent to this recipient (a
   * resumed download counts when its last range completes the file).
   */
  async ended(
    access: DownloadAccess,
    files: FileRecord[],
    kind: DownloadKind,
    who: Downloader,
    wholeFiles: FileRecord[],
    claims: number[] = [],
  ): Promise<void> {
    const now = this.d.clock();
    await this.d.uow.run(async (tx) => {
      // The file's last byte went out: its download counts (a response that ended earlier leaves it open).
      for (const id of claims) await tx.sharing.release(id, now, wholeFiles.length > 0);
      await this.record(tx, access, files, kind === 'archive' ? 'archive_download_ended' : 'download_ended', who, now);
      if (wholeFiles.length === 0) return;
      const all = (await tx.transfers.files(access.transfer.id)).map((f) => f.id);
      const completed = await tx.transfers.markReceived(
        access.recipient.id,
        wholeFiles.map((f) => f.id),
        all,
        now,
      );
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
}
