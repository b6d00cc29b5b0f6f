import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { withTestServer, HEADER_SP, asUser, TestServer } from '../helpers/server';
import { capturingLogger } from '../helpers/session';
import { patternBytes, sendChunks, sha256 } from '../helpers/upload-client';
import { startS3, s3Client, s3Storage } from '../helpers/system/s3';
import { runCli } from '../../src/cli/program';
import { until } from '../helpers/until';
import { createTransfer } from '../helpers/factories';

// Stored bytes corrupted at rest (a bad disk, an object changed behind ferry's back) are not served as if
// intact: a whole-file download whose bytes differ from the recorded SHA-256 is cut before its last bytes,
// logged and counted; `ferry verify` reads every stored file against its digest, on the filesystem and on S3.
// Over 2 MiB: the answer has started (headers and the first MiB sent) when the last bytes are held back.
const CHUNK = 512 * 1024;
const SIZE = 4 * CHUNK + 100;
const alice = asUser('alice');

/** An available Transfer of two files (one to corrupt, one to leave alone), with a recipient's token. */
async function sent(s: TestServer) {
  const t = await createTransfer(s, {
    files: [
      { name: 'bad.bin', size: SIZE },
      { name: 'good.bin', size: SIZE },
    ],
  });
  const data = [patternBytes('bad', SIZE), patternBytes('good', SIZE)];
  for (const [i, f] of t.files.entries()) {
    for (const r of await sendChunks(s.request, f.id, data[i], CHUNK, { headers: alice }))
      assert.is(r.status, 200, r.text);
    assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  }
  const done = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  // The digest may be computed after completion (S3): wait until both are recorded.
  for (let i = 0; i < 200; i++) {
    const files = await Promise.all(
      t.files.map((f: { id: number }) => s.request('GET', `/file/${f.id}`, { headers: alice })),
    );
    if (files.every((f) => f.json.sha256)) {
      assert.equal(
        files.map((f) => f.json.sha256),
        data.map(sha256),
      );
      break;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    id: t.id as number,
    bad: t.files[0],
    good: t.files[1],
    token: done.json.recipients[0].token as string,
    data,
  };
}

/** The download as a client sees it: the whole body, or the error that ended it. */
async function download(s: TestServer, token: string, fileId: number, headers: Record<string, string> = {}) {
  // A file smaller than the 1 MiB the server reads at a time is cut before even its headers are sent.
  const res = await fetch(`${s.url}/download?token=${token}&files_ids=${fileId}`, { headers }).catch(() => null);
  if (!res) return { status: 0, body: Buffer.alloc(0), failed: true };
  try {
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()), failed: false };
  } catch {
    return { status: res.status, body: Buffer.alloc(0), failed: true };
  }
}

