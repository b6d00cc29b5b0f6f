import type { TransferJson } from '../../src/http/presenters/wire';
import { sentBytes } from '../../src/shared/resume';
import type { ResumeRecord, ResumeStore } from './resume-store';
import type { EngineStart } from './start';
import type { UploadHandle, UploadProgress } from './uploader';
import { type FromWorker, fromWire, type ToWorker, type WireProgress } from './worker-protocol';

/** The upload worker's script (web/upload/upload-worker.ts), served with the page's other assets. */
export function uploadWorkerUrl(base: string): string {
  return `${base}/assets/upload-worker.js`;
}

/**
 * The page's handle on an upload whose engine runs in the upload worker: the same controls as the engine
 * (run, pause, resume, wake, cancel), the latest progress the worker sent, and the resume record kept in the
 * page's storage as the worker sends it. The page's thread only draws.
 */
export class WorkerUpload implements UploadHandle {
  result: TransferJson | null = null;
  record: ResumeRecord;
  private latest: UploadProgress;
  private readonly worker: Worker;
  private started = false;
  private running: { resolve(t: TransferJson | null): void; reject(e: Error): void } | null = null;
  private runPromise: Promise<TransferJson | null> | null = null;
  private cancelling: { resolve(): void; reject(e: Error): void } | null = null;
  private readonly onlineChange = () => this.send({ type: 'online', online: navigator.onLine !== false });

  constructor(
    private readonly start: EngineStart,
    scriptUrl: string,
  ) {
    this.record = start.record;
    this.latest = initialProgress(start.record);
    this.worker = new Worker(scriptUrl);
    this.worker.onmessage = (e: MessageEvent<FromWorker>) => this.received(e.data);
    this.worker.onerror = () => this.stopped(new Error('the upload worker stopped'));
  }

  get transferId(): number {
    return this.record.transferId;
  }

  private get store(): ResumeStore | undefined {
    return this.start.opts.store;
  }

  progress(): UploadProgress {
    return this.latest;
  }

  run(): Promise<TransferJson | null> {
    if (!this.started) {
      this.started = true;
      const files: [number, Blob][] = [];
      for (const [fileId, s] of this.start.sources) files.push([fileId, s.slice(0, s.size)]);
      addEventListener('online', this.onlineChange);
      addEventListener('offline', this.onlineChange);
      this.send({
        type: 'start',
        api: this.start.api.portable(),
        record: this.record,
        files,
        concurrency: this.start.opts.concurrency ?? 4,
        useKey: this.start.opts.useKey !== false,
        online: navigator.onLine !== false,
        key: this.start.key,
      });
    }
    return this.runOnce('run');
  }

  private runOnce(type: 'run' | 'resume'): Promise<TransferJson | null> {
    if (this.runPromise) {
      if (type === 'resume') this.send({ type });
      return this.runPromise;
    }
    this.runPromise = new Promise((resolve, reject) => {
      this.running = { resolve, reject };
    });
    this.send({ type });
    return this.runPromise;
  }

  pause(): void {
    this.send({ type: 'pause' });
  }

  resume(): void {
    void this.runOnce('resume').catch(() => undefined);
  }

  wake(): void {
    this.send({ type: 'wake' });
  }

  cancel(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.cancelling = { resolve, reject };
      this.send({ type: 'cancel' });
    }).finally(() => this.end());
  }

  private send(m: ToWorker): void {
    this.worker.postMessage(m);
  }

  private received(m: FromWorker): void {
    switch (m.type) {
      case 'progress':
        this.latest = fromWireProgress(m.progress);
        // "done" is told with the Transfer in hand: the worker posts it just before "settled", and a page drawn
        // in between would show the summary without the recipients' mail states, never to be drawn again.
        if (this.latest.phase !== 'done' || this.result) this.start.opts.onChange?.(this.latest);
        return;
      case 'record':
        this.record = { ...this.record, files: m.record.files };
        this.store?.save(m.record);
        return;
      case 'forget':
        this.store?.remove(m.transferId);
        return;
      case 'settled': {
        const r = this.running;
        this.running = null;
        this.runPromise = null;
        if (m.transfer) {
          this.result = m.transfer;
          this.latest = { ...this.latest, phase: 'done' };
          this.start.opts.onChange?.(this.latest);
          this.end();
        }
        if (m.error) r?.reject(fromWire(m.error));
        else r?.resolve(m.transfer);
        return;
      }
      case 'cancelled': {
        const c = this.cancelling;
        this.cancelling = null;
        if (m.error) c?.reject(fromWire(m.error));
        else c?.resolve();
        return;
      }
    }
  }

  /** The worker itself failed (its script did not load, or it crashed): the upload has failed. */
  private stopped(err: Error): void {
    this.latest = { ...this.latest, phase: 'failed', error: err };
    this.start.opts.onChange?.(this.latest);
    this.running?.reject(err);
    this.running = null;
    this.runPromise = null;
    this.cancelling?.reject(err);
    this.cancelling = null;
  }

  private end(): void {
    removeEventListener('online', this.onlineChange);
    removeEventListener('offline', this.onlineChange);
    this.worker.terminate();
  }
}

/** The page's engine: the upload worker. */
export function inUploadWorker(scriptUrl: string) {
  return (start: EngineStart) => new WorkerUpload(start, scriptUrl);
}

function fromWireProgress(p: WireProgress): UploadProgress {
  return { ...p, error: p.error ? fromWire(p.error) : null };
}

/** What is known before the worker reports: the acknowledged ranges of the record. */
function initialProgress(record: ResumeRecord): UploadProgress {
  const files = record.files.map((f) => ({
    fileId: f.fileId,
    name: f.name,
    size: f.size,
    sent: f.complete ? f.size : Math.min(f.size, sentBytes(f)),
    complete: f.complete,
  }));
  return {
    phase: 'paused',
    transferId: record.transferId,
    total: files.reduce((n, f) => n + f.size, 0),
    sent: files.reduce((n, f) => n + f.sent, 0),
    speed: 0,
    eta: null,
    files,
    retryAt: null,
    error: null,
    bytesSent: 0,
  };
}
