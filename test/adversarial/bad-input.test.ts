import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, HEADER_SP, TestServer, RequestOptions } from '../helpers/server';
import { inAWeek } from '../helpers/upload-client';
import { alice, boss, buildWorld, dbHash, assertErrorShape, World } from './fixture';

// Bad input on every endpoint: each case must answer 4xx in the spec's error shape, the server
// must keep answering, and no table may change.
let s: TestServer;
let w: World;
const CHUNK = 1024;
const JSONH = { 'content-type': 'application/json' };

test.before(async () => {
  s = await startTestServer({ ...HEADER_SP, admin: ['boss'], upload_chunk_size: CHUNK, max_transfer_recipients: 50 });
  w = await buildWorld(s);
  await s.request('GET', '/user', { headers: boss }); // the header SP records a user on first sight: not part of a case
});
// Refused big bodies may leave half-read sockets behind; the server's close must not wait for them.
test.after(() => {
  s.server.server.closeAllConnections();
  return s.close();
});

type Case = [label: string, method: string, path: string, init: RequestOptions, status?: number];

const transferBody = (over: Record<string, unknown>) => ({
  files: [{ name: 'a.txt', size: 10 }],
  recipients: ['r@example.org'],
  from: 'alice@example.org',
  expires: inAWeek(),
  ...over,
});
const raw = (text: string | Buffer, headers: Record<string, string> = {}) => ({
  body: text,
  headers: { ...alice, ...JSONH, ...headers },
});
const j = (json: unknown, headers = alice) => ({ json, headers });
/** A recipient's download asking for a JSON error, as the REST clients do. */
const asJson = { headers: { accept: 'application/json' } };
const dl = (label: string, query: string): Case => [label, 'GET', `/download?${query}`, asJson];

const badValues: [string, unknown][] = [
  ['null', null],
  ['true', true],
  ['string', 'x'],
  ['number', 5],
  ['negative', -1],
  ['float', 1.5],
  ['huge', 1e308],
  ['bigint-ish', 1e20],
  ['array', [1]],
  ['object', { a: 1 }],
  ['nested', [[[[]]]]],
  ['NUL string', 'a\u0000b'],
];
const longEmail = `${'a'.repeat(300)}@example.org`;

