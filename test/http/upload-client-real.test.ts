import crypto from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Api } from '../../web/lib/api';
import { MemoryKeyValue, StorageResumeStore } from '../../web/upload/resume-store';
import { createUpload, resumeUpload } from '../../web/upload/start';
import { Backoff } from '../../src/shared/retry';
import { BufSource } from '../helpers/buffer-source';
import { startTestServer, HEADER_SP, asUser, TestServer } from '../helpers/server';

// The browser's upload engine against the real server: the whole procedure, the chunk key standing in for a
// session that ended mid-upload, and resume from the ranges GET /file/{id} reports.

const CHUNK = 64 * 1024;
let s: TestServer;
test.before(async () => {
  s = await startTestServer({ ...HEADER_SP, upload_chunk_size: CHUNK });
});
test.after(() => s.close());

const req = () => ({
  recipients: ['r@example.org'],
  from: 'alice@example.org',
  expires: Math.floor(Date.now() / 1000) + 3 * 86400,
  subject: `t${Math.random()}`,
});

async function download(transferId: number): Promise<Map<string, Buffer>> {
  const t = (await s.request('GET', `/transfer/${transferId}`, { headers: asUser('alice', 'alice@example.org') })).json;
  const out = new Map<string, Buffer>();
  for (const f of t.files) {
    const res = await fetch(`${s.url}/download?token=${t.recipients[0].token}&files_ids=${f.id}`);
    assert.is(res.status, 200, `download ${f.name}`);
    out.set(f.name, Buffer.from(await res.arrayBuffer()));
  }
  return out;
}

test('the whole procedure; after creation only the chunk key is used (the session may end)', async () => {
  const authed = new Api({ base: s.url, headers: asUser('alice', 'alice@example.org') });
  const sources = [
    new BufSource('a.bin', crypto.randomBytes(5 * CHUNK + 17)),
    new BufSource('b.txt', crypto.randomBytes(100)),
  ];
  const u = await createUpload(authed, sources, req(), 'user:alice', { chunkSize: CHUNK, concurrency: 3 });
  // The rest goes through a client without credentials, as after a session ended: the key must suffice.
  const keyOnly = new Api({ base: s.url });
  const { Upload } = await import('../../web/upload/uploader');
  const again = new Upload(keyOnly, u.record, new Map(u.record.files.map((f, i) => [f.fileId, sources[i]])), {
    chunkSize: CHUNK,
    concurrency: 3,
  });
  const t = await again.run();
  assert.ok(t);
  const got = await download(u.transferId);
  assert.ok(got.get('a.bin')!.equals(sources[0].data));
  assert.ok(got.get('b.txt')!.equals(sources[1].data));
});

test("resume uses the server's ranges: chunks stored but never acknowledged to the page are not sent again", async () => {
  const api = new Api({ base: s.url, headers: asUser('alice', 'alice@example.org') });
  const data = crypto.randomBytes(6 * CHUNK);
  const store = new StorageResumeStore(new MemoryKeyValue());
  const u = await createUpload(api, [new BufSource('r.bin', data)], req(), 'user:alice', { chunkSize: CHUNK, store });
  const f = u.record.files[0];
  for (const off of [0, 2 * CHUNK, 5 * CHUNK]) {
    const res = await fetch(`${s.url}/file/${f.fileId}/chunk/${off}?key=${f.uid}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: new Uint8Array(data.subarray(off, off + CHUNK)),
    });
    assert.is(res.status, 200);
  }
  let sent = 0;
  const counting = new Api({
    base: s.url,
    headers: asUser('alice', 'alice@example.org'),
    fetch: (url, init) => {
      if (/\/chunk\//.test(url))
        sent += Number((init?.headers as Record<string, string> | undefined)?.['X-Service-Chunk-Size']);
      return fetch(url, init);
    },
  });
  const resumed = await resumeUpload(
    counting,
    store.list('user:alice')[0],
    new Map([[f.fileId, new BufSource('r.bin', data)]]),
    { store },
  );
  await resumed.run();
  assert.is(sent, 3 * CHUNK, 'only chunks 1, 3 and 4');
  assert.ok((await download(u.transferId)).get('r.bin')!.equals(data));
  assert.is(store.list('user:alice').length, 0);
});

test("a busy server's Retry-After is waited for: the page asks again no sooner than it says", async () => {
  // One chunk upload at a time for each uploader: the page's other chunks are refused with 429 and Retry-After: 1.
  const busy = await startTestServer({ ...HEADER_SP, upload_chunk_size: CHUNK, max_concurrent_chunk_uploads: 1 });
  try {
    const api = new Api({ base: busy.url, headers: asUser('alice', 'alice@example.org') });
    const data = crypto.randomBytes(8 * CHUNK);
    const refusals: number[] = [];
    const waits: number[] = [];
    const counting = new Api({
      base: busy.url,
      headers: asUser('alice', 'alice@example.org'),
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        if (res.status === 429) refusals.push(Number(res.headers.get('retry-after')));
        return res;
      },
    });
    const u = await createUpload(api, [new BufSource('busy.bin', data)], req(), 'user:alice', { chunkSize: CHUNK });
    const { Upload } = await import('../../web/upload/uploader');
    let last: number | null = null;
    const run = new Upload(counting, u.record, new Map([[u.record.files[0].fileId, new BufSource('busy.bin', data)]]), {
      chunkSize: CHUNK,
      concurrency: 3,
      // Its own backoff would come back after 20 ms: only Retry-After makes it wait longer.
      backoff: new Backoff({ baseDelayMs: 20, maxDelayMs: 40 }),
      onChange: (p) => {
        if (p.phase === 'waiting' && p.retryAt !== null && p.retryAt !== last) {
          last = p.retryAt;
          waits.push(p.retryAt - Date.now());
        }
      },
    });
    const started = Date.now();
    assert.ok(await run.run());
    assert.ok(refusals.length > 0, 'three chunks at once met the one-upload limit');
    assert.ok(
      refusals.every((r) => r === 1),
      `Retry-After ${refusals.join()}`,
    );
    assert.ok(waits.length > 0);
    assert.ok(
      waits.every((w) => w >= 900),
      `each wait is the second the server asked for, not the 20 ms backoff: ${waits.join()}`,
    );
    assert.ok(Date.now() - started >= 1000);
    const t = (
      await busy.request('GET', `/transfer/${u.transferId}`, { headers: asUser('alice', 'alice@example.org') })
    ).json;
    const res = await fetch(`${busy.url}/download?token=${t.recipients[0].token}&files_ids=${t.files[0].id}`);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(data));
  } finally {
    await busy.close();
  }
});

test.run();
