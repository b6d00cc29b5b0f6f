import { Api, ApiError, NetworkError, isTransient } from '../lib/api';
import type { TransferJson } from '../../src/http/presenters/wire';
import { chunkIndex } from '../../src/shared/chunks';
import { acknowledge, allSent, chunksToSend, sentBytes } from '../../src/shared/resume';
import { Backoff, DEFAULT_RETRY } from '../../src/shared/retry';
import type { ResumeFile, ResumeRecord, ResumeStore } from './resume-store';
import { SpeedMeter } from './timing';

/** What the engine reads from a file: a browser File, or a Blob with the same facts in tests. */
export interface Source {
  name: string;
  size: number;
  lastModified: number;
  type: string;
  slice(start?: number, end?: number): Blob;
}

export interface UploadOptions {
  chunkSize: number;
  /** Chunk PUTs in flight at once (over all files). */
  concurrency?: number;
  /** Send the file uid as `key` (config chunk_upload_security = "key"): survives the end of a session. */
  useKey?: boolean;
  store?: ResumeStore;
  onChange?: (p: UploadProgress) => void;
  now?: () => number;
  backoff?: Backoff;
  /**
   * Consecutive error answers tolerated before the upload is reported failed (default: the shared policy's
   * retries, src/shared/retry.ts). Network errors never count.
   */
  maxServerErrors?: number;
  /** Progress reports while bytes move at most this often (ms); a change of phase is reported at once. */
  progressEveryMs?: number;
  /**
   * Whether the device says it is online (the page's `navigator.onLine`); while it says offline, bytes still
   * leaving from requests started before are no sign that the link is back.
   */
  online?: () => boolean;
  /** A chunk PUT with neither progress nor an answer for this long is abandoned and retried. */
  chunkTimeoutMs?: number;
  /**
   * End-to-end encryption: seals chunk `index` of a file (IV ‖ ciphertext ‖ tag, 32 octets more). The URL
   * offset and X-Service-Chunk-Size stay the plaintext's, as FileSender's format has them.
   */
  seal?: (file: ResumeFile, index: number, plain: Blob) => Promise<Uint8Array>;
}

/** Measuring time (ms) before a time left is given. */
const ETA_AFTER_MS = 6_000;
/** Bytes leaving this long after a wait began say the link is back (see linkBack). */
const LINK_BACK_AFTER_MS = 1_000;

export type Phase = 'uploading' | 'paused' | 'waiting' | 'finishing' | 'done' | 'failed';

export interface FileProgress {
  fileId: number;
  name: string;
  size: number;
  sent: number;
  complete: boolean;
}

export interface UploadProgress {
  phase: Phase;
  transferId: number;
  total: number;
  sent: number;
  /** Bytes per second over the last seconds, counted as they leave; 0 while still measuring. */
  speed: number;
  /** Seconds left at the current speed; null until the speed has been measured long enough to mean it. */
  eta: number | null;
  files: FileProgress[];
  /** When waiting: the time (ms, same clock as `now`) of the next attempt. */
  retryAt: number | null;
  error: Error | null;
  /** Bytes put on the wire by chunk PUTs, including ones sent again after a failure. */
  bytesSent: number;
}

/**
 * What the page holds of a running upload: the engine itself (`Upload`, under Node and inside the upload
 * worker) or the page's handle on the engine running in the worker (web/upload/worker-upload.ts).
 */
export interface UploadHandle {
  readonly record: ResumeRecord;
  readonly transferId: number;
  /** The Transfer as PUT complete returned it, once done. */
  readonly result: TransferJson | null;
  run(): Promise<TransferJson | null>;
  pause(): void;
  resume(): void;
  wake(): void;
  cancel(): Promise<void>;
  progress(): UploadProgress;
}

/** The chunk-upload key argument (the File's uid), unless the server runs chunk_upload_security = "auth". */
export function chunkKeyQuery(f: { uid: string }, useKey: boolean | undefined): Record<string, string> {
  return useKey === false ? {} : { key: f.uid };
}

interface Chunk {
  file: ResumeFile;
  offset: number;
  length: number;
}

/**
 * The upload engine (spec: Upload procedure): chunk PUTs, `concurrency` in flight over all files, each file
 * completed as soon as its last chunk is acknowledged, then the Transfer. Transient failures (no answer, 5xx,
 * 408, 429) put the chunk back and wait as every client does (src/shared/retry.ts: exponential backoff with
 * jitter, never before the server's Retry-After); `wake()` (the browser's `online` event) ends the wait at once. Every acknowledged chunk is recorded in the ResumeStore, so after a reload only what
 * the server has not acknowledged is sent again.
 */
