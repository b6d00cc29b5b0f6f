import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requestSignatureMatches } from '../../src/auth/signature';
import type { AuthRequest } from '../../src/auth/principal';
import { clientConfigDir, parseRemoteConfig, resolveCredentials, saveCredentials } from '../../src/client/credentials';
import { destination, parseDownloadLink } from '../../src/client/download';
import { errorBody, FerryApi } from '../../src/client/http';
import { ApiError, namedFailure } from '../../src/client/errors';
import { transferOf } from '../../src/client/servers/common';
import { fileRows } from '../../src/client/servers/filesender-download';
import { configInt, configOn, parseConfigScript } from '../../src/client/servers/filesender-config';
import { barLine, humanBytes, humanDuration } from '../../src/client/progress';
import { resumeKey } from '../../src/client/resume-store';
import { collectSources } from '../../src/client/sources';
import { ClientError } from '../../src/client/errors';
import { splitAddresses } from '../../src/cli/send';
import { systemdWord } from '../../src/service/systemd-units';

const SECRET = 'a'.repeat(64);

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-unit-'));
}

/** The request the server sees for a URL the client built (as the authenticate middleware reads it). */
function arrived(method: string, url: URL, body = Buffer.alloc(0)): AuthRequest {
  const rawQuery = url.search.slice(1);
  return {
    method,
    path: url.pathname,
    rawQuery,
    query: new URLSearchParams(rawQuery),
    headers: { host: url.host },
    remoteAddress: '127.0.0.1',
    body,
    cookies: {},
  };
}

test('remote_config from the profile page: url, user (which may hold a |) and secret', () => {
  assert.equal(parseRemoteConfig(`https://files.example.org/|alice|${SECRET}\n`), {
    url: 'https://files.example.org',
    user: 'alice',
    secret: SECRET,
  });
  assert.equal(parseRemoteConfig(`http://h:8080/ferry/|a|b@x|${SECRET}`), {
    url: 'http://h:8080/ferry',
    user: 'a|b@x',
    secret: SECRET,
  });
  for (const bad of [
    'hello',
    `https://x/|${SECRET}`,
    'https://x/|alice|short',
    `ftp://x/|alice|${SECRET}`,
    `https://x/?a=1|alice|${SECRET}`,
  ]) {
    assert.throws(
      () => parseRemoteConfig(bad),
      (e: unknown) => e instanceof ClientError && e.exitCode === 1,
      bad,
    );
  }
});

