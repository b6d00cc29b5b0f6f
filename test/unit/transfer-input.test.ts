import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isEmail, latestExpiry, parseRecipients, parseTransferInput } from '../../src/domain/transfer-input';
import { parseOptions, TRANSFER_OPTIONS } from '../../src/domain/options';
import { isSafeRelativeName } from '../../src/domain/file-names';
import { ServiceError } from '../../src/domain/errors';

// The pure rules of POST /transfer: field checks, limits, options, addresses, the expiry window.
const NOW = 1_800_000_000; // 2027-01-15 08:00:00 UTC
const LIMITS = { maxDays: 20, maxSize: 1000, maxFiles: 2, maxRecipients: 2 };
const body = (over: Record<string, unknown> = {}) => ({
  files: [{ name: 'a', size: 1 }],
  recipients: ['r@example.org'],
  from: 'me@example.org',
  expires: NOW + 86400,
  ...over,
});

function refused(over: Record<string, unknown>): [string, number, unknown] {
  try {
    parseTransferInput(body(over), LIMITS, NOW);
  } catch (e) {
    assert.instance(e, ServiceError);
    const s = e as ServiceError;
    return [s.message, s.status, s.details];
  }
  throw new Error(`accepted: ${JSON.stringify(over)}`);
}

test('a good body becomes a draft: file fields, options in canonical order, null for empty texts', () => {
  const d = parseTransferInput(
    body({
      files: [{ name: 'ü 文件.txt', size: 0, mime_type: 'text/plain', cid: 'c1' }],
      options: ['get_a_link', 'email_me_copies'],
      subject: '',
      message: 'm',
    }),
    LIMITS,
    NOW,
  );
  assert.equal(d.files, [{ name: 'ü 文件.txt', size: 0, mimeType: 'text/plain', cid: 'c1' }]);
  assert.equal(d.options, ['email_me_copies', 'get_a_link']);
  assert.equal([d.subject, d.message, d.from, d.expires], [null, 'm', 'me@example.org', NOW + 86400]);
});

test('each broken rule names its id, status and field', () => {
  assert.equal(refused({ files: [] }), ['transfer_no_files', 400, ['files']]);
  assert.equal(
    refused({
      files: [
        { name: 'a', size: 1 },
        { name: 'b', size: 1 },
        { name: 'c', size: 1 },
      ],
    }),
    ['transfer_too_many_files', 400, ['files']],
  );
  assert.equal(
    refused({
      files: [
        { name: 'a', size: 600 },
        { name: 'b', size: 401 },
      ],
    }),
    ['transfer_maximum_size_exceeded', 400, ['files']],
  );
  assert.equal(refused({ files: [{ name: 'a\0b', size: 1 }] }), ['rest_bad_parameter', 400, ['files[0].name']]);
  assert.equal(refused({ files: [{ name: 'a', size: Number.MAX_SAFE_INTEGER + 2 }] }), [
    'rest_bad_parameter',
    400,
    ['files[0].size'],
  ]);
  assert.equal(refused({ recipients: ['a@example.org', 'b@example.org', 'c@example.org'] }), [
    'transfer_too_many_recipients',
    400,
    ['recipients'],
  ]);
  assert.equal(refused({ recipients: ['a@example.org', 'a b@example.org'] }), ['bad_email', 400, ['recipients[1]']]);
  assert.equal(refused({ options: ['email_me_copies', 'bogus'] }), ['bad_option_name', 400, ['options[1]']]);
  assert.equal(refused({ expires: NOW }), ['bad_expire', 400, ['expires']]);
  assert.equal(refused({ expires: latestExpiry(NOW, 20) + 1 }), ['bad_expire', 400, ['expires']]);
  assert.equal(refused({ expires: 'soon' }), ['bad_expire', 400, ['expires']]);
  assert.equal(refused({ from: 'not an address' }), ['bad_email', 400, ['from']]);
});

test('limits reached exactly and the last second of the last allowed day are accepted', () => {
  const last = latestExpiry(NOW, 20);
  assert.is(last % 86400, 86399, 'the end of a UTC day');
  assert.ok(last >= NOW + 20 * 86400 && last < NOW + 21 * 86400);
  const d = parseTransferInput(
    body({
      files: [
        { name: 'a', size: 500 },
        { name: 'b', size: 500 },
      ],
      recipients: ['a@example.org', 'b@example.org'],
      expires: String(last),
    }),
    LIMITS,
    NOW,
  );
  assert.equal([d.files.length, d.recipients.length, d.expires], [2, 2, last]);
});

