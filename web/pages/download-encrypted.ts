import {
  decryptChunk,
  DecryptError,
  deriveKey,
  fileCrypto,
  KEY_VERSION_AES_GCM_PBKDF2,
} from '../../src/shared-crypto/format';
import { decryptedChunks, fetchChunk, type EncryptedFileJob } from '../e2ee/decrypted-chunks';

/**
 * The download page of an end-to-end encrypted transfer (server-rendered: src/http/web/download-page.ts).
 * The password is typed here and never leaves the page: the key is derived with the transfer's salt and
 * iteration count, checked by decrypting the first chunk (an AES-GCM tag failure means a wrong password), and
 * each file is then decrypted as it is written to disk, never held whole in memory:
 * - with the File System Access API (showSaveFilePicker: Chromium-based browsers), straight into the file;
 * - otherwise through the page's service worker (/download-sw.js), which streams a decrypting download.
 */
interface SaveFilePicker {
  (o: {
    suggestedName: string;
  }): Promise<{
    createWritable(): Promise<{ write(b: Uint8Array): Promise<void>; close(): Promise<void>; abort(): Promise<void> }>;
  }>;
}

export function enhanceEncryptedDownload(base: string): void {
  const section = document.querySelector<HTMLElement>('section.download.encrypted');
  const form = section?.querySelector<HTMLFormElement>('form.e2ee-unlock');
  const status = section?.querySelector<HTMLElement>('.e2ee-status');
  if (!section || !form || !status) return;
  const d = section.dataset;
  const say = (key: string) => (status.textContent = d[camel(key)] ?? key);
  /** "Could not decrypt (reason)": the same words for the unlock and for each file's save. */
  const failed = (err: unknown) =>
    `${d.e2eeFailed ?? ''} (${err instanceof DecryptError ? err.reason : String((err as Error).message ?? err)})`;
  const picker = (window as unknown as { showSaveFilePicker?: SaveFilePicker }).showSaveFilePicker;
  if (
    !globalThis.crypto?.subtle ||
    (!picker && !('serviceWorker' in navigator)) ||
    Number(d.keyVersion) !== KEY_VERSION_AES_GCM_PBKDF2
  ) {
    say('e2ee_unsupported');
    return;
  }
  const rows = [...section.querySelectorAll<HTMLElement>('tr.e2ee-file')];
  const chunkSize = Number(d.chunkSize);
  const jobOf = (row: HTMLElement, key: CryptoKey): EncryptedFileJob => ({
    url: `${base}/download?token=${encodeURIComponent(d.token ?? '')}&files_ids=${row.dataset.fileId}`,
    size: Number(row.dataset.size),
    fileiv: row.dataset.fileiv ?? '',
    fileaead: row.dataset.fileaead ?? '',
    chunkSize,
    key,
  });
  const input = form.querySelector<HTMLInputElement>('input[type=password]')!;
  const submit = form.querySelector<HTMLButtonElement>('button[type=submit]')!;
  form.hidden = false;
  let key: CryptoKey | null = null;

  form.addEventListener('submit', async (e) => {
    e.preventDefault(); // the password is never submitted anywhere
    submit.disabled = true;
    say('e2ee_checking');
    try {
      const candidate = await deriveKey({
        password: input.value,
        passwordVersion: Number(d.passwordVersion),
        passwordEncoding: d.passwordEncoding ?? 'none',
        salt: d.salt ?? '',
        iterations: Number(d.iterations),
      });
      const first = rows.find((r) => Number(r.dataset.size) > 0);
      if (first) {
        const job = jobOf(first, candidate);
        await decryptChunk(candidate, fileCrypto(job.fileiv, job.fileaead, chunkSize), 0, await fetchChunk(job, 0));
      }
      key = candidate;
      input.value = '';
      form.hidden = true;
      say('e2ee_unlocked');
      for (const b of section.querySelectorAll<HTMLButtonElement>('button.e2ee-save, button.e2ee-save-all'))
        b.hidden = false;
      for (const s of section.querySelectorAll<HTMLElement>('.e2ee-file-status')) s.textContent = '';
    } catch (err) {
      // A failed tag on the first chunk is a wrong password; anything else (network, a damaged file) says so.
      if (err instanceof DecryptError && err.reason === 'wrong_password') say('e2ee_wrong_password');
      else status.textContent = failed(err);
      input.select();
    } finally {
      submit.disabled = false;
    }
  });

  /** Decrypts one row's file into `save` (a file the user picked, a folder's file, or the worker's download). */
  const saveRow = async (
    row: HTMLElement,
    save: (name: string, job: EncryptedFileJob) => Promise<void>,
  ): Promise<boolean> => {
    const rowStatus = row.querySelector<HTMLElement>('.e2ee-file-status')!;
    if (!key) return false;
    rowStatus.textContent = d.e2eeSaving ?? '';
    try {
      await save(row.dataset.saveName || 'file', jobOf(row, key));
      rowStatus.textContent = d.e2eeSaved ?? '';
      row.dataset.saved = 'true';
      return true;
    } catch (err) {
      if ((err as Error).name === 'AbortError') rowStatus.textContent = '';
      else rowStatus.textContent = failed(err);
      return false;
    }
  };
  const viaWorker = (name: string, job: EncryptedFileJob) => saveWithServiceWorker(base, name, job);
  for (const row of rows) {
    const button = row.querySelector<HTMLButtonElement>('button.e2ee-save');
    if (!button) continue;
    button.addEventListener('click', async () => {
      button.disabled = true;
      await saveRow(row, picker ? (name, job) => saveWithPicker(picker, name, job) : viaWorker);
      button.disabled = false;
    });
  }
  // "Decrypt and save all": one folder picked once (the picker's permission lasts one gesture, so not one
  // dialog per file), or one download after the other through the service worker.
  const all = section.querySelector<HTMLButtonElement>('button.e2ee-save-all');
  const folderPicker = (window as unknown as { showDirectoryPicker?: FolderPicker }).showDirectoryPicker;
  all?.addEventListener('click', async () => {
    if (!key) return;
    all.disabled = true;
    try {
      let save = viaWorker;
      if (folderPicker) {
        const folder = await folderPicker({ mode: 'readwrite' });
        save = (name, job) => saveWithPicker(async () => folder.getFileHandle(name, { create: true }), name, job);
      }
      // Every file again, each row saying so, and the end said above: a row already "Saved." one by one must not
      // make the button look as if it did nothing.
      status.textContent = d.e2eeSavingAll ?? '';
      for (const row of rows) delete row.dataset.saved;
      let saved = 0;
      for (const row of rows) {
        if (!(await saveRow(row, save))) break;
        saved++;
      }
      if (saved === rows.length) status.textContent = d.e2eeSavedAll ?? '';
      else status.textContent = d.e2eeFailed ?? '';
    } catch (err) {
      status.textContent = (err as Error).name === 'AbortError' ? (d.e2eeSaveAllCancelled ?? '') : failed(err);
    } finally {
      all.disabled = false;
    }
  });
}

