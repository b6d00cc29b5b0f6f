import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { startBinary } from '../helpers/binary';
import { asUser, HEADER_SP, request } from '../helpers/server';
import { inAWeek, patternBytes, sendChunks } from '../helpers/upload-client';
import { parsePrometheusText } from '../helpers/prometheus-text';

const MiB = 1024 * 1024;
const headers = asUser('alice');
const config = { ...HEADER_SP, metrics: { allow: ['127.0.0.1'] } };

/** Full (mark-compact) collections of the server's main heap so far, from its own GC histogram. */
async function majorCollections(url: string): Promise<number> {
  const r = await request(url, 'GET', '/metrics');
  assert.is(r.status, 200, r.text);
  return parsePrometheusText(r.text).value('nodejs_gc_duration_seconds_count', { kind: 'major' });
}

/** The server's young generation (committed) and resident memory, in MiB, from its own metrics. */
async function memory(url: string): Promise<{ young: number; rss: number }> {
  const r = await request(url, 'GET', '/metrics');
  const m = parsePrometheusText(r.text);
  return {
    young: m.value('nodejs_heap_space_size_total_bytes', { space: 'new' }) / MiB,
    rss: m.value('process_resident_memory_bytes', {}) / MiB,
  };
}

// Socket buffers of an upload (a new 64 KiB one per read) are garbage once written. Node 24's V8 frees them in
// a full collection for every 64 MiB, unless a young-generation collection got there first: the writer runs one
// every 32 MiB it has written (src/util/socket-garbage.ts). And the executable starts V8 with a first
// old-generation limit of 256 MB and no memory reducer (scripts/build/sea-config.mjs), or V8 sized the limit
// from ferry's small start-up heap and ran a full collection for every ~30 MiB received (docs/architecture.md,
// Memory). A 384 MiB upload counted 15 full collections with neither, 5 with the flags alone, 0 with both.
test('an upload through the binary frees its socket buffers without full collections, and gives back what it grew once quiet', async () => {
  const s = await startBinary({ config });
  try {
    const size = 384 * MiB;
    const data = patternBytes('gc', size);
    const t = await request(s.url, 'POST', '/transfer', {
      headers,
      json: {
        files: [{ name: 'big.bin', size }],
        recipients: ['r@example.org'],
        from: 'alice@example.org',
        expires: inAWeek(),
      },
    });
    assert.is(t.status, 201, t.text);
    const before = await majorCollections(s.url);
    const answers = await sendChunks(
      (method, p, init) => request(s.url, method, p, { ...init, headers: { ...headers, ...(init?.headers ?? {}) } }),
      t.json.files[0].id,
      data,
      5 * MiB,
      { parallel: 4 },
    );
    assert.ok(answers.every((a) => a.status === 200));
    const majors = (await majorCollections(s.url)) - before;
    console.log(`full collections during a ${size / MiB} MiB upload: ${majors}`);
    assert.ok(majors <= 2, `${majors} full collections for ${size / MiB} MiB`);

    // Once the uploads are over, the server gives back what the burst grew: 30 s after the last counted bytes one
    // last-resort collection shrinks the young generation to its start size (src/util/collector.ts, IdleTrim).
    const busy = await memory(s.url);
    await new Promise((r) => setTimeout(r, 33_000));
    const quiet = await memory(s.url);
    console.log(
      `after the upload: young generation ${busy.young.toFixed(1)} → ${quiet.young.toFixed(1)} MiB, RSS ${busy.rss.toFixed(0)} → ${quiet.rss.toFixed(0)} MiB`,
    );
    assert.ok(quiet.young <= 2, `the young generation still holds ${quiet.young.toFixed(1)} MiB`);
    assert.ok(quiet.rss < busy.rss, 'RSS went down');
  } finally {
    await s.stop();
    fs.rmSync(s.dir, { recursive: true, force: true });
  }
});

test.run();
