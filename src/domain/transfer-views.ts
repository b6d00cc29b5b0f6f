import type { Actor, MailDelivery, Transfer } from './model';
import type { Page } from './paging';
import type { SharingView, TransferExtras, TransferExtrasRepository, TransferOwner, VirusScanRecord } from './ports';
import { ownerOf, type TransfersService, type TransferView, viewsOf } from './transfers';
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
  /** Their sharing controls and download counts, scans, and their recipients' bounces and mail states. */
  extras: TransferExtrasRepository;
  virusScans: VirusScans;
}

/**
 * The read model every answer that shows Transfers uses (GET /transfer, its lists and pages, and the answers of
 * POST and PUT): a page is one statement with its own select in it (docs/architecture.md, "Lists and pages"), a
 * whole list its select and one more per 1,000 Transfers: their files, their recipients, their sharing controls
 * and download counts, their virus scans, their recipients' bounces and mail states.
 */
export class TransferViews {
  constructor(private readonly d: TransferViewDeps) {}

  /** One Transfer, or the view a change just built (the create answer carries its cids). */
  async one(v: TransferView | Transfer): Promise<TransferReadouts> {
    return 'transfer' in v ? this.many([v.transfer], Promise.resolve([v])) : this.many([v]);
  }

  /** The Transfers an actor sees (theirs, or a guest's own), the whole list or one page, with all they are shown with. */
  async pageFor(actor: Actor, page: Page | null): Promise<TransferReadouts> {
    return page ? this.page(ownerOf(actor), page) : this.many(await this.d.transfers.pageFor(actor, null));
  }

  /** Every Transfer (the admins' list), the whole list or one page, with all they are shown with. */
  async pageAll(page: Page | null): Promise<TransferReadouts> {
    return page ? this.page('all', page) : this.many(await this.d.transfers.pageAll(null));
  }

  /** One page, read with all it is shown with in one statement (TransferExtrasRepository.pageWithRows). */
  private async page(owner: TransferOwner, page: Page): Promise<TransferReadouts> {
    const read = await this.d.extras.pageWithRows(owner, page);
    return this.readouts(viewsOf(read.transfers, read.files, read.recipients), read);
  }

  /**
   * A list of Transfers, `views` their files and recipients when already under way (one Transfer's answer); else
   * those are read in the same statement as the rest (TransferExtrasRepository.withRowsOf).
   */
  async many(transfers: Transfer[], views?: Promise<TransferView[]>): Promise<TransferReadouts> {
    const ids = transfers.map((t) => t.id);
    const [shown, extras] = views
      ? await Promise.all([views, this.d.extras.of(ids)])
      : await this.d.extras.withRowsOf(ids).then((r) => [viewsOf(transfers, r.files, r.recipients), r] as const);
    return this.readouts(shown, extras);
  }

  /** The views with what the extras add to them. */
  private readouts(shown: TransferView[], extras: TransferExtras): TransferReadouts {
    return {
      transfers: shown.map((view) => ({
        view: {
          ...view,
          recipients: view.recipients.map((r) => ({ ...r, errors: extras.errors.get(r.id) ?? [] })),
        },
        extensionsLeft: this.d.transfers.extensionsLeft(view.transfer),
        sharing: extras.sharing.get(view.transfer.id),
        scan: extras.scans.get(view.transfer.id),
      })),
      delivery: extras.delivery,
      scanning: this.d.virusScans.enabled(),
    };
  }
}
