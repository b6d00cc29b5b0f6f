import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBinary, BinaryServer } from '../helpers/binary';
import { request, tempDir, TEST_DB, testDatabaseUrl } from '../helpers/server';
import { startTestSink, addressOf, TestSink } from '../helpers/mail';
import { nowS, remoteSigned } from '../helpers/signing';
import { inAWeek, patternBytes } from '../helpers/upload-client';

// Two `ferry serve` processes on one database, as two nodes behind a load balancer (PostgreSQL) or two
// processes on one data directory (SQLite), with the CLI working beside them. Whatever several nodes must
// share lives in the database: sessions, the signature-replay memory, mail claims, the purge lock.
// The processes run from source (tsx); the file data directory is shared as a network file system would be.

const ROOT = path.resolve(__dirname, '../..');
let dir: string;
let launcher: string;
let sink: TestSink;
let config: Record<string, unknown>;
let a: BinaryServer;
/** The remote application made by the replay test; the upload test signs half its chunks with it. */
let portalSecret = '';
let b: BinaryServer;

/** `ferry <args>` from source, as a process of its own, with the shared config. */
function ferry(args: string[], input = ''): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(launcher, [...args, '-c', path.join(dir, 'node-a', 'ferry.json')], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    const t = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.once('exit', (code) => {
      clearTimeout(t);
      resolve({ code, out });
    });
    p.stdin.end(input);
  });
}

test.before(async () => {
  dir = tempDir('ferry-nodes-');
  launcher = path.join(dir, 'ferry-from-source');
  fs.writeFileSync(launcher, `#!/bin/sh\ncd '${ROOT}' && exec '${process.execPath}' --import tsx src/main.ts "$@"\n`, {
    mode: 0o755,
  });
  sink = await startTestSink();
  config = {
    // Nodes behind one load balancer share one public address; without it each node's links would name its own port.
    base_url: 'http://localhost:8080',
    data_dir: path.join(dir, 'data'),
    database_url: await testDatabaseUrl(),
    mail: { transport: sink.url },
    auth: { sp: { type: 'local' } },
    admin: ['ops'],
  };
  // The first start creates the schema; the second node starts on it.
  for (const node of ['node-a', 'node-b']) fs.mkdirSync(path.join(dir, node));
  a = await startBinary({ dir: path.join(dir, 'node-a'), config, binary: launcher, timeoutMs: 60_000 });
  b = await startBinary({ dir: path.join(dir, 'node-b'), config, binary: launcher, timeoutMs: 60_000 });
  const added = await ferry(
    ['user', 'add', 'alice', '--email', 'alice@example.org', '--password-stdin'],
    'alice password\n',
  );
  assert.is(added.code, 0, added.out);
});

