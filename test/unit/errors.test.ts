import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { Errors, ServiceError } from '../../src/domain/errors';

// The error catalogue is the one place a message id meets its HTTP status. Clients tell errors apart by
// (status, id), so the catalogue must agree with the design's table of statuses, and no other code may
// pair an id with a status of its own.

/** docs/architecture.md, Errors, status by message id: the statuses clients are promised. */
const DESIGN_TABLE: Record<number, string[]> = {
  400: ['rest_missing_parameter', 'rest_bad_parameter', 'rest_sanity_check_failed', 'bad_request_body', 'bad_email', 'bad_expire', 'transfer_no_files', 'transfer_no_recipients', 'transfer_too_many_files', 'transfer_too_many_recipients', 'transfer_maximum_size_exceeded', 'bad_option_name', 'bad_lang_code', 'file_chunk_out_of_bounds',
    // End-to-end encryption: design.md §3 names transfer_must_be_encrypted (encryption_mandatory); the other two
    // are a disabled feature and an archive the server cannot build, both the client's request to change.
    'transfer_must_be_encrypted', 'encryption_not_enabled', 'encrypted_files_not_archivable'],
  401: ['rest_authentication_required', 'auth_remote_signature_check_failed', 'auth_remote_too_late', 'auth_remote_unknown_application', 'auth_remote_user_rejected', 'guest_token_invalid'],
  403: ['rest_ownership_required', 'rest_admin_required', 'rest_security_token_did_not_match', 'rest_access_forbidden', 'rest_roundtrip_token_invalid',
    // Account management from the web (README, Administration): an admin acting on their own account, and a
    // wrong current password when changing one's own.
    'user_cannot_change_self', 'user_password_incorrect'],
  404: ['transfer_not_found', 'file_not_found', 'recipient_not_found', 'guest_not_found', 'user_not_found', 'rest_endpoint_not_found'],
  405: ['rest_method_not_allowed', 'rest_jsonp_get_only'],
  409: ['cannot_add_data_to_complete_transfer', 'cannot_alter_closed_transfer', 'file_incomplete', 'transfer_files_incomplete', 'transfer_expiry_extension_count_exceeded', 'transfer_not_available', 'guest_closed',
    // An admin adding an account whose id is taken (the web form never overwrites one).
    'user_exists'],
  410: ['transfer_expired', 'transfer_closed', 'guest_expired',
    // A recipient's link the sender withdrew: said as such on the download page, not as an unknown transfer.
    'recipient_withdrawn'],
  413: ['storage_chunk_too_large', 'request_body_too_large', 'transfer_user_quota_exceeded', 'transfer_host_quota_exceeded'],
  416: ['range_not_satisfiable'],
  429: ['rate_limit_exceeded'],
  500: ['internal_error'],
  503: ['storage_unavailable', 'database_unavailable'],
  507: ['storage_not_enough_space_left'],
};
const designStatus = new Map(Object.entries(DESIGN_TABLE).flatMap(([status, ids]) => ids.map((id) => [id, Number(status)] as const)));
const entries = Object.entries(Errors);

test('every catalogue entry has the status the design gives its id', () => {
  assert.ok(entries.length >= 40, `only ${entries.length} entries`);
  for (const [name, e] of entries) {
    assert.ok(designStatus.has(e.id), `${name}: ${e.id} is not in the design's table`);
    assert.is(e.status, designStatus.get(e.id), `${name}: ${e.id}`);
  }
});

test('ids are unique, and each entry is named after its id', () => {
  const ids = entries.map(([, e]) => e.id);
  assert.is(new Set(ids).size, ids.length, `duplicate ids: ${ids.filter((id, i) => ids.indexOf(id) !== i).join(', ')}`);
  for (const [name, e] of entries) assert.is(name, e.id.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));
});

test('an entry makes a ServiceError with its id and status; no details is null, as in the spec body', () => {
  const bare = Errors.transferNotFound();
  assert.instance(bare, ServiceError);
  assert.equal([bare.id, bare.message, bare.status, bare.details], ['transfer_not_found', 'transfer_not_found', 404, null]);
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

test.run();
