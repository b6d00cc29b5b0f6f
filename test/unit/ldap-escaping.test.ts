import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { escapeDn, escapeFilter } from '../../src/auth/providers/ldap/provider';

// A user name reaches an LDAP filter and a DN only escaped (RFC 4515 and RFC 4514), so no name can widen a
// search or name another entry (test/http/auth-ldap.test.ts tries them against a real slapd).

test('filter values: *, (, ), \\ and NUL become \\hh (RFC 4515 section 3 examples)', () => {
  assert.is(escapeFilter('*)(uid=*'), '\\2a\\29\\28uid=\\2a');
  assert.is(
    escapeFilter('Parens R Us (for all your parenthetical needs)'),
    'Parens R Us \\28for all your parenthetical needs\\29',
  );
  assert.is(escapeFilter('C:\\MyFile'), 'C:\\5cMyFile');
  assert.is(escapeFilter('a\x00b'), 'a\\00b');
  assert.is(escapeFilter('alice'), 'alice');
});

test('DN values: , + " \\ < > ; = escaped, a leading space or # and a trailing space too (RFC 4514)', () => {
  assert.is(escapeDn('alice,ou=admins'), 'alice\\,ou\\=admins');
  assert.is(escapeDn('a+b"c\\d<e>f;g'), 'a\\+b\\"c\\\\d\\<e\\>f\\;g');
  assert.is(escapeDn('#hash'), '\\#hash');
  assert.is(escapeDn(' lead and trail '), '\\ lead and trail\\ ');
  assert.is(escapeDn('alice'), 'alice');
});

test.run();