test.after(async () => {
  await a?.stop();
  await b?.stop();
  await sink?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test(`[${TEST_DB}] a session made on one node is valid on the other, and ends on both`, async () => {
  const login = await request(a.url, 'POST', '/login', { json: { user_id: 'alice', password: 'alice password' } });
  assert.is(login.status, 200, login.text);
  const cookie = login.headers.get('set-cookie')!.split(';')[0];
  const me = await request(b.url, 'GET', '/user', { headers: { Cookie: cookie } });
  assert.is(me.status, 200, me.text);
  assert.is(me.json.id, 'alice');
  const made = await request(b.url, 'POST', '/guest', {
    headers: { Cookie: cookie, 'X-Ferry-Security-Token': login.json.csrf_token },
    json: { recipient: 'g@example.org' },
  });
  assert.is(made.status, 201, 'the security token of node A is good on node B');
  assert.is(
    (
      await request(b.url, 'POST', '/logout', {
        headers: { Cookie: cookie, 'X-Ferry-Security-Token': login.json.csrf_token },
      })
    ).status,
    200,
  );
  assert.is(
    (await request(a.url, 'GET', '/user', { headers: { Cookie: cookie } })).status,
    401,
    'logged out on B: gone on A too',
  );
});

test(`[${TEST_DB}] a signed request replayed to the other node is refused`, async () => {
  const made = await ferry(['remote-app', 'add', 'portal', '--json']);
  assert.is(made.code, 0, made.out);
  const secret = JSON.parse(made.out.trim().split('\n').pop()!).secret as string;
  portalSecret = secret;
  const body = JSON.stringify({ recipient: 'replay@example.org', from: 'ops@example.org' });
  // Signed for base_url's host, as a client behind a load balancer signs: good on either node.
  const host = 'localhost:8080';
  const signed = remoteSigned({ method: 'POST', host, path: '/guest', app: 'portal', user: 'ops', secret, body });
  const headers = { 'content-type': 'application/json' };
  const first = await request(a.url, 'POST', signed, { headers, body });
  assert.is(first.status, 201, first.text);
  const again = await request(b.url, 'POST', signed, { headers, body });
  assert.equal(
    [again.status, again.json?.message, again.json?.details],
    [401, 'auth_remote_signature_check_failed', ['replay']],
  );
});

test(`[${TEST_DB}] 200 queued mails are sent exactly once between the two nodes`, async () => {
  const before = (await sink.messages()).length;
  const invite = (node: BinaryServer, i: number) =>
    request(node.url, 'POST', '/guest', {
      headers: asUserHeader(),
      json: { recipient: `mass${i}@example.org`, from: 'ops@example.org', options: ['email_guest_created'] },
    });
  const headersOk = await Promise.all(Array.from({ length: 200 }, (_, i) => invite(i % 2 ? a : b, i)));
  assert.equal(
    headersOk.filter((r) => r.status !== 201).map((r) => r.text),
    [],
  );
  const mails = await sink.waitFor(before + 200, 60_000);
  await new Promise((r) => setTimeout(r, 2000)); // a second copy, if any, would arrive now
  const mass = (await sink.messages()).map((m) => addressOf(m.to)).filter((to) => to.startsWith('mass'));
  assert.is(mails.length >= before + 200, true);
  assert.is(mass.length, 200, 'each once');
  assert.is(new Set(mass).size, 200);
});

test(`[${TEST_DB}] two purges at once do not collide: each expired Transfer is closed, logged and reported once`, async () => {
  const sent: number[] = [];
  for (let i = 0; i < 6; i++) {
    const node = i % 2 ? a : b;
    const t = await request(node.url, 'POST', '/transfer', {
      headers: asUserHeader(),
      json: {
        files: [{ name: `f${i}`, size: 3 }],
        recipients: ['r@example.org'],
        from: 'ops@example.org',
        expires: inAWeek(),
        options: ['email_me_on_expire'],
      },
    });
    assert.is(t.status, 201, t.text);
    const put = await request(node.url, 'PUT', `/file/${t.json.files[0].id}/chunk/0`, {
      headers: asUserHeader(),
      body: Buffer.from('abc'),
    });
    assert.is(put.status, 200, put.text);
    assert.is(
      (
        await request(node.url, 'PUT', `/file/${t.json.files[0].id}`, {
          headers: asUserHeader(),
          json: { complete: true },
        })
      ).status,
      200,
    );
    assert.is(
      (await request(node.url, 'PUT', `/transfer/${t.json.id}`, { headers: asUserHeader(), json: { complete: true } }))
        .status,
      200,
    );
    sent.push(t.json.id);
  }
  const later = String(nowS() + 30 * 86400);
  const runs = await Promise.all([
    ferry(['purge', '--json', '--now', later]),
    ferry(['purge', '--json', '--now', later]),
  ]);
  let expired = 0;
  for (const r of runs) {
    assert.is(r.code, 0, r.out);
    const report = JSON.parse(r.out.trim().split('\n').pop()!);
    expired += report.transfers_expired ?? 0;
  }
  // Either one pass did it all while the other was refused, or they ran one after the other: never both at once.
  assert.is(expired, sent.length, JSON.stringify(runs.map((r) => r.out)));
  await loginOps(); // purging 30 days ahead also ended every session
  for (const id of sent) {
    const log = await request(a.url, 'GET', `/transfer/${id}/auditlog`, { headers: asUserHeader() });
    assert.is(
      log.json.filter((e: { event: string }) => e.event === 'transfer_expired').length,
      1,
      `Transfer ${id} expired once`,
    );
  }
});

test(`[${TEST_DB}] parallel uploads to both nodes, half of them signed, while the CLI writes too: no 500, every byte recorded`, async () => {
  const data = patternBytes('nodes', 64 * 1024);
  const files = 8;
  const chunk = 4096;
  const t = await request(a.url, 'POST', '/transfer', {
    headers: asUserHeader(),
    json: {
      files: Array.from({ length: files }, (_, i) => ({ name: `p${i}`, size: data.length })),
      recipients: ['r@example.org'],
      from: 'ops@example.org',
      expires: inAWeek(),
    },
  });
  assert.is(t.status, 201, t.text);
  const statuses: number[] = [];
  const cli = (async () => {
    const out: number[] = [];
    for (let i = 0; i < 4; i++)
      out.push((await ferry(['admin', 'add', `cli${i}`])).code ?? -1, (await ferry(['purge', '--dry-run'])).code ?? -1);
    return out;
  })();
  const uploads = t.json.files.map(async (f: { id: number }, fi: number) => {
    for (let off = 0; off < data.length; off += chunk) {
      const node = (off / chunk + fi) % 2 ? a : b;
      const body = data.subarray(off, off + chunk);
      // Signed chunks write the signature-replay memory on every request: the table two processes fought over.
      const r =
        fi % 2
          ? await request(
              node.url,
              'PUT',
              remoteSigned({
                method: 'PUT',
                host: 'localhost:8080',
                path: `/file/${f.id}/chunk/${off}`,
                app: 'portal',
                user: 'ops',
                secret: portalSecret,
                body,
              }),
              { body },
            )
          : await request(node.url, 'PUT', `/file/${f.id}/chunk/${off}`, { headers: asUserHeader(), body });
      statuses.push(r.status);
    }
  });
  await Promise.all(uploads);
  assert.equal(await cli, Array(8).fill(0), 'every CLI command succeeded');
  assert.equal(
    statuses.filter((s) => s !== 200),
    [],
    'every chunk answered 200 (no 500 "database is locked")',
  );
  for (const f of t.json.files) {
    const got = await request(b.url, 'GET', `/file/${f.id}`, { headers: asUserHeader() });
    assert.equal([got.json.received, got.json.missing], [data.length, []]);
  }
});

/** Requests as the config's admin `ops` would not authenticate under the local SP: a session is made once. */
let opsCookie: Record<string, string> | null = null;
function asUserHeader(): Record<string, string> {
  if (!opsCookie) throw new Error('no session for ops');
  return opsCookie;
}

test.before(async () => {
  const added = await ferry(['user', 'add', 'ops', '--email', 'ops@example.org', '--password-stdin'], 'ops password\n');
  assert.is(added.code, 0, added.out);
  await loginOps();
});

async function loginOps(): Promise<void> {
  const login = await request(b.url, 'POST', '/login', { json: { user_id: 'ops', password: 'ops password' } });
  assert.is(login.status, 200, login.text);
  opsCookie = {
    Cookie: login.headers.get('set-cookie')!.split(';')[0],
    'X-Ferry-Security-Token': login.json.csrf_token,
  };
}

test.run();