export class Upload implements UploadHandle {
  private readonly queue: Chunk[] = [];
  private readonly inflight = new Set<AbortController>();
  private phase: Phase = 'paused';
  private error: Error | null = null;
  private serverErrors = 0;
  private bytesSent = 0;
  /** Bytes of chunks in flight that have left already, per file (not yet acknowledged). */
  private readonly leaving = new Map<number, number>();
  private running: Promise<TransferJson | null> | null = null;
  private readonly sleepers = new Set<() => void>();
  private retryAt: number | null = null;
  private lastEmit = 0;
  private lastKey = '';
  private emitTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the current wait began (ms, `now`'s clock). */
  private waitingSince = 0;
  private readonly speed: SpeedMeter;
  private readonly now: () => number;
  private readonly backoff: Backoff;
  /** The Transfer as PUT complete returned it, once done. */
  result: TransferJson | null = null;

  /** Use createUpload / resumeUpload (start.ts), which build the record from the server's answers. */
  constructor(
    private readonly api: Api,
    readonly record: ResumeRecord,
    private readonly sources: Map<number, Source>,
    private readonly opts: UploadOptions,
  ) {
    this.now = opts.now ?? (() => Date.now());
    this.backoff = opts.backoff ?? new Backoff();
    this.speed = new SpeedMeter(this.now);
  }

  get transferId(): number {
    return this.record.transferId;
  }

  /** Runs until the Transfer is complete (resolves with it), failed (rejects), or cancelled (resolves null). */
  run(): Promise<TransferJson | null> {
    if (!this.running) {
      this.phase = 'uploading';
      this.fillQueue();
      this.running = this.loop().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  pause(): void {
    if (this.phase === 'done' || this.phase === 'failed') return;
    this.phase = 'paused';
    for (const c of this.inflight) c.abort();
    this.wake();
    this.emit();
  }

  resume(): void {
    if (this.phase !== 'paused' && this.phase !== 'failed') return;
    this.error = null;
    this.serverErrors = 0;
    this.retryAt = null;
    this.phase = 'uploading';
    this.wake();
    this.emit();
    void this.run().catch(() => undefined);
  }

  /** Ends a backoff wait now (network back), and says so at once. */
  wake(): void {
    this.retryAt = null;
    for (const w of [...this.sleepers]) w();
    this.sleepers.clear();
    if (this.phase === 'waiting') {
      this.backToUploading();
      this.emit();
    }
  }

  /** Stops and deletes the Transfer on the server (allowed with the chunk key while it is not available). */
  async cancel(): Promise<void> {
    this.pause();
    const f = this.record.files[0];
    await this.api.request('DELETE', `/transfer/${this.transferId}`, { query: this.keyQuery(f) });
    this.opts.store?.remove(this.transferId);
  }

  progress(): UploadProgress {
    const files = this.record.files.map((f) => ({
      fileId: f.fileId,
      name: f.name,
      size: f.size,
      sent: f.complete ? f.size : Math.min(f.size, sentBytes(f) + (this.leaving.get(f.fileId) ?? 0)),
      complete: f.complete,
    }));
    const total = files.reduce((n, f) => n + f.size, 0);
    const sent = files.reduce((n, f) => n + f.sent, 0);
    const speed = this.speed.rate();
    // The time left only once the rate has been measured for a while: a guess from the first seconds is wrong by
    // minutes on a slow link.
    // Nothing left to send: no time left either (it showed "5 s left" at 100 %); the phase says what follows.
    const steady = speed > 0 && this.speed.measuredMs() >= ETA_AFTER_MS && sent < total;
    return {
      phase: this.phase,
      transferId: this.transferId,
      total,
      sent,
      speed,
      eta: steady ? Math.ceil((total - sent) / speed) : null,
      files,
      retryAt: this.retryAt,
      error: this.error,
      bytesSent: this.bytesSent,
    };
  }

  /**
   * Reports progress: a change of phase or wait at once, bytes moving at most every `progressEveryMs` (the
   * progress events of each request come many times a second, and each report builds the whole picture).
   */
  private emit(): void {
    if (!this.opts.onChange) return;
    const every = this.opts.progressEveryMs ?? 0;
    const key = `${this.phase} ${this.retryAt}`;
    const since = Date.now() - this.lastEmit;
    if (every > 0 && key === this.lastKey && since < every) {
      this.emitTimer ??= setTimeout(() => this.emitNow(), every - since);
      return;
    }
    this.emitNow();
  }

  private emitNow(): void {
    clearTimeout(this.emitTimer);
    this.emitTimer = undefined;
    this.lastKey = `${this.phase} ${this.retryAt}`;
    this.lastEmit = Date.now();
    this.opts.onChange?.(this.progress());
  }

  private keyQuery(f: ResumeFile): Record<string, string> {
    return chunkKeyQuery(f, this.opts.useKey);
  }

  private fillQueue(): void {
    this.queue.length = 0;
    for (const f of this.record.files) {
      for (const c of chunksToSend(f, this.record.chunkSize)) this.queue.push({ file: f, ...c });
    }
  }

  private async loop(): Promise<TransferJson | null> {
    this.leaving.clear();
    this.speed.reset(this.progress().sent);
    this.emit();
    const workers = Math.max(1, this.opts.concurrency ?? 4);
    // Loops again when resume() came while the last workers of a pause were still unwinding.
    do await Promise.all(Array.from({ length: workers }, () => this.worker()));
    while (this.phase === 'uploading' && this.queue.length > 0);
    if (this.phase === 'paused') return null;
    if (this.phase === 'failed') throw this.error;
    // Files with no chunk to send (empty, or fully received before a reload) still need completing.
    for (const f of this.record.files) if (!f.complete && allSent(f)) await this.completeFile(f);
    if (this.current() !== 'uploading') return this.settled();
    this.phase = 'finishing';
    this.emit();
    // With the chunk key, so a session that ended during a long upload does not stop the last step.
    let t = await this.retrying(() =>
      this.api.request<TransferJson>('PUT', `/transfer/${this.transferId}`, {
        json: { complete: true },
        query: this.keyQuery(this.record.files[0]),
      }),
    );
    if (!t) return this.settled();
    t = await this.untilAvailable(t);
    this.opts.store?.remove(this.transferId);
    this.result = t;
    this.phase = 'done';
    this.emit();
    return t;
  }

  /**
   * A very large file on S3 is assembled in the background after its completion was asked for: the transfer
   * becomes available, and its mail goes out, once that is done (docs/configuration.md, the filesystem or S3).
   * The answer says so (`completing`); the page stays on "finishing" meanwhile, asking every 2 s for at most an
   * hour; should the transfer not be readable here (a guest's), the answer to the completion is shown as it was.
   */
  private async untilAvailable(t: TransferJson): Promise<TransferJson> {
    let now = t;
    for (
      let i = 0;
      i < 1800 && now.completing === true && now.status !== 'available' && this.phase === 'finishing';
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      try {
        now = await this.api.request<TransferJson>('GET', `/transfer/${this.transferId}`, {});
      } catch {
        return now;
      }
    }
    return now;
  }

  /** The phase as of now (a method, so TypeScript does not narrow it across awaits). */
  private current(): Phase {
    return this.phase;
  }

  private settled(): Promise<null> {
    return this.phase === 'failed' ? Promise.reject(this.error) : Promise.resolve(null);
  }

  private async worker(): Promise<void> {
    for (;;) {
      await this.waitForRetry();
      if (this.phase !== 'uploading') return;
      const chunk = this.queue.shift();
      if (!chunk) return;
      const ok = await this.sendChunk(chunk);
      if (!ok) {
        this.queue.unshift(chunk);
        continue;
      }
      this.opts.store?.save(this.record);
      this.emit();
      if (allSent(chunk.file)) await this.completeFile(chunk.file);
    }
  }

  /** One chunk PUT; true when acknowledged. Failures set the phase (waiting or failed). */
  private async sendChunk({ file, offset, length }: Chunk): Promise<boolean> {
    const source = this.sources.get(file.fileId);
    if (!source) return this.fail(new Error(`missing source for ${file.name}`));
    const ctl = new AbortController();
    this.inflight.add(ctl);
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // A chunk that makes no progress for this long is abandoned and sent again; one that is still moving is not,
    // however slow the link. Progress only notes the time; the one timer looks at it when it fires (setting a
    // timer again at every progress event cost the engine's thread).
    const limit = this.opts.chunkTimeoutMs ?? 180_000;
    let moved = Date.now();
    const check = () => {
      const idle = Date.now() - moved;
      if (idle < limit) {
        timer = setTimeout(check, limit - idle);
        return;
      }
      timedOut = true;
      ctl.abort();
    };
    const arm = () => {
      moved = Date.now();
    };
    timer = setTimeout(check, limit);
    // Bytes of this chunk that have left: they count towards the speed at once, and towards the bar until the
    // chunk is acknowledged (then its range does) or fails (then they are sent again).
    let left = 0;
    const leave = (loaded: number) => {
      const more = Math.min(length, loaded) - left;
      if (more <= 0) return;
      left += more;
      arm();
      this.leaving.set(file.fileId, (this.leaving.get(file.fileId) ?? 0) + more);
      this.speed.add(more);
      // Bytes moving again after the link failed: the link is back, so the wait ends now rather than when the
      // countdown or a chunk's answer says so ("Trying again in 22 s" stayed while the bar climbed). A server
      // that asked for time (Retry-After) is still given it.
      if (this.linkBack()) this.wake();
      this.emit();
    };
    try {
      const plain = source.slice(offset, offset + length);
      const body = this.opts.seal
        ? await this.opts.seal(file, chunkIndex(offset, this.record.chunkSize), plain)
        : plain;
      if (ctl.signal.aborted) return false;
      this.bytesSent += length;
      await this.api.request('PUT', `/file/${file.fileId}/chunk/${offset}`, {
        body,
        headers: {
          'Content-Type': 'application/octet-stream',
          'X-Service-File-Size': String(file.size),
          'X-Service-Chunk-Offset': String(offset),
          'X-Service-Chunk-Size': String(length),
        },
        query: this.keyQuery(file),
        signal: ctl.signal,
        onProgress: leave,
      });
      leave(length);
      // Acknowledged: the range now counts instead of the bytes in flight (in the same turn, so the bar never dips).
      acknowledge(file, offset, length);
      this.succeeded();
      return true;
    } catch (e) {
      if (ctl.signal.aborted && !timedOut) return false; // paused or failed elsewhere: not this chunk's fault
      this.failed(timedOut ? new NetworkError('no answer to a chunk') : e);
      return false;
    } finally {
      this.leaving.set(file.fileId, Math.max(0, (this.leaving.get(file.fileId) ?? 0) - left));
      clearTimeout(timer);
      this.inflight.delete(ctl);
    }
  }

  private async completeFile(f: ResumeFile): Promise<void> {
    if (f.complete) return;
    const r = await this.retrying(() =>
      this.api.request('PUT', `/file/${f.fileId}`, { json: { complete: true }, query: this.keyQuery(f) }),
    );
    if (r === null) return;
    f.complete = true;
    this.opts.store?.save(this.record);
    this.emit();
  }

  /** Runs a small request until it succeeds; null when the upload was paused or failed meanwhile. */
  private async retrying<T>(fn: () => Promise<T>): Promise<T | null> {
    for (;;) {
      await this.waitForRetry();
      if (this.phase !== 'uploading' && this.phase !== 'finishing') return null;
      try {
        const out = await fn();
        this.succeeded();
        return out;
      } catch (e) {
        this.failed(e);
      }
    }
  }

  private succeeded(): void {
    this.serverErrors = 0;
    this.backoff.reset();
    if (this.phase === 'waiting') {
      this.backToUploading();
      this.emit();
    }
  }

  /**
   * The end of a wait (network back, server up again): the rate and time left are measured anew. Measured
   * across the outage they showed the stall for a whole window ("3 min left" when 12 s remained).
   */
  private backToUploading(): void {
    this.phase = 'uploading';
    this.speed.reset(this.progress().sent);
  }

  private failed(e: unknown): void {
    const err = e instanceof Error ? e : new Error(String(e));
    if (!isTransient(err)) {
      this.fail(err);
      return;
    }
    if (err instanceof ApiError && ++this.serverErrors > (this.opts.maxServerErrors ?? DEFAULT_RETRY.retries)) {
      this.fail(err);
      return;
    }
    if (this.phase === 'paused' || this.phase === 'failed') return;
    this.error = err;
    // Several chunks fail together when the link drops; they share one wait instead of stretching it. A server
    // that says when to come back (Retry-After) is not asked before.
    const retryAfterS = err instanceof ApiError ? err.retryAfterS : null;
    if (this.retryAt === null || this.retryAt <= this.now()) this.retryAt = this.now() + this.backoff.next(retryAfterS);
    else if (retryAfterS !== null) this.retryAt = Math.max(this.retryAt, this.now() + retryAfterS * 1000);
    if (this.phase !== 'waiting') this.waitingSince = this.now();
    this.phase = 'waiting';
    this.emit();
  }

  /**
   * A wait after a lost link is over once bytes leave again a while after it began (the first moment's bytes
   * only fill socket buffers), unless the device says it is offline or the server asked for time.
   */
  private linkBack(): boolean {
    return (
      this.phase === 'waiting' &&
      this.error instanceof NetworkError &&
      this.opts.online?.() !== false &&
      this.now() - this.waitingSince >= LINK_BACK_AFTER_MS
    );
  }

  private fail(err: Error): false {
    if (this.phase !== 'failed') {
      this.phase = 'failed';
      this.error = err;
      for (const c of this.inflight) c.abort();
      this.wake();
      this.emit();
    }
    return false;
  }

  private async waitForRetry(): Promise<void> {
    while (this.phase === 'waiting' && this.retryAt !== null && this.retryAt > this.now()) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.sleepers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, (this.retryAt ?? 0) - this.now()));
        this.sleepers.add(done);
      });
    }
    if (this.phase === 'waiting') this.backToUploading();
  }
}
