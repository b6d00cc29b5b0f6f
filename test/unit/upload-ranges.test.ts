import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryKeyValue, StorageResumeStore, matchSources, ResumeRecord } from '../../web/upload/resume-store';
import { SpeedMeter } from '../../web/upload/timing';

const record = (id: number, owner = 'user:a'): ResumeRecord => ({
  transferId: id,
  owner,
  created: 1,
  chunkSize: 4,
  subject: 's',
  recipients: ['r@example.org'],
  links: [],
  files: [
    { fileId: 1, uid: 'u1', name: 'folder/a.bin', size: 10, lastModified: 111, acked: [[0, 4]], complete: false },
    { fileId: 2, uid: 'u2', name: 'b.bin', size: 7, lastModified: 222, acked: [], complete: false },
  ],
});

test('resume store keeps records per owner, replaces by transfer id, ignores garbage', () => {
  const kv = new MemoryKeyValue();
  const store = new StorageResumeStore(kv);
  store.save(record(1));
  store.save(record(2, 'guest:v'));
  store.save({ ...record(1), subject: 'changed' });
  assert.equal(
    store.list('user:a').map((r) => [r.transferId, r.subject]),
    [[1, 'changed']],
  );
  assert.is(store.list('guest:v').length, 1);
  store.remove(1);
  assert.is(store.list('user:a').length, 0);
  kv.setItem('ferry.unfinished-uploads', '{not json');
  assert.equal(store.list('user:a'), []);
  kv.setItem('ferry.unfinished-uploads', JSON.stringify([{ transferId: 'x' }]));
  assert.equal(store.list('user:a'), []);
});

test('records kept as a list, before they had keys, are still found after an update', () => {
  const kv = new MemoryKeyValue();
  kv.setItem('ferry.unfinished-uploads', JSON.stringify([record(7), record(8, 'guest:v')]));
  const store = new StorageResumeStore(kv);
  assert.equal(
    store.list('user:a').map((r) => r.transferId),
    [7],
  );
  store.remove(7);
  assert.equal(
    store.list('guest:v').map((r) => r.transferId),
    [8],
  );
  assert.is(store.list('user:a').length, 0);
});

test('files chosen again are matched by name, size and modification time (folder path optional)', () => {
  const chosen = [
    { name: 'a.bin', size: 10, lastModified: 111 },
    { name: 'b.bin', size: 7, lastModified: 999 }, // modified since: not the same file
  ];
  const m = matchSources(record(1), chosen);
  assert.is(m.get(1), chosen[0]);
  assert.not.ok(m.has(2));
});

test('speed meter: nothing during the warm-up and the first seconds, then the rate over its window', () => {
  let now = 0;
  const m = new SpeedMeter(() => now, 10_000, 1_000, 2_500);
  m.reset(0);
  // A burst while warming up (socket buffers filling) is not measured.
  now = 200;
  m.add(5_000_000);
  assert.is(m.rate(), 0);
  // Then 1 MB/s, one event every 100 ms.
  for (let i = 1; i <= 20; i++) {
    now = 200 + i * 100;
    m.add(100_000);
  }
  assert.is(m.rate(), 0, 'no figure after 2 s of measurement');
  for (let i = 21; i <= 150; i++) {
    now = 200 + i * 100;
    m.add(100_000);
  }
  assert.ok(Math.abs(m.rate() - 1_000_000) < 20_000, `1 MB/s, got ${m.rate()}`);
  assert.ok(m.measuredMs() >= 10_000);
  // The link halves: within one window the figure follows.
  for (let i = 1; i <= 100; i++) {
    now += 100;
    m.add(50_000);
  }
  assert.ok(Math.abs(m.rate() - 500_000) < 20_000, `0.5 MB/s, got ${m.rate()}`);
  // A stall lowers it even though no bytes arrive to say so.
  now += 5_000;
  assert.ok(m.rate() < 400_000, `stalled, got ${m.rate()}`);
});

test.run();
