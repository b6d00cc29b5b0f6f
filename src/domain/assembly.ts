import type { Actor } from './model';
import type { Clock, Repositories } from './ports';
import { JobRunner } from './job-runner';

/** A claim on a file's assembly lasts this long, and is renewed while the work goes on. */
const CLAIM_S = 30;
const RENEW_MS = 10_000;

export interface AssemblyWork {
  /** Assembles a File whose completion was left to the background, and records it complete. */
  finishFile(actor: Actor, fileId: number): Promise<void>;
  /** Completes a Transfer whose completion was asked for while files were being assembled; false when not yet. */
  completeTransfer(actor: Actor, transferId: number): Promise<boolean>;
}

/**
 * Completions that outlive their request: files the store takes long to assemble, and the Transfers waiting
 * for them. Each file is claimed in the database for CLAIM_S seconds and the claim renewed while its node works,
 * so a node that dies leaves it to the next node that looks (every node looks every few seconds: src/compose/jobs.ts).
 * A Transfer becomes available, and its mail goes out, once its last file is assembled (docs/architecture.md,
 * "Files larger than one multipart upload").
 */
export class AssemblyJobs {
  private readonly runner: JobRunner;

  constructor(
    private readonly repos: Repositories,
    private readonly work: AssemblyWork,
    private readonly clock: Clock,
    private readonly onError: (e: Error) => void,
    /** Says what this node claims, finishes and takes over (src/compose/node.ts adds the node's name). */
    private readonly note: (msg: string) => void = () => {},
  ) {
    this.runner = new JobRunner(() => this.drain(), onError);
  }

  /** Works through the waiting files and transfers now (a second call while running makes it look again when done). */
  kick(): Promise<void> {
    return this.runner.kick();
  }

  /** Takes no more work and waits for the file under way (its claim lapses if the process dies instead). */
  stop(): Promise<void> {
    return this.runner.stop();
  }

  private async drain(): Promise<void> {
    while (!this.runner.stopped) {
      const now = this.clock();
      const claimed = await this.repos.transfers.claimAssembly(now, now + CLAIM_S);
      if (!claimed) break;
      const fileId = claimed.file.id;
      const what = `the assembly of file ${fileId} of transfer ${claimed.file.transferId}`;
      this.note(`${claimed.lapsed ? 'took over (its claim lapsed)' : 'claimed'} ${what}`);
      const renew = setInterval(() => {
        const t = this.clock();
        this.repos.transfers.renewAssembly(fileId, t + CLAIM_S).catch((e: Error) => this.onError(e));
      }, RENEW_MS);
      try {
        await this.work.finishFile(JSON.parse(claimed.by) as Actor, fileId);
        this.note(`finished ${what}`);
      } catch (e) {
        this.onError(e as Error);
        await this.repos.transfers.releaseAssembly(fileId).catch(() => {});
        // The next look (a few seconds on) tries again; a failing store is not retried in a tight loop.
        break;
      } finally {
        clearInterval(renew);
      }
    }
    if (this.runner.stopped) return;
    for (const due of await this.repos.transfers.completionsDue()) {
      await this.work
        .completeTransfer(JSON.parse(due.by) as Actor, due.transferId)
        .catch((e: Error) => this.onError(e));
    }
  }
}
