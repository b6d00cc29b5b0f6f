import type { Actor, MailDelivery, Transfer } from './model';
import type { Page } from './paging';
import type { VirusScanRecord } from './ports';
import type { RecipientsService } from './recipients';
import type { SharingService, SharingView } from './sharing';
import type { TransfersService, TransferView } from './transfers';
import type { VirusScans } from './virus-scans';

/** What a Transfer is shown with: its files and recipients (each with its bounces), and all that is read beside. */
export interface TransferReadout {
  view: TransferView;
  /** How many more times its owner may extend it. */
  extensionsLeft: number;
  /** Its download limit, link password and download counts; undefined when it has no sharing controls. */
  sharing: SharingView | undefined;
  /** Its virus scan, when one was made or is due. */
  scan: VirusScanRecord | undefined;
}

export interface TransferReadouts {
  transfers: TransferReadout[];
  /** What became of the latest mail to each of their recipients, by recipient id. */
  delivery: Map<number, MailDelivery>;
  /** Whether virus scanning is configured (a Transfer without a scan then says why). */
  scanning: boolean;
}

export interface TransferViewDeps {
  transfers: TransfersService;
  recipients: RecipientsService;
  sharing: SharingService;
  virusScans: VirusScans;
}

/**
 * The read model every answer that shows Transfers uses (GET /transfer, its lists and pages, and the answers of
 * POST and PUT): in two rounds of reads whatever their number (docs/architecture.md, "Lists and pages"). What
 * depends on the transfers alone (their sharing controls and download counts, their virus scans) is read beside
 * their files and recipients; the recipients' bounces and mail states once the recipients are known.
 */
export class TransferViews {
  constructor(private readonly d: TransferViewDeps) {}

  /** One Transfer, or the view a change just built (the create answer carries its cids). */
  async one(v: TransferView | Transfer): Promise<TransferReadouts> {
    const view = 'transfer' in v ? Promise.resolve(v) : this.d.transfers.view(v);
    return this.many(
      ['transfer' in v ? v.transfer : v],
      view.then((one) => [one]),
    );
  }

  /** The Transfers an actor sees (theirs, or a guest's own), the whole list or one page, with all they are shown with. */
  async pageFor(actor: Actor, page: Page | null): Promise<TransferReadouts> {
    return this.many(await this.d.transfers.pageFor(actor, page));
  }

  /** Every Transfer (the admins' list), the whole list or one page, with all they are shown with. */
  async pageAll(page: Page | null): Promise<TransferReadouts> {
    return this.many(await this.d.transfers.pageAll(page));
  }

  /** A list of Transfers, `views` their files and recipients when already under way (pages read them in batches). */
  async many(transfers: Transfer[], views = this.d.transfers.views(transfers)): Promise<TransferReadouts> {
    const byTransfer = Promise.all([
      this.d.sharing.views(transfers),
      this.d.virusScans.findMany(transfers.map((t) => t.id)),
    ]);
    // Handled below; without this, a failure of these reads while `views` fails too would be an unhandled rejection.
    byTransfer.catch(() => {});
    const shown = await views;
    const ids = shown.flatMap((v) => v.recipients.map((r) => r.id));
    const [[sharing, scans], status] = await Promise.all([byTransfer, this.d.recipients.deliveryStatus(ids)]);
    return {
      transfers: shown.map((view) => ({
        view: {
          ...view,
          recipients: view.recipients.map((r) => ({ ...r, errors: status.errors.get(r.id) ?? [] })),
        },
        extensionsLeft: this.d.transfers.extensionsLeft(view.transfer),
        sharing: sharing.get(view.transfer.id),
        scan: scans.get(view.transfer.id),
      })),
      delivery: status.delivery,
      scanning: this.d.virusScans.enabled(),
    };
  }
}