test('addresses: usual forms pass; control characters, spaces, missing parts and over-long ones do not', () => {
  for (const ok of [
    'a@example.org',
    'first.last+tag@sub.example.co.uk',
    "o'brien@example.ie",
    'x@xn--bcher-kva.example',
  ])
    assert.ok(isEmail(ok), ok);
  for (const bad of [
    '',
    'a',
    'a@',
    '@example.org',
    'a@example',
    'a b@example.org',
    'a\n@example.org',
    'a\x7f@example.org',
    'a@exa_mple.org',
    `${'a'.repeat(65)}@example.org`,
    'a@-example.org',
    'a@example.org.',
    12,
  ]) {
    assert.not.ok(isEmail(bad), JSON.stringify(bad));
  }
  assert.equal(
    parseRecipients(['A@example.org', 'a@EXAMPLE.org', 'b@example.org'], 5),
    ['A@example.org', 'b@example.org'],
    'one per address, first spelling kept',
  );
});

test('options: names, the object form that can turn a default off, and refusals naming the option', () => {
  assert.equal(parseOptions(undefined, 'options', TRANSFER_OPTIONS, ['email_upload_complete']), [
    'email_upload_complete',
  ]);
  assert.equal(
    parseOptions({ email_upload_complete: false, get_a_link: true }, 'options', TRANSFER_OPTIONS, [
      'email_upload_complete',
    ]),
    ['get_a_link'],
  );
  assert.throws(
    () => parseOptions({ get_a_link: 'yes' }, 'options', TRANSFER_OPTIONS, []),
    (e: ServiceError) => e.message === 'rest_bad_parameter',
  );
  assert.throws(
    () => parseOptions({ nope: true }, 'options', TRANSFER_OPTIONS, []),
    (e: ServiceError) => e.message === 'bad_option_name' && e.details?.[0] === 'options.nope',
  );
  assert.throws(
    () => parseOptions('get_a_link', 'options', TRANSFER_OPTIONS, []),
    (e: ServiceError) => e.message === 'rest_bad_parameter',
  );
});

test("options in FileSender's object form: 1 and 0 as true and false; a name set to false, 0 or null is not set, even an unknown one", () => {
  const on = ['email_upload_complete'];
  assert.equal(parseOptions({ get_a_link: 0 }, 'options', TRANSFER_OPTIONS, []), []);
  assert.equal(parseOptions({ get_a_link: 1, email_upload_complete: 0 }, 'options', TRANSFER_OPTIONS, on), [
    'get_a_link',
  ]);
  assert.equal(
    parseOptions(
      { email_upload_complete: null, not_ours: false, other: 0, third: null },
      'options',
      TRANSFER_OPTIONS,
      on,
    ),
    [],
  );
  assert.throws(
    () => parseOptions({ not_ours: 1 }, 'options', TRANSFER_OPTIONS, []),
    (e: ServiceError) => e.message === 'bad_option_name' && e.details?.[0] === 'options.not_ours',
  );
  for (const v of [2, -1, 'true', '1', [], {}]) {
    assert.throws(
      () => parseOptions({ get_a_link: v }, 'options', TRANSFER_OPTIONS, []),
      (e: ServiceError) => e.message === 'rest_bad_parameter',
      JSON.stringify(v),
    );
  }
});

test('folder paths in file names: kept when they stay inside the folder they are unpacked into', () => {
  for (const ok of [
    'a.txt',
    'photos/2026/a.jpg',
    'a b/c d.txt',
    '...',
    '.hidden/x',
    'a..b/c..',
    'x/y:z',
    'é/文件.txt',
    'a\\b.txt',
  ]) {
    assert.ok(isSafeRelativeName(ok), ok);
  }
  const refused = [
    '..',
    '.',
    '../a',
    'a/../b',
    'a/..',
    '/a',
    '/',
    'a/',
    'a//b',
    'a/./b',
    './a',
    ' /a',
    'a/ /b',
    'a/\t/b',
    'C:a',
    'c:\\x',
    'C:/x',
    '\\\\srv\\share',
    '..\\a',
    'a\\..\\b',
    'a\\',
  ];
  for (const bad of refused) assert.not.ok(isSafeRelativeName(bad), JSON.stringify(bad));
});

test.run();
