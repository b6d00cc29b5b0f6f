import { useEffect, useRef, useState } from 'preact/hooks';
import type { AppContext } from '../lib/context';
import { StorageResumeStore } from './resume-store';
import type { UploadHandle, UploadOptions, UploadProgress } from './uploader';
import { inUploadWorker, uploadWorkerUrl } from './worker-upload';
import { ScreenWakeLock } from './wake-lock';

export const CONCURRENCY_KEY = 'ferry.upload.concurrency';

/** Chunk PUTs in flight: the user's choice on the profile page, else 4. */
export function concurrency(): number {
  const n = Number(localStorage.getItem(CONCURRENCY_KEY));
  return Number.isInteger(n) && n >= 1 && n <= 16 ? n : 4;
}

export function resumeOwner(app: AppContext): string {
  return app.guest ? `guest:${app.guest.vid}` : `user:${app.user?.id ?? ''}`;
}

export const resumeStore = () => new StorageResumeStore(localStorage);

/** The page's upload engine runs in the upload worker, off the page's thread (docs/performance.md). */
export const pageEngine = (base: string) => inUploadWorker(uploadWorkerUrl(base));

/** Phases in which leaving the page stops bytes on their way. */
const ACTIVE = new Set(['uploading', 'waiting', 'finishing']);

/**
 * Runs one upload for a view: progress as state (at most once per animation frame, and the worker sends it a few
 * times a second), the screen wake lock
 * while it runs, the browser's `online` event ending a backoff wait at once, and the browser's own "leave
 * this page?" question while bytes are on their way (the upload can be resumed, but only by choosing the
 * files again).
 */
export function useUploadRunner(app: AppContext) {
  const [upload, setUpload] = useState<UploadHandle | null>(null);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const latest = useRef<UploadProgress | null>(null);
  const frame = useRef<number | null>(null);
  const wakeLock = useRef(new ScreenWakeLock());

  const options = (): Omit<UploadOptions, 'chunkSize'> => ({
    concurrency: concurrency(),
    useKey: app.info.chunk_upload_security !== 'auth',
    store: resumeStore(),
    onChange: (p) => {
      latest.current = p;
      if (frame.current === null) {
        frame.current = requestAnimationFrame(() => {
          frame.current = null;
          setProgress(latest.current);
        });
      }
      if (p.phase === 'done' || p.phase === 'failed' || p.phase === 'paused') void wakeLock.current.release();
      else void wakeLock.current.hold();
    },
  });

  useEffect(() => {
    if (!upload) return;
    const online = () => upload.wake();
    // Registered here, before the upload runs, and decided by the last reported phase: a listener added once
    // the "uploading" render has happened would leave a gap in which a reload goes through unasked.
    const ask = (e: BeforeUnloadEvent) => {
      if (!latest.current || !ACTIVE.has(latest.current.phase)) return;
      e.preventDefault();
      e.returnValue = ''; // older browsers need it set to show the question
    };
    window.addEventListener('online', online);
    window.addEventListener('beforeunload', ask);
    void upload.run().catch(() => undefined); // failures show through progress (phase "failed")
    return () => {
      window.removeEventListener('online', online);
      window.removeEventListener('beforeunload', ask);
    };
  }, [upload]);

  return {
    upload,
    progress,
    options,
    start: (u: UploadHandle) => {
      setProgress(u.progress());
      setUpload(u);
    },
    clear: () => {
      setUpload(null);
      setProgress(null);
      void wakeLock.current.release();
    },
  };
}
