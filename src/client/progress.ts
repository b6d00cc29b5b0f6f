import type { RetryNotice } from './http';

/** Where the client's progress goes: a bar on a terminal, a line per file otherwise, nothing but the result for --json. */
export interface Reporter {
  /** `done` bytes are already on the far side (a resumed upload or download). */
  start(total: number, done: number): void;
  advance(bytes: number, current: string): void;
  /** A file finished: `verb` says how ("sent", "saved", "already there"). */
  fileDone(verb: string, name: string, size: number): void;
  retry(n: RetryNotice): void;
  note(message: string): void;
  finish(): void;
}

export interface ReporterIO {
  out(line: string): void;
  err(line: string): void;
  /** Standard error when it is a terminal, for the bar. */
  tty?: { write(text: string): void; columns: number } | null;
}

export type ReportMode = 'tty' | 'lines' | 'json';

export function reportMode(io: ReporterIO, json: boolean): ReportMode {
  return json ? 'json' : io.tty ? 'tty' : 'lines';
}

export function humanBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

export function humanDuration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '--:--';
  const t = Math.round(s);
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = String(t % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** Bytes per second over the last few seconds: a stall shows at once, a burst does not make the ETA jump. */
export class RateMeter {
  private samples: { t: number; bytes: number }[] = [];
  private total = 0;
  constructor(private readonly windowMs = 5000) {}

  add(bytes: number, now = Date.now()): void {
    this.total += bytes;
    this.samples.push({ t: now, bytes: this.total });
    while (this.samples.length > 2 && now - this.samples[1].t > this.windowMs) this.samples.shift();
  }

  rate(now = Date.now()): number {
    if (this.samples.length < 2) return 0;
    const first = this.samples[0];
    const dt = (now - first.t) / 1000;
    return dt > 0 ? (this.total - first.bytes) / dt : 0;
  }
}

/** One line of the bar: `[#####.....]  42%  430 MiB / 1.0 GiB  215 MiB/s  ETA 0:03  name`, cut to the width. */
export function barLine(done: number, total: number, rate: number, current: string, columns: number): string {
  const pct = total > 0 ? Math.min(1, done / total) : 1;
  const width = 20;
  const filled = Math.round(pct * width);
  const eta = rate > 0 ? humanDuration((total - done) / rate) : '--:--';
  const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(pct * 100)).padStart(3)}%  ${humanBytes(done)} / ${humanBytes(total)}  ${humanBytes(Math.round(rate))}/s  ETA ${eta}  ${current}`;
  return line.length > columns - 1 ? line.slice(0, Math.max(0, columns - 1)) : line;
}

export function createReporter(io: ReporterIO, mode: ReportMode): Reporter {
  let total = 0;
  let done = 0;
  let current = '';
  const meter = new RateMeter();
  let lastDraw = 0;
  const tty = mode === 'tty' ? io.tty : null;
  const draw = (force = false) => {
    if (!tty) return;
    const now = Date.now();
    if (!force && now - lastDraw < 100) return;
    lastDraw = now;
    tty.write(`\r\x1b[K${barLine(done, total, meter.rate(now), current, tty.columns)}`);
  };
  const clear = () => tty?.write('\r\x1b[K');
  const above = (write: () => void) => {
    clear();
    write();
    draw(true);
  };
  return {
    start(t, d) {
      total = t;
      done = d;
      meter.add(0);
      draw(true);
    },
    advance(bytes, name) {
      done += bytes;
      current = name;
      meter.add(bytes);
      draw();
    },
    fileDone(verb, name, size) {
      if (mode === 'json') return;
      above(() => io.out(`${verb} ${name} (${humanBytes(size)})`));
    },
    retry(n) {
      above(() =>
        io.err(`retrying ${n.what} in ${Math.round(n.delayMs / 1000)} s (attempt ${n.attempt}): ${n.reason}`),
      );
    },
    note(message) {
      above(() => io.err(message));
    },
    finish() {
      if (!tty) return;
      draw(true);
      tty.write('\n');
    },
  };
}