function transferCases(): Case[] {
  const c: Case[] = [];
  for (const field of ['files', 'recipients', 'expires', 'from', 'subject', 'message', 'options']) {
    for (const [name, v] of badValues) {
      if (field === 'subject' || field === 'message') if (name === 'string' || name === 'NUL string') continue;
      if (name === 'null' && ['subject', 'message', 'options'].includes(field)) continue; // null = absent
      c.push([`POST /transfer ${field}=${name}`, 'POST', '/transfer', j(transferBody({ [field]: v }))]);
    }
  }
  for (const [name, v] of badValues) {
    if (name === 'string' || name === 'NUL string') {
      c.push([
        `POST /transfer files[0].size=${name}`,
        'POST',
        '/transfer',
        j(transferBody({ files: [{ name: 'a', size: v }] })),
      ]);
      continue;
    }
    c.push([
      `POST /transfer files[0].name=${name}`,
      'POST',
      '/transfer',
      j(transferBody({ files: [{ name: v, size: 1 }] })),
    ]);
    if (name !== 'number')
      c.push([
        `POST /transfer files[0].size=${name}`,
        'POST',
        '/transfer',
        j(transferBody({ files: [{ name: 'a', size: v }] })),
      ]);
    c.push([`POST /transfer files[0]=${name}`, 'POST', '/transfer', j(transferBody({ files: [v] }))]);
    c.push([`POST /transfer recipients[0]=${name}`, 'POST', '/transfer', j(transferBody({ recipients: [v] }))]);
  }
  c.push(
    [
      'POST /transfer NaN size (raw)',
      'POST',
      '/transfer',
      raw(
        `{"files":[{"name":"a","size":NaN}],"recipients":["r@example.org"],"from":"alice@example.org","expires":${inAWeek()}}`,
      ),
    ],
    [
      'POST /transfer size 1e400',
      'POST',
      '/transfer',
      raw(
        `{"files":[{"name":"a","size":1e400}],"recipients":["r@example.org"],"from":"alice@example.org","expires":${inAWeek()}}`,
      ),
    ],
    ['POST /transfer expires 1e20', 'POST', '/transfer', j(transferBody({ expires: 1e20 }))],
    ['POST /transfer expires float', 'POST', '/transfer', j(transferBody({ expires: inAWeek() + 0.5 }))],
    [
      'POST /transfer NUL in file name',
      'POST',
      '/transfer',
      j(transferBody({ files: [{ name: 'a\u0000.txt', size: 1 }] })),
    ],
    ['POST /transfer NUL in recipient', 'POST', '/transfer', j(transferBody({ recipients: ['r\u0000@example.org'] }))],
    ['POST /transfer overlong e-mail', 'POST', '/transfer', j(transferBody({ recipients: [longEmail] }))],
    ['POST /transfer overlong from', 'POST', '/transfer', j(transferBody({ from: longEmail }))],
    [
      'POST /transfer overlong file name',
      'POST',
      '/transfer',
      j(transferBody({ files: [{ name: 'n'.repeat(10_000), size: 1 }] })),
    ],
    [
      'POST /transfer 10,000 recipients',
      'POST',
      '/transfer',
      j(transferBody({ recipients: Array.from({ length: 10_000 }, (_, i) => `r${i}@example.org`) })),
    ],
    [
      'POST /transfer 10,000 files',
      'POST',
      '/transfer',
      j(transferBody({ files: Array.from({ length: 10_000 }, (_, i) => ({ name: `f${i}`, size: 1 })) })),
    ],
    ['POST /transfer body null', 'POST', '/transfer', raw('null')],
    ['POST /transfer body string', 'POST', '/transfer', raw('"x"')],
    ['POST /transfer body number', 'POST', '/transfer', raw('42')],
    ['POST /transfer body array', 'POST', '/transfer', raw('[]')],
    ['POST /transfer empty body', 'POST', '/transfer', raw('')],
    ['POST /transfer broken JSON', 'POST', '/transfer', raw('{"files": [')],
    ['POST /transfer deep nesting', 'POST', '/transfer', raw(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)],
    [
      'POST /transfer deep object nesting',
      'POST',
      '/transfer',
      raw(`{"files":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`),
    ],
    [
      'POST /transfer 10 MB JSON',
      'POST',
      '/transfer',
      raw(JSON.stringify(transferBody({ message: 'm'.repeat(10 * 1024 * 1024) }))),
      413,
    ],
    [
      'POST /transfer invalid UTF-8',
      'POST',
      '/transfer',
      raw(
        Buffer.concat([
          Buffer.from('{"files":[{"name":"'),
          Buffer.from([0xff, 0xfe, 0xc3]),
          Buffer.from(`","size":1}],"recipients":["r@example.org"],"from":"alice@example.org","expires":${inAWeek()}}`),
        ]),
      ),
    ],
    ['POST /transfer text/plain body', 'POST', '/transfer', raw('files=1', { 'content-type': 'text/plain' })],
    [
      'POST /transfer form body',
      'POST',
      '/transfer',
      raw('files=1&recipients=x', { 'content-type': 'application/x-www-form-urlencoded' }),
    ],
    ['POST /transfer __proto__', 'POST', '/transfer', raw(`{"__proto__":{"admin":true},"files":[],"recipients":[]}`)],
    [
      'POST /transfer SQL metacharacters',
      'POST',
      '/transfer',
      j(transferBody({ recipients: ["x'); DROP TABLE transfers;--@example.org"] })),
    ],
  );
  return c;
}

function idCases(): Case[] {
  const ids = [
    'abc',
    '-1',
    '0',
    '1.5',
    '1e3',
    '99999999999999999999',
    '%00',
    "1'%20OR%20'1'%3D'1",
    '%2e%2e%2f',
    'NaN',
    '0x10',
    '%20',
  ];
  const c: Case[] = [];
  for (const id of ids) {
    for (const [m, p] of [
      ['GET', '/transfer/:id'],
      ['PUT', '/transfer/:id'],
      ['DELETE', '/transfer/:id'],
      ['GET', '/transfer/:id/options'],
      ['GET', '/transfer/:id/auditlog'],
      ['GET', '/transfer/:id/auditlog/mail'],
      ['POST', '/transfer/:id/recipient'],
      ['GET', '/file/:id'],
      ['PUT', '/file/:id'],
      ['DELETE', '/file/:id'],
      ['PUT', '/file/:id/chunk/0'],
      ['POST', '/file/:id/whole'],
      ['GET', '/recipient/:id'],
      ['PUT', '/recipient/:id'],
      ['DELETE', '/recipient/:id'],
      ['GET', '/guest/:id'],
      ['PUT', '/guest/:id'],
      ['DELETE', '/guest/:id'],
    ] as const) {
      const init: RequestOptions =
        m === 'GET' || m === 'DELETE'
          ? { headers: alice }
          : p.includes('chunk')
            ? { headers: alice, body: Buffer.alloc(1) }
            : j({ complete: true });
      c.push([`${m} ${p} id=${id}`, m, p.replace(':id', id), init]);
    }
  }
  return c;
}

