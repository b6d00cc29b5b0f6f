import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferBody } from '../helpers/factories';
import { startTestServer, HEADER_SP, TestServer, tempDir } from '../helpers/server';
import { startTestSink, TestSink } from '../helpers/mail';
import { patternBytes, sendChunks, sha256 } from '../helpers/upload-client';
import { zipEntries } from '../browser/zip-reader';
import { alice, assertErrorShape } from './fixture';
import {
  HOSTILE_NAMES,
  REFUSED_NAMES,
  UNSAFE,
  assertSafeEntryName,
  parseDisposition,
  tarEntries,
  walk,
} from './injection-fixture';

// Injection through file names: every hostile name is stored as given and comes back exactly from
// the API, but reaches the disk, the download headers, the ZIP and tar entries and the pages only as data:
// never a path, never a header line, never markup, never a bidi override that makes "gnp.exe" read "exe.png".
let s: TestServer;
let sink: TestSink;
let t: any;
let token: string;
const extraFiles: string[] = [];
const datas = HOSTILE_NAMES.map(([label], i) => patternBytes(label, 3 + i));

test.before(async () => {
  sink = await startTestSink();
  s = await startTestServer({ ...HEADER_SP, max_transfer_files: 60, mail: { transport: sink.url } });
  const created = await s.request('POST', '/transfer', {
    headers: alice,
    json: transferBody({
      files: HOSTILE_NAMES.map(([, name], i) => ({ name, size: datas[i].length, cid: name.slice(0, 200) })),
      subject: 'names',
      options: ['email_upload_complete'],
    }),
  });
  assert.is(created.status, 201, created.text);
  t = created.json;
  for (const [i, f] of t.files.entries()) {
    for (const r of await sendChunks(s.request, f.id, datas[i], 1024 * 1024, { headers: alice }))
      assert.is(r.status, 200, r.text);
    assert.is((await s.request('PUT', `/file/${f.id}`, { headers: alice, json: { complete: true } })).status, 200);
  }
  const done = await s.request('PUT', `/transfer/${t.id}`, { headers: alice, json: { complete: true } });
  assert.is(done.status, 200, done.text);
  token = done.json.recipients[0].token;
});
test.after(async () => {
  await s.close();
  await sink.close();
});

/** What a name may look like once it is a single path component: no controls or bidi, no directory part. */
function visibleBase(name: string): string {
  return name.replace(new RegExp(UNSAFE.source, 'g'), '').replace(/^.*[\\/]/, '') || 'download';
}

test('every hostile name round-trips exactly through POST, GET /transfer/{id}, GET /file/{id} and the cid', async () => {
  assert.equal(
    t.files.map((f: any) => f.name),
    HOSTILE_NAMES.map(([, n]) => n),
  );
  assert.equal(
    t.files.map((f: any) => f.cid),
    HOSTILE_NAMES.map(([, n]) => n.slice(0, 200)),
  );
  const got = await s.request('GET', `/transfer/${t.id}`, { headers: alice });
  assert.equal(
    got.json.files.map((f: any) => f.name),
    HOSTILE_NAMES.map(([, n]) => n),
  );
  for (const [i, f] of got.json.files.entries()) {
    const one = await s.request('GET', `/file/${f.id}`, { headers: alice });
    assert.is(one.json.name, HOSTILE_NAMES[i][1], HOSTILE_NAMES[i][0]);
  }
});

test('refused names (NUL, 10 kB, blank, lone surrogate, paths that leave their folder): 400 in the error shape, nothing stored', async () => {
  const before = (await s.request('GET', '/transfer', { headers: alice })).json.length;
  for (const [label, name, message, details] of REFUSED_NAMES) {
    const r = await s.request('POST', '/transfer', {
      headers: alice,
      json: transferBody({ files: [{ name, size: 1 }] }),
    });
    assert.is(r.status, 400, `${label}: ${r.text}`);
    assertErrorShape(r, label);
    assert.is(r.json.message, message, label);
    assert.equal(r.json.details, details, label);
  }
  assert.is((await s.request('GET', '/transfer', { headers: alice })).json.length, before);
});

test("legacy whole-file upload: the part's own file name and a hostile progress key are only data", async () => {
  const w = (
    await s.request('POST', '/transfer', {
      headers: alice,
      json: transferBody({ files: [{ name: 'legacy/w.bin', size: 5 }] }),
    })
  ).json;
  const key = "../../progress' OR 1=1 --";
  const boundary = 'xXx';
  const body = Buffer.from(
    [
      `--${boundary}`,
      'Content-Disposition: form-data; name="PHP_SESSION_UPLOAD_PROGRESS"',
      '',
      key,
      `--${boundary}`,
      `Content-Disposition: form-data; name="file"; filename="../../../../tmp/ferry-evil\\x"; filename*=UTF-8''..%2F..%2Fevil`,
      'Content-Type: text/html',
      '',
      'hello',
      `--${boundary}--`,
      '',
    ].join('\r\n'),
  );
  const r = await s.request('POST', `/file/${w.files[0].id}/whole`, {
    headers: { ...alice, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
  });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.name, 'legacy/w.bin');
  const p = await s.request('GET', `/legacyuploadprogress/${encodeURIComponent(key)}`);
  assert.is(p.json.bytes_processed, 5);
  extraFiles.push(`data/files/${w.id}/${w.files[0].uid}`);
});

