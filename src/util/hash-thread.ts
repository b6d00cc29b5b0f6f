import os from 'node:os';
import { Worker } from 'node:worker_threads';

// Plain JavaScript run by the thread; it needs only built-in modules, so it also runs inside the binary.
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const crypto = require('node:crypto');
const fs = require('node:fs');
const zlib = require('node:zlib');
// Digests may lag behind the upload and catch up (completion waits for them): receiving, writing and answering
// requests go first when the cores are busy.
try { require('node:os').setPriority(10); } catch {}

// Files are read here with blocking reads of BLOCK bytes, one block per turn and file by file, so that HMAC
// requests and new work are taken between blocks.
const BLOCK = 256 * 1024;
let block = null;
const files = new Map();
let pumping = false;

function reply(req, value, error) {
  parentPort.postMessage(error === undefined ? { op: 'reply', req, value } : { op: 'reply', req, error });
}
function settle(id, s) {
  if (s.fd !== null) {
    try { fs.closeSync(s.fd); } catch {}
    s.fd = null;
  }
  if (s.waiting.length) files.delete(id); // answered: the stream is done
  for (const req of s.waiting.splice(0)) {
    if (s.error) reply(req, undefined, s.error);
    else reply(req, { crc32: s.crc >>> 0, sha256: s.hash.digest('hex') });
  }
}
function step(id, s) {
  try {
    if (s.fd === null) s.fd = fs.openSync(s.file, 'r');
    block ??= Buffer.allocUnsafeSlow(BLOCK);
    const n = fs.readSync(s.fd, block, 0, Math.min(BLOCK, s.target - s.pos), s.pos);
    if (n === 0) throw new Error('file shorter than its received bytes');
    const data = block.subarray(0, n);
    s.hash.update(data);
    s.crc = zlib.crc32(data, s.crc);
    s.pos += n;
  } catch (e) {
    s.error = String((e && e.message) || e);
  }
  if (s.error || s.pos >= s.target) settle(id, s);
}
function pump() {
  pumping = false;
  let more = false;
  for (const [id, s] of [...files]) {
    if (s.error || s.pos >= s.target) continue;
    step(id, s);
    if (!s.error && s.pos < s.target) more = true;
  }
  if (more) {
    pumping = true;
    setImmediate(pump);
  } else {
    block = null; // an idle thread keeps no buffer
  }
}

