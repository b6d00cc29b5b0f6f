import { test } from 'uvu';
import * as assert from 'uvu/assert';
import crypto from 'node:crypto';
import { startTestServer, HEADER_SP, asUser, TestServer, sameDataAs } from '../helpers/server';
import { startTestSink, TestSink, addressOf } from '../helpers/mail';
import { patternBytes, sendChunks } from '../helpers/upload-client';
import { until } from '../helpers/until';
import { createTransfer } from '../helpers/factories';
import { S3Server, startS3, s3Storage } from '../helpers/system/s3';
import { Clamd, EICAR, startClamd } from '../helpers/system/clamd';
import { endAll } from '../helpers/end-all';

/*
 * Virus scanning on the S3 store (docs/sharing.md, Virus scanning): each file is read back from the bucket and
 * streamed to a real clamd. Two nodes share the database and the bucket, and both look for scans at once: each
 * transfer is scanned and released by one of them, its recipient mailed once.
 */
const MiB = 1024 * 1024;
const CHUNK = 5 * MiB;
const alice = asUser('alice');
let s3: S3Server;
let clamd: Clamd;
let sink: TestSink;
let a: TestServer;
let b: TestServer;

test.before(async () => {
  [s3, clamd, sink] = await Promise.all([startS3(), startClamd(), startTestSink()]);
  const storage = s3Storage(s3, `av-${crypto.randomBytes(4).toString('hex')}/`);
  const common = {
    ...HEADER_SP,
    storage,
    upload_chunk_size: CHUNK,
    mail: { transport: sink.url },
    antivirus: { clamd: clamd.url },
  };
  a = await startTestServer(common);
  b = await startTestServer({
    ...common,
    ...sameDataAs(a),
  });
});
test.after(() => endAll(b, a, sink, clamd, s3));

async function upload(files: { name: string; data: Buffer }[]) {
  const t = await createTransfer(a, { files: files.map((f) => ({ name: f.name, size: f.data.length })) }, alice);
  for (const [i, f] of t.files.entries()) {
    // Chunks through node A, the file completed on node B (which assembles the object).
    await sendChunks(a.request, f.id, files[i].data, CHUNK, { headers: alice });
    assert.is((await b.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  }
  const done = await a.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  // Both nodes look for scans now, as their timers would.
  await Promise.all([a.app.services.virusScans.kick(), b.app.services.virusScans.kick()]);
  return { id: t.id as number, token: done.json.recipients[0].token as string, files: t.files as { id: number }[] };
}

async function scanned(id: number, status: string) {
  const view = async () => (await b.request('GET', `/transfer/${id}`, { headers: alice })).json;
  await until(`transfer ${id}'s scan ${status}`, async () => (await view()).virus_scan?.status === status, 60_000);
  return view();
}

const auditOf = async (id: number) =>
  (await a.request('GET', `/transfer/${id}/auditlog`, { headers: alice })).json as { event: string; detail?: string }[];

test('clean, read back from S3: released once though both nodes look, the recipient mailed once', async () => {
  const t = await upload([{ name: 'clean.bin', data: patternBytes('s3-clean', 2 * CHUNK + 4321) }]);
  const v = await scanned(t.id, 'clean');
  assert.is(v.status, 'available');
  const log = (await auditOf(t.id)).map((e) => e.event);
  assert.is(log.filter((e) => e === 'virus_scan_clean').length, 1);
  assert.is(log.filter((e) => e === 'transfer_available').length, 1);
  await a.app.services.mailQueue.flush();
  await b.app.services.mailQueue.flush();
  const mails = (await sink.messages()).filter(
    (m) => addressOf(m.to) === 'r@example.org' && (m.text ?? '').includes('clean.bin'),
  );
  assert.is(mails.length, 1);
  assert.is((await b.request('GET', `/download?token=${t.token}`)).status, 200);
});

test('infected on S3: EICAR as a file, and a signature past the first chunk of a larger object', async () => {
  const big = patternBytes('s3-big', 3 * CHUNK + 99);
  clamd.pattern.copy(big, CHUNK + MiB - 7); // inside the second chunk, across a 1 MiB read
  const t = await upload([
    { name: 'big.bin', data: big },
    { name: 'eicar.txt', data: EICAR },
  ]);
  const v = await scanned(t.id, 'infected');
  assert.is(v.status, 'uploading');
  assert.equal(
    v.virus_scan.files.map((f: { file_id: number; signature: string }) => [f.file_id, f.signature]),
    [
      [t.files[0].id, clamd.patternName],
      [t.files[1].id, clamd.eicarName],
    ],
  );
  const d = await a.request('GET', `/download?token=${t.token}`);
  assert.equal([d.status, d.json.message], [410, 'transfer_infected']);
  assert.equal(
    (await auditOf(t.id)).filter((e) => e.event === 'virus_found').map((e) => e.detail),
    [clamd.patternName, clamd.eicarName],
  );
});

test.run();
