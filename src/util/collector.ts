import v8 from 'node:v8';
import vm from 'node:vm';

type Gc = (options: { type: 'minor' | 'major'; flavor?: 'regular' | 'last-resort' }) => void;
let gc: Gc | null | undefined;

/**
 * V8's collector, for the few places that know better than its heuristics when memory became garbage
 * (docs/architecture.md, Memory). It is taken from a fresh context, so `gc` never becomes a global of the
 * application's own; null when the runtime refuses the flag.
 */
export function collector(): Gc | null {
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

/**
 * Gives memory back once a burst of traffic is over: `busy()` is called now and then while bytes stream
 * through, and when it has not been called for `idleMs`, one last-resort collection runs. Unlike a plain full
 * collection it also shrinks the young generation back from the semi-spaces it grew to (16 MiB each, twice)
 * and releases V8's pooled pages: what V8's memory reducer did, which the executable turns off because it
 * shrank the old generation's limit between two uploads (docs/architecture.md, Memory). It costs one
 * pause of a few tens of milliseconds per burst.
 */
export class IdleTrim {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly idleMs: number) {}

  busy(): void {
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      collector()?.({ type: 'major', flavor: 'last-resort' });
    }, this.idleMs);
    this.timer.unref();
  }
}

/**
 * The process's one trim, told of uploads and object-store traffic by their garbage meters. After 30 s quiet:
 * the next upload has to grow the young generation again, which cost uploads following a 7 s pause some 0.2
 * CPU-seconds per GiB (2.42-2.70 without a trim between them, 2.75-3.00 with one), so a trim waits for a server
 * that is idle rather than between two uploads of a busy one.
 */
export const idleTrim = new IdleTrim(30_000);
