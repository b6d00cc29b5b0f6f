import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { signatureMatches, stringsToSign } from '../../src/auth/signature';
import type { AuthRequest } from '../../src/auth/principal';
import { arrivedRequest as req } from '../helpers/auth-request';

const texts = (r: AuthRequest, base: string) => stringsToSign(r, base).map((b) => b.toString('latin1'));

// Golden vectors: computed with Python's hmac module following FileSender's reference client
// (scripts/client/filesender.py: method & base_url without scheme + path ? sorted k=v [& body]).
const JSON_BODY = '{"from":"alice@example.org","recipients":["bob@example.org"],"files":[{"name":"a.txt","size":3}]}';

test('golden vector: a FileSender client POST through /rest.php with a JSON body', () => {
  const r = req(
    'POST',
    '/rest.php/transfer?remote_application=portal&remote_user=alice%40example.org&timestamp=1700000000&signature=e92fdaafeaadbfc090ae8df4f4571fced5df87c3',
    'files.example.org',
    JSON_BODY,
  );
  const candidates = stringsToSign(r, 'https://files.example.org');
  assert.ok(
    texts(r, 'https://files.example.org').includes(
      `post&files.example.org/rest.php/transfer?remote_application=portal&remote_user=alice@example.org&timestamp=1700000000&${JSON_BODY}`,
    ),
  );
  assert.ok(
    signatureMatches('e92fdaafeaadbfc090ae8df4f4571fced5df87c3', ['0123456789abcdef0123456789abcdef'], candidates),
  );
  assert.not.ok(signatureMatches('e92fdaafeaadbfc090ae8df4f4571fced5df87c3', ['another secret'], candidates));
});

test('golden vector: a chunk PUT signs the raw bytes, every byte value included', () => {
  const r = req(
    'PUT',
    '/rest.php/file/7/chunk/0?timestamp=1700000000&remote_user=alice&signature=472607c0acaeb1238539ced4f09a7ab98e5df679',
    'files.example.org',
    Buffer.from([...Array(256).keys()]),
  );
  assert.ok(
    signatureMatches(
      '472607c0acaeb1238539ced4f09a7ab98e5df679',
      ['user-secret'],
      stringsToSign(r, 'https://files.example.org'),
    ),
  );
  const oneByteOff = req('PUT', r.path + '?' + r.rawQuery, 'files.example.org', Buffer.from([...Array(255).keys(), 0]));
  assert.not.ok(
    signatureMatches(
      '472607c0acaeb1238539ced4f09a7ab98e5df679',
      ['user-secret'],
      stringsToSign(oneByteOff, 'https://files.example.org'),
    ),
  );
});

test('golden vector: a GET has no body part, and the Host header with its port is a variant', () => {
  const r = req(
    'GET',
    '/user?remote_user=alice&timestamp=1700000000&signature=702edaa8bc7a580b8229f266625e7a5809a49556',
    'files.example.org:8443',
  );
  assert.ok(
    texts(r, 'https://other.example').includes(
      'get&files.example.org:8443/user?remote_user=alice&timestamp=1700000000',
    ),
  );
  assert.ok(
    signatureMatches(
      '702edaa8bc7a580b8229f266625e7a5809a49556',
      ['user-secret'],
      stringsToSign(r, 'https://other.example'),
    ),
  );
});

test('arguments are sorted whatever their order on the wire, and the signature is left out wherever it is', () => {
  const r = req('GET', '/transfer/@me?timestamp=5&signature=abc&remote_user=u&remote_application=a', 'h');
  for (const t of texts(r, 'http://h'))
    assert.ok(t.endsWith('/transfer/@me?remote_application=a&remote_user=u&timestamp=5'), t);
});

test('no body: no trailing "&"; no argument but the signature: no "?"', () => {
  const r = req('DELETE', '/transfer/3?signature=abc', 'h');
  assert.equal([...new Set(texts(r, 'http://h'))], ['delete&h/transfer/3']);
});

test('host variants: Host as received, Host without its port, base_url host[:port] with its path prefix', () => {
  const r = req('GET', '/info?timestamp=1', '127.0.0.1:8080');
  const all = texts(r, 'https://files.example.org:8443/ferry');
  for (const want of [
    'get&127.0.0.1:8080/info?timestamp=1',
    'get&127.0.0.1/info?timestamp=1',
    'get&files.example.org:8443/ferry/info?timestamp=1',
  ]) {
    assert.ok(all.includes(want), `${want} in ${JSON.stringify(all)}`);
  }
  assert.not.ok(all.some((t) => t.includes('evil')));
});

test('a path that already carries base_url prefix is not prefixed twice', () => {
  const r = req('GET', '/ferry/info?timestamp=1', 'files.example.org');
  const all = texts(r, 'https://files.example.org/ferry');
  assert.ok(all.includes('get&files.example.org/ferry/info?timestamp=1'));
  assert.not.ok(all.some((t) => t.includes('/ferry/ferry/')));
});

test('percent-encoded arguments match a client that signed decoded values, and one that signed them as sent', () => {
  const r = req(
    'GET',
    '/user/@me/frequent_recipients?filterOp%5Bcontains%5D=a%20b&remote_user=x%40y.org&timestamp=1',
    'h',
  );
  const all = texts(r, 'http://h');
  assert.ok(all.includes('get&h/user/@me/frequent_recipients?filterOp[contains]=a b&remote_user=x@y.org&timestamp=1'));
  assert.ok(
    all.includes('get&h/user/@me/frequent_recipients?filterOp%5Bcontains%5D=a%20b&remote_user=x%40y.org&timestamp=1'),
  );
});

test('a percent-encoded path matches a client that signed it decoded (its HTTP library encoded it) and one that signed it as sent', () => {
  const r = req('GET', '/user/j%20doe/frequent_recipients?timestamp=1', 'h');
  const all = texts(r, 'http://h');
  assert.ok(all.includes('get&h/user/j doe/frequent_recipients?timestamp=1'));
  assert.ok(all.includes('get&h/user/j%20doe/frequent_recipients?timestamp=1'));
  const broken = req('GET', '/echo/%E0%A4%A?timestamp=1', 'h');
  assert.equal(
    [...new Set(texts(broken, 'http://h'))],
    ['get&h/echo/%E0%A4%A?timestamp=1'],
    'an undecodable path is kept as sent',
  );
});

test('signatureMatches: hex in either case; anything but 40 hex digits is refused before any comparison', () => {
  const r = req('GET', '/user?remote_user=alice&timestamp=1700000000', 'files.example.org:8443');
  const c = stringsToSign(r, 'http://x');
  assert.ok(signatureMatches('702EDAA8BC7A580B8229F266625E7A5809A49556', ['user-secret'], c));
  for (const bad of [
    '',
    '702edaa8',
    '702edaa8bc7a580b8229f266625e7a5809a49556aa',
    'z02edaa8bc7a580b8229f266625e7a5809a49556',
    ' 702edaa8bc7a580b8229f266625e7a5809a4955',
  ]) {
    assert.not.ok(signatureMatches(bad, ['user-secret'], c), bad);
  }
});

test('signatureMatches: any of several secrets (a rotation grace period) may sign', () => {
  const r = req('GET', '/user?remote_user=alice&timestamp=1700000000', 'files.example.org:8443');
  const c = stringsToSign(r, 'http://x');
  assert.ok(signatureMatches('702edaa8bc7a580b8229f266625e7a5809a49556', ['new-secret', 'user-secret'], c));
  assert.not.ok(signatureMatches('702edaa8bc7a580b8229f266625e7a5809a49556', ['new-secret'], c));
});

test.run();