function otherCases(): Case[] {
  const t = w.transfer;
  const f = t.files[0];
  const rec = t.recipients[0];
  const chunk = (offset: string, headers: Record<string, string> = {}, body: Buffer = Buffer.alloc(5)): Case => [
    `PUT chunk offset=${offset} ${JSON.stringify(headers)}`,
    'PUT',
    `/file/${f.id}/chunk/${offset}`,
    { body, headers: { ...alice, 'content-type': 'application/octet-stream', ...headers } },
  ];
  const c: Case[] = [
    ...['-1', '1.5', 'NaN', 'abc', '1e3', '99999999999999999', '18446744073709551616', '-0', '%20', '0x0', '11'].map(
      (o) => chunk(o),
    ),
    ...['-5', 'NaN', '1.5', '1e3', 'abc', '99999999999999999999', '0x5'].flatMap((v) => [
      chunk('0', { 'X-Service-File-Size': v }),
      chunk('0', { 'X-Service-Chunk-Offset': v }),
      chunk('0', { 'X-Service-Chunk-Size': v }),
      chunk('0', { 'X-Filesender-Chunk-Size': v }),
    ]),
    chunk('0', {}, Buffer.alloc(11)),
    chunk('0', {}, Buffer.alloc(CHUNK * 3)),
    ...badValues
      .flatMap(([name, v]): Case[] => [
        [`PUT /file complete=${name}`, 'PUT', `/file/${f.id}`, j({ complete: v })],
        [`PUT /transfer complete=${name}`, 'PUT', `/transfer/${t.id}`, j({ complete: v })],
        [`PUT /transfer closed=${name}`, 'PUT', `/transfer/${t.id}`, j({ closed: v })],
        [`PUT /transfer extend_expiry_date=${name}`, 'PUT', `/transfer/${t.id}`, j({ extend_expiry_date: v })],
        [`PUT /transfer remind=${name}`, 'PUT', `/transfer/${t.id}`, j({ remind: v })],
        [`POST /transfer/:id/recipient recipient=${name}`, 'POST', `/transfer/${t.id}/recipient`, j({ recipient: v })],
        [`PUT /recipient remind=${name}`, 'PUT', `/recipient/${rec.id}`, j({ remind: v })],
        [`POST /guest recipient=${name}`, 'POST', '/guest', j({ recipient: v, from: 'alice@example.org' })],
        [`POST /guest from=${name}`, 'POST', '/guest', j({ recipient: 'g@example.org', from: v })],
        [
          `POST /guest options=${name}`,
          'POST',
          '/guest',
          j({ recipient: 'g@example.org', options: v === null ? 5 : v }),
        ],
        [
          `POST /guest transfer_options=${name}`,
          'POST',
          '/guest',
          j({ recipient: 'g@example.org', transfer_options: v === null ? 'x' : v }),
        ],
        [`POST /guest expires=${name}`, 'POST', '/guest', j({ recipient: 'g@example.org', expires: v })],
        [`PUT /guest remind=${name}`, 'PUT', `/guest/${w.guest.id}`, j({ remind: v })],
        [`PUT /user lang=${name}`, 'PUT', '/user', j({ lang: v })],
        [`PUT /user secret_rotate=${name}`, 'PUT', '/user', j({ secret_rotate: v })],
        [`PUT /config max_transfer_files=${name}`, 'PUT', '/config', j({ max_transfer_files: v }, boss)],
        [
          `PUT /config default_transfer_days_valid=${name}`,
          'PUT',
          '/config',
          j({ default_transfer_days_valid: v }, boss),
        ],
      ])
      .filter(
        ([label]) =>
          (!/=(true)$/.test(label) || /lang|config|recipient=|from=|options=|expires=/.test(label)) &&
          !/guest (from|expires)=null/.test(label) &&
          !/config .*=number/.test(label),
      ), // null = absent; 5 is a valid limit
    ['PUT /transfer body array', 'PUT', `/transfer/${t.id}`, raw('[1]')],
    ['PUT /transfer broken JSON', 'PUT', `/transfer/${t.id}`, raw('{')],
    ['PUT /file body string', 'PUT', `/file/${f.id}`, raw('"complete"')],
    ['POST recipient overlong', 'POST', `/transfer/${t.id}/recipient`, j({ recipient: longEmail })],
    ['POST recipient NUL', 'POST', `/transfer/${t.id}/recipient`, j({ recipient: 'x\u0000@example.org' })],
    [
      'POST recipient CRLF',
      'POST',
      `/transfer/${t.id}/recipient`,
      j({ recipient: 'x@example.org\r\nBcc: evil@example.org' }),
    ],
    ['POST recipient missing', 'POST', `/transfer/${t.id}/recipient`, j({})],
    ['POST /guest overlong', 'POST', '/guest', j({ recipient: longEmail })],
    ['POST /guest CRLF', 'POST', '/guest', j({ recipient: 'g@example.org\r\nBcc: evil@example.org' })],
    ['POST /guest missing', 'POST', '/guest', j({})],
    ['POST /guest bad option', 'POST', '/guest', j({ recipient: 'g@example.org', options: ['nope'] })],
    [
      'POST /guest 10 MB',
      'POST',
      '/guest',
      raw(JSON.stringify({ recipient: 'g@example.org', message: 'm'.repeat(10 * 1024 * 1024) })),
      413,
    ],
    ['PUT /user unknown lang', 'PUT', '/user', j({ lang: 'xx-evil' })],
    ['PUT /user/:id of nobody', 'PUT', '/user/nobody', j({ lang: 'fr' }, boss)],
    ['PUT /config unknown key', 'PUT', '/config', j({ data_dir: '/tmp' }, boss)],
    ['PUT /config negative', 'PUT', '/config', j({ max_transfer_files: -1 }, boss)],
    ['PUT /config body array', 'PUT', '/config', raw('[]', boss)],
    ['GET /download no token', 'GET', '/download', asJson],
    dl('GET /download bad token', "token=x'%20OR%201=1--"),
    dl('GET /download long token', `token=${'a'.repeat(5000)}`),
    dl('GET /download token array', `token=${w.token}&token=${w.token}`),
    dl('GET /download files_ids junk', `token=${w.token}&files_ids=1,abc`),
    dl('GET /download files_ids negative', `token=${w.token}&files_ids=-1`),
    dl('GET /download files_ids other', `token=${w.token}&files_ids=${f.id}`),
    dl('GET /download archive rar', `token=${w.token}&archive_format=rar`),
    [
      'GET /download bad range',
      'GET',
      `/download?token=${w.token}`,
      { headers: { accept: 'application/json', range: 'bytes=999999-' } },
      416,
    ],
    ['GET /info bad callback', 'GET', '/info?callback=alert(1)', {}],
    ['GET /info callback script', 'GET', '/info?callback=%3Cscript%3E', {}],
    ['GET /info callback array', 'GET', '/info?callback=a&callback=b', {}],
    ['POST /echo callback', 'POST', '/echo?callback=a', j({})],
    ['GET /user/:id of nobody', 'GET', '/user/nobody', { headers: boss }],
    ['GET /nowhere', 'GET', '/nowhere', {}],
    ['PATCH /transfer', 'PATCH', '/transfer', j({})],
    ['GET /transfer?vid=junk', 'GET', '/transfer?vid=%27%20OR%201%3D1', {}],
    ['POST /transfer as guest with junk vid', 'POST', '/transfer?vid=x', j(transferBody({}), {})],
  ];
  return c;
}

