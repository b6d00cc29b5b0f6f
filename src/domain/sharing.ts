import { Errors } from './errors';
import type { Actor, Transfer } from './model';
import type { Clock, Repositories, SharingView, UnitOfWork } from './ports';
import { auditAuthor, transferTarget } from './audit-events';
import { isDownloadLimit } from './download-limits';

/** The sharing fields POST /transfer takes beside the spec's (docs/sharing.md). */
export interface SharingDraft {
  downloadLimit: number | null;
  /** The link password as typed; hashed before it is stored (never kept, never logged). */
  password: string | null;
}

/** Reads `download_limit` and `password` from a POST /transfer body; errors name the field. */
export function parseSharingInput(body: unknown): SharingDraft {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const limit = b.download_limit === undefined ? null : b.download_limit;
  if (!isDownloadLimit(limit)) throw Errors.restBadParameter('download_limit');
  const password = b.password === undefined || b.password === null || b.password === '' ? null : b.password;
  if (password !== null && (typeof password !== 'string' || password.length > 1024))
    throw Errors.restBadParameter('password');
  return { downloadLimit: limit, password };
}

export type { SharingView } from './ports';

export interface SharingDeps {
  repos: Repositories;
  uow: UnitOfWork;
  clock: Clock;
}

/** The owner's side of the sharing controls: what a transfer has, what its links used, changing the limit. */
export class SharingService {
  constructor(private readonly d: SharingDeps) {}

  async view(t: Transfer): Promise<SharingView> {
    const [controls, counts] = await Promise.all([
      this.d.repos.sharing.controls(t.id),
      this.d.repos.sharing.doneCounts(t.id),
    ]);
    return { controls, counts };
  }

  /** view() of a page of transfers, read together. */
  async views(ts: Transfer[]): Promise<Map<number, SharingView>> {
    if (ts.length === 0) return new Map();
    return this.d.repos.sharing.viewsOf(ts.map((t) => t.id));
  }

  /** The owner raises (or lowers, or removes: null) the limit; downloads already counted stay counted. */
  async setDownloadLimit(actor: Actor, t: Transfer, limit: unknown): Promise<void> {
    if (!isDownloadLimit(limit)) throw Errors.restBadParameter('download_limit');
    if (t.status === 'closed') throw Errors.cannotAlterClosedTransfer();
    const now = this.d.clock();
    await this.d.uow.run(async (tx) => {
      const c = await tx.sharing.controls(t.id);
      await tx.sharing.setControls(t.id, { ...c, downloadLimit: limit });
      await tx.audit.record({
        transferId: t.id,
        date: now,
        event: 'download_limit_changed',
        author: auditAuthor(actor),
        target: transferTarget(t),
      });
    });
  }
}
