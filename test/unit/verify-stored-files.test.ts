import crypto from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyStoredFiles, type VerifyProgress } from '../../src/domain/verify';
import { MemoryWorld } from '../fakes/memory-repositories';
import { MemoryFileStore } from '../fakes/memory-file-store';
import { newTransferIn } from '../helpers/repository-worlds';

// `ferry verify` (src/domain/verify.ts) over more files than one page of its records (500): every file is read
// once, each page with its own Transfers, and a changed file is found wherever it lies.

test('verify: more than a page of files, each read once, the changed one found, the totals known up front', async () => {
  const w = new MemoryWorld();
  const store = new MemoryFileStore();
  const ids: number[] = [];
  // 1,203 files in 401 Transfers of three: the pages end inside a Transfer's files.
  for (let i = 0; i < 401; i++) ids.push(await newTransferIn(w, `u${i % 7}`, { files: 3 }));
  let bytes = 0;
  for (const id of ids)
    for (const f of await w.repos.transfers.files(id)) {
      const data = crypto.randomBytes(f.size);
      store.data.set(`${id}/${f.uid}`, data);
      await w.repos.transfers.completeFile(f.id, 0, crypto.createHash('sha256').update(data).digest('hex'));
      bytes += f.size;
    }
  // One Transfer closed: its files are not verified.
  await w.repos.transfers.setStatus(ids[5], 'closed', 1, 'expired');
  const closed = await w.repos.transfers.files(ids[5]);
  const changed = (await w.repos.transfers.files(ids[250]))[1];
  store.data.get(`${ids[250]}/${changed.uid}`)![0] ^= 1;

  // What happens, in order: a page of records read, a file read.
  const events: string[] = [];
  const pages = w.repos.transfers.verifiableFiles.bind(w.repos.transfers);
  w.repos.transfers.verifiableFiles = (after, limit) => (events.push('page'), pages(after, limit));
  const openRead = store.openRead.bind(store);
  store.openRead = (...a) => (events.push('read'), openRead(...a));

  const seen: VerifyProgress[] = [];
  const report = await verifyStoredFiles(w.repos, store, (p) => seen.push(p));
  // The records come a page at a time while the files are read, not all of them first (a million Transfers
  // have millions of files): pages of the reading pass come after files of earlier pages were read.
  const firstRead = events.indexOf('read');
  assert.ok(firstRead > 0 && events.lastIndexOf('page') > firstRead, 'pages read while verifying');
  assert.is(events.filter((e) => e === 'read').length, 1200, 'each file read once');
  const expected = 1203 - 3;
  assert.is(report.totalFiles, expected);
  assert.is(report.files, expected);
  assert.is(report.totalBytes, bytes - closed.reduce((a, f) => a + f.size, 0));
  assert.is(report.bytes, report.totalBytes);
  assert.equal(
    report.problems.map((p) => [p.fileId, p.problem]),
    [[changed.id, 'digest_mismatch']],
  );
  assert.is(seen.length, expected + 1, 'one report before the first file, one after each');
  assert.equal(seen[0], { files: 0, totalFiles: expected, bytes: 0, totalBytes: report.totalBytes });
  assert.ok(
    seen.every((p, i) => p.files === i && p.totalFiles === expected),
    'each file counted once, in order',
  );
});

test('verify: nothing to verify reports zeros once', async () => {
  const seen: VerifyProgress[] = [];
  const report = await verifyStoredFiles(new MemoryWorld().repos, new MemoryFileStore(), (p) => seen.push(p));
  assert.equal(report, { files: 0, totalFiles: 0, bytes: 0, totalBytes: 0, problems: [] });
  assert.equal(seen, [{ files: 0, totalFiles: 0, bytes: 0, totalBytes: 0 }]);
});

test.run();
