import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small HTTP server speaking the spec's upload endpoints (POST /transfer, PUT /file/{id}/chunk/{offset},
 * GET/PUT /file/{id}, PUT/DELETE /transfer/{id}) with switchable faults, to drive the browser's upload engine
 * through failures the real server cannot be made to produce on demand (dropped connections mid-chunk).
 * Chunk bytes are kept per file, so a test compares what arrived with what was sent.
 */
export interface FakeFile {
  id: number;
  uid: string;
  name: string;
  size: number;
  data: Buffer;
  ranges: [number, number][];
  /** Bytes received in total, counting re-sends. */
  bytesIn: number;
  complete: boolean;
}

export interface FakeServer {
  url: string;
  files: Map<number, FakeFile>;
  completedTransfers: number[];
  deletedTransfers: number[];
  /** When true every request is cut (socket destroyed) before an answer. */
  down: boolean;
  /** Answer the next N chunk PUTs with this status (e.g. 503, or 400 for a permanent error). */
  failChunks: { count: number; status: number; id: string };
  /** Expose `ranges` in GET /file/{id}. */
  exposeRanges: boolean;
  chunkDelayMs: number;
  inFlight: number;
  maxInFlight: number;
  chunkPuts: number;
  /** Called after each chunk is stored. */
  onChunk?: (f: FakeFile, offset: number) => void;
  close(): Promise<void>;
}

export async function startFakeUploadServer(): Promise<FakeServer> {
  let nextId = 1;
  const transfers = new Map<number, number[]>();
  const state = {
    files: new Map<number, FakeFile>(),
    completedTransfers: [] as number[],
    deletedTransfers: [] as number[],
    down: false,
    failChunks: { count: 0, status: 503, id: 'internal_error' },
    exposeRanges: false,
    chunkDelayMs: 0,
    inFlight: 0,
    maxInFlight: 0,
    chunkPuts: 0,
  } as Omit<FakeServer, 'url' | 'close'>;

  const server = http.createServer(async (req, res) => {
    if (state.down) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const body = await readBody(req).catch(() => null);
    if (body === null) return;
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && url.pathname === '/transfer') {
      const b = JSON.parse(body.toString()) as {
        files: { name: string; size: number; cid: string }[];
        recipients: string[];
      };
      const id = nextId++;
      const files = b.files.map((f) => {
        const file: FakeFile = {
          id: nextId++,
          uid: `uid-${id}-${f.cid}`,
          name: f.name,
          size: f.size,
          data: Buffer.alloc(f.size),
          ranges: [],
          bytesIn: 0,
          complete: false,
        };
        state.files.set(file.id, file);
        return file;
      });
      transfers.set(
        id,
        files.map((f) => f.id),
      );
      return send(201, {
        id,
        files: files.map((f, i) => ({
          id: f.id,
          uid: f.uid,
          name: f.name,
          size: f.size,
          cid: b.files[i].cid,
          transfer_id: id,
        })),
        recipients: b.recipients.map((r, i) => ({
          id: 100 + i,
          email: r,
          download_url: `http://x/?s=download&token=t${id}-${i}`,
        })),
      });
    }
    if ((m = /^\/file\/(\d+)\/chunk\/(\d+)$/.exec(url.pathname)) && req.method === 'PUT') {
      const f = state.files.get(Number(m[1]));
      if (!f) return send(404, { message: 'file_not_found' });
      if (url.searchParams.get('key') !== f.uid) return send(401, { message: 'rest_authentication_required' });
      const offset = Number(m[2]);
      if (
        req.headers['x-service-chunk-offset'] !== String(offset) ||
        req.headers['x-service-chunk-size'] !== String(body.length) ||
        req.headers['x-service-file-size'] !== String(f.size)
      )
        return send(400, { message: 'rest_sanity_check_failed' });
      state.chunkPuts += 1;
      state.inFlight += 1;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      try {
        if (state.chunkDelayMs) await new Promise((r) => setTimeout(r, state.chunkDelayMs));
        if (state.down) {
          req.socket.destroy();
          return;
        }
        if (state.failChunks.count > 0) {
          state.failChunks.count -= 1;
          return send(state.failChunks.status, { message: state.failChunks.id });
        }
        body.copy(f.data, offset);
        f.bytesIn += body.length;
        f.ranges = merge([...f.ranges, [offset, offset + body.length]]);
        state.onChunk?.(f, offset);
        return send(200, { id: f.id, uid: f.uid, name: f.name, size: f.size });
      } finally {
        state.inFlight -= 1;
      }
    }
    if ((m = /^\/file\/(\d+)$/.exec(url.pathname))) {
      const f = state.files.get(Number(m[1]));
      if (!f) return send(404, { message: 'file_not_found' });
      const received = f.ranges.reduce((n, [a, b]) => n + b - a, 0);
      if (req.method === 'GET')
        return send(200, {
          id: f.id,
          uid: f.uid,
          name: f.name,
          size: f.size,
          received,
          ...(state.exposeRanges ? { ranges: f.ranges } : {}),
        });
      if (req.method === 'PUT') {
        if (received !== f.size) return send(409, { message: 'file_incomplete' });
        f.complete = true;
        return send(200, true);
      }
    }
    if ((m = /^\/transfer\/(\d+)$/.exec(url.pathname))) {
      const id = Number(m[1]);
      const ids = transfers.get(id);
      if (!ids) return send(404, { message: 'transfer_not_found' });
      if (req.method === 'PUT') {
        if (!ids.every((fid) => state.files.get(fid)?.complete))
          return send(409, { message: 'transfer_files_incomplete' });
        state.completedTransfers.push(id);
        return send(200, { id, files: [], recipients: [], expires: { raw: 0, formatted: '' } });
      }
      if (req.method === 'DELETE') {
        state.deletedTransfers.push(id);
        return send(200, true);
      }
    }
    send(404, { message: 'rest_endpoint_not_found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const fake = state as FakeServer;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return fake;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
    req.on('aborted', () => reject(new Error('aborted')));
  });
}

function merge(ranges: [number, number][]): [number, number][] {
  const sorted = ranges.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}
