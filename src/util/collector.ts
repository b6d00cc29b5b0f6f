import v8 from 'node:v8';
import vm from 'node:vm';

type Gc = (options: { type: 'minor' | 'major' }) => void;
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