const AMP = Buffer.from('&');
function hmacMatches({ secrets, heads, memory, offset, length, given }) {
  const body = new Uint8Array(memory, offset, length);
  const want = Buffer.from(given, 'hex');
  for (const secret of secrets) {
    for (const head of heads) {
      const h = crypto.createHmac('sha1', secret).update(head);
      if (body.length) h.update(AMP).update(body);
      if (crypto.timingSafeEqual(h.digest(), want)) return true;
    }
  }
  return false;
}
parentPort.on('message', (m) => {
  try {
    if (m.op === 'hash') {
      let s = files.get(m.id);
      if (!s) files.set(m.id, (s = { file: m.file, fd: null, pos: 0, target: 0, hash: crypto.createHash('sha256'), crc: 0, error: null, waiting: [] }));
      s.target = Math.max(s.target, m.upTo);
      if (!pumping) {
        pumping = true;
        setImmediate(pump);
      }
    } else if (m.op === 'digest') {
      const s = files.get(m.id);
      if (!s) return reply(m.req, undefined, 'no hash state');
      s.waiting.push(m.req);
      if (s.error || s.pos >= s.target) settle(m.id, s);
    } else if (m.op === 'forget') {
      const s = files.get(m.id);
      files.delete(m.id);
      if (s) settle(m.id, s);
    } else if (m.op === 'hmac') {
      reply(m.req, { match: hmacMatches(m) });
    }
  } catch (e) {
    if (m.req) reply(m.req, undefined, String(e && e.message));
  }
});
`;

interface Reply {
  op: 'reply';
  req: number;
  value?: unknown;
  error?: string;
}

/** One thread of the pool. */
interface Lane {
  worker: Worker;
  /** Answers still due from it: while any are, it keeps the process alive. */
  due: number;
  /** Hash streams whose state lives in it: it is not stopped while it holds any. */
  streams: number;
  idleTimer: NodeJS.Timeout | null;
}

/**
 * The server's threads for bulk hashing: the SHA-256 and CRC-32 of uploads and the HMAC of big signed bodies, each
 * costing about as much CPU as receiving and writing the bytes. A pool sized to the cores: one file's SHA-256 is
 * sequential, and one thread hashes about 1.2 GB/s, so files go to different threads (a file's stream stays on
 * the thread that holds its state) and HMACs to the least busy one. Threads start on demand, up to the pool's
 * size, and stop when idle, so commands that never hash start none. When a thread cannot start or dies, the
 * pool fails: calls reject and callers hash on their own thread instead.
 */
export class HashThread {
  private readonly lanes = new Set<Lane>();
  /** Hash stream id → the thread holding its state. */
  private readonly streams = new Map<number, Lane>();
  private dead: Error | null = null;
  private nextReq = 1;
  private readonly calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  /**
   * `idleMs`: a thread idle and holding no state is stopped after this long (its memory given back), and
   * started again on use. `size`: threads at most.
   */
  constructor(
    private readonly idleMs = 1000,
    readonly size = os.availableParallelism(),
  ) {}

  /** Jobs sent to the threads and not answered yet (the hashing backlog /metrics shows). */
  get pending(): number {
    return this.calls.size;
  }

  get failed(): Error | null {
    return this.dead;
  }

  /** Threads up right now (they stop when idle). */
  get running(): number {
    return this.lanes.size;
  }

  /**
   * Bytes [0, upTo) of `file` are to be hashed as stream `id` (they must be on the file and not change). The
   * thread reads the file itself: no data crosses. False when the pool is gone.
   */
  hash(id: number, file: string, upTo: number): boolean {
    let lane = this.streams.get(id);
    if (!lane) {
      const picked = this.pick((l) => l.streams);
      if (!picked) return false;
      lane = picked;
      lane.streams++;
      this.streams.set(id, lane);
    }
    this.wake(lane);
    lane.worker.postMessage({ op: 'hash', id, file, upTo });
    return true;
  }

  /** CRC-32 and SHA-256 of stream `id` once every byte asked for is hashed; the stream then ends. */
  digest<T>(id: number): Promise<T> {
    const lane = this.streams.get(id);
    if (!lane) return Promise.reject(this.dead ?? new Error('no hash state on the threads'));
    this.endStream(id, lane);
    return this.send<T>(lane, { op: 'digest', id });
  }

  /** Drops stream `id` unfinished. */
  forget(id: number): void {
    const lane = this.streams.get(id);
    if (!lane) return;
    this.endStream(id, lane);
    lane.worker.postMessage({ op: 'forget', id });
    this.stopWhenIdle(lane);
  }

  /** Sends a job that keeps no state (an HMAC) to the least busy thread and waits for its answer. */
  call<T>(msg: Record<string, unknown>): Promise<T> {
    const lane = this.pick((l) => l.due);
    if (!lane) return Promise.reject(this.dead);
    return this.send<T>(lane, msg);
  }

  async close(): Promise<void> {
    const workers = [...this.lanes].map((l) => l.worker);
    this.fail(new Error('hashing thread closed'));
    await Promise.all(workers.map((w) => w.terminate()));
  }

  /** The thread with the least `load`: an idle one, else a new one while the pool has room, else the least loaded. */
  private pick(load: (l: Lane) => number): Lane | null {
    if (this.dead) return null;
    let best: Lane | null = null;
    for (const l of this.lanes) if (!best || load(l) < load(best)) best = l;
    if (best && (load(best) === 0 || this.lanes.size >= this.size)) return best;
    return this.startLane() ?? best;
  }

  private startLane(): Lane | null {
    try {
      const worker = new Worker(SOURCE, { eval: true });
      worker.unref();
      const lane: Lane = { worker, due: 0, streams: 0, idleTimer: null };
      worker.on('message', (m: Reply) => this.receive(lane, m));
      worker.on('error', (e) => this.fail(e));
      worker.on('exit', () => {
        if (this.lanes.has(lane)) this.fail(new Error('hashing thread stopped'));
      });
      this.lanes.add(lane);
      return lane;
    } catch (e) {
      this.fail(e as Error);
      return null;
    }
  }

  private send<T>(lane: Lane, msg: Record<string, unknown>): Promise<T> {
    const req = this.nextReq++;
    return new Promise<T>((resolve, reject) => {
      this.calls.set(req, { resolve: resolve as (v: unknown) => void, reject });
      this.wake(lane);
      if (lane.due++ === 0) lane.worker.ref();
      lane.worker.postMessage({ ...msg, req });
    });
  }

  private receive(lane: Lane, m: Reply): void {
    if (--lane.due === 0) {
      lane.worker.unref();
      this.stopWhenIdle(lane);
    }
    const c = this.calls.get(m.req);
    this.calls.delete(m.req);
    if (m.error !== undefined) c?.reject(new Error(m.error));
    else c?.resolve(m.value);
  }

  private endStream(id: number, lane: Lane): void {
    this.streams.delete(id);
    lane.streams--;
  }

  private wake(lane: Lane): void {
    if (lane.idleTimer) clearTimeout(lane.idleTimer);
    lane.idleTimer = null;
  }

  /** A thread is an isolate of its own (about 16 MB): a server between uploads keeps none. */
  private stopWhenIdle(lane: Lane): void {
    if (lane.idleTimer || lane.due > 0 || lane.streams > 0 || !this.lanes.has(lane)) return;
    lane.idleTimer = setTimeout(() => {
      lane.idleTimer = null;
      if (lane.due > 0 || lane.streams > 0) return;
      this.lanes.delete(lane); // its exit is then no failure; the next use starts a new one
      void lane.worker.terminate();
    }, this.idleMs);
    lane.idleTimer.unref();
  }

  private fail(e: Error): void {
    this.dead ??= e;
    for (const c of this.calls.values()) c.reject(this.dead);
    this.calls.clear();
    this.streams.clear();
    for (const lane of this.lanes) {
      if (lane.idleTimer) clearTimeout(lane.idleTimer);
      void lane.worker.terminate();
    }
    this.lanes.clear();
  }
}
