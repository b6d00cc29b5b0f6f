import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { startTestServer, HEADER_SP, asUser, TestServer, sql } from '../helpers/server';
import { inAWeek } from '../helpers/upload-client';
import { validateConfig } from '../../src/config/validate';

// A Transfer of as many files as max_transfer_files allows (its bound, 10,000) is created, listed, completed,
// downloaded whole by a recipient and deleted: before, about 3,300 files answered 500 "too many SQL
// variables", since one statement carried every file's values.
const MAX = 10_000;
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const alice = asUser('alice');
let s: TestServer;

test.before(async () => {
  s = await startTestServer({ ...HEADER_SP, max_transfer_files: MAX });
});
test.after(async () => {
  await s.close();
});

const files = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, size: 0 }));
const draft = (n: number) => ({
  files: files(n),
  recipients: ['r@example.org'],
  from: 'alice@example.org',
  expires: inAWeek(),
});

test('max_transfer_files is bounded by what one JSON body can carry: 10,000', () => {
  assert.throws(() => validateConfig({ max_transfer_files: MAX + 1 }, 'test'), /max_transfer_files/);
  validateConfig({ max_transfer_files: MAX }, 'test');
});

test('a Transfer of max_transfer_files files: created, shown, completed, downloaded whole, deleted', async () => {
  const t = await s.request('POST', '/transfer', { headers: alice, json: draft(MAX) });
  assert.is(t.status, 201, t.text.slice(0, 300));
  assert.is(t.json.files.length, MAX);
  const got = await s.request('GET', `/transfer/${t.json.id}`, { headers: alice });
  assert.is(got.status, 200, got.text.slice(0, 300));
  assert.is(got.json.files.length, MAX);
  // Empty files complete without a chunk. A completion is a request of its own (some 9 ms here), so 100 go
  // through HTTP and the other 9,900 are arranged as completion leaves them: an empty stored file, the row
  // complete with the empty digests.
  const ids: number[] = t.json.files.slice(0, 100).map((f: { id: number }) => f.id);
  const worker = async () => {
    for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
      const r = await s.request('PUT', `/file/${id}`, { headers: alice, json: { complete: true } });
      assert.is(r.status, 200, r.text);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const dir = path.join(s.app.config.data_dir, 'files', String(t.json.id));
  for (const f of t.json.files.slice(100)) fs.writeFileSync(path.join(dir, f.uid), '', { mode: 0o600 });
  await sql(
    s,
    'UPDATE files SET complete = 1, crc32 = 0, sha256 = ? WHERE transfer_id = ? AND complete = 0',
    EMPTY_SHA256,
    t.json.id,
  );
  const done = await s.request('PUT', `/transfer/${t.json.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text.slice(0, 300));
  const token = done.json.recipients[0].token;
  const zip = await s.request('GET', `/download?token=${token}&archive_format=zip`);
  assert.is(zip.status, 200, zip.text.slice(0, 300));
  assert.ok(zip.text.includes('f9999') && zip.text.includes('f0'), 'every file is in the archive');
  const del = await s.request('DELETE', `/transfer/${t.json.id}`, { headers: alice });
  assert.is(del.status, 200, del.text);
});

test('one file more is refused with the limit, not a 500', async () => {
  const r = await s.request('POST', '/transfer', { headers: alice, json: draft(MAX + 1) });
  assert.is(r.status, 400, r.text.slice(0, 300));
});

test.run();