test('credentials: --url/--user over the environment over the saved file; the secret never from a flag', () => {
  const home = tmp();
  try {
    const env: NodeJS.ProcessEnv = { XDG_CONFIG_HOME: home };
    assert.is(clientConfigDir(env), path.join(home, 'ferry'));
    assert.is(
      clientConfigDir({ XDG_CONFIG_HOME: 'relative', HOME: home }),
      path.join(os.homedir(), '.config', 'ferry'),
    );
    assert.throws(() => resolveCredentials({}, env), /not logged in/);
    saveCredentials({ url: 'http://saved', user: 'saved', secret: SECRET }, env);
    assert.equal(resolveCredentials({}, env), { url: 'http://saved', user: 'saved', secret: SECRET });
    const withEnv = { ...env, FERRY_URL: 'http://env/', FERRY_USER: 'envuser' };
    assert.equal(resolveCredentials({}, withEnv), { url: 'http://env', user: 'envuser', secret: SECRET });
    assert.equal(resolveCredentials({ url: 'http://flag', user: 'flaguser' }, withEnv), {
      url: 'http://flag',
      user: 'flaguser',
      secret: SECRET,
    });
    assert.equal(
      resolveCredentials(
        {},
        { XDG_CONFIG_HOME: path.join(home, 'none'), FERRY_REMOTE_CONFIG: `http://whole/|w|${'b'.repeat(64)}` },
      ),
      {
        url: 'http://whole',
        user: 'w',
        secret: 'b'.repeat(64),
      },
    );
    assert.throws(
      () => resolveCredentials({}, { XDG_CONFIG_HOME: path.join(home, 'none'), FERRY_URL: 'http://x' }),
      /no user, secret/,
    );
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test("the client's signature is the one the server checks: bodies, odd user ids, a path prefix", () => {
  const cases = [
    { url: 'http://127.0.0.1:8080', user: 'alice', base: 'http://127.0.0.1:8080' },
    { url: 'https://files.example.org/ferry', user: 'bob smith@example.org', base: 'https://files.example.org/ferry' },
  ];
  for (const c of cases) {
    const api = new FerryApi({ url: c.url, user: c.user, secret: SECRET });
    for (const [method, p, body] of [
      ['GET', '/transfer/12', undefined],
      ['POST', '/transfer', Buffer.from('{"a":1}')],
      ['PUT', '/file/3/chunk/5242880', Buffer.alloc(70000, 7)],
    ] as const) {
      const url = api.signedUrl(method, p, { token: 'x y' }, body);
      const signature = url.searchParams.get('signature')!;
      assert.ok(
        requestSignatureMatches(signature, [SECRET], arrived(method, url, body), c.base),
        `${c.url} ${method} ${p}`,
      );
      assert.not.ok(requestSignatureMatches(signature, ['b'.repeat(64)], arrived(method, url, body), c.base));
      if (body)
        assert.not.ok(
          requestSignatureMatches(
            signature,
            [SECRET],
            arrived(method, url, Buffer.concat([body, Buffer.from('!')])),
            c.base,
          ),
        );
    }
    api.close();
  }
});

test('download links: the page link and a file link, with a path prefix', () => {
  assert.equal(parseDownloadLink('https://h/?s=download&token=abc'), { base: 'https://h', token: 'abc', ids: null });
  assert.equal(parseDownloadLink('http://h:81/ferry/?s=download&token=abc'), {
    base: 'http://h:81/ferry',
    token: 'abc',
    ids: null,
  });
  assert.equal(parseDownloadLink('http://h/ferry/download?token=abc&files_ids=3,4'), {
    base: 'http://h/ferry',
    token: 'abc',
    ids: [3, 4],
  });
  assert.throws(() => parseDownloadLink('https://h/?s=download'), /not a download link/);
  assert.throws(() => parseDownloadLink('file:///etc/passwd?token=x'), /not a download link/);
});

test('destination: inside the folder or refused', () => {
  const root = tmp();
  try {
    assert.is(destination(root, 'a/b/c.txt'), path.join(root, 'a', 'b', 'c.txt'));
    assert.ok(fs.statSync(path.join(root, 'a', 'b')).isDirectory());
    assert.throws(() => destination(root, '../x'), /outside/);
    assert.throws(() => destination(root, ''), /outside/);
    fs.symlinkSync('/tmp', path.join(root, 'link'));
    assert.throws(() => destination(root, 'link/x'), /symbolic link/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('sources: folders walked in name order with their relative paths; same names refused; links to folders skipped', () => {
  const root = tmp();
  try {
    fs.mkdirSync(path.join(root, 'photos', '2026'), { recursive: true });
    for (const f of ['photos/2026/b.jpg', 'photos/2026/a.jpg', 'photos/z.txt', 'one.txt'])
      fs.writeFileSync(path.join(root, f), f);
    fs.symlinkSync(path.join(root, 'photos'), path.join(root, 'photos', 'loop'));
    const { files, skipped } = collectSources(['one.txt', 'photos'], root);
    assert.equal(
      files.map((f) => f.name),
      ['one.txt', 'photos/2026/a.jpg', 'photos/2026/b.jpg', 'photos/z.txt'],
    );
    assert.is(files[1].size, 'photos/2026/a.jpg'.length);
    assert.is(skipped.length, 1);
    assert.match(skipped[0], /a link to a folder/);
    fs.mkdirSync(path.join(root, 'other'));
    fs.writeFileSync(path.join(root, 'other', 'one.txt'), 'x');
    assert.throws(() => collectSources(['one.txt', 'other/one.txt'], root), /same name "one\.txt"/);
    assert.throws(() => collectSources(['nope'], root), /no such file or folder: nope/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('resume key: the same command on the same files finds its record; a touched file does not', () => {
  const f = { path: '/a', name: 'a', size: 3, mtimeMs: 1000 };
  const k = resumeKey({ url: 'u', user: 'alice', files: [f], terms: { r: ['b@x'] } });
  assert.is(resumeKey({ url: 'u', user: 'alice', files: [{ ...f }], terms: { r: ['b@x'] } }), k);
  assert.is.not(resumeKey({ url: 'u', user: 'alice', files: [{ ...f, mtimeMs: 2000 }], terms: { r: ['b@x'] } }), k);
  assert.is.not(resumeKey({ url: 'u', user: 'alice', files: [f], terms: { r: ['c@x'] } }), k);
});

test('progress line, sizes, durations, addresses, systemd quoting', () => {
  assert.is(humanBytes(512), '512 B');
  assert.is(humanBytes(5 * 1024 * 1024), '5.0 MiB');
  assert.is(humanBytes(1024 ** 3), '1.0 GiB');
  assert.is(humanDuration(3725), '1:02:05');
  assert.is(humanDuration(65), '1:05');
  assert.is(
    barLine(512 * 1024 ** 2, 1024 ** 3, 100 * 1024 ** 2, 'big.bin', 200),
    '[##########..........]  50%  512 MiB / 1.0 GiB  100 MiB/s  ETA 0:05  big.bin',
  );
  assert.is(barLine(0, 10, 0, 'x', 20).length, 19);
  assert.equal(splitAddresses(['a@x,b@y', 'c@z; d@w ']), ['a@x', 'b@y', 'c@z', 'd@w']);
  assert.is(systemdWord('/usr/local/bin/ferry'), '/usr/local/bin/ferry');
  assert.is(systemdWord('/srv/my files/ferry.json'), '"/srv/my files/ferry.json"');
  assert.is(systemdWord('/srv/100%/$HOME'), '/srv/100%%/$$HOME');
});

test('answers of either server kind: error details as a list or an object, a refusal named on 500 is final, HTML named as such', () => {
  const res = (status: number, body: string, type = 'application/json') => ({
    status,
    headers: { 'content-type': type },
    body: Buffer.from(body),
  });
  assert.equal(
    errorBody(res(403, '{"message":"rest_ownership_required","uid":"x","details":{"method":"get","endpoint":"user"}}')),
    { id: 'rest_ownership_required', details: ['method: get', 'endpoint: user'] },
  );
  assert.equal(errorBody(res(400, '{"message":"bad_email","details":["from"]}')), {
    id: 'bad_email',
    details: ['from'],
  });
  assert.equal(errorBody(res(500, '{"message":"bad_email","uid":"x","details":null}')), {
    id: 'bad_email',
    details: [],
  });
  assert.match(
    errorBody(res(502, '<html>Bad Gateway</html>', 'text/html')).id,
    /^HTTP 502 \(text\/html, 24 bytes: "<html>Bad Gateway<\/html>"\)$/,
  );
  assert.ok(namedFailure(500, 'auth_remote_signature_check_failed'));
  assert.not.ok(namedFailure(500, 'internal_error'));
  assert.not.ok(namedFailure(500, 'HTTP 500'));
  assert.not.ok(namedFailure(503, 'database_unavailable'));
  assert.is(new ApiError(500, 'bad_email', [], 'x').exitCode, 1);
  assert.is(new ApiError(500, 'internal_error', [], 'x').exitCode, 2);
});

test('FileSender\'s answers as PHP echoes them: sizes and expiry as strings, a cid of "0" as false; unusable ones named', () => {
  const t = transferOf('creating the transfer', 'POST /transfer', {
    id: 2,
    files: [{ id: 2, name: 'a.bin', size: '10', cid: false }],
    recipients: [],
    expires: { raw: '1796076456', formatted: 'x' },
  });
  assert.equal(t.files[0].size, 10);
  assert.equal(t.expires, { raw: 1796076456 });
  assert.throws(
    () => transferOf('creating the transfer', 'POST /transfer', { id: 2, files: [{ id: 2 }], recipients: [] }),
    /creating the transfer: the answer to POST \/transfer has no list of files with id, name and size: \{"id":2/,
  );
  assert.throws(() => transferOf('x', 'GET /transfer/1', null), /has no transfer id: null/);
});

test("FileSender's download page: one row per file, its data-* attributes with entities decoded", () => {
  const rows = fileRows(
    '<table><tr class="file" data-id="7"\n data-encrypted="1" data-name="a &amp; b/&quot;q&quot; &#039;s.txt" data-size="6" data-key-salt="S+/x"\n><td></td></tr><tr class="other" data-id="9"></tr></table>',
  );
  assert.equal(rows, [{ id: '7', encrypted: '1', name: 'a & b/"q" \'s.txt', size: '6', key_salt: 'S+/x' }]);
});

test("FileSender's settings script read as text; values PHP wrote as strings read as numbers and flags", () => {
  const c = parseConfigScript(
    "if (x) {}\nwindow.filesender.config = {\n    upload_chunk_size: 5242880,\n    encryption_password_hash_iterations_new_files: '4096000',\n    encryption_mandatory: '',\n    site_name: 'It\\'s ours',\n    language: {\n        downloading : \"Downloading\",\n    },\n    after_block: true,\n};\nconsole.log(1);",
  )!;
  assert.equal(c, {
    upload_chunk_size: 5242880,
    encryption_password_hash_iterations_new_files: '4096000',
    encryption_mandatory: '',
    site_name: "It's ours",
    after_block: true,
  });
  assert.is(configInt(c.encryption_password_hash_iterations_new_files), 4096000);
  assert.not.ok(configOn(c.encryption_mandatory));
  assert.ok(configOn('1'));
  assert.is(parseConfigScript('<html>not it</html>'), null);
});

test.run();
