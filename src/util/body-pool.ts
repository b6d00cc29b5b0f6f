import { collector } from './collector';

/**
 * Bytes of one slab at the least: above glibc's largest dynamic mmap threshold (32 MiB). Freeing a block it had
 * mapped of 128 KiB to 32 MiB raises that threshold to the block's size for the rest of the process; blocks
 * below it then come from the heap, whose freed memory glibc keeps. 5 MiB body buffers, let go when idle, did
 * that: after signed uploads a ZIP download peaked at 162 MiB RSS, 127 MiB in the same run without the raise.
 */
const SLAB_MIN = 33 * 1024 * 1024;

interface Slab {
  memory: SharedArrayBuffer;
  slot: number;
  /** Offsets of the slots no body uses. */
  free: number[];
  used: number;
}

/**
 * Reusable memory for request bodies that must be held whole (signed chunks: the signature covers the bytes).
 * A fresh 5 MiB buffer per chunk was garbage the collector could free only with full collections: a signed
 * upload of 2 GiB ran about a hundred of them. Bodies are slots of slabs of shared memory, so the hashing
 * thread reads a body where it is (nothing moved or copied) and the slab stays this thread's to free.
 */
export class BodyPool {
  private slabs: Slab[] = [];
  /** The slot size of the latest body (the chunk size may change with PUT /config). */
  private current = 0;
  private idle: NodeJS.Timeout | null = null;

  /**
   * `idleMs`: empty slabs are let go this long after the last body came back (memory a quiet server need not
   * hold). Only give() sets the timer: slabs with a body in use are never let go.
   */
  constructor(private readonly idleMs = 3000) {}

  /** A buffer of exactly `size` bytes, in a slot of `capacity` bytes (the largest body allowed). */
  take(size: number, capacity: number): Buffer {
    if (size > capacity) throw new RangeError('body larger than its pool');
    this.current = capacity;
    let slab = this.slabs.find((s) => s.slot === capacity && s.free.length > 0);
    if (!slab) {
      const slots = Math.ceil(SLAB_MIN / capacity);
      const free = Array.from({ length: slots }, (_, i) => i * capacity);
      slab = { memory: new SharedArrayBuffer(slots * capacity), slot: capacity, free, used: 0 };
      this.slabs.push(slab);
    }
    slab.used++;
    return Buffer.from(slab.memory, slab.free.pop()!, size);
  }

  /** True when `buf` is a body this pool handed out. */
  owns(buf: Buffer): boolean {
    return this.slabOf(buf) !== undefined;
  }

  /** Gives a body's slot back once nothing reads it any more. */
  give(buf: Buffer): void {
    const slab = this.slabOf(buf);
    if (!slab || slab.free.includes(buf.byteOffset)) return;
    slab.free.push(buf.byteOffset);
    slab.used--;
    // An empty slab goes at once when it is of an earlier chunk size or another one can take the next bodies.
    const spare = slab.slot !== this.current || this.slabs.some((s) => s !== slab && s.slot === slab.slot);
    if (slab.used === 0 && spare) this.slabs = this.slabs.filter((s) => s !== slab);
    this.settleLater();
  }

  private slabOf(buf: Buffer): Slab | undefined {
    const slab = this.slabs.find((s) => s.memory === buf.buffer);
    return slab && buf.byteOffset % slab.slot === 0 ? slab : undefined;
  }

  private settleLater(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = null;
      const before = this.slabs.length;
      this.slabs = this.slabs.filter((s) => s.used > 0);
      // A slab lives in the old generation, so only a full collection frees it, and uploads no longer bring
      // those about (socket-garbage.ts): a quiet moment is the time for one, or let-go slabs stayed with the
      // process after signed uploads (the bench's upload rows, which follow them: 253 MiB RSS, 222 with it).
      if (this.slabs.length < before) collector()?.({ type: 'major' });
    }, this.idleMs);
    this.idle.unref();
  }
}
