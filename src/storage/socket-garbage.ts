import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Bytes read from the object store arrive in a new buffer per socket read, outside V8's heap. They die at once
 * (S3RangeReader copies them into the caller's buffers), but V8 only frees them when its young generation
 * fills with small objects or when such memory has grown by some 64 MiB: a download from S3 held 80–100 MiB
 * more than one from the filesystem, which reads into reused buffers. So every few MiB read, a young-generation
 * collection (a scavenge: about a millisecond, the heap's old objects are not visited) frees them early.
 */
const EVERY_BYTES = 2 * 1024 * 1024;

type Gc = (options: { type: 'minor' }) => void;
let gc: Gc | null | undefined;
let sinceGc = 0;

function collector(): Gc | null {
  if (gc === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as Gc;
    } catch {
      gc = null;
    }
  }
  return gc;
}

/** Counts bytes that just became garbage; frees such buffers once enough of them have gathered. */
export function discarded(bytes: number): void {
  sinceGc += bytes;
  if (sinceGc < EVERY_BYTES) return;
  sinceGc = 0;
  collector()?.({ type: 'minor' });
}
