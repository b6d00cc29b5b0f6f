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

/**
 * One thread beside the event loop for the server's bulk hashing: the SHA-256 and CRC-32 of uploads and the
 * HMAC of signed chunks. Each costs about as much CPU as receiving and writing the bytes; on the event loop
 * they halved upload speed, on their own thread they use a core the server otherwise leaves idle. Started at
 * first use, so commands that never hash start no thread. When it cannot start or dies, calls reject and
 * callers hash on their own thread instead.
 */
export class HashThread {
  private worker: Worker | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private dead: Error | null = null;
  private nextReq = 1;
  /** Answers still due from the thread: while any are, it keeps the process alive. */
  private due = 0;
  private readonly calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** True while the thread holds state between messages (hashes of files in progress): it is not stopped then. */
  holdsState: () => boolean = () => false;

  /** `idleMs`: an idle thread holding no state is stopped after this long (its memory given back), restarted on use. */
  constructor(private readonly idleMs = 1000) {}

  /** Jobs sent to the thread and not answered yet (the hashing backlog /metrics shows). */
  get pending(): number {
    return this.calls.size;
  }

  get failed(): Error | null {
    return this.dead;
  }

  /** Whether a thread is up right now (it stops when idle). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Sends without waiting for an answer. False when the thread is gone. */
  post(msg: Record<string, unknown>): boolean {
    const w = this.started();
    if (!w) return false;
    w.postMessage(msg);
    return true;
  }

  /** Sends and waits for the thread's answer. */
  call<T>(msg: Record<string, unknown>): Promise<T> {
    const w = this.started();
    if (!w) return Promise.reject(this.dead);
    const req = this.nextReq++;
    return new Promise<T>((resolve, reject) => {
      this.calls.set(req, { resolve: resolve as (v: unknown) => void, reject });
      this.owe(1);
      w.postMessage({ ...msg, req });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.fail(new Error('hashing thread closed'));
    await w?.terminate();
  }

  private started(): Worker | null {
    if (this.dead) return null;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.worker) return this.worker;
    try {
      const w = new Worker(SOURCE, { eval: true });
      w.unref();
      w.on('message', (m: Reply) => this.receive(m));
      w.on('error', (e) => this.fail(e));
      w.on('exit', () => {
        if (this.worker === w) this.fail(new Error('hashing thread stopped'));
      });
      this.worker = w;
      return w;
    } catch (e) {
      this.fail(e as Error);
      return null;
    }
  }

  private owe(n: number): void {
    this.due += n;
    if (this.due === n && n > 0) this.worker?.ref();
    if (this.due === 0) {
      this.worker?.unref();
      this.stopWhenIdle();
    }
  }

  /** A thread is an isolate of its own (about 16 MB): a server between uploads does not keep one. */
  private stopWhenIdle(): void {
    if (this.idleTimer || !this.worker) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      const w = this.worker;
      if (!w || this.due > 0 || this.holdsState()) return;
      this.worker = null; // its exit is then no failure; the next use starts a new one
      void w.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  private receive(m: Reply): void {
    this.owe(-1);
    const c = this.calls.get(m.req);
    this.calls.delete(m.req);
    if (m.error !== undefined) c?.reject(new Error(m.error));
    else c?.resolve(m.value);
  }

  private fail(e: Error): void {
    this.dead ??= e;
    for (const c of this.calls.values()) c.reject(this.dead);
    this.calls.clear();
    this.due = 0;
    this.worker?.unref();
  }
}
