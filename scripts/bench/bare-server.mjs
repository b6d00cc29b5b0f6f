// Baseline: a bare node:http server, no framework. PUT /file/<id>/chunk/<offset> writes the body at its offset
// into a file opened once (positional writes; what arrives while a write runs, up to 1 MiB, goes in the next
// one, as ferry writes); GET /file/<id> streams a file with 1 MiB reads;
// GET /concat?ids=a,b streams several files one after the other; DELETE /file/<id> removes one.
// Options, to do the same work as ferry's filesystem store:
//   --digest  the SHA-256 and CRC-32 of each file, on a worker thread that reads the file back as its received
//             prefix grows; PUT /file/<id>/done answers with them once every byte is hashed.
//   --sync    files are opened O_DSYNC, as ferry opens them: each write returns once its bytes are on the
//             disk, so a chunk is answered only once it is durable; a new file's folder is flushed once.
//   --filesender <secret>  also answers the calls FileSender's filesender.py makes under /rest.php (info, its
//             config script, POST /transfer, chunk PUTs, file and transfer completion, DELETE), each checked
//             against its HMAC-SHA1 signature with <secret> as the body streams (a chunk: in the same pass
//             that writes it). The same work as ferry for the same client, without ferry's procedure.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

const dir = process.argv[2];
const digest = process.argv.includes('--digest');
const fsIndex = process.argv.indexOf('--filesender');
const fsSecret = fsIndex > 0 ? process.argv[fsIndex + 1] : null;
const sync = process.argv.includes('--sync');

const fds = new Map();
const fdOf = (id) => {
  if (!fds.has(id)) {
    const file = path.join(dir, id);
    const existed = fs.existsSync(file);
    const flags = fs.constants.O_RDWR | (existed ? 0 : fs.constants.O_CREAT) | (sync ? fs.constants.O_DSYNC : 0);
    fds.set(id, fs.openSync(file, flags, 0o600));
    if (sync && !existed) {
      const d = fs.openSync(dir, 'r');
      fs.fsyncSync(d);
      fs.closeSync(d);
    }
  }
  return fds.get(id);
};

const BATCH = 1024 * 1024;
/**
 * Writes a body at `pos` in batches of BATCH gathered from the socket, as ferry does (src/storage/positional-writer.ts):
 * a write starts once a batch is queued or the body ended; what arrives while it runs (up to BATCH, then the body
 * is paused) is the next batch.
 */
function writeBody(fd, body, pos) {
  return new Promise((resolve, reject) => {
    let queued = [];
    let bytes = 0;
    let writing = false;
    let ended = false;
    const next = () => {
      if (writing) return;
      if (bytes === 0) return ended && resolve(pos);
      if (!ended && bytes < BATCH) return;
      const batch = queued;
      const n = bytes;
      queued = [];
      bytes = 0;
      writing = true;
      fs.writev(fd, batch, pos, (e, written) => {
        if (e || written !== n) return reject(e ?? new Error('short write'));
        pos += n;
        writing = false;
        body.resume();
        next();
      });
    };
    body.on('data', (c) => {
      queued.push(c);
      bytes += c.length;
      if (writing && bytes >= BATCH) body.pause();
      next();
    });
    body.once('end', () => {
      ended = true;
      next();
    });
    body.once('error', reject);
  });
}

// Reads each file's received prefix back and hashes it, block by block, as ferry's hashing threads do.
const HASHER = `
const { parentPort } = require('node:worker_threads');
const crypto = require('node:crypto');
const fs = require('node:fs');
const zlib = require('node:zlib');
const files = new Map();
const block = Buffer.allocUnsafe(1024 * 1024);
parentPort.on('message', ({ id, file, upTo, done }) => {
  let s = files.get(id);
  if (!s) files.set(id, (s = { fd: fs.openSync(file, 'r'), pos: 0, hash: crypto.createHash('sha256'), crc: 0 }));
  while (s.pos < upTo) {
    const n = fs.readSync(s.fd, block, 0, Math.min(block.length, upTo - s.pos), s.pos);
    if (n === 0) throw new Error('file shorter than its prefix');
    const b = block.subarray(0, n);
    s.hash.update(b);
    s.crc = zlib.crc32(b, s.crc);
    s.pos += n;
  }
  if (!done) return;
  fs.closeSync(s.fd);
  files.delete(id);
  parentPort.postMessage({ id, sha256: s.hash.digest('hex'), crc32: s.crc >>> 0 });
});
`;
const hasher = digest ? new Worker(HASHER, { eval: true }) : null;
/** id → { prefix: bytes [0, prefix) written, ends: start → end of chunks written past it }. */
const received = new Map();
const answers = new Map();
hasher?.on('message', (m) => {
  answers.get(m.id)?.(m);
  answers.delete(m.id);
});
function written(id, start, end) {
  let r = received.get(id);
  if (!r) received.set(id, (r = { prefix: 0, ends: new Map() }));
  r.ends.set(start, end);
  const before = r.prefix;
  while (r.ends.has(r.prefix)) {
    const e = r.ends.get(r.prefix);
    r.ends.delete(r.prefix);
    r.prefix = e;
  }
  if (r.prefix > before) hasher.postMessage({ id, file: path.join(dir, id), upTo: r.prefix });
}

