import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { suiteServer, HEADER_SP, asUser, sqlOne } from '../helpers/server';
import { patternBytes, sendChunks, sha256 } from '../helpers/upload-client';
import { fileWithDigest } from '../helpers/stored-files';

// PUT /file/{id} {complete} when clients retry or race: repeated completions, completion against deletion.
const CHUNK = 1024 * 1024;
const s = suiteServer(test, { ...HEADER_SP, upload_chunk_size: CHUNK });
const alice = asUser('alice');

async function uploaded(seed: string, size: number) {
  const r = await s.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: `${seed}.bin`, size }] }),
  });
  assert.is(r.status, 201, r.text);
  const data = patternBytes(seed, size);
  for (const c of await sendChunks(s.request, r.json.files[0].id, data, CHUNK, { headers: alice, parallel: 4 }))
    assert.is(c.status, 200, c.text);
  return { t: r.json, f: r.json.files[0], data };
}
const complete = (id: number) => s.request('PUT', `/file/${id}`, { headers: alice, json: { complete: true } });
const events = async (id: number) =>
  ((await s.request('GET', `/transfer/${id}/auditlog`, { headers: alice })).json as { event: string }[]).map(
    (e) => e.event,
  );

test('completions sent at once all answer true; the File is hashed and logged once', async () => {
  const { t, f, data } = await uploaded('thrice', 8 * CHUNK + 5);
  const rs = await Promise.all([complete(f.id), complete(f.id), complete(f.id)]);
  assert.equal(
    rs.map((r) => [r.status, r.json]),
    [
      [200, true],
      [200, true],
      [200, true],
    ],
  );
  assert.is((await complete(f.id)).json, true, 'a later retry too');
  assert.is((await fileWithDigest(s, f.id, alice)).sha256, sha256(data));
  assert.equal(
    (await events(t.id)).filter((e) => e === 'file_uploaded'),
    ['file_uploaded'],
  );
});

test('a completion racing the deletion of its File never leaves a completed deleted File, nor a 500', async () => {
  const { t, f } = await uploaded('raced', 8 * CHUNK);
  const [done, deleted] = await Promise.all([complete(f.id), s.request('DELETE', `/file/${f.id}`, { headers: alice })]);
  assert.equal([deleted.status, deleted.json], [200, true]);
  assert.ok(
    done.status === 200 || (done.status === 404 && done.json.message === 'file_not_found'),
    `${done.status} ${done.text}`,
  );
  assert.is((await s.request('GET', `/file/${f.id}`, { headers: alice })).status, 404);
  assert.is(
    (await s.request('GET', `/transfer/${t.id}`, { headers: alice })).json.status,
    'closed',
    'its last file was deleted',
  );
  const row = (await sqlOne(s, 'SELECT complete, deleted FROM files WHERE id = ?', f.id)) as {
    complete: number;
    deleted: number | null;
  };
  assert.ok(row.deleted !== null);
});

test.run();
