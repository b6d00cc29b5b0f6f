import crypto from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { asUser, HEADER_SP, sql, startTestServer, TestServer, sameDataAs } from '../helpers/server';
import { signedPath } from '../helpers/signing';
import { patternBytes, sha256 } from '../helpers/upload-client';
import { rawConnect, type RawConn } from '../helpers/raw-socket';
import { startS3, s3Storage } from '../helpers/system/s3';
import type { Logger } from '../../src/log';
import { dbHash } from './fixture';

/*
 * Signed chunks verified while they stream, and chunks still arriving when their file completes, on the
 * filesystem and on S3, each with two nodes sharing the database and the store: unverified bytes never change
 * recorded data nor what a recipient reads; a late chunk never rewrites an available file; the recorded
 * SHA-256 always describes the bytes served.
 */
const MiB = 1024 * 1024;
const CHUNK = 5 * MiB; // S3's smallest part: files of two chunks go through a multipart upload there
const alice = asUser('alice');

interface Store {
  name: 'fs' | 's3';
  a: TestServer;
  b: TestServer;
  secret: string;
  lines: string[];
}
const stores: Store[] = [];

function capturing(lines: string[]): Logger {
  return { info: (m: string) => void lines.push(m), error: (m: string) => void lines.push(`ERROR ${m}`) };
}

test.before(async () => {
  for (const name of ['fs', 's3'] as const) {
    const lines: string[] = [];
    let storage: Record<string, unknown> | undefined;
    if (name === 's3') {
      const s3 = await startS3();
      storage = s3Storage(s3, `sc-${crypto.randomBytes(4).toString('hex')}/`);
    }
    const config = { ...HEADER_SP, upload_chunk_size: CHUNK, ...(storage ? { storage } : { storage: { type: 'fs' } }) };
    const a = await startTestServer(config, { log: capturing(lines) });
    const b = await startTestServer(
      {
        ...config,
        ...sameDataAs(a),
      },
      { log: capturing(lines) },
    );
    const cfg = (await a.request('GET', '/user', { headers: alice })).json.remote_config as string;
    stores.push({ name, a, b, secret: cfg.split('|')[2], lines });
  }
});
test.after(async () => {
  for (const s of stores) {
    await s.b.close();
    await s.a.close();
  }
});

const now = () => Math.floor(Date.now() / 1000);
const hostOf = (n: TestServer) => new URL(n.url).host;

/** A chunk PUT signed with alice's secret (remote-user mode), or with a wrong one. */
function chunkPath(n: TestServer, secret: string, fileId: number, offset: number, body: Buffer, ts = now()): string {
  return signedPath({
    method: 'PUT',
    host: hostOf(n),
    path: `/file/${fileId}/chunk/${offset}`,
    args: { remote_user: 'alice', timestamp: ts },
    secret,
    body,
  });
}
const forged = (n: TestServer, fileId: number, offset: number, body: Buffer) =>
  chunkPath(n, 'f'.repeat(64), fileId, offset, body);

async function createTransfer(n: TestServer, size: number): Promise<{ id: number; fileId: number }> {
  const r = await n.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({ files: [{ name: 'f.bin', size }] }),
  });
  assert.is(r.status, 201, r.text);
  return { id: r.json.id, fileId: r.json.files[0].id };
}

async function completeAll(n: TestServer, t: { id: number; fileId: number }): Promise<string> {
  const f = await n.request('PUT', `/file/${t.fileId}`, { headers: alice, json: { complete: true } });
  assert.is(f.status, 200, f.text);
  const c = await n.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(c.status, 200, c.text);
  return c.json.recipients[0].token as string;
}

async function served(n: TestServer, token: string, fileId: number): Promise<Buffer> {
  const r = await fetch(`${n.url}/download?token=${token}&files_ids=${fileId}`);
  assert.is(r.status, 200);
  return Buffer.from(await r.arrayBuffer());
}

/** The recorded SHA-256 (computed in the background on S3: waited for, at most 20 s). */
async function recordedSha256(n: TestServer, fileId: number): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const [row] = await sql<{ sha256: string | null }>(n, 'SELECT sha256 FROM files WHERE id = ?', fileId);
    if (row?.sha256) return row.sha256;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('sha256 still not recorded after 20 s');
}

