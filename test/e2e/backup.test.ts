import { test } from 'uvu';
import * as assert from 'uvu/assert';
import BetterSqlite3 from 'better-sqlite3';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY, runFerry, startBinary, writeConfig, BinaryServer, RunResult } from '../helpers/binary';
import { HEADER_SP, asUser, request, tempDir } from '../helpers/server';
import { inAWeek, patternBytes, sendChunks, sha256 } from '../helpers/upload-client';

const alice = asUser('alice');
const MiB = 1024 * 1024;
const CHUNK = MiB;

/** ferry <args> without blocking this process's event loop (the uploads it runs beside must go on). */
function runFerryAsync(args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    const p = spawn(BINARY, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => p.kill('SIGKILL'), 120_000);
    p.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

interface Sent {
  id: number;
  token: string;
  files: { id: number; data: Buffer }[];
}

/** Creates a transfer of `sizes`, uploads every file (2 chunks in flight) and makes it available. */
async function send(url: string, seed: string, sizes: number[]): Promise<Sent> {
  const req = (method: string, p: string, init: Parameters<typeof request>[3] = {}) =>
    request(url, method, p, { ...init, headers: { ...alice, ...(init.headers ?? {}) } });
  const t = await req('POST', '/transfer', {
    json: {
      files: sizes.map((size, i) => ({ name: `${seed}-${i}.bin`, size })),
      recipients: ['r@example.org'],
      from: 'alice@example.org',
      expires: inAWeek(),
    },
  });
  assert.is(t.status, 201, t.text);
  const files = t.json.files.map((f: { id: number }, i: number) => ({
    id: f.id,
    data: patternBytes(`${seed}-${i}`, sizes[i]),
  }));
  for (const f of files) {
    for (const r of await sendChunks(req, f.id, f.data, CHUNK, { parallel: 2 })) assert.is(r.status, 200, r.text);
    assert.is((await req('PUT', `/file/${f.id}`, { json: { complete: true } })).status, 200);
  }
  assert.is((await req('PUT', `/transfer/${t.json.id}`, { json: { complete: true } })).status, 200);
  return { id: t.json.id, token: t.json.recipients[0].token, files };
}

test('backup --files during parallel uploads, restore into an empty data dir: the second server serves every transfer available in the snapshot byte-identical', async () => {
  const s: BinaryServer = await startBinary({ config: HEADER_SP });
  const dir2 = tempDir('ferry-restored-');
  let s2: BinaryServer | null = null;
  try {
    // Finished before the backup starts.
    const before = [await send(s.url, 'before-a', [3 * MiB + 17, 5]), await send(s.url, 'before-b', [2 * MiB])];
    // And one surely unfinished at the snapshot: half its chunks now, the rest after the backup.
    const half = (
      await request(s.url, 'POST', '/transfer', {
        headers: alice,
        json: {
          files: [{ name: 'half.bin', size: 4 * MiB }],
          recipients: ['r@example.org'],
          from: 'alice@example.org',
          expires: inAWeek(),
        },
      })
    ).json;
    const halfData = patternBytes('half', 4 * MiB);
    const halfReq = (method: string, p: string, init: Parameters<typeof request>[3] = {}) =>
      request(s.url, method, p, { ...init, headers: { ...alice, ...(init.headers ?? {}) } });
    for (const r of await sendChunks(halfReq, half.files[0].id, halfData, CHUNK, { order: [0, 1] }))
      assert.is(r.status, 200, r.text);
    // Four uploads running while the backup is taken; some finish before its snapshot, some after.
    const running = Array.from({ length: 4 }, (_, i) =>
      send(s.url, `during-${i}`, [i === 0 ? MiB + 1 : (16 + 4 * i) * MiB + i]),
    );
    await new Promise((r) => setTimeout(r, 400));
    const backupDir = path.join(s.dir, 'backup');
    const t0 = Date.now();
    const b = await runFerryAsync(['backup', backupDir, '--files', '-c', s.configFile]);
    const backupMs = Date.now() - t0;
    assert.is(b.code, 0, b.stderr);
    assert.match(b.stdout, /backed up \d+ transfers/);
    const during = await Promise.all(running);
    for (const r of await sendChunks(halfReq, half.files[0].id, halfData, CHUNK, { order: [2, 3] }))
      assert.is(r.status, 200, r.text);
    assert.is((await halfReq('PUT', `/file/${half.files[0].id}`, { json: { complete: true } })).status, 200);
    assert.is((await halfReq('PUT', `/transfer/${half.id}`, { json: { complete: true } })).status, 200);
    const all = [...before, ...during];

    const manifest = JSON.parse(fs.readFileSync(path.join(backupDir, 'manifest.json'), 'utf8'));
    assert.ok(manifest.ferry_version && manifest.schema_version > 0 && manifest.created);
    // Which transfers the snapshot holds as available: those the restored instance must serve whole.
    const snap = new BetterSqlite3(path.join(backupDir, 'ferry.db'), { readonly: true });
    const available = new Set(
      (snap.prepare(`SELECT id FROM transfers WHERE status = 'available'`).all() as { id: number }[]).map((r) => r.id),
    );
    snap.close();
    for (const t of before) assert.ok(available.has(t.id), `transfer ${t.id} finished before the backup`);
    assert.not.ok(available.has(half.id));
    assert.ok(manifest.partial_files.includes(`files/${half.id}/${half.files[0].uid}`));
    assert.is(manifest.counts.available_transfers, available.size);
    const listed = all.filter((t) => available.has(t.id));
    assert.is(
      manifest.files.length,
      listed.reduce((n, t) => n + t.files.length, 0),
    );
    const bytes = fs
      .readdirSync(path.join(backupDir, 'files'), { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .reduce((n, d) => n + fs.statSync(path.join(d.parentPath, d.name)).size, 0);
    console.log(
      `  backup of ${available.size} available transfers (${all.length + 1 - available.size} still uploading): ${backupMs} ms, ${bytes} bytes of files + ${fs.statSync(path.join(backupDir, 'ferry.db')).size} bytes of metadata`,
    );

    // Restore into a new, empty data dir and start a second server on it.
    const config2 = writeConfig(dir2, HEADER_SP);
    const r = runFerry(['restore', backupDir, '-c', config2]);
    assert.is(r.code, 0, r.stderr);
    s2 = await startBinary({ dir: dir2 });
    for (const t of listed) {
      for (const f of t.files) {
        const res = await fetch(`${s2.url}/download?token=${t.token}&files_ids=${f.id}`);
        assert.is(res.status, 200, `transfer ${t.id} file ${f.id}`);
        assert.is(sha256(Buffer.from(await res.arrayBuffer())), sha256(f.data), `transfer ${t.id} file ${f.id}`);
      }
    }

    // The unfinished upload comes back as it was in the snapshot (half received), for its sender to resume.
    const halfBack = await request(s2.url, 'GET', `/file/${half.files[0].id}`, { headers: alice });
    assert.is(halfBack.json.received, 2 * MiB);

    // A damaged backup is refused (exit 1, the file named) and leaves no data dir behind.
    const damaged = path.join(s.dir, 'damaged');
    fs.cpSync(backupDir, damaged, { recursive: true });
    const victim = path.join(damaged, manifest.files[0].path);
    const bytesOf = fs.readFileSync(victim);
    bytesOf[0] ^= 1;
    fs.writeFileSync(victim, bytesOf);
    const dir3 = path.join(s.dir, 'third');
    fs.mkdirSync(dir3);
    const config3 = writeConfig(dir3);
    const bad = runFerry(['restore', damaged, '-c', config3]);
    assert.is(bad.code, 1, bad.stderr);
    assert.match(
      bad.stderr,
      /^error: files\/\d+\/[0-9a-f]{32}: SHA-256 differs from the manifest's; the backup is damaged\n$/,
    );
    assert.not.ok(fs.existsSync(path.join(dir3, 'data')));

    // A second restore over the now used data dir is refused and changes nothing.
    const again = runFerry(['restore', backupDir, '-c', config2]);
    assert.is(again.code, 1);
    assert.match(again.stderr, /^error: the data directory .* is not empty\n$/);
    assert.ok(fs.existsSync(path.join(dir2, 'data', 'ferry.db')));
  } finally {
    await s2?.stop();
    await s.stop();
    fs.rmSync(s.dir, { recursive: true, force: true });
    fs.rmSync(dir2, { recursive: true, force: true });
  }
});

test('backup on a PostgreSQL config refuses with the pg_dump command to run, without the password', () => {
  const dir = tempDir('ferry-pg-backup-');
  try {
    const config = writeConfig(dir, { database_url: 'postgres://ferry:s3cret@db.internal:5432/ferry' });
    const r = runFerry(['backup', path.join(dir, 'out'), '-c', config]);
    assert.is(r.code, 1);
    assert.match(
      r.stderr,
      /^error: .*PostgreSQL.*pg_dump --format=custom --file=\S+ferry\.pgdump 'postgres:\/\/ferry@db\.internal:5432\/ferry'.*\n$/,
    );
    assert.not.ok(r.stderr.includes('s3cret'));
    assert.not.ok(fs.existsSync(path.join(dir, 'out')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('restore refuses a directory that is not a backup', () => {
  const dir = tempDir('ferry-not-backup-');
  try {
    const config = writeConfig(dir);
    const r = runFerry(['restore', path.join(dir, 'nothing'), '-c', config]);
    assert.is(r.code, 1);
    assert.match(r.stderr, /no manifest\.json/);
    assert.not.ok(fs.existsSync(path.join(dir, 'data')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
