import { collector, idleTrim } from './collector';

/**
 * Bytes read from a socket arrive in a new 64 KiB buffer per read, outside V8's heap, and die as soon as they
 * are written to disk, copied or handed on. V8 frees them only when its young generation fills with small
 * objects, which a stream of bytes hardly allocates, or when such memory has grown by some 64 MiB since the
 * last full collection: then it runs a full one (Node 24; Node 20 freed them in young collections). So code
 * that drops such buffers counts them here, and every so many bytes a young-generation collection (a
 * scavenge: the heap's old objects are not visited, about a millisecond) frees them first
 * (docs/architecture.md, Memory). Each such collection also tells the idle trim that traffic goes on.
 */
export class SocketGarbage {
  private sinceGc = 0;
  private sinceFullGc = 0;

  /**
   * A scavenge every `everyBytes` counted; and, when `fullEveryBytes` is given, a full collection that often,
   * for the buffers still in flight at a scavenge, which it promoted out of its reach.
   */
  constructor(
    private readonly everyBytes: number,
    private readonly fullEveryBytes = Infinity,
  ) {}

  /** Counts bytes that just became garbage; frees such buffers once enough of them have gathered. */
  discarded(bytes: number): void {
    this.sinceGc += bytes;
    if (this.sinceGc < this.everyBytes) return;
    this.sinceFullGc += this.sinceGc;
    this.sinceGc = 0;
    const full = this.sinceFullGc >= this.fullEveryBytes;
    if (full) this.sinceFullGc = 0;
    collector()?.({ type: full ? 'major' : 'minor' });
    idleTrim.busy();
  }
}

const MiB = 1024 * 1024;

/**
 * Passing through to or from the object store (S3RangeReader copies into the caller's buffers; a streamed chunk
 * hands them to the store's request): a download from S3 held 80–100 MiB more than one from the filesystem,
 * which reads into reused buffers. Measured on a 2 GiB ZIP from S3: peak RSS 229 → 144 MiB, and less CPU
 * (3.8 → 2.3–2.7 s/GiB), as the freed buffers are reused while still in cache; on 5 GiB the promoted ones
 * still added 15 MiB until the full collections were added: 141 MiB.
 */
export const objectStoreGarbage = new SocketGarbage(2 * MiB, 256 * MiB);

/**
 * Chunk bodies written to the filesystem, or copied into a signed request's slot. Uploads run at 500+ MB/s, so
 * a scavenge every 2 MiB would be 500 per GiB; every 32 MiB stays under V8's 64 MiB trigger with what is in
 * flight. Measured on 2 GiB uploads (3 in a row): full collections 29 → 0 per upload, peak RSS ~240 → ~190 MiB,
 * server CPU 2.7–3.3 → 2.3–2.6 s/GiB. No forced full collection: V8's own old-generation limit keeps the few
 * promoted buffers bounded.
 */
export const uploadGarbage = new SocketGarbage(32 * MiB);
