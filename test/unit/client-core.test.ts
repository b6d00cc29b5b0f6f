import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chunkIndex, missingChunks } from '../../src/shared/chunks';
import { specError } from '../../src/shared/error-body';
import { addRange, coveredBytes, isRangeList } from '../../src/shared/ranges';
import {
  acknowledge,
  allSent,
  chunksToSend,
  type RecordStorage,
  reconcile,
  ResumeBook,
  type SentFile,
  sentBytes,
} from '../../src/shared/resume';
import {
  Backoff,
  DEFAULT_RETRY,
  parseRetryAfter,
  retryableNetworkError,
  retryableStatus,
  retryDelay,
} from '../../src/shared/retry';

// The client core the web page's uploader and `ferry send`/`ferry get` share (src/shared/): planning, the
// retry policy and the resume bookkeeping, with random, clock and storage injected: no server.

test('planning: aligned chunks not fully covered are sent, holes included; a completed file sends none', () => {
  const size = 10 * 4 + 3; // 11 chunks of 4, the last one 3 bytes
  const have: [number, number][] = [
    [0, 12],
    [16, 28],
    [30, 34],
  ];
  assert.equal(
    missingChunks(size, 4, have).map((c) => [c.offset, c.length]),
    [
      [12, 4],
      [28, 4],
      [32, 4],
      [36, 4],
      [40, 3],
    ],
  );
  assert.equal(missingChunks(0, 4, []), []);
  assert.equal(missingChunks(8, 4, [[0, 8]]), []);
  const f: SentFile = { size, acked: have, complete: false };
  assert.is(chunksToSend(f, 4).length, 5);
  assert.equal(chunksToSend({ ...f, complete: true }, 4), []);
  assert.is(chunkIndex(12, 4), 3);
  assert.is(chunkIndex(40, 4), 10);
});

test('ranges merge as chunks are acknowledged in any order', () => {
  let r: [number, number][] = [];
  for (const [a, b] of [
    [10, 20],
    [0, 5],
    [30, 40],
  ] as [number, number][])
    r = addRange(r, a, b);
  assert.equal(r, [
    [0, 5],
    [10, 20],
    [30, 40],
  ]);
  r = addRange(r, 5, 10);
  assert.equal(r, [
    [0, 20],
    [30, 40],
  ]);
  assert.is(coveredBytes(r), 30);
  assert.equal(addRange(r, 15, 35), [[0, 40]]);
  assert.ok(
    isRangeList([
      [0, 1],
      [3, 9],
    ]),
  );
  assert.not.ok(isRangeList([[2, 1]]));
  assert.not.ok(isRangeList([[0, '1']]));
  assert.not.ok(isRangeList('x'));
});

test('what is retried: network failures, 408, 429 and 5xx, but not 501 nor a full disk (507)', () => {
  for (const s of [408, 429, 500, 502, 503, 504]) assert.ok(retryableStatus(s), String(s));
  for (const s of [400, 401, 403, 404, 409, 413, 501, 507]) assert.not.ok(retryableStatus(s), String(s));
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN', 'IDLE_TIMEOUT'])
    assert.ok(retryableNetworkError(Object.assign(new Error('x'), { code })), code);
  assert.not.ok(retryableNetworkError(Object.assign(new Error('x'), { code: 'ERR_INVALID_URL' })));
  assert.not.ok(retryableNetworkError(new Error('no code')));
  assert.not.ok(retryableNetworkError(null));
});

test('backoff: doubles from the first wait to the cap, jittered between half and all of the step, never below the first wait', () => {
  const policy = { baseDelayMs: 1000, maxDelayMs: 8000 };
  const waits = (random: () => number) => {
    const b = new Backoff(policy, random);
    return [b.next(), b.next(), b.next(), b.next(), b.next()];
  };
  assert.equal(
    waits(() => 1),
    [1000, 2000, 4000, 8000, 8000],
  );
  assert.equal(
    waits(() => 0),
    [1000, 1000, 2000, 4000, 4000],
  );
  assert.equal(
    waits(() => 0.5),
    [1000, 1500, 3000, 6000, 6000],
  );
  const b = new Backoff(policy, () => 1);
  b.next();
  b.next();
  b.reset();
  assert.is(b.next(), 1000, 'a success starts the sequence anew');
  // The default: about two minutes in all before a request is given up, as the terminal's messages say.
  let total = 0;
  for (let i = 1; i <= DEFAULT_RETRY.retries; i++) total += retryDelay(DEFAULT_RETRY, i, null, () => 1);
  assert.is(total, 121_000);
  assert.is(
    retryDelay(DEFAULT_RETRY, 30, null, () => 1),
    30_000,
  );
});

