import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { type ErrorEntry, Errors, isError, retryAfter, retryAfterOf, ServiceError } from '../../src/domain/errors';
import { ownTable } from '../../src/i18n';

// The error catalogue is the one place a message id meets its HTTP status. Clients tell errors apart by
// (status, id), so the catalogue must agree with the design's table of statuses, and no other code may
// pair an id with a status of its own.

/**
 * The statuses the design promises clients for its ids (docs/architecture.md, Errors): a contract, so it is
 * written out here. Every other check below is built from the catalogue itself, so an id added to it needs no
 * change to this file, only a status of the design's and a text in every language.
 */
const DESIGN_TABLE: Record<number, string[]> = {
  400: [
    'rest_missing_parameter',
    'rest_bad_parameter',
    'rest_sanity_check_failed',
    'bad_request_body',
    'bad_email',
    'bad_expire',
    'transfer_no_files',
    'transfer_no_recipients',
    'transfer_too_many_files',
    'transfer_too_many_recipients',
    'transfer_maximum_size_exceeded',
    'bad_option_name',
    'bad_lang_code',
    'file_chunk_out_of_bounds',
  ],
  401: [
    'rest_authentication_required',
    'auth_remote_signature_check_failed',
    'auth_remote_too_late',
    'auth_remote_unknown_application',
    'auth_remote_user_rejected',
    'guest_token_invalid',
  ],
  403: ['rest_ownership_required', 'rest_admin_required', 'rest_security_token_did_not_match', 'rest_access_forbidden'],
  404: [
    'transfer_not_found',
    'file_not_found',
    'recipient_not_found',
    'guest_not_found',
    'user_not_found',
    'rest_endpoint_not_found',
  ],
  405: ['rest_method_not_allowed', 'rest_jsonp_get_only'],
  409: [
    'cannot_add_data_to_complete_transfer',
    'cannot_alter_closed_transfer',
    'file_incomplete',
    'transfer_files_incomplete',
    'transfer_expiry_extension_count_exceeded',
    'transfer_not_available',
    'guest_closed',
  ],
  410: ['transfer_expired', 'transfer_closed', 'guest_expired'],
  413: [
    'storage_chunk_too_large',
    'request_body_too_large',
    'transfer_user_quota_exceeded',
    'transfer_host_quota_exceeded',
  ],
  416: ['range_not_satisfiable'],
  429: ['rate_limit_exceeded'],
  500: ['internal_error'],
  // An identity provider (a directory, an OpenID provider) that cannot be reached: docs/single-sign-on.md.
  503: ['storage_unavailable', 'database_unavailable', 'login_provider_unavailable'],
  507: ['storage_not_enough_space_left'],
};
const entries = Object.entries(Errors);
const byId = new Map<string, ErrorEntry>(entries.map(([, e]) => [e.id, e]));
// Each language's own texts (mail's and the pages' under the core's, as src/i18n/index.ts lays them), without
// the fallback to English that a reader gets.
const LANGS: Record<string, Record<string, string>> = Object.fromEntries(
  ['en', 'fr', 'de', 'nl'].map((l) => [l, ownTable(l)]),
);

test("an id the design names has the design's status in the catalogue", () => {
  let named = 0;
  for (const [status, ids] of Object.entries(DESIGN_TABLE)) {
    for (const id of ids.filter((x) => byId.has(x))) {
      named++;
      assert.is(byId.get(id)!.status, Number(status), id);
    }
  }
  assert.ok(named >= 45, `only ${named} of the design's ids are in the catalogue`);
});

test("every catalogue entry has one of the design's statuses, and its class fits its kind", () => {
  const statuses = new Set(Object.keys(DESIGN_TABLE).map(Number));
  assert.ok(entries.length >= 40, `only ${entries.length} entries`);
  for (const [name, e] of entries) {
    assert.ok(statuses.has(e.status), `${name}: ${e.id} has status ${e.status}, which the design does not use`);
    if (e.id.endsWith('_not_found')) assert.is(e.status, 404, e.id);
    if (e.id.endsWith('_unavailable')) assert.is(e.status, 503, e.id);
  }
});

test('every catalogue id has a text for users in English, French, German and Dutch', () => {
  const missing: string[] = [];
  for (const [lang, table] of Object.entries(LANGS)) {
    for (const [, e] of entries)
      if (typeof table[e.id] !== 'string' || table[e.id].trim() === '' || table[e.id] === e.id)
        missing.push(`${lang}: ${e.id}`);
  }
  assert.equal(missing, [], missing.join('\n'));
});

test('ids are unique, and each entry is named after its id', () => {
  const ids = entries.map(([, e]) => e.id);
  assert.is(new Set(ids).size, ids.length, `duplicate ids: ${ids.filter((id, i) => ids.indexOf(id) !== i).join(', ')}`);
  for (const [name, e] of entries)
    assert.is(
      name,
      e.id.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
    );
});

test('an entry makes a ServiceError with its id and status; no details is null, as in the spec body', () => {
  const bare = Errors.transferNotFound();
  assert.instance(bare, ServiceError);
  assert.equal(
    [bare.id, bare.message, bare.status, bare.details],
    ['transfer_not_found', 'transfer_not_found', 404, null],
  );
  const named = Errors.badEmail('recipients[2]', 'from');
  assert.equal([named.id, named.status, named.details], ['bad_email', 400, ['recipients[2]', 'from']]);
});

/** Every .ts file under src/, recursively. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return sources(p);
    return /\.tsx?$/.test(d.name) ? [p] : [];
  });
}

test('no code outside the catalogue pairs an id with a literal status', () => {
  const root = path.resolve(__dirname, '../../src');
  const catalogue = path.join(root, 'domain', 'errors.ts');
  const offenders: string[] = [];
  let sites = 0;
  for (const file of sources(root)) {
    if (file === catalogue) continue;
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/new ServiceError\(\s*([^,]*),\s*([^,)]*)/g)) {
      sites++;
      // A literal id or a literal status means the pair is written outside the catalogue.
      if (/^['"`]/.test(m[1].trim()) || /^\d/.test(m[2].trim())) {
        const line = text.slice(0, m.index).split('\n').length;
        offenders.push(`${path.relative(root, file)}:${line}: ${m[0]}`);
      }
    }
  }
  assert.equal(offenders, [], offenders.join('\n'));
  assert.ok(sites <= 2, `${sites} direct constructions: only the relay of a library's own status may build one`);
});

test('typed checks: isError names the entry, retry_after round-trips through the details', () => {
  const e = Errors.rateLimitExceeded(retryAfter(41.2));
  assert.ok(isError(e, Errors.rateLimitExceeded));
  assert.not.ok(isError(e, Errors.transferExpired));
  assert.not.ok(isError(new Error('rate_limit_exceeded'), Errors.rateLimitExceeded));
  assert.equal(e.details, ['retry_after=42']);
  assert.is(retryAfterOf(e), 42);
  assert.is(retryAfterOf(Errors.rateLimitExceeded()), null);
});

test.run();
