import { Api } from '../lib/api';
import type { ResumeRecord, ResumeStore } from './resume-store';
import { inThisThread } from './start';
import type { Source, Upload, UploadProgress } from './uploader';
import { type FromWorker, type ToWorker, toWire } from './worker-protocol';

/**
 * The upload worker (its own bundle, /assets/upload-worker.js): the upload engine off the page's thread.
 * Slicing, sealing (end-to-end encryption), the chunk requests, retries and the resume record all happen
 * here; the page gets progress a few times a second and the record to keep once a second
 * (docs/performance.md, Browser uploads, says why those rates).
 */

/**
 * Progress reaches the page at most this often, except a change of phase, which goes at once. Each report is a
 * frame the page draws, rasterises and composites, a cost per second rather than per byte: at 200 ms it was
 * most of what the page's browser CPU had over the bare protocol's (docs/performance.md, Browser uploads).
 */
const PROGRESS_EVERY_MS = 500;
/** The resume record reaches the page's storage at most this often (and at once when a file completes). */
const RECORD_EVERY_MS = 1_000;

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
  postMessage(m: FromWorker): void;
};
const post = (m: FromWorker) => scope.postMessage(m);

let upload: Upload | null = null;
let online = true;

/** Records posted to the page, at most once a second: a write after each chunk cost the page's thread. */
class PostedRecords implements ResumeStore {
  private pending: ResumeRecord | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private completed = 0;
  list(): ResumeRecord[] {
    return [];
  }
  save(record: ResumeRecord): void {
    this.pending = record;
    const completed = record.files.filter((f) => f.complete).length;
    if (completed !== this.completed) {
      this.completed = completed;
      this.flush();
    } else if (this.timer === undefined) this.timer = setTimeout(() => this.flush(), RECORD_EVERY_MS);
  }
  remove(transferId: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = null;
    post({ type: 'forget', transferId });
  }
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending) post({ type: 'record', record: this.pending });
    this.pending = null;
  }
}

/** Progress posted at most every PROGRESS_EVERY_MS, at once when the phase or the wait changes. */
class PostedProgress {
  private last = 0;
  private lastKey = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private latest: UploadProgress | null = null;
  constructor(private readonly records: PostedRecords) {}
  change(p: UploadProgress): void {
    this.latest = p;
    const key = `${p.phase} ${p.retryAt}`;
    if (key !== this.lastKey) {
      this.lastKey = key;
      // What a reload would resume from goes with a change of phase (paused, waiting, done).
      this.records.flush();
      this.send();
    } else if (this.timer === undefined)
      this.timer = setTimeout(() => this.send(), Math.max(0, this.last + PROGRESS_EVERY_MS - Date.now()));
  }
  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const p = this.latest;
    if (!p) return;
    this.last = Date.now();
    post({ type: 'progress', progress: { ...p, error: p.error ? toWire(p.error) : null } });
  }
}

function run(u: Upload): void {
  u.run().then(
    (transfer) => post({ type: 'settled', transfer, error: null }),
    (e) => post({ type: 'settled', transfer: null, error: toWire(e) }),
  );
}

scope.onmessage = (e) => {
  const m = e.data;
  switch (m.type) {
    case 'start': {
      online = m.online;
      const records = new PostedRecords();
      const progress = new PostedProgress(records);
      const sources = new Map<number, Source>();
      for (const [fileId, blob] of m.files) {
        const f = m.record.files.find((x) => x.fileId === fileId);
        if (!f) continue;
        sources.set(fileId, {
          name: f.name,
          size: f.size,
          lastModified: f.lastModified,
          type: blob.type,
          slice: (start, end) => blob.slice(start, end),
        });
      }
      upload = inThisThread({
        api: new Api(m.api),
        record: m.record,
        sources,
        key: m.key,
        opts: {
          chunkSize: m.record.chunkSize,
          concurrency: m.concurrency,
          useKey: m.useKey,
          store: records,
          online: () => online,
          progressEveryMs: PROGRESS_EVERY_MS,
          onChange: (p) => progress.change(p),
        },
      });
      return;
    }
    case 'online':
      online = m.online;
      if (online) upload?.wake();
      return;
    case 'run':
      if (upload) run(upload);
      return;
    case 'pause':
      upload?.pause();
      return;
    case 'resume':
      upload?.resume();
      if (upload) run(upload);
      return;
    case 'wake':
      upload?.wake();
      return;
    case 'cancel':
      upload?.cancel().then(
        () => post({ type: 'cancelled', error: null }),
        (err) => post({ type: 'cancelled', error: toWire(err) }),
      );
      return;
  }
};