test('Retry-After: in seconds or as an HTTP date, capped at an hour; a wait is never shorter than it', () => {
  const now = Date.parse('2026-11-28T01:00:00Z');
  assert.is(parseRetryAfter('5', now), 5);
  assert.is(parseRetryAfter(' 120 ', now), 120);
  assert.is(parseRetryAfter('86400', now), 3600);
  assert.is(parseRetryAfter('Sat, 28 Nov 2026 01:00:30 GMT', now), 30);
  assert.is(parseRetryAfter('Sat, 28 Nov 2026 00:59:00 GMT', now), 0, 'a date passed: at once');
  assert.is(parseRetryAfter('soon', now), null);
  assert.is(parseRetryAfter(null, now), null);
  assert.is(parseRetryAfter(undefined, now), null);
  const b = new Backoff({ baseDelayMs: 1000, maxDelayMs: 30_000 }, () => 0);
  assert.is(b.next(7), 7000, 'the server asked for 7 s');
  assert.is(b.next(null), 1000);
  assert.is(
    retryDelay(DEFAULT_RETRY, 6, 2, () => 1),
    30_000,
    'a short Retry-After does not shorten the backoff',
  );
});

test("the spec's error body, as both clients read it: ferry's details as a list, FileSender's as an object", () => {
  assert.equal(specError({ message: 'bad_email', uid: 'x', details: ['from'] }), {
    id: 'bad_email',
    details: ['from'],
  });
  assert.equal(specError({ message: 'rest_ownership_required', details: { method: 'get', endpoint: 'user' } }), {
    id: 'rest_ownership_required',
    details: ['method: get', 'endpoint: user'],
  });
  assert.equal(specError({ message: 'quota_exceeded', details: ['used=5', 7] }), {
    id: 'quota_exceeded',
    details: ['used=5', '7'],
  });
  assert.equal(specError({ message: 'internal_error', details: null }), { id: 'internal_error', details: [] });
  for (const notOne of [null, undefined, 'text', [], { error: 'x' }, { message: 5 }])
    assert.is(specError(notOne), null, JSON.stringify(notOne));
});

/** The storage a side injects, here a Map (the browser's is localStorage, the terminal's a folder). */
class MemoryStorage implements RecordStorage {
  readonly m = new Map<string, string>();
  read(key: string) {
    return this.m.get(key) ?? null;
  }
  write(key: string, text: string) {
    this.m.set(key, text);
  }
  remove(key: string) {
    this.m.delete(key);
  }
  keys() {
    return [...this.m.keys()];
  }
}

interface Rec {
  id: number;
  files: SentFile[];
}
const isRec = (v: unknown): v is Rec =>
  typeof v === 'object' && v !== null && Number.isInteger((v as Rec).id) && Array.isArray((v as Rec).files);

test('resume bookkeeping: acknowledged chunks are kept, and a record read back sends only what is missing', () => {
  const storage = new MemoryStorage();
  const book = new ResumeBook(storage, isRec);
  const file: SentFile = { size: 10, acked: [], complete: false };
  const rec: Rec = { id: 1, files: [file] };
  book.save('k', rec);
  for (const [offset, length] of [
    [4, 4],
    [0, 4],
  ]) {
    acknowledge(file, offset, length);
    book.save('k', rec);
  }
  const back = book.load('k');
  assert.ok(back);
  assert.equal(back.files[0].acked, [[0, 8]]);
  assert.is(sentBytes(back.files[0]), 8);
  assert.not.ok(allSent(back.files[0]));
  assert.equal(chunksToSend(back.files[0], 4), [{ offset: 8, length: 2 }]);
  acknowledge(back.files[0], 8, 2);
  assert.ok(allSent(back.files[0]));
  assert.equal(
    book.all().map((e) => e.key),
    ['k'],
  );
  // What is not a record is not one: unreadable text and another shape are ignored, never trusted.
  storage.write('broken', '{not json');
  storage.write('other', JSON.stringify({ id: 'x' }));
  assert.is(book.load('broken'), null);
  assert.is(book.load('other'), null);
  assert.is(book.load('absent'), null);
  assert.equal(
    book.all().map((e) => e.key),
    ['k'],
  );
  book.remove('k');
  assert.equal(book.all(), []);
});

test("resume: the server's view wins where it tells more; where it tells nothing, the record stands", () => {
  const own = (): SentFile => ({ size: 12, acked: [[0, 4]], complete: false });
  const told = own();
  reconcile(told, {
    ranges: [
      [0, 4],
      [8, 12],
    ],
  });
  assert.equal(told.acked, [
    [0, 4],
    [8, 12],
  ]);
  const whole = own();
  reconcile(whole, { received: 12 });
  assert.equal(whole.acked, [[0, 12]]);
  const done = own();
  reconcile(done, { complete: true });
  assert.ok(done.complete);
  assert.is(sentBytes(done), 12);
  const silent = own();
  reconcile(silent, {});
  assert.equal(silent.acked, [[0, 4]]);
  reconcile(silent, null);
  assert.equal(silent.acked, [[0, 4]]);
  const bad = own();
  reconcile(bad, { ranges: [[4, 2]], received: 3 });
  assert.equal(bad.acked, [[0, 4]], 'ranges that are not ranges are not believed');
});

test.run();
