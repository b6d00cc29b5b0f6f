import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { startTestServer, HEADER_SP, asUser, TestServer, sqlOne, request } from '../helpers/server';
import { until } from '../helpers/until';

// Acknowledged means durable for the records too: a chunk's range (and any other unit of work) is answered only
// once SQLite's -wal file holding its commit is flushed to the disk, since synchronous = NORMAL alone lets a
// power cut take the last commits back. SQLite on purpose, in both runs of this suite: PostgreSQL's own COMMIT
// waits for its disk. The flush is watched where it happens, at the fdatasync of the file named *-wal.

const CHUNK = 1024;
const alice = asUser('alice');
let s: TestServer;

/** While set, every fdatasync of the -wal file waits in `waiting` until openGate(), then fails with `fail` if given. */
type Gate = { waiting: (() => void)[]; fail: Error | null };
let gate: Gate | null = null;
let walFlushes = 0;
let original: (this: fsp.FileHandle) => Promise<void>;
let proto: { datasync: (this: fsp.FileHandle) => Promise<void> };

test.before(async () => {
  s = await startTestServer({ ...HEADER_SP, upload_chunk_size: CHUNK, database_url: null });
  const h = await fsp.open(s.dir, 'r');
  proto = Object.getPrototypeOf(h);
  await h.close();
  original = proto.datasync;
  proto.datasync = async function (this: fsp.FileHandle) {
    if (fs.readlinkSync(`/proc/self/fd/${this.fd}`).endsWith('ferry.db-wal')) {
      walFlushes++;
      const g = gate;
      if (g) {
        await new Promise<void>((resolve) => g.waiting.push(resolve));
        if (g.fail) throw g.fail;
      }
    }
    return original.call(this);
  };
});
test.after(async () => {
  proto.datasync = original;
  await s.close();
});

function closeGate(fail: Error | null = null): Gate {
  gate = { waiting: [], fail };
  return gate;
}

/** Lets the held flushes go on; the flushes after them pass. */
function openGate(g: Gate): void {
  gate = null;
  for (const go of g.waiting) go();
}

const received = async (f: { id: number }) =>
  Number((await sqlOne<{ received: number }>(s, 'SELECT received FROM files WHERE id = ?', f.id))!.received);

async function createFile(size: number) {
  const r = await s.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: 'a.bin', size }] }),
  });
  assert.is(r.status, 201, r.text);
  return r.json.files[0];
}

const putChunk = (f: { id: number; size: number }, offset: number) =>
  request(s.url, 'PUT', `/file/${f.id}/chunk/${offset}`, {
    headers: {
      ...alice,
      'content-type': 'application/octet-stream',
      'X-Service-File-Size': String(f.size),
      'X-Service-Chunk-Size': String(CHUNK),
    },
    body: Buffer.alloc(CHUNK, 7),
  });

test('a chunk is acknowledged only once the commit recording it is on the disk', async () => {
  const f = await createFile(2 * CHUNK);
  assert.is((await putChunk(f, 0)).status, 200); // the Transfer is uploading: one unit of work per chunk from here
  const g = closeGate();
  let answered = false;
  const put = putChunk(f, CHUNK).then((r) => ((answered = true), r));
  await until('the -wal file is flushed after the chunk is recorded', () => g.waiting.length > 0, 5000);
  // Recorded (committed) but not yet on the disk: the client must not have its answer yet.
  assert.is(await received(f), 2 * CHUNK);
  await new Promise((r) => setTimeout(r, 300));
  assert.not.ok(answered, 'answered before its commit was flushed');
  openGate(g);
  const r = await put;
  assert.is(r.status, 200, r.text);
  assert.is(r.json.received, 2 * CHUNK);
});

test('chunks committed during a flush share the next one', async () => {
  const f = await createFile(8 * CHUNK);
  assert.is((await putChunk(f, 0)).status, 200); // the Transfer is uploading: one unit of work per chunk from here
  const g = closeGate();
  const before = walFlushes;
  const puts = Array.from({ length: 7 }, (_, i) => putChunk(f, (i + 1) * CHUNK));
  await until('the first chunk recorded waits for its flush', () => g.waiting.length === 1, 5000);
  // The other six are recorded meanwhile, each waiting for a flush that begins after its commit.
  await until('all seven recorded while the first flush runs', async () => (await received(f)) === 8 * CHUNK, 5000);
  assert.is(g.waiting.length, 1, 'no second flush begins while one runs');
  openGate(g);
  for (const r of await Promise.all(puts)) assert.is(r.status, 200, r.text);
  assert.is(walFlushes - before, 2, 'seven commits, two flushes: the held one and the one they shared');
});

test('a chunk whose commit cannot be flushed is not acknowledged, and is taken when sent again', async () => {
  const f = await createFile(2 * CHUNK);
  assert.is((await putChunk(f, 0)).status, 200);
  const g = closeGate(
    Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO', errno: -5, syscall: 'fdatasync' }),
  );
  const put = putChunk(f, CHUNK);
  await until('flush attempted', () => g.waiting.length > 0, 5000);
  openGate(g);
  const r = await put;
  // The disk's fault, not the client's and not an internal error: the typed 503 that says "send it again".
  assert.equal([r.status, r.json?.message], [503, 'database_unavailable'], r.text);
  assert.match(r.json.uid, /^[0-9a-f]+$/);
  const again = await putChunk(f, CHUNK);
  assert.is(again.status, 200, again.text);
  assert.is(again.json.received, 2 * CHUNK);
});

test.run();