function rawPut(conn: RawConn, n: TestServer, p: string, length: number, headers: Record<string, string> = {}): void {
  const lines = [
    `PUT ${p} HTTP/1.1`,
    `Host: ${hostOf(n)}`,
    'Content-Type: application/octet-stream',
    `Content-Length: ${length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  conn.write(`${lines.join('\r\n')}\r\n\r\n`);
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
const port = (n: TestServer) => Number(new URL(n.url).port);

for (const which of ['fs', 's3'] as const) {
  const store = () => stores.find((s) => s.name === which)!;

  test(`${which}: a wrong signature on chunks covering recorded bytes, before and after completion, on either node, leaves the bytes served and their SHA-256 unchanged`, async () => {
    const { a, b, secret } = store();
    const data = patternBytes(`rec-${which}`, CHUNK + 64 * 1024);
    const other = patternBytes(`evil-${which}`, CHUNK);
    const t = await createTransfer(a, data.length);
    const first = data.subarray(0, CHUNK);
    const ok0 = await a.request('PUT', chunkPath(a, secret, t.fileId, 0, first), { body: first });
    assert.is(ok0.status, 200, ok0.text);
    for (const n of [a, b]) {
      const r = await n.request('PUT', forged(n, t.fileId, 0, other), { body: other });
      assert.equal([r.status, r.json.message], [401, 'auth_remote_signature_check_failed'], r.text);
    }
    const rest = data.subarray(CHUNK);
    const ok1 = await b.request('PUT', chunkPath(b, secret, t.fileId, CHUNK, rest), { body: rest });
    assert.is(ok1.status, 200, ok1.text);
    const token = await completeAll(a, t);
    for (const n of [a, b]) {
      const r = await n.request('PUT', forged(n, t.fileId, 0, other), { body: other });
      assert.ok([401, 409].includes(r.status), r.text);
    }
    assert.is(sha256(await served(b, token, t.fileId)), sha256(data));
    assert.is(await recordedSha256(a, t.fileId), sha256(data));
  });

  test(`${which}: a wrong signature is answered 401 once the body is in, nothing recorded; a timestamp out of its window is refused before any byte of the body is read`, async () => {
    const { a, b, secret } = store();
    const data = patternBytes(`mid-${which}`, CHUNK + 1000);
    const t = await createTransfer(a, data.length);
    const first = data.subarray(0, CHUNK);
    // (On S3 the file's multipart upload may be begun for the chunk: an upload id, no data.)
    const fileRow = async () =>
      (await sql(a, 'SELECT ranges, received, complete, sha256, crc32 FROM files WHERE id = ?', t.fileId))[0];
    const before = [await dbHash(a, ['used_signatures', 'files']), JSON.stringify(await fileRow())];
    const conn = await rawConnect(port(a));
    try {
      rawPut(conn, a, forged(a, t.fileId, 0, first), first.length);
      conn.write(first.subarray(0, CHUNK / 2));
      await new Promise((r) => setTimeout(r, 200));
      assert.is(conn.received(), '', 'no answer while the body is still arriving');
      conn.write(first.subarray(CHUNK / 2));
      const text = await conn.waitFor(/\r\n\r\n\{[\s\S]*\}/, 15_000);
      assert.is(statusOf(text), 401, text.slice(0, 300));
      assert.match(text, /auth_remote_signature_check_failed/);
    } finally {
      conn.sock.destroy();
    }
    assert.equal(
      [await dbHash(a, ['used_signatures', 'files']), JSON.stringify(await fileRow())],
      before,
      'nothing recorded',
    );
    // The same chunk rightly signed is taken, on the other node.
    const ok = await b.request('PUT', chunkPath(b, secret, t.fileId, 0, first), { body: first });
    assert.equal([ok.status, ok.json.received], [200, CHUNK], ok.text);

    // Out of its window: answered with no body sent at all (a signed-looking chunk from anyone).
    const late = await rawConnect(port(a));
    try {
      rawPut(late, a, chunkPath(a, secret, t.fileId, CHUNK, data.subarray(CHUNK), now() + 3600 * 48), 1000);
      const text = await late.waitFor(/\r\n\r\n\{[\s\S]*\}/, 5000);
      assert.is(statusOf(text), 401, text.slice(0, 300));
      assert.match(text, /auth_remote_too_late/);
    } finally {
      late.sock.destroy();
    }
  });

  test(`${which}: a client that hangs up mid-chunk is logged as an abort, in one line, never a 500`, async () => {
    const { a, b, secret, lines } = store();
    const data = patternBytes(`gone-${which}`, 1000);
    const t = await createTransfer(a, data.length);
    for (const n of [a, b]) {
      const start = lines.length;
      const conn = await rawConnect(port(n));
      rawPut(conn, n, chunkPath(n, secret, t.fileId, 0, data), data.length);
      conn.write(data.subarray(0, 500));
      await new Promise((r) => setTimeout(r, 100));
      conn.sock.destroy();
      const deadline = Date.now() + 5000;
      while (!lines.slice(start).some((l) => /^PUT \/file/.test(l)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      const mine = lines.slice(start);
      assert.ok(!mine.some((l) => l.startsWith('ERROR') || / 500 /.test(l) || /\n\s+at /.test(l)), mine.join('\n'));
    }
    const ok = await a.request('PUT', chunkPath(a, secret, t.fileId, 0, data), { body: data });
    assert.is(ok.status, 200, ok.text);
  });

  test(`${which}: a chunk still arriving while its file and transfer complete never rewrites them (many rounds, both nodes, signed and not)`, async () => {
    const { a, b, secret } = store();
    const rounds = 16;
    const answers: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const size = 64 * 1024;
      const data = patternBytes(`race-${which}-${round}`, size);
      const late = patternBytes(`late-${which}-${round}`, size);
      const [writer, completer] = round % 2 ? [a, b] : [b, a];
      const t = await createTransfer(a, size);
      const up = await completer.request('PUT', `/file/${t.fileId}/chunk/0`, {
        body: data,
        headers: { ...alice, 'content-type': 'application/octet-stream' },
      });
      assert.is(up.status, 200, up.text);
      const signed = round % 4 >= 2;
      const conn = await rawConnect(port(writer));
      try {
        if (signed) rawPut(conn, writer, chunkPath(writer, secret, t.fileId, 0, late), size);
        else rawPut(conn, writer, `/file/${t.fileId}/chunk/0`, size, alice);
        conn.write(late.subarray(0, size / 2));
        // The rest arrives while the completion runs, or once it is done (the sequence).
        let token: string;
        if (round % 3 === 2) {
          token = await completeAll(completer, t);
          conn.write(late.subarray(size / 2));
        } else {
          const rest = new Promise<void>((r) =>
            setTimeout(
              () => {
                conn.write(late.subarray(size / 2));
                r();
              },
              (round * 7) % 40,
            ),
          );
          token = await completeAll(completer, t);
          await rest;
        }
        const text = await conn.waitFor(/\r\n\r\n\{[\s\S]*\}|\r\n\r\n[^{]/, 15_000);
        answers.push(statusOf(text));
        // 200 when it was in before the completion began (its bytes, on recorded ones, dropped), else 409.
        assert.ok([200, 409].includes(statusOf(text)), `round ${round}: ${text.slice(0, 300)}`);
        const bytes = await served(writer, token, t.fileId);
        assert.is(sha256(bytes), sha256(data), `round ${round}: the bytes served are the completed file's`);
        assert.is(
          await recordedSha256(writer, t.fileId),
          sha256(data),
          `round ${round}: the recorded SHA-256 describes them`,
        );
      } finally {
        conn.sock.destroy();
      }
    }
    assert.is(answers.length, rounds);
    assert.ok(answers.includes(409), `some late chunks arrived after the completion: ${answers}`);
  });
}

test('two sends of the same chunk at once with different bytes: the bytes served are one of them, whole, and the SHA-256 describes them', async () => {
  for (const { a, name } of stores) {
    for (let round = 0; round < 6; round++) {
      const size = 64 * 1024;
      const one = patternBytes(`one-${name}-${round}`, size);
      const two = patternBytes(`two-${name}-${round}`, size);
      const t = await createTransfer(a, size);
      const put = (body: Buffer) =>
        a.request('PUT', `/file/${t.fileId}/chunk/0`, {
          body,
          headers: { ...alice, 'content-type': 'application/octet-stream' },
        });
      const answers = await Promise.all([put(one), put(two)]);
      assert.equal(
        answers.map((r) => r.status),
        [200, 200],
      );
      const token = await completeAll(a, t);
      const got = sha256(await served(a, token, t.fileId));
      assert.ok(got === sha256(one) || got === sha256(two), `${name} round ${round}: a mix was served`);
      assert.is(await recordedSha256(a, t.fileId), got, `${name} round ${round}`);
    }
  }
});

test.run();
