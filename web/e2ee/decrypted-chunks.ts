import { CHUNK_OVERHEAD, chunkCount, decryptChunk, fileCrypto } from '../../src/shared-crypto/format';

/** What decrypting one file of an encrypted transfer needs; the key never leaves WebCrypto. */
export interface EncryptedFileJob {
  /** `${base}/download?token=…&files_ids=…`: the stored ciphertext, read with Range. */
  url: string;
  size: number;
  fileiv: string;
  fileaead: string;
  chunkSize: number;
  key: CryptoKey;
}

/**
 * Fetches one encrypted chunk in FileSender's Range coordinates (the start is the chunk's plaintext offset,
 * the server maps it to where the chunk is stored) and checks that it came whole.
 */
export async function fetchChunk(
  job: Pick<EncryptedFileJob, 'url' | 'size' | 'chunkSize'>,
  index: number,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const start = index * job.chunkSize;
  const end = Math.min(start + job.chunkSize + CHUNK_OVERHEAD, job.size + CHUNK_OVERHEAD) - 1;
  const res = await fetch(job.url, {
    headers: { Range: `bytes=${start}-${end}` },
    credentials: 'same-origin',
    cache: 'no-store',
    signal,
  });
  if (res.status !== 206 && res.status !== 200) throw new Error(`HTTP ${res.status}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.length !== end - start + 1) throw new Error('short chunk');
  return bytes;
}

/**
 * The file's plaintext chunk by chunk, in order. The next chunk is fetched while this one is decrypted and
 * written, so at most two encrypted chunks and one plaintext chunk are held: memory does not grow with the file.
 */
export async function* decryptedChunks(job: EncryptedFileJob, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const fc = fileCrypto(job.fileiv, job.fileaead, job.chunkSize);
  const n = chunkCount(job.size, job.chunkSize);
  if (fc.chunkCount !== n) throw new Error('the file size does not match its AEAD');
  let next: Promise<Uint8Array> | null = n > 0 ? fetchChunk(job, 0, signal) : null;
  for (let i = 0; i < n; i++) {
    const stored = await next!;
    next = i + 1 < n ? fetchChunk(job, i + 1, signal) : null;
    // An unhandled rejection of the prefetch would be reported twice; it is awaited on the next turn.
    next?.catch(() => undefined);
    yield await decryptChunk(job.key, fc, i, stored);
  }
}
