import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isInboxFileName } from '../../src/mail/sink';
import { asUser, HEADER_SP, startTestServer, tempDir, TestServer } from '../helpers/server';
import { inAWeek, patternBytes, sha256 } from '../helpers/upload-client';
import { walk } from '../adversarial/injection-fixture';
import { availableTransfer } from '../helpers/factories';

// Folders: a file name may carry the relative path it had in an uploaded folder, as FileSender 3's
// clients and ferry's own page send it. The tree comes back in the archive download; a name whose path would
// leave the folder it is unpacked into is refused; and whatever the names, the data stays under
// data/files/<transfer id>/<file uid>.
let s: TestServer;
const alice = asUser('alice');
const CHUNK = 64 * 1024;
const TREE = [
  { name: 'trip/2026/day 1/a.jpg', data: patternBytes('a', 3 * CHUNK + 5) },
  { name: 'trip/2026/b.jpg', data: patternBytes('b', 100) },
  { name: 'trip/notes é.txt', data: patternBytes('n', 10) },
  { name: 'readme.txt', data: patternBytes('r', 20) },
  { name: 'trip/.hidden/..x/...', data: patternBytes('dots', 7) },
];

test.before(async () => {
  // This test looks at data/files itself: the filesystem store whatever FERRY_TEST_STORAGE says.
  s = await startTestServer({ ...HEADER_SP, upload_chunk_size: CHUNK, storage: { type: 'fs' } });
});
test.after(() => s.close());

const post = (files: { name: string; size: number }[], headers = alice) =>
  s.request('POST', '/transfer', {
    headers,
    json: { files, recipients: ['r@example.org'], from: 'alice@example.org', expires: inAWeek() },
  });

const available = (files: { name: string; data: Buffer }[]) =>
  availableTransfer(s, files, { chunk: CHUNK, parallel: 2 });

/** Every file below dir, relative, with its SHA-256. */
function tree(dir: string): Record<string, string> {
  return Object.fromEntries(walk(dir).map((p) => [p, sha256(fs.readFileSync(path.join(dir, p)))]));
}

test('a folder tree is kept: the names come back as sent, and the ZIP and the tar unpack to the same tree', async () => {
  const { t, token } = await available(TREE);
  assert.equal(
    t.files.map((f: any) => f.name),
    TREE.map((f) => f.name),
  );
  const want = Object.fromEntries(TREE.map((f) => [f.name, sha256(f.data)]));
  const dir = tempDir('ferry-tree-');
  try {
    fs.writeFileSync(
      path.join(dir, 'all.zip'),
      Buffer.from(await (await fetch(`${s.url}/download?token=${token}`)).arrayBuffer()),
    );
    // Unpacked by an independent implementation (Python's zipfile), into a folder of its own.
    const py = spawnSync(
      'python3',
      [
        '-c',
        'import zipfile,sys\nzipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])',
        path.join(dir, 'all.zip'),
        path.join(dir, 'zip'),
      ],
      { encoding: 'utf8' },
    );
    assert.is(py.status, 0, py.stderr);
    assert.equal(tree(path.join(dir, 'zip')), want);
    const tar = await fetch(`${s.url}/download?token=${token}&archive_format=tar`);
    fs.writeFileSync(path.join(dir, 'all.tar'), Buffer.from(await tar.arrayBuffer()));
    fs.mkdirSync(path.join(dir, 'tar'));
    const x = spawnSync('tar', ['-xf', path.join(dir, 'all.tar'), '-C', path.join(dir, 'tar')], { encoding: 'utf8' });
    assert.is(x.status, 0, x.stderr);
    assert.equal(tree(path.join(dir, 'tar')), want);
    // One file of the tree alone: its own name, the folders dropped, as a browser saves it.
    const one = await fetch(`${s.url}/download?token=${token}&files_ids=${t.files[0].id}`);
    assert.match(one.headers.get('content-disposition')!, /filename="a\.jpg"/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a path that would leave its folder is refused, whichever file carries it, and nothing is created', async () => {
  const before = (await s.request('GET', '/transfer', { headers: alice })).json.length;
  const refused = [
    '../x.txt',
    'a/../../x.txt',
    'a/..',
    '..',
    '/etc/passwd',
    '/',
    'C:\\Windows\\x.ini',
    'c:x.txt',
    '\\\\server\\share\\x',
    '..\\x.txt',
    'a\\..\\..\\x',
    'a//b.txt',
    'a/',
    './a.txt',
    'a/./b',
    'a/ /b.txt',
    ' /a.txt',
  ];
  for (const name of refused) {
    const r = await post([
      { name: 'fine/first.txt', size: 1 },
      { name, size: 1 },
    ]);
    assert.equal(
      [r.status, r.json.message, r.json.details],
      [400, 'rest_bad_parameter', ['files[1].name']],
      JSON.stringify(name),
    );
  }
  assert.is((await s.request('GET', '/transfer', { headers: alice })).json.length, before);
  // Odd but harmless names stay accepted: dots inside a segment, a colon past the first character, spaces.
  for (const name of ['a..b/c', '...', '.bashrc', 'notes: v2.txt', 'dir name/x.txt', 'x/y..']) {
    assert.is((await post([{ name, size: 1 }])).status, 201, name);
  }
});

test("a guest's folder names follow the same rules", async () => {
  const g = await s.request('POST', '/guest', {
    headers: alice,
    json: { recipient: 'g@example.net', from: 'alice@example.org' },
  });
  assert.is(g.status, 201, g.text);
  const vid = g.json.token as string;
  const asGuest = (name: string) =>
    s.request('POST', `/transfer?vid=${vid}`, {
      json: { files: [{ name, size: 1 }], recipients: ['x@example.org'], expires: inAWeek() },
    });
  assert.is((await asGuest('scans/2026/p1.pdf')).status, 201);
  const r = await asGuest('scans/../../p1.pdf');
  assert.equal([r.status, r.json.details], [400, ['files[0].name']]);
});

test('whatever the names, nothing is stored outside data/files/<transfer id>/<file uid>', async () => {
  const transfers = (await s.request('GET', '/transfer', { headers: alice })).json as any[];
  const every = new Set(transfers.flatMap((t) => t.files.map((f: any) => `files/${t.id}/${f.uid}`)));
  const uploaded = transfers.flatMap((t) =>
    t.files.filter((f: any) => f.received > 0).map((f: any) => `files/${t.id}/${f.uid}`),
  );
  // Besides the database, only the built-in inbox's messages, under names ferry makes (the invitation mail),
  // including one still being written under its temporary name (the mail queue sends after the answer).
  const ours = (p: string) =>
    /^ferry\.db(-wal|-shm)?$/.test(p) || (p.startsWith('mail-sink/') && isInboxFileName(p.slice('mail-sink/'.length)));
  const stored = walk(path.join(s.dir, 'data')).filter((p) => !ours(p));
  assert.ok(uploaded.length >= TREE.length);
  assert.equal(
    stored.filter((p) => !every.has(p)),
    [],
    'files that are no File of a Transfer',
  );
  for (const p of uploaded) assert.ok(stored.includes(p), `${p} missing`);
});

test.run();
