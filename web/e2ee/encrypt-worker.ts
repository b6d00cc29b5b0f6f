import { encryptChunk, fromBase64 } from '../../src/shared-crypto/format';

/**
 * The upload page's encrypting worker (its own bundle, /assets/encrypt-worker.js): reads a plaintext chunk
 * from the File slice it is given and seals it as FileSender's format says (IV ‖ ciphertext ‖ tag), off the
 * page's thread. Several requests overlap (the page keeps 4 chunks in flight); each answer names its request.
 * The key arrives as a non-extractable CryptoKey and is used for nothing else.
 */
interface Job {
  id: number;
  key: CryptoKey;
  fileiv: string;
  aead: string;
  index: number;
  plain: Blob;
}

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<Job>) => void) | null;
  postMessage(m: unknown, transfer?: Transferable[]): void;
};

scope.onmessage = async (e) => {
  const { id, key, fileiv, aead, index, plain } = e.data;
  try {
    const bytes = await encryptChunk(
      key,
      { fileIv: fromBase64(fileiv), aad: fromBase64(aead) },
      index,
      new Uint8Array(await plain.arrayBuffer()),
    );
    scope.postMessage({ id, bytes }, [bytes.buffer]);
  } catch (err) {
    scope.postMessage({ id, error: String((err as Error).message ?? err) });
  }
};
