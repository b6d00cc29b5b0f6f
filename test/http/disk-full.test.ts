import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startTestServer, HEADER_SP, asUser } from '../helpers/server';
import { patternBytes, sendChunks, sha256 } from '../helpers/upload-client';

const CHUNK = 256 * 1024;

test('a full disk answers 507, loses nothing acknowledged, and the upload completes once space returns', async () => {
  // This test looks at data/files itself: the filesystem store whatever FERRY_TEST_STORAGE says.
  const s = await startTestServer({ ...HEADER_SP, upload_chunk_size: CHUNK, storage: { type: 'fs' } });
  const files = path.join(s.dir, 'data', 'files');
  // A 4 MiB filesystem for the file data (we run as root here, as CI does), 3 MiB of it taken by a filler.
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', files]);
  assert.is(mount.status, 0, `mounting a small tmpfs needs root: ${mount.stderr}`);
  try {
    const filler = path.join(files, 'filler');
    fs.writeFileSync(filler, Buffer.alloc(3 * 1024 * 1024));
    const alice = asUser('alice');
    const data = patternBytes('full', 2 * 1024 * 1024);
    const t = (
      await s.request('POST', '/transfer', {
        headers: alice,
        json: transferBody({ files: [{ name: 'big', size: data.length }] }),
      })
    ).json;
    const f = t.files[0];
    const results = await sendChunks(s.request, f.id, data, CHUNK, { headers: alice });
    const statuses = results.map((r) => r.status);
    assert.ok(statuses.includes(507), statuses.join());
    const full = results.find((r) => r.status === 507)!;
    assert.is(full.json.message, 'storage_not_enough_space_left');
    const acknowledged = results.filter((r) => r.status === 200).length;
    const info = (await s.request('GET', `/file/${f.id}`, { headers: alice })).json;
    assert.is(info.received, acknowledged * CHUNK, 'exactly the acknowledged chunks are recorded');
    assert.is((await s.request('GET', '/info')).status, 200, 'the server stays up');
    fs.rmSync(filler); // space returns
    const missing = info.missing
      .map(([a]: [number, number]) => a / CHUNK)
      .flatMap((first: number, i: number) => {
        const [a, b] = info.missing[i];
        return Array.from({ length: Math.ceil((b - a) / CHUNK) }, (_, k) => first + k);
      });
    for (const r of await sendChunks(s.request, f.id, data, CHUNK, { headers: alice, order: missing }))
      assert.is(r.status, 200, r.text);
    assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
    assert.is(sha256(fs.readFileSync(path.join(files, String(t.id), f.uid))), sha256(data));
  } finally {
    await s.app.close().catch(() => {});
    spawnSync('umount', ['-l', files]);
    await s.close().catch(() => {});
  }
});

test.run();
