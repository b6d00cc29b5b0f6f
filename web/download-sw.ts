import { decryptedChunks, type EncryptedFileJob } from './e2ee/decrypted-chunks';

/**
 * The download page's service worker, for browsers without the File System Access API: it turns a decrypting
 * stream into an ordinary download. The page hands it a job (the file's ciphertext URL, IV, AEAD and the
 * non-extractable key) under a random id, then opens `${scope}e2ee-download/<id>` in a hidden frame; this
 * worker answers that request with a stream that fetches, decrypts and passes on one chunk at a time, pulled
 * by the browser as it writes the download to disk. A job is used once and forgotten; nothing is stored.
 */
// The worker's own globals, typed here: the project compiles against the DOM library, which a worker's clashes with.
interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface FetchEvent extends Event {
  request: Request;
  respondWith(r: Response | Promise<Response>): void;
}
const sw = self as unknown as {
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(type: 'install' | 'activate', fn: (e: ExtendableEvent) => void): void;
  addEventListener(type: 'message', fn: (e: MessageEvent) => void): void;
  addEventListener(type: 'fetch', fn: (e: FetchEvent) => void): void;
};

interface Pending extends EncryptedFileJob {
  name: string;
  port: MessagePort;
}
const jobs = new Map<string, Pending>();

sw.addEventListener('install', () => void sw.skipWaiting());
sw.addEventListener('activate', (e) => e.waitUntil(sw.clients.claim()));

sw.addEventListener('message', (e) => {
  const d = e.data as { type?: string; id?: string; job?: Omit<Pending, 'port'> };
  const port = e.ports[0];
  if (d?.type !== 'ferry-e2ee-download' || !d.id || !/^[0-9a-f]{32}$/.test(d.id) || !d.job || !port) return;
  jobs.set(d.id, { ...d.job, port });
  port.postMessage({ type: 'ready' });
});

sw.addEventListener('fetch', (e) => {
  const m = /\/e2ee-download\/([0-9a-f]{32})$/.exec(new URL(e.request.url).pathname);
  if (!m) return;
  const job = jobs.get(m[1]);
  if (!job) return;
  jobs.delete(m[1]);
  e.respondWith(new Response(stream(job), { headers: downloadHeaders(job.name, job.size) }));
});

function stream(job: Pending): ReadableStream<Uint8Array> {
  const chunks = decryptedChunks(job);
  let written = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const r = await chunks.next();
          if (r.done) {
            controller.close();
            job.port.postMessage({ type: 'done', written });
            return;
          }
          written += r.value.length;
          controller.enqueue(r.value);
          job.port.postMessage({ type: 'progress', written });
        } catch (err) {
          job.port.postMessage({ type: 'error', reason: (err as { reason?: string }).reason ?? String(err) });
          controller.error(err);
        }
      },
      cancel() {
        void chunks.return(undefined);
        job.port.postMessage({ type: 'error', reason: 'cancelled' });
      },
    },
    { highWaterMark: 1 },
  );
}

/** An attachment under the file's name (RFC 6266: an ASCII fallback and the UTF-8 name). */
function downloadHeaders(name: string, size: number): HeadersInit {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(size),
    'Content-Disposition': `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    'X-Content-Type-Options': 'nosniff',
  };
}
