/**
 * Reusable memory for request bodies that must be held whole (signed chunks: the signature covers the bytes).
 * A fresh 5 MiB buffer per chunk was garbage the collector could free only with full collections: a signed
 * upload of 2 GiB ran about a hundred of them, and downloads afterwards kept running sixty per 2 GiB. The
 * buffers are ArrayBuffers of their own (never slices of Node's shared pool), so they may be moved to another
 * thread and back; `owns` tells such a buffer from any other.
 */
export class BodyPool {
  private free: ArrayBuffer[] = [];
  private capacity = 0;
  private readonly owned = new WeakSet<ArrayBuffer>();
  private idle: NodeJS.Timeout | null = null;

  /**
   * `keep`: buffers kept for reuse at most (more bodies at once get buffers of their own, freed as usual);
   * `idleMs`: kept buffers are let go when no body came for this long (20 MiB a quiet server need not hold).
   */
  constructor(
    private readonly keep = 4,
    private readonly idleMs = 3000,
  ) {}

  /** A buffer of exactly `size` bytes, backed by memory of `capacity` bytes (the largest body allowed). */
  take(size: number, capacity: number): Buffer {
    if (capacity !== this.capacity) {
      this.free = []; // the chunk size was changed by PUT /config
      this.capacity = capacity;
    }
    if (size > capacity) throw new RangeError('body larger than its pool');
    const ab = this.free.pop() ?? new ArrayBuffer(capacity);
    this.owned.add(ab);
    return Buffer.from(ab, 0, size);
  }

  /** True when `buf` starts a buffer that came from this pool (after a round trip to another thread too). */
  owns(buf: Buffer): boolean {
    return buf.byteOffset === 0 && buf.buffer instanceof ArrayBuffer && this.owned.has(buf.buffer);
  }

  /** The memory came back from another thread as a new ArrayBuffer object: it is still ours. */
  adopt(ab: ArrayBuffer): void {
    this.owned.add(ab);
  }

  /** Gives a body's memory back once nothing reads it any more. */
  give(buf: Buffer): void {
    const ab = buf.buffer;
    if (!(ab instanceof ArrayBuffer) || !this.owned.has(ab) || ab.byteLength !== this.capacity) return;
    this.owned.delete(ab);
    if (this.free.length < this.keep) this.free.push(ab);
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = null;
      this.free = [];
    }, this.idleMs);
    this.idle.unref();
  }
}
