import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startBinary, type BinaryServer } from '../helpers/binary';
import { callNode, clusterNodeConfig, putChunk } from '../helpers/node-calls';
import { asUser, tempDir } from '../helpers/server';
import { startTestSink, type TestSink } from '../helpers/mail';
import { patternBytes, sha256 } from '../helpers/upload-client';
import { freshPostgresDatabase } from '../helpers/system/postgres';
import { s3Env, s3NodeStorage, startS3, type S3Server } from '../helpers/system/s3';
import { migrations } from '../../src/db/migrations';

// A rolling upgrade (docs/deploying.md, "Upgrading a cluster"): the previous release (the newest commit whose
// migrations stop before this tree's, built once with its own ./build.sh and kept under the temp dir by commit)
// runs on PostgreSQL and S3; a node of this tree starts beside it and migrates the database; uploads begun on the
// old node are finished through the new one and the other way round, chunks alternating between them; every file
// downloads intact from both; the old node is stopped, and the new one goes on. The old node, started again on
// the migrated database, refuses to (it is a released binary: its words are its own).

const ROOT = path.resolve(__dirname, '../..');
const MiB = 1024 * 1024;
const CHUNK = 5 * MiB;
const alice = asUser('alice');

const latest = Math.max(...migrations.map((m) => m.version));

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * MiB });
}

/** Each migration's SQL by version, as a migrations.ts file writes it. */
function sqlByVersion(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const m of text.matchAll(/^\s*version: (\d+),\s*sql: `([^`]*)`/gm)) out.set(Number(m[1]), m[2].trim());
  return out;
}

/**
 * The release this one upgrades: the newest commit whose migrations are a beginning of this tree's (the same
 * SQL under each number) and fewer. A branch whose migration was numbered again when merged is passed over.
 */
function previousRelease(): { commit: string; schema: number } {
  const mine = sqlByVersion(fs.readFileSync(path.join(ROOT, 'src/db/migrations.ts'), 'utf8'));
  for (const commit of git(['log', '--format=%H', '-n', '200', 'HEAD', '--', 'src/db/migrations.ts']).split('\n')) {
    if (!commit) continue;
    const theirs = sqlByVersion(git(['show', `${commit}:src/db/migrations.ts`]));
    const schema = Math.max(...theirs.keys());
    if (schema < latest && [...theirs].every(([v, sql]) => mine.get(v) === sql)) return { commit, schema };
  }
  throw new Error('no commit in the last 200 changes of src/db/migrations.ts has fewer migrations (a shallow clone?)');
}

/** Builds the commit's dist/ferry once into a directory of the temp dir named after it; returns the binary. */
async function buildOnce(commit: string): Promise<string> {
  const dir = path.join(os.tmpdir(), `ferry-release-${commit.slice(0, 12)}`);
  const binary = path.join(dir, 'dist', 'ferry');
  if (fs.existsSync(binary)) return binary;
  const work = `${dir}.building-${process.pid}`;
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive "${commit}" | tar -x -C "${work}"`]);
  // This tree's installed dependencies (the build pins its Node there): a release's own lockfile changes rarely,
  // and the binary carries everything it needs once built.
  fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'node_modules')), path.join(work, 'node_modules'));
  const code = await new Promise<number | null>((resolve) => {
    const p = spawn('./build.sh', [], { cwd: work, stdio: 'ignore' });
    p.on('close', resolve);
  });
  if (code !== 0 || !fs.existsSync(path.join(work, 'dist', 'ferry'))) throw new Error(`building ${commit} failed`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(work, dir);
  return binary;
}

let dir: string;
let sink: TestSink;
let s3: S3Server;
let databaseUrl: string;
let oldBinary: string;
let previous: { commit: string; schema: number };

test.before(async () => {
  previous = previousRelease();
  dir = tempDir('ferry-upgrade-');
  [sink, s3, databaseUrl, oldBinary] = await Promise.all([
    startTestSink(),
    startS3(),
    freshPostgresDatabase('ferry_upgrade'),
    buildOnce(previous.commit),
  ]);
});

