import crypto from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Api } from '../../web/lib/api';
import { MemoryKeyValue, StorageResumeStore } from '../../web/upload/resume-store';
import { createUpload, resumeUpload } from '../../web/upload/start';
import type { Source } from '../../web/upload/uploader';
import { startTestServer, HEADER_SP, asUser, TestServer } from '../helpers/server';

// The browser's upload engine against the real server: the whole procedure, the chunk key standing in for a
// session that ended mid-upload, and resume from the ranges GET /file/{id} reports.

class BufSource implements Source {
  readonly type = 'application/octet-stream';
  readonly lastModified = 1_700_000_000_000;
  constructor(
    readonly name: string,
    readonly data: Buffer,
  ) {}
  get size() {
    return this.data.length;
  }
  slice(start = 0, end = this.data.length): Blob {
    return new Blob([new Uint8Array(this.data.subarray(start, end))]);
  }
}

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

test.run();
