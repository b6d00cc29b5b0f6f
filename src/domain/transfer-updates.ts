import { Errors } from './errors';
import type { Actor, Transfer } from './model';
import type { SharingService } from './sharing';
import type { TransfersService } from './transfers';

/** The changes PUT /transfer/{id} may ask for (spec), each a boolean asking for it. */
const CHANGES = ['complete', 'closed', 'extend_expiry_date', 'remind'] as const;

export interface TransferUpdateDeps {
  transfers: TransfersService;
  sharing: SharingService;
}

/**
 * Updating a Transfer (spec: PUT /transfer/{id}): its download limit (ferry's extension, docs/sharing.md), then
 * complete, extend, remind and close, in that order, each under the rules of its own use case.
 */
export class TransferUpdates {
  constructor(private readonly d: TransferUpdateDeps) {}

  /** Applies what `body` asks for; answers the Transfer as it is afterwards. Unknown or mistyped fields: 400. */
  async update(actor: Actor, transfer: Transfer, body: Record<string, unknown>): Promise<Transfer> {
    const unknown = Object.keys(body).filter(
      (k) => !(CHANGES as readonly string[]).includes(k) && k !== 'download_limit',
    );
    if (unknown.length) throw Errors.restBadParameter(...unknown);
    for (const k of CHANGES)
      if (body[k] !== undefined && typeof body[k] !== 'boolean') throw Errors.restBadParameter(k);
    let t = transfer;
    // A whole number or null, checked by the sharing rules.
    if (body.download_limit !== undefined) await this.d.sharing.setDownloadLimit(actor, t, body.download_limit);
    if (body.complete) t = await this.d.transfers.complete(actor, t);
    if (body.extend_expiry_date) t = await this.d.transfers.extend(actor, t);
    if (body.remind) await this.d.transfers.remind(actor, t);
    if (body.closed) t = await this.d.transfers.close(actor, t, 'owner');
    return t;
  }
}