type FolderPicker = (o: {
  mode: 'readwrite';
}) => Promise<{ getFileHandle(name: string, o: { create: true }): ReturnType<SaveFilePicker> }>;

/** "e2ee_wrong_password" → the dataset's "e2eeWrongPassword". */
function camel(key: string): string {
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

async function saveWithPicker(picker: SaveFilePicker, name: string, job: EncryptedFileJob): Promise<void> {
  const handle = await picker({ suggestedName: name });
  const out = await handle.createWritable();
  try {
    for await (const plain of decryptedChunks(job)) await out.write(plain);
    await out.close();
  } catch (err) {
    await out.abort().catch(() => undefined); // nothing half-decrypted replaces the file
    throw err;
  }
}

/**
 * Registers the service worker (once), gives it the job under a random id, and opens its URL in a hidden
 * frame: the browser saves the response as a download. Resolves when the worker has streamed the last chunk.
 */
async function saveWithServiceWorker(base: string, name: string, job: EncryptedFileJob): Promise<void> {
  const scope = `${base}/`;
  const reg = await navigator.serviceWorker.register(`${base}/download-sw.js`, { scope });
  const worker = reg.active ?? (await waitActive(reg));
  const id = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
  const channel = new MessageChannel();
  const finished = new Promise<void>((resolve, reject) => {
    channel.port1.onmessage = (e: MessageEvent<{ type: string; reason?: string }>) => {
      if (e.data.type === 'ready') {
        const frame = document.createElement('iframe');
        frame.hidden = true;
        frame.src = `${scope}e2ee-download/${id}`;
        document.body.append(frame);
        setTimeout(() => frame.remove(), 60_000);
      } else if (e.data.type === 'done') resolve();
      else if (e.data.type === 'error') reject(new Error(e.data.reason));
    };
  });
  worker.postMessage({ type: 'ferry-e2ee-download', id, job: { ...job, name } }, [channel.port2]);
  return finished;
}

function waitActive(reg: ServiceWorkerRegistration): Promise<ServiceWorker> {
  return new Promise((resolve, reject) => {
    const w = reg.installing ?? reg.waiting;
    if (!w) return reject(new Error('no service worker'));
    w.addEventListener('statechange', () => {
      if (w.state === 'activated') resolve(w);
      else if (w.state === 'redundant') reject(new Error('service worker failed'));
    });
  });
}