test.after(async () => {
  await sink?.close();
  await s3?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const call = (node: BinaryServer, method: string, p: string, json?: unknown) =>
  callNode(node, alice, method, p, json, 60_000);

async function chunk(node: BinaryServer, fileId: number, data: Buffer, offset: number) {
  const r = await putChunk(node, alice, fileId, data.length, offset, data.subarray(offset, offset + CHUNK));
  assert.is(r.status, 200, await r.text());
}

test('the previous release and this one side by side: migrate, upload through both, download intact from both, stop the old one', async () => {
  const config = clusterNodeConfig(databaseUrl, sink.url, s3NodeStorage(s3, 'upgrade/'));
  const env = s3Env(s3);
  for (const n of ['old', 'new']) fs.mkdirSync(path.join(dir, n));
  const old = await startBinary({ dir: path.join(dir, 'old'), config, env, binary: oldBinary, timeoutMs: 60_000 });
  let fresh: BinaryServer | null = null;
  try {
    const size = 3 * CHUNK + 4321;
    const a = patternBytes('made-on-old', size);
    const b = patternBytes('made-on-new', size);
    const newTransfer = async (node: BinaryServer, name: string) => {
      const r = await call(node, 'POST', '/transfer', {
        files: [{ name, size }],
        recipients: ['lab@example.org'],
        from: 'alice@example.org',
        subject: name,
        expires: Math.floor(Date.now() / 1000) + 86400,
      });
      assert.is(r.status, 201, r.text);
      return r.json;
    };
    // Begun on the old release alone.
    const ta = await newTransfer(old, 'a.bin');
    await chunk(old, ta.files[0].id, a, 0);

    // This release starts beside it and migrates the database.
    fresh = await startBinary({ dir: path.join(dir, 'new'), config, env, timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 200));
    assert.match(fresh.output(), /running .* \(feature level \d+; level in force \d+\)/, fresh.output());
    const tb = await newTransfer(fresh, 'b.bin');
    const nodes = [old, fresh];
    for (let i = 1, offset = CHUNK; offset < size; i++, offset += CHUNK) {
      await chunk(nodes[i % 2], ta.files[0].id, a, offset);
    }
    for (let i = 0, offset = 0; offset < size; i++, offset += CHUNK) {
      await chunk(nodes[(i + 1) % 2], tb.files[0].id, b, offset);
    }
    // Each finished through the other node than the one it was made on.
    for (const [node, t] of [
      [fresh, ta],
      [old, tb],
    ] as const) {
      const f = await call(node, 'PUT', `/file/${t.files[0].id}`, { complete: true });
      assert.is(f.status, 200, f.text);
      const done = await call(node, 'PUT', `/transfer/${t.id}`, { complete: true });
      assert.is(done.status, 200, done.text);
    }
    for (const [t, data] of [
      [ta, a],
      [tb, b],
    ] as const) {
      for (const node of nodes) {
        const r = await fetch(`${node.url}/download?token=${t.recipients[0].token}&files_ids=${t.files[0].id}`, {
          signal: AbortSignal.timeout(60_000),
        });
        assert.is(r.status, 200);
        assert.is(sha256(Buffer.from(await r.arrayBuffer())), sha256(data), `${t.files[0].name} from ${node.url}`);
      }
    }

    // The old node is stopped; the new one goes on alone.
    assert.is(await old.stop(), 0, old.output());
    const alone = await call(fresh, 'GET', `/transfer/${ta.id}`);
    assert.is(alone.status, 200);
    assert.is(alone.json.status, 'available');

    // Started again on the migrated database, the previous release refuses to run (its own words: it was
    // released before the plain refusal of docs/deploying.md).
    const refused = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const p = spawn(oldBinary, ['serve', '-c', old.configFile], { env: { ...process.env, ...env } });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (out += d));
      const timer = setTimeout(() => p.kill('SIGKILL'), 30_000);
      p.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, out });
      });
    });
    assert.ok(refused.code !== 0 && refused.code !== null, `the old release exits: ${refused.code} ${refused.out}`);
    assert.match(refused.out, new RegExp(`schema version ${latest} is newer|schema \\(version ${latest}\\)`));
    assert.not.match(refused.out, /listening on/);
  } finally {
    await fresh?.stop();
    await old.stop().catch(() => {});
  }
});

test.run();