async function verify(s: TestServer) {
  const cfg = path.join(s.dir, 'verify.json');
  fs.writeFileSync(
    cfg,
    JSON.stringify({
      data_dir: s.app.config.data_dir,
      mail: { transport: null },
      purge_interval_s: 0,
      database_url: s.app.config.database_url,
      storage: s.app.config.storage,
    }),
  );
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['verify', '-c', cfg], {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    readStdin: async () => '',
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test('filesystem: a corrupted file is cut off, logged and counted; ranges still served; `ferry verify` finds it', async () => {
  const logged = capturingLogger();
  await withTestServer(
    { ...HEADER_SP, upload_chunk_size: CHUNK, metrics: { allow: ['127.0.0.1'] } },
    async (s) => {
      const t = await sent(s);
      assert.is((await verify(s)).code, 0, 'all intact');
      const stored = path.join(s.app.config.data_dir, 'files', String(t.id), t.bad.uid);
      const bytes = fs.readFileSync(stored);
      bytes[CHUNK + 7] ^= 0xff; // one bit flipped at rest
      fs.writeFileSync(stored, bytes);

      const d = await download(s, t.token, t.bad.id);
      assert.is(d.status, 200, 'the answer had started');
      assert.ok(d.failed, `the client sees a failed download, not ${d.body.length} good-looking bytes`);
      const good = await download(s, t.token, t.good.id);
      assert.ok(!good.failed && good.body.equals(t.data[1]), 'an intact file is served whole');
      const range = await download(s, t.token, t.bad.id, { Range: 'bytes=0-99' });
      assert.is(range.status, 206);
      assert.ok(range.body.equals(t.data[0].subarray(0, 100)), 'a range is not checked');

      assert.ok(
        logged.lines.some((l) => l.includes(`file ${t.bad.id}`) && l.includes('do not match the recorded SHA-256')),
        logged.lines.join('\n'),
      );
      const metrics = await s.request('GET', '/metrics');
      assert.match(metrics.text, /ferry_storage_errors_total\{kind="digest_mismatch"\} 1\b/);

      const v = await verify(s);
      assert.is(v.code, 1, v.out + v.err);
      assert.match(v.out, new RegExp(`digest_mismatch: transfer ${t.id} file ${t.bad.id} \\(${t.bad.uid}\\)`));
      assert.not.match(v.out, new RegExp(`file ${t.good.id} `));
      assert.match(v.err, /verify: 2\/2 files/, 'progress');
      fs.rmSync(stored);
      const gone = await verify(s);
      assert.is(gone.code, 1);
      assert.match(gone.out, new RegExp(`unreadable: transfer ${t.id} file ${t.bad.id}`));
    },
    { log: logged.log },
  );
});

/** A download of any path (a file with Range, an archive) as a client sees it. */
async function fetched(s: TestServer, p: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}${p}`, { headers }).catch(() => null);
  if (!res) return { status: 0, body: Buffer.alloc(0), failed: true };
  try {
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()), failed: false };
  } catch {
    return { status: res.status, body: Buffer.alloc(0), failed: true };
  }
}

/** Every path that sends a corrupted file's last byte is cut before it, logged with the file id and counted. */
async function everyPathCut(s: TestServer, t: Awaited<ReturnType<typeof sent>>, lines: () => string[]) {
  const base = `/download?token=${t.token}`;
  const cuts: [string, string, Record<string, string>][] = [
    ['the whole file', `${base}&files_ids=${t.bad.id}`, {}],
    ['a Range that reaches the end', `${base}&files_ids=${t.bad.id}`, { Range: `bytes=${CHUNK * 3}-` }],
    ['a Range of its last bytes only', `${base}&files_ids=${t.bad.id}`, { Range: `bytes=-10` }],
    ['a ZIP', `${base}&archive_format=zip`, {}],
    ['a tar', `${base}&archive_format=tar`, {}],
    ['a Range of a ZIP that holds its end', `${base}&archive_format=zip`, { Range: `bytes=${SIZE}-${SIZE + 200}` }],
  ];
  for (const [what, p, headers] of cuts) {
    const before = lines().length;
    const d = await fetched(s, p, headers);
    assert.ok(d.failed, `${what}: the client sees a failed download, not ${d.body.length} good-looking bytes`);
    await until(
      `${what}: logged`,
      async () =>
        lines()
          .slice(before)
          .some(
            (l) => l.includes(`file ${t.bad.id} (${t.bad.uid}) cut`) && l.includes('do not match the recorded SHA-256'),
          ),
      5000,
    );
  }
  // What does not send the bad file's last byte is served; the good file is served whole, alone or in a range.
  const head = await fetched(s, `${base}&files_ids=${t.bad.id}`, { Range: 'bytes=0-99' });
  assert.is(head.status, 206);
  assert.ok(head.body.equals(t.data[0].subarray(0, 100)), 'a range short of the end is not checked');
  const good = await fetched(s, `${base}&files_ids=${t.good.id}`, { Range: `bytes=${CHUNK}-` });
  assert.ok(!good.failed && good.body.equals(t.data[1].subarray(CHUNK)), 'an intact file reaching its end');
  const metrics = await s.request('GET', '/metrics');
  assert.match(metrics.text, new RegExp(`ferry_storage_errors_total\\{kind="digest_mismatch"\\} ${cuts.length}\\b`));
}

test('filesystem: a Range that reaches the end, a ZIP and a tar are cut too; a download cut earlier does not vouch for the bytes now', async () => {
  const logged = capturingLogger();
  await withTestServer(
    { ...HEADER_SP, upload_chunk_size: CHUNK, metrics: { allow: ['127.0.0.1'] }, storage: { type: 'fs' } },
    async (s) => {
      const t = await sent(s);
      // A download of the intact file cut after its first MiB: the next download hashes what is stored now.
      const ac = new AbortController();
      const early = await fetch(`${s.url}/download?token=${t.token}&files_ids=${t.bad.id}`, { signal: ac.signal });
      const reader = early.body!.getReader();
      await reader.read();
      ac.abort();
      await reader.cancel().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 300));
      const stored = path.join(s.app.config.data_dir, 'files', String(t.id), t.bad.uid);
      const bytes = fs.readFileSync(stored);
      bytes[100] ^= 0xff; // in the part the cut download had sent
      fs.writeFileSync(stored, bytes);
      await everyPathCut(s, t, () => logged.lines);
    },
    { log: logged.log },
  );
});

test("S3: an object changed behind ferry's back is cut off on download, and `ferry verify` finds it", async () => {
  const s3 = await startS3();
  const prefix = `corrupt${Date.now().toString(36)}/`;
  const storage = s3Storage(s3, prefix);
  const logged = capturingLogger();
  await withTestServer(
    { ...HEADER_SP, upload_chunk_size: CHUNK, storage, metrics: { allow: ['127.0.0.1'] } },
    async (s) => {
      const t = await sent(s);
      assert.is((await verify(s)).code, 0, 'all intact');
      const client = s3Client(s3);
      const Key = `${prefix}${t.id}/${t.bad.uid}`;
      const body = Buffer.from(
        await (await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key }))).Body!.transformToByteArray(),
      );
      assert.is(body.length, SIZE);
      body[SIZE - 3] ^= 0x01;
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key, Body: body }));
      await everyPathCut(s, t, () => logged.lines);
      const v = await verify(s);
      assert.is(v.code, 1, v.out + v.err);
      assert.match(v.out, new RegExp(`digest_mismatch: transfer ${t.id} file ${t.bad.id} `));
      assert.match(v.out, /2 files/);
    },
    { log: logged.log },
  );
});

test.run();