async function runCases(cases: Case[]) {
  // The world's own mail is delivered first: the queue worker marking it sent is no change made by a case.
  await s.app.services.mailQueue.flush();
  const before = await dbHash(s);
  const failures: string[] = [];
  for (const [label, method, path, init, status] of cases) {
    if (process.env.ADV_TRACE) console.log(label);
    let r;
    try {
      r = await s.request(method, path, init);
    } catch (e) {
      failures.push(`${label}: request failed ${(e as Error).message}`);
      continue;
    }
    if (r.status < 400 || r.status >= 500 || (status && r.status !== status)) {
      failures.push(`${label}: ${r.status} ${r.text.slice(0, 160)}`);
      continue;
    }
    try {
      assertErrorShape(r, label);
    } catch (e) {
      failures.push((e as Error).message);
    }
  }
  if (process.env.ADV_TRACE) console.log('info');
  assert.is((await s.request('GET', '/info')).status, 200, 'server still up');
  if (process.env.ADV_TRACE) console.log('failures', failures);
  assert.equal(failures, []);
  assert.is(await dbHash(s), before, 'no table changed');
  return cases.length;
}

test('POST /transfer: wrong types, missing fields, huge numbers, NaN, NUL, invalid UTF-8, 10 MB, deep nesting, 10,000 recipients', async () => {
  const n = await runCases(transferCases());
  assert.ok(n > 100);
});

test('every id-taking endpoint refuses ids that are not positive integers', async () => {
  await runCases(idCases());
});

test('chunk offsets and X-Service headers, flags, recipients, guests, user, config, download, JSONP', async () => {
  await runCases(otherCases());
});

test.run();
