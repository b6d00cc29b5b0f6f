import type { Actor, MailDelivery, Transfer } from './model';
import type { Page } from './paging';
import type { SharingView, TransferExtrasRepository, VirusScanRecord } from './ports';
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
  /** Their sharing controls and download counts, scans, and their recipients' bounces and mail states. */
  extras: TransferExtrasRepository;
  virusScans: VirusScans;
}

/**
 * The read model every answer that shows Transfers uses (GET /transfer, its lists and pages, and the answers of
 * POST and PUT): in one round of reads beside the list's own, whatever their number (docs/architecture.md, "Lists
 * and pages"): their files, their recipients, and in one statement all the rest (their sharing controls and
 * download counts, their virus scans, their recipients' bounces and mail states).
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
    const [shown, extras] = await Promise.all([views, this.d.extras.of(transfers.map((t) => t.id))]);
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
