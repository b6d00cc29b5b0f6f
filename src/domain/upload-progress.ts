/** Progress of legacy whole-file uploads, by the client's random tracking key (spec: GET /legacyuploadprogress). */
export interface Progress {
  error: number;
  done: boolean;
  start_time: number;
  bytes_processed: number;
}

const MAX_ENTRIES = 10_000;
const KEEP_S = 3600;

export class UploadProgress {
  private readonly entries = new Map<string, Progress & { touched: number }>();

  start(key: string, now: number): Progress {
    if (this.entries.size >= MAX_ENTRIES) this.prune(now, true);
    const p = { error: 0, done: false, start_time: now, bytes_processed: 0, touched: now };
    this.entries.set(key, p);
    return p;
  }

  get(key: string, now: number): Progress {
    this.prune(now, false);
    const p = this.entries.get(key);
    return p
      ? { error: p.error, done: p.done, start_time: p.start_time, bytes_processed: p.bytes_processed }
      : { error: 0, done: false, start_time: 0, bytes_processed: 0 };
  }

  private prune(now: number, force: boolean): void {
    for (const [k, v] of this.entries) {
      if (v.touched < now - KEEP_S || (force && this.entries.size >= MAX_ENTRIES)) this.entries.delete(k);
    }
  }
}
