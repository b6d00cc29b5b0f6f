import { chunkHeaders } from './upload-client';

/**
 * The client side of the several-nodes test: a FileSender-style uploader that sends each chunk of a file to the
 * next live node in turn, several chunks in flight, and keeps its own log of every request it made. A chunk whose
 * request fails (its node died under it) goes back into the queue and is sent again to the next live node, as a
 * load balancer's client would after a cut connection; nothing that was answered 200 is ever sent again.
 */
export interface Attempt {
  chunk: number;
  /** Index of the node the request went to. */
  node: number;
  startedAt: number;
  endedAt?: number;
  status?: number;
  /** Why the request failed without an answer (connection reset by the dead node). */
  error?: string;
}

export interface RoundRobinUpload {
  nodes: string[];
  fileId: number;
  data: Buffer;
  chunkSize: number;
  inFlight: number;
  headers: Record<string, string>;
  /**
   * Called before each request; may return a body to send in its place (a stream that stops halfway, to hold a
   * request in flight while a node is killed).
   */
  bodyFor?(chunk: number, node: number, bytes: Buffer, acknowledged: number): ReadableStream<Uint8Array> | undefined;
  /** Awaited by a worker whose request failed, before its chunk goes back into the queue. */
  beforeRetry?(): Promise<void>;
}

export class RoundRobinClient {
  readonly attempts: Attempt[] = [];
  private readonly dead = new Set<number>();
  private turn = 0;

  constructor(private readonly u: RoundRobinUpload) {}

  /** The load balancer's view: a node marked dead gets no more requests. */
  markDead(node: number): void {
    this.dead.add(node);
  }

  acknowledged(): number[] {
    return this.attempts.filter((a) => a.status === 200).map((a) => a.chunk);
  }

  private nextNode(): number {
    // Bounded: there is always a live node (the test never marks them all dead).
    for (let i = 0; i < this.u.nodes.length; i++) {
      const n = this.turn++ % this.u.nodes.length;
      if (!this.dead.has(n)) return n;
    }
    throw new Error('no live node');
  }

  /** Sends every chunk once (again only when its request failed); resolves when all are acknowledged. */
  async upload(): Promise<void> {
    const { data, chunkSize } = this.u;
    const count = Math.ceil(data.length / chunkSize);
    const queue = [...Array(count).keys()];
    // A failed chunk is sent again at most this often: a bound, never reached when the other nodes answer.
    const maxAttempts = 3;
    const worker = async () => {
      for (let chunk = queue.shift(); chunk !== undefined; chunk = queue.shift()) {
        const node = this.nextNode();
        const offset = chunk * chunkSize;
        const bytes = data.subarray(offset, Math.min(offset + chunkSize, data.length));
        const attempt: Attempt = { chunk, node, startedAt: Date.now() };
        this.attempts.push(attempt);
        const body = this.u.bodyFor?.(chunk, node, bytes, this.acknowledged().length) ?? bytes;
        try {
          const r = await fetch(`${this.u.nodes[node]}/file/${this.u.fileId}/chunk/${offset}`, {
            method: 'PUT',
            headers: {
              ...this.u.headers,
              ...chunkHeaders(data.length, offset, bytes.length),
              'content-length': String(bytes.length),
            },
            body,
            duplex: 'half',
            signal: AbortSignal.timeout(60_000),
          } as RequestInit);
          const text = await r.text();
          attempt.status = r.status;
          if (r.status !== 200) throw new Error(`chunk ${chunk} on node ${node + 1}: ${r.status} ${text}`);
        } catch (e) {
          attempt.error ??= (e as Error).message;
          if (attempt.status !== undefined) throw e;
          if (this.attempts.filter((a) => a.chunk === chunk).length >= maxAttempts)
            throw new Error(`chunk ${chunk} failed ${maxAttempts} times: ${attempt.error}`);
          await this.u.beforeRetry?.();
          queue.unshift(chunk);
        } finally {
          attempt.endedAt = Date.now();
        }
      }
    };
    await Promise.all(Array.from({ length: this.u.inFlight }, worker));
  }
}