let nextId = 1;
/** filesender.py's calls: the signed string is `<method>&<host><path>?<sorted k=v, decoded>[&<body>]`. */
async function filesenderCall(req, res, url) {
  const p = url.pathname.slice('/rest.php'.length);
  const args = [...url.searchParams.entries()]
    .filter(([k]) => k !== 'signature')
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join('&');
  const hmac = crypto
    .createHmac('sha1', fsSecret)
    .update(`${req.method.toLowerCase()}&${req.headers.host}/rest.php${p}?${args}`);
  let first = true;
  const see = (c) => {
    if (first) hmac.update('&');
    first = false;
    hmac.update(c);
  };
  const verified = () => {
    const given = Buffer.from(url.searchParams.get('signature') ?? '', 'hex');
    const ok = given.length === 20 && crypto.timingSafeEqual(hmac.digest(), given);
    if (!ok) {
      res.statusCode = 401;
      res.end('{"message":"auth_remote_signature_check_failed"}');
    }
    return ok;
  };
  const json = (v, status = 200, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(v));
  };
  const chunk = /^\/file\/(\w+)\/chunk\/(\d+)$/.exec(p);
  if (req.method === 'PUT' && chunk) {
    const start = Number(chunk[2]);
    req.on('data', see);
    const pos = await writeBody(fdOf(chunk[1]), req, start);
    if (!verified()) return;
    if (digest) written(chunk[1], start, pos);
    return json({ id: Number(chunk[1]) });
  }
  let body = Buffer.alloc(0);
  if (req.method === 'POST' || req.method === 'PUT') {
    const parts = [];
    for await (const c of req) parts.push(c);
    body = Buffer.concat(parts);
    if (body.length) see(body);
  }
  if (!verified()) return;
  if (req.method === 'POST' && p === '/transfer') {
    const t = JSON.parse(body.toString());
    const id = nextId++;
    const files = t.files.map((f) => ({
      id: `f${id}x${nextId++}`,
      puid: crypto.randomBytes(16).toString('hex'),
      name: f.name,
      size: f.size,
    }));
    return json({ id, files, roundtriptoken: crypto.randomBytes(16).toString('hex') }, 201, {
      Location: `/rest.php/transfer/${id}`,
    });
  }
  const file = /^\/file\/(\w+)$/.exec(p);
  if (req.method === 'PUT' && file) {
    const id = file[1];
    const d = digest
      ? await new Promise((resolve) => {
          answers.set(id, resolve);
          hasher.postMessage({ id, file: path.join(dir, id), upTo: received.get(id)?.prefix ?? 0, done: true });
        })
      : {};
    received.delete(id);
    if (fds.has(id)) fs.closeSync(fds.get(id));
    fds.delete(id);
    fs.rmSync(path.join(dir, id), { force: true }); // disk space: the run's next upload
    return json({ id, ...d });
  }
  if (/^\/transfer\/\w+$/.test(p)) return json(true);
  res.statusCode = 404;
  res.end('{}');
}

const server = http.createServer(async (req, res) => {
  // filesender.py asks for its config script at <site>/ + /filesender-config.js.php: a path starting with '//'.
  const url = new URL(req.url.replace(/^\/+/, '/'), 'http://x');
  if (fsSecret && url.pathname === '/rest.php/info') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ upload_chunk_size: 5 * 1024 * 1024 }));
    return;
  }
  if (fsSecret && url.pathname === '/filesender-config.js.php') {
    res.writeHead(200, { 'content-type': 'text/javascript' });
    res.end(
      'window.filesender = { config: { terasender_enabled: true, terasender_worker_count: 6, terasender_worker_start_must_complete_within_ms: 180000, terasender_worker_max_chunk_retries: 20, max_transfer_files: 30, max_transfer_days_valid: 20, upload_chunk_size: 5242880 } };\n',
    );
    return;
  }
  if (fsSecret && url.pathname.startsWith('/rest.php/')) return filesenderCall(req, res, url);
  const put = /^\/file\/(\w+)\/chunk\/(\d+)$/.exec(url.pathname);
  if (req.method === 'PUT' && put) {
    const start = Number(put[2]);
    const pos = await writeBody(fdOf(put[1]), req, start);
    if (digest) written(put[1], start, pos);
    res.end('{}');
    return;
  }
  const done = /^\/file\/(\w+)\/done$/.exec(url.pathname);
  if (req.method === 'PUT' && done && digest) {
    const id = done[1];
    const d = await new Promise((resolve) => {
      answers.set(id, resolve);
      hasher.postMessage({ id, file: path.join(dir, id), upTo: received.get(id)?.prefix ?? 0, done: true });
    });
    received.delete(id);
    res.end(JSON.stringify(d));
    return;
  }
  const get = /^\/file\/(\w+)$/.exec(url.pathname);
  if (req.method === 'DELETE' && get) {
    if (fds.has(get[1])) fs.closeSync(fds.get(get[1]));
    fds.delete(get[1]);
    fs.rmSync(path.join(dir, get[1]), { force: true });
    res.end('{}');
    return;
  }
  if (req.method === 'GET' && get) {
    const file = path.join(dir, get[1]);
    res.writeHead(200, { 'content-length': fs.statSync(file).size });
    fs.createReadStream(file, { highWaterMark: 1024 * 1024 }).pipe(res);
    return;
  }
  if (req.method === 'GET' && url.pathname === '/concat') {
    const files = url.searchParams
      .get('ids')
      .split(',')
      .map((id) => path.join(dir, id));
    res.writeHead(200, { 'content-length': files.reduce((n, f) => n + fs.statSync(f).size, 0) });
    for (const f of files) {
      for await (const c of fs.createReadStream(f, { highWaterMark: 1024 * 1024 }))
        if (!res.write(c)) await new Promise((r) => res.once('drain', r));
    }
    res.end();
    return;
  }
  res.statusCode = 404;
  res.end();
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