test('nothing is written outside data_dir/files/<transfer id>/<file uid>', async () => {
  const files = walk(s.dir);
  const expected = new Set([...t.files.map((f: any) => `data/files/${t.id}/${f.uid}`), ...extraFiles]);
  for (const f of files) {
    if (/^data\/ferry\.db(-wal|-shm)?$/.test(f)) continue;
    assert.ok(expected.has(f), `unexpected file ${JSON.stringify(f)}`);
  }
  assert.is(files.filter((f) => f.startsWith('data/files/')).length, expected.size);
  assert.not.ok(fs.existsSync('/tmp/ferry-evil'));
  for (const [i, f] of t.files.entries())
    assert.is(sha256(fs.readFileSync(path.join(s.dir, 'data/files', String(t.id), f.uid))), sha256(datas[i]));
});

test('single-file downloads: RFC 6266/5987 Content-Disposition of the visible base name, no injected header, right bytes', async () => {
  for (const [i, f] of t.files.entries()) {
    const [label, name] = HOSTILE_NAMES[i];
    for (const method of ['GET', 'HEAD']) {
      const r = await fetch(`${s.url}/download?token=${token}&files_ids=${f.id}`, { method });
      assert.is(r.status, 200, label);
      const cd = parseDisposition(r.headers.get('content-disposition')!, label);
      assert.is(cd.name, visibleBase(name), label);
      assert.is(cd.fallback, cd.name.replace(/[^\x20-\x7e]|["\\%;]/g, '_'), label);
      assert.is(r.headers.get('x-injected'), null, label);
      assert.is(r.headers.get('content-type'), 'application/octet-stream', label);
      assert.is(r.headers.get('x-content-type-options'), 'nosniff', label);
      const body = Buffer.from(await r.arrayBuffer());
      if (method === 'GET') assert.ok(body.equals(datas[i]), `${label}: bytes`);
    }
  }
});

test('ZIP of all files: entry names stay inside the target directory, unique, each with its own bytes', async () => {
  const r = await fetch(`${s.url}/download?token=${token}&archive_format=zip`);
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-disposition')!, /^attachment; filename="names\.zip"/);
  const file = path.join(tempDir('ferry-inj-'), 'all.zip');
  fs.writeFileSync(file, Buffer.from(await r.arrayBuffer()));
  const entries = await zipEntries(file);
  assert.is(entries.length, HOSTILE_NAMES.length);
  entries.forEach((e, i) => {
    assertSafeEntryName(e.name, HOSTILE_NAMES[i][0]);
    assert.is(e.sha256, sha256(datas[i]), HOSTILE_NAMES[i][0]);
  });
  assert.is(new Set(entries.map((e) => e.name.toLowerCase())).size, entries.length, 'unique names');
  // A folder path comes out as the same tree.
  assert.is(entries[HOSTILE_NAMES.findIndex(([l]) => l === 'folder path')].name, 'etc/passwd');
  assert.is(entries[HOSTILE_NAMES.findIndex(([l]) => l === 'dots in a segment')].name, 'a/.../b..c/.hidden');
  assert.is(entries[HOSTILE_NAMES.findIndex(([l]) => l === 'RTL override inside')].name, 'photognp.exe');
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
});

test('tar of all files: the pax path and the ustar fallback name are both safe', async () => {
  const r = await fetch(`${s.url}/download?token=${token}&archive_format=tar`);
  assert.is(r.status, 200);
  const entries = tarEntries(Buffer.from(await r.arrayBuffer()));
  assert.is(entries.length, HOSTILE_NAMES.length);
  entries.forEach((e, i) => {
    const label = HOSTILE_NAMES[i][0];
    assertSafeEntryName(e.pax ?? e.ustar, `${label} (pax)`);
    assertSafeEntryName(e.ustar, `${label} (ustar)`);
    assert.ok(e.data.equals(datas[i]), `${label}: bytes`);
  });
});

test('the download page shows every name escaped and without bidi overrides; no markup from a name survives', async () => {
  const page = await s.request('GET', `/?s=download&token=${token}`, { headers: { accept: 'text/html' } });
  assert.is(page.status, 200);
  assert.not.match(page.text, '<script>alert');
  assert.not.match(page.text, '" onmouseover="');
  assert.not.ok(/[\u202a-\u202e\u2066-\u2069]/.test(page.text), 'no bidi override or isolate in the page');
  assert.match(page.text, '&lt;script&gt;alert(1)&lt;/script&gt;.html');
  assert.match(page.text, '&quot; onmouseover=&quot;alert(1)');
  assert.match(page.text, 'photognp.exe');
  assert.match(page.text, '&amp;amp;&amp;lt;b&amp;gt;.txt');
  // Every <label> holds one file's name: the count proves no name opened or closed an element.
  assert.is(page.text.match(/<label for="f\d+">/g)?.length, HOSTILE_NAMES.length);
});

test('mails naming the files: headers untouched by names, HTML escaped, text without controls or bidi', async () => {
  const mails = await sink.waitFor(2);
  for (const m of mails) {
    const label = String(m.to && 'text' in m.to ? m.to.text : '');
    assert.is(m.headers.get('x-injected'), undefined, label);
    assert.not.match(String(m.html), '<script>alert');
    assert.match(String(m.html), '&lt;script&gt;alert(1)&lt;/script&gt;.html');
    assert.not.ok(/[\u202a-\u202e\u2066-\u2069]/.test(String(m.html)), `${label}: no bidi override in the HTML part`);
    const text = m.text ?? '';
    for (const line of text.split('\n'))
      assert.not.ok(UNSAFE.test(line.replace(/\r$|\t/g, '')), `${label}: ${JSON.stringify(line)}`);
    assert.match(text, 'photognp.exe');
  }
});

test.run();
